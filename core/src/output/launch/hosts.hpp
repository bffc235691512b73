// The processes of a launch: nodes, GPUs per node, and (for a mixed cluster) which hosts of
// which GPU type take which ranks. Every target puts pipeline parallelism on the slowest rank
// axis (Megatron's tp-cp-ep-dp-pp order, DeepSpeed's ['pipe','data','model'], torchtitan's mesh
// ["pp", ...], Colossal-AI with dp_outside=False; launch-targets.md section 1), so stage s owns
// global ranks [s * W / PP, (s + 1) * W / PP).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paraplan/scenario.hpp"

namespace paraplan::detail {

struct HostGroup {
  int pool = 0;     // cluster pool (GPU type)
  std::string gpu;  // its id
  int64_t first_stage = 0, end_stage = 0;
  int64_t first_rank = 0, end_rank = 0;
  int64_t first_node = 0, end_node = 0;
};

struct Hosts {
  int64_t num_gpus = 0;
  int64_t nproc_per_node = 0;
  int64_t num_nodes = 0;
  std::vector<HostGroup> groups;  // in rank order
};

Hosts plan_hosts(const Strategy& strategy, const Scenario& scenario, int64_t data_parallel_size);

// "# h100 hosts: NODE_RANK 0-15 (global ranks 0-127, pipeline stages 0-1)".
std::string host_comment(const HostGroup& group, const Hosts& hosts);

// The start of a torchrun line with the rendezvous placeholders.
std::string torchrun(const Hosts& hosts);

// One line per host type: comment, then `[env_for(group)]torchrun ... program_for(group)`.
template <typename ProgramFor, typename EnvFor>
std::string torchrun_lines(const Hosts& hosts, ProgramFor program_for, EnvFor env_for) {
  std::string text;
  for (const HostGroup& group : hosts.groups) {
    text += host_comment(group, hosts) + "\n" + env_for(group) + torchrun(hosts) + " " +
            program_for(group) + "\n";
  }
  return text;
}
template <typename ProgramFor>
std::string torchrun_lines(const Hosts& hosts, ProgramFor program_for) {
  return torchrun_lines(hosts, program_for, [](const HostGroup&) { return std::string(); });
}

// `export NNODES=... MASTER_ADDR... MASTER_PORT...` and the host order for a mixed cluster.
std::string rendezvous_environment(const Hosts& hosts);

std::string join(const std::vector<std::string>& words, std::string_view separator = " ");

}  // namespace paraplan::detail
