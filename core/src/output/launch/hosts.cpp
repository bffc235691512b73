#include "output/launch/hosts.hpp"

#include <algorithm>

#include "model/number_text.hpp"

namespace paraplan::detail {

Hosts plan_hosts(const Strategy& s, const Scenario& scenario, int64_t data_parallel_size) {
  Hosts hosts;
  const int64_t stage_gpus = s.gpus_per_stage(std::max<int64_t>(1, data_parallel_size));
  const int64_t stages = s.pipeline_model_parallel_size;
  hosts.num_gpus = stage_gpus * stages;
  hosts.nproc_per_node =
      std::max<int64_t>(1, std::min(scenario.cluster.gpus_per_node, hosts.num_gpus));
  hosts.num_nodes = (hosts.num_gpus + hosts.nproc_per_node - 1) / hosts.nproc_per_node;
  for (int64_t stage = 0; stage < stages; ++stage) {
    const int pool =
        s.pipeline_stage_gpus.empty() ? 0 : s.pipeline_stage_gpus[static_cast<size_t>(stage)];
    if (hosts.groups.empty() || hosts.groups.back().pool != pool) {
      HostGroup group;
      group.pool = pool;
      group.gpu = scenario.cluster.pools[static_cast<size_t>(pool)].gpu.id;
      group.first_stage = stage;
      group.first_rank = stage * stage_gpus;
      hosts.groups.push_back(group);
    }
    hosts.groups.back().end_stage = stage + 1;
    hosts.groups.back().end_rank = (stage + 1) * stage_gpus;
  }
  for (HostGroup& group : hosts.groups) {
    group.first_node = group.first_rank / hosts.nproc_per_node;
    group.end_node = (group.end_rank + hosts.nproc_per_node - 1) / hosts.nproc_per_node;
  }
  return hosts;
}

namespace {
std::string range(int64_t first, int64_t end) {
  return end - first == 1 ? std::to_string(first)
                          : std::to_string(first) + "-" + std::to_string(end - 1);
}
}  // namespace

std::string host_comment(const HostGroup& g, const Hosts& hosts) {
  return "# " + g.gpu + " hosts: NODE_RANK " + range(g.first_node, g.end_node) + " of " +
         std::to_string(hosts.num_nodes) + " (global ranks " + range(g.first_rank, g.end_rank) +
         ", pipeline stage" + (g.end_stage - g.first_stage > 1 ? "s " : " ") +
         range(g.first_stage, g.end_stage) + ")";
}

std::string torchrun(const Hosts& hosts) {
  return "torchrun --nnodes $NNODES --nproc-per-node " + std::to_string(hosts.nproc_per_node) +
         " --node-rank $NODE_RANK --master-addr $MASTER_ADDR --master-port $MASTER_PORT";
}

std::string rendezvous_environment(const Hosts& hosts) {
  std::string text = "# Set NODE_RANK on each host and MASTER_ADDR to the host with NODE_RANK 0.\n";
  if (hosts.groups.size() > 1) {
    text +=
        "# Mixed cluster: pipeline stages run on GPU types by rank order (pipeline parallelism "
        "is the slowest rank axis), so give each host type the NODE_RANKs below.\n";
  }
  text += "export NNODES=" + std::to_string(hosts.num_nodes) +
          " MASTER_ADDR=${MASTER_ADDR:?host with NODE_RANK 0} MASTER_PORT=${MASTER_PORT:-6000}\n";
  return text;
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += separator;
    text += word;
  }
  return text;
}

}  // namespace paraplan::detail
