// Speed of the model and the search, single-threaded. Prints numbers; asserts nothing.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "paraplan/estimate.hpp"
#include "paraplan/search.hpp"

using namespace paraplan;
using Clock = std::chrono::steady_clock;

namespace {

Scenario job(const std::string& model, const nlohmann::json& gpus, int64_t num_gpus, int64_t batch,
             int64_t seq) {
  return parse_scenario({{"model", model},
                         {"training", {{"global_batch_size", batch}, {"seq_length", seq}}},
                         {"cluster", {{"gpus", gpus}, {"num_gpus", num_gpus}}}});
}

void bench_search(const char* name, const Scenario& scenario) {
  SearchOptions options;
  options.top = 10;
  options.time_budget_s = 600;
  const SearchResult result = search(scenario, options);
  const SearchStats& s = result.stats;
  std::printf("%-44s %8.3f s  space %9lld  evaluated %8lld  pruned %9lld  %6.0f ns/evaluation\n",
              name, s.seconds, static_cast<long long>(s.space), static_cast<long long>(s.evaluated),
              static_cast<long long>(s.pruned), 1e9 * s.seconds / static_cast<double>(s.evaluated));
  if (!result.strategies.empty()) {
    const Report& best = result.strategies.front().report;
    std::printf("%-44s best: %.1f tokens/s/GPU, %.3f s/iteration, MFU %.3f\n", "",
                best.tokens_per_s_per_gpu, best.iteration_time_s, best.mfu);
  }
}

// Full estimates (report included) of the strategies a search returns, repeated.
void bench_estimate(const Scenario& scenario) {
  SearchOptions options;
  options.top = 100;
  const SearchResult result = search(scenario, options);
  Estimator estimator(scenario.model, scenario.training, scenario.cluster);
  const int rounds = 200;
  double sink = 0;
  const auto start = Clock::now();
  for (int round = 0; round < rounds; ++round) {
    for (const RankedStrategy& ranked : result.strategies) {
      sink += estimator.estimate(ranked.strategy).iteration_time_s;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double count = static_cast<double>(rounds) * static_cast<double>(result.strategies.size());
  std::printf("%-44s %8.0f ns/estimate (full report, %g estimates; checksum %.3g)\n",
              "estimate llama2-70b, 256 a800", 1e9 * seconds / count, count, sink);
}

}  // namespace

int main() {
  const Scenario example1 = job("llama2-70b", {{{"type", "a800"}, {"count", 256}}}, 256, 512, 4096);
  const Scenario example2 =
      job("llama2-70b", {{{"type", "a800"}, {"count", 128}}, {{"type", "h800"}, {"count", 160}}},
          256, 512, 4096);
  const Scenario gpt3 = job("gpt3-175b", {{{"type", "a100"}, {"count", 512}}}, 512, 1536, 2048);
  const Scenario three_types = job("llama3.1-405b",
                                   {{{"type", "a800"}, {"count", 512}},
                                    {{"type", "h800"}, {"count", 512}},
                                    {{"type", "h100"}, {"count", 512}}},
                                   1536, 2048, 8192);
  const Scenario deepseek =
      job("deepseek-v3", {{{"type", "h100"}, {"count", 1024}}}, 1024, 8192, 4096);
  std::printf("Paraplan benchmarks (single thread)\n");
  bench_estimate(example1);
  bench_search("search AIAK example 1: llama2-70b 256 a800", example1);
  bench_search("search AIAK example 2: a800:128,h800:160", example2);
  bench_search("search gpt3-175b, 512 a100, GBS 1536", gpt3);
  bench_search("search llama3.1-405b, a800+h800+h100:512 each", three_types);
  bench_search("search deepseek-v3 (MoE, MLA), 1024 h100", deepseek);
  return 0;
}
