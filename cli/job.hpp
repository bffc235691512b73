// The job flags that search, scaling and sweep share: the AIAK-style job (or a scenario file)
// and the search options, parsed identically by each command.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "paraplan/limits.hpp"
#include "paraplan/scenario.hpp"
#include "paraplan/search.hpp"

namespace paraplan::cli {

// The job flags and search options, for a command's --help.
extern const char* const kJobUsage;

struct JobOptions {
  std::optional<std::string> scenario_path;
  std::map<std::string, std::string> job;  // AIAK flags, by flag
  double time_budget_s = limits::kDefaultTimeBudgetS;
  bool tp_across_nodes = false;
  bool all_variants = false;  // rank every variant, not only the best of each layout
  MemoryMargin memory_margin;
};

// When args[i] is a job flag, a search option or the scenario path, takes it (and its value,
// advancing i) into `options` and returns true.
bool take_job_flag(const std::vector<std::string>& args, size_t& i, JobOptions& options);

// After all flags: a scenario file and job flags together are an error.
void check_job(const JobOptions& options);

// The scenario document: the file's, or the one the job flags describe.
nlohmann::json job_scenario(const JobOptions& options);

// Parses a scenario document of the job; errors about one built from flags name the flag.
Scenario parse_job_scenario(const JobOptions& options, const nlohmann::json& document);

// The search options the flags give.
SearchOptions job_search_options(const JobOptions& options);

// The value after the flag args[i], advancing i; a flag without one is an error naming it.
const std::string& flag_value(const std::vector<std::string>& args, size_t& i);

int64_t integer_flag(const std::string& flag, const std::string& text, int64_t min, int64_t max);
double number_flag(const std::string& flag, const std::string& text, double min, double max);

// Runs `work(i)` for i in [0, count) on up to hardware_concurrency threads (`threads` > 0:
// that many); the first exception a call throws is rethrown after all threads stop.
void parallel_for(size_t count, int threads, const std::function<void(size_t)>& work);

}  // namespace paraplan::cli
