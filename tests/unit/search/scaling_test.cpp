// Scaling series and hardware sweeps: sizes and their errors, scaled scenarios (a mixed cluster
// keeps its mix, weak scaling grows the batch), cliffs, sweep parameters, grids and shards.
#include "paraplan/scaling.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "paraplan/errors.hpp"
#include "paraplan/sweep.hpp"

using namespace paraplan;

namespace {

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

const nlohmann::json kMixed = nlohmann::json::parse(R"({
  "model": "llama2-70b",
  "training": {"global_batch_size": 512, "seq_length": 4096},
  "cluster": {"gpus": [{"type": "a800", "count": 128}, {"type": "h800", "count": 160}],
              "num_gpus": 256}})");

}  // namespace

TEST_CASE("scaling sizes: every step from the start to the end, errors naming the field") {
  CHECK(scaling_sizes({8, 40, 8, false}) == std::vector<int64_t>{8, 16, 24, 32, 40});
  CHECK(scaling_sizes({8, 45, 8, false}) == std::vector<int64_t>{8, 16, 24, 32, 40});
  CHECK(scaling_sizes({8, 8, 8, false}) == std::vector<int64_t>{8});
  CHECK(scaling_sizes({8, 4096, 8, false}).size() == 512);
  const ScalingNames flags{"--from", "--to", "--step", "--weak"};
  CHECK(error_of([&] {
          scaling_sizes({16, 8, 8, false}, flags);
        }) == "--to: the range is empty: 8 is below the start 16");
  CHECK(error_of([&] {
          scaling_sizes({8, 16, 0, false}, flags);
        }).rfind("--step: expected", 0) == 0);
  CHECK(error_of([&] {
          scaling_sizes({0, 16, 8, false});
        }).rfind("scaling.from: expected", 0) == 0);
  CHECK(error_of([&] {
          scaling_sizes({1, 5000, 1, false}, flags);
        }) ==
        "--step: the range from 1 to 5000 in steps of 1 has 5000 points; at most 4096 are "
        "searched (raise the step)");
  CHECK(error_of([&] { scaling_sizes({1, 4096, 1, false}, flags); }).empty());
}

TEST_CASE("a scaled mixed cluster keeps its mix in whole hosts; weak scaling grows the batch") {
  const ScalingRange strong{256, 1024, 256, false};
  nlohmann::json at = scaled_scenario(kMixed, strong, 512);
  CHECK(at["cluster"]["num_gpus"] == 512);
  CHECK(at["cluster"]["gpus"][0]["count"] == 256);
  CHECK(at["cluster"]["gpus"][1]["count"] == 320);
  CHECK(at["training"]["global_batch_size"] == 512);
  // 128 x 100 / 256 = 50 a800 and 62.5 h800: up to whole 8-GPU hosts.
  at = scaled_scenario(kMixed, strong, 100);
  CHECK(at["cluster"]["gpus"][0]["count"] == 56);
  CHECK(at["cluster"]["gpus"][1]["count"] == 64);
  const ScalingRange weak{256, 1024, 256, true};
  at = scaled_scenario(kMixed, weak, 768);
  CHECK(at["training"]["global_batch_size"] == 1536);
  at = scaled_scenario(kMixed, {300, 1024, 1, true}, 301);  // 512 x 301 / 300 = 513.7
  CHECK(at["training"]["global_batch_size"] == 514);
  nlohmann::json huge = kMixed;
  huge["training"]["global_batch_size"] = int64_t{1} << 29;
  CHECK(error_of([&] {
          scaled_scenario(huge, {1, 16, 1, true}, 16);
        }).rfind("scaling.weak: the global batch at 16 GPUs", 0) == 0);
}

TEST_CASE("a cliff is a lasting drop of more than 15%; a size below a larger one is a dip") {
  // An isolated low size (a batch that does not divide) is a dip, not a cliff.
  CHECK(find_cliffs({100, 80, 100}) == std::vector<bool>{false, false, false});
  CHECK(find_dips({100, 80, 100}) == std::vector<bool>{false, true, false});
  CHECK(find_dips({100, 86, 100}) == std::vector<bool>{false, false, false});
  CHECK(find_dips({100, 70, 90}) == std::vector<bool>{false, true, false});
  CHECK(find_cliffs({100, 70, 90}) == std::vector<bool>{false, false, false});
  // A drop that every later size keeps is a cliff, at the size it starts.
  CHECK(find_cliffs({100, 100, 80, 82, 78}) == std::vector<bool>{false, false, true, false, false});
  CHECK(find_dips({100, 100, 80, 82, 78}) == std::vector<bool>{false, false, false, false, false});
  // A gradual decline has no cliff.
  CHECK(find_cliffs({100, 95, 90, 85, 80, 75}) ==
        std::vector<bool>{false, false, false, false, false, false});
  CHECK(find_cliffs({100, 90, 80, 100}) == std::vector<bool>{false, false, false, false});
  // Sizes without a strategy are skipped as neighbours and are never cliffs or dips.
  CHECK(find_cliffs({100, 0, 50, 0, 45}) == std::vector<bool>{false, false, true, false, false});
  CHECK(find_dips({100, 0, 50, 0, 100}) == std::vector<bool>{false, false, true, false, false});
  CHECK(find_cliffs({50, 100, 100}) == std::vector<bool>{false, false, false});
  CHECK(find_dips({50, 100, 100}) == std::vector<bool>{true, false, false});
  CHECK(find_cliffs({}).empty());
  CHECK(find_dips({}).empty());
}

namespace {

// A point of a series as to_json gives it, reduced to what scaling_json reads.
nlohmann::json series_point(int64_t gpus, double per_gpu, const nlohmann::json& strategy,
                            const std::string& recompute, int64_t data) {
  nlohmann::json stats = {{"evaluated", 1}, {"seconds", 0.0}, {"complete", true}};
  if (per_gpu <= 0) {
    return {{"num_gpus", gpus},
            {"global_batch_size", 64},
            {"best", nullptr},
            {"stats", stats},
            {"reason", "none"}};
  }
  return {{"num_gpus", gpus},
          {"global_batch_size", 64},
          {"best",
           {{"strategy", strategy},
            {"estimate", {{"data_parallel_size", data}}},
            {"sim_throughput", per_gpu},
            {"recompute-granularity", {{"h100", recompute}}}}},
          {"stats", stats}};
}

}  // namespace

TEST_CASE("a series says why efficiency passes 100%, why a size dips, and keeps its gaps") {
  const nlohmann::json tight = {{"tensor_model_parallel_size", 8},
                                {"pipeline_model_parallel_size", 1},
                                {"optimizer_cpu_offload", true}};
  const nlohmann::json roomy = {{"tensor_model_parallel_size", 8},
                                {"pipeline_model_parallel_size", 2}};
  const nlohmann::json odd = {{"tensor_model_parallel_size", 8},
                              {"pipeline_model_parallel_size", 3}};
  const nlohmann::json series = scaling_json(
      {series_point(8, 100, tight, "full", 1), series_point(16, 110, roomy, "selective", 1),
       series_point(24, 70, odd, "selective", 1), series_point(32, 105, roomy, "selective", 2),
       series_point(40, 0, {}, "", 0)});
  const nlohmann::json& points = series["points"];
  CHECK(points[0]["efficiency"] == 1.0);
  CHECK_FALSE(points[0].contains("notes"));
  CHECK(points[1]["efficiency"].get<double>() == doctest::Approx(1.1));
  CHECK(points[1]["notes"][0] ==
        "above 100%: at 8 GPUs the job fits only with full recompute, the optimizer on the CPU "
        "(TP8 PP1 DP1), which this size does not need");
  // 24 GPUs: the batch of 64 shares 8 with 24, so the factor 3 goes to the pipeline.
  CHECK(points[2]["dip"] == true);
  CHECK_FALSE(points[2]["cliff"].get<bool>());
  const std::string dip = points[2]["notes"][0].get<std::string>();
  CHECK(dip.find("factor 3 falls to tensor, pipeline and context parallelism (TP8 PP3 DP1") !=
        std::string::npos);
  CHECK(points[2]["notes"].dump().find("fewer GPUs do more: 16 GPUs reach 1760 tokens/s") !=
        std::string::npos);
  CHECK(points[4]["efficiency"].is_null());
  CHECK(points[4]["reason"] == "none");
  CHECK(series["stats"]["reference_num_gpus"] == 8);
  CHECK(series["stats"]["dips"] == nlohmann::json::array({24}));
  CHECK(series["stats"]["cliffs"].empty());
}

TEST_CASE("a scaling point holds the best strategy of the search at its size") {
  const ScalingRequest request = parse_scaling_request(
      {{"scenario", kMixed}, {"scaling", {{"from", 128}, {"to", 256}, {"step", 128}}}});
  const nlohmann::json point = search_scaling_point(request, 256);
  CHECK(point["num_gpus"] == 256);
  REQUIRE(point["best"].is_object());
  const Scenario scenario = parse_scenario(scaled_scenario(kMixed, request.range, 256));
  // A point searches one row: its best is the fastest, with no safer row within the noise to
  // prefer (search/final_order.hpp).
  SearchOptions options;
  options.top = 1;
  const SearchResult full = search(scenario, options);
  REQUIRE(!full.strategies.empty());
  CHECK(point["best"]["sim_throughput"] == full.strategies.front().report.tokens_per_s_per_gpu);
  CHECK(point["best"]["strategy"] == to_json(full.strategies.front(), 1, scenario)["strategy"]);
  CHECK(error_of([&] {
          parse_scaling_request(
              {{"scenario", kMixed}, {"scaling", {{"from", 128}, {"to", 64}, {"step", 8}}}});
        }).rfind("scaling.to: the range is empty", 0) == 0);
  CHECK(error_of([&] {
          parse_scaling_request(
              {{"scenario", kMixed}, {"scaling", {{"from", 128}, {"to", 256}, {"step", 0}}}});
        }).rfind("scaling.step:", 0) == 0);
}

TEST_CASE("a scaling point without a strategy says why, with its id and values for translations") {
  // 70B on 4 A800: nothing fits in memory (search_test "a job with no feasible strategy").
  const nlohmann::json scenario = nlohmann::json::parse(R"({"model": "llama2-70b",
      "training": {"global_batch_size": 8, "seq_length": 4096},
      "cluster": {"gpus": [{"type": "a800", "count": 4}]}})");
  const nlohmann::json range = {{"from", 4}, {"to", 4}, {"step", 4}};
  const nlohmann::json point =
      search_scaling_point(parse_scaling_request({{"scenario", scenario}, {"scaling", range}}), 4);
  REQUIRE(point["best"].is_null());
  CHECK(point["reason"].get<std::string>().rfind("no strategy fits in GPU memory", 0) == 0);
  CHECK(point["reason_text"]["id"] == "no strategy at this size");
  CHECK(point["reason_text"]["args"]["num_gpus"] == "4");
  REQUIRE(point["reason_text"]["parts"].size() == 1);
  CHECK(point["reason_text"]["parts"][0]["id"] == "no strategy: nothing fits in GPU memory");
  CHECK(point["reason_text"]["parts"][0]["args"]["gpu"] == "a800");
  // A search cancelled at its first unit of work: no diagnosis, the stop and why as parts.
  SearchOptions options;
  options.progress_every = 1;
  options.on_progress = [](const SearchProgress&) { return false; };
  const nlohmann::json stopped = to_json(search_point(
      scenario, 4, options, [](const nlohmann::json& json) { return parse_scenario(json); }));
  REQUIRE(stopped["best"].is_null());
  CHECK(stopped["reason"] == "the search stopped early (cancelled)");
  const nlohmann::json& early = stopped["reason_text"]["parts"];
  REQUIRE(early.size() == 1);
  CHECK(early[0]["id"] == "the search stopped early");
  CHECK(early[0]["parts"][0] ==
        nlohmann::json({{"id", "search stopped: cancelled"}, {"args", nlohmann::json::object()}}));
  CHECK(stopped["stats"]["stopped_text"] == early[0]["parts"][0]);
}

TEST_CASE("sweep parameters: ranges, lists and errors naming the flag") {
  SweepParameter p = parse_sweep_parameter("hbm_gib=40:80:20", "--sweep");
  CHECK(p.name == "hbm_gib");
  CHECK(p.values == std::vector<double>{40, 60, 80});
  p = parse_sweep_parameter("inter_node.gb_per_s=0.1:0.3:0.1", "--sweep");
  CHECK(p.values.size() == 3);
  p = parse_sweep_parameter("intra_node.gpus=8,72", "--sweep");
  CHECK(p.values == std::vector<double>{8, 72});
  const auto error = [](const std::string& text) {
    return error_of([&] { parse_sweep_parameter(text, "--sweep"); });
  };
  CHECK(error("hbm=40").rfind("--sweep: unknown hardware parameter \"hbm\" (known: hbm_gib,", 0) ==
        0);
  CHECK(error("hbm_gib=80:40:10") ==
        "--sweep: hbm_gib: the range is empty (its end 40 is below its start 80)");
  CHECK(error("hbm_gib=40:80:0") ==
        "--sweep: hbm_gib: the step must be a positive number, got \"0\"");
  CHECK(error("hbm_gib=1:100000:1") ==
        "--sweep: hbm_gib: 100000 values; at most 4096 (raise the step)");
  CHECK(error("intra_node.gpus=1.5").rfind("--sweep: intra_node.gpus expects an integer", 0) == 0);
  CHECK(error("hbm_gib=").rfind("--sweep: expected hbm_gib=FROM:TO:STEP", 0) == 0);
  CHECK(error("hbm_gib=1:2").rfind("--sweep: expected hbm_gib=FROM:TO:STEP", 0) == 0);
}

TEST_CASE("a sweep grid is every combination; shards split it without overlap") {
  const std::vector<SweepParameter> two = {{"hbm_gib", {40, 80}}, {"intra_node.gpus", {8, 36, 72}}};
  const auto grid = sweep_grid(two, "--sweep");
  REQUIRE(grid.size() == 6);
  CHECK(grid[0] == std::vector<double>{40, 8});
  CHECK(grid[5] == std::vector<double>{80, 72});
  CHECK(error_of([] { sweep_grid({}, "--sweep"); }).rfind("--sweep: is required", 0) == 0);
  CHECK(error_of([&] {
          sweep_grid({two[0], two[0]}, "--sweep");
        }) == "--sweep: hbm_gib is swept twice");
  CHECK(error_of([&] {
          sweep_grid({two[0], two[1], two[0]}, "--sweep");
        }) == "--sweep: at most 2 parameters are swept at once");
  std::vector<double> many(100);
  CHECK(error_of([&] {
          sweep_grid({{"hbm_gib", many}, {"hbm_gb_per_s", many}}, "--sweep");
        }) == "--sweep: the sweep has 10000 points; at most 4096");
  std::vector<size_t> all;
  for (int64_t shard = 1; shard <= 4; ++shard) {
    for (const size_t point : shard_points(10, shard, 4)) all.push_back(point);
  }
  std::sort(all.begin(), all.end());
  std::vector<size_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(all == expected);
  CHECK(shard_points(10, 3, 4) == std::vector<size_t>{2, 6});
}

TEST_CASE("a swept scenario sets the parameter on every GPU type") {
  const std::vector<SweepParameter> parameters = {{"hbm_gib", {40}}, {"tensor_tflops", {500}}};
  const Scenario swept = parse_scenario(swept_scenario(kMixed, parameters, {40, 500}));
  const Scenario plain = parse_scenario(kMixed);
  for (size_t pool = 0; pool < 2; ++pool) {
    CAPTURE(pool);
    const GpuSpec& gpu = swept.cluster.pools[pool].gpu;
    CHECK(gpu.id == plain.cluster.pools[pool].gpu.id);
    CHECK(gpu.hbm_bytes == doctest::Approx(40.0 * 1024 * 1024 * 1024));
    CHECK(gpu.tensor_flops(Precision::bf16) == doctest::Approx(500e12));
    // Other precisions scale alike; other fields stay the preset's.
    CHECK(gpu.tensor_flops(Precision::fp32) / gpu.tensor_flops(Precision::bf16) ==
          doctest::Approx(plain.cluster.pools[pool].gpu.tensor_flops(Precision::fp32) /
                          plain.cluster.pools[pool].gpu.tensor_flops(Precision::bf16)));
    CHECK(gpu.hbm_bytes_per_s == plain.cluster.pools[pool].gpu.hbm_bytes_per_s);
  }
  const Scenario nvlink = parse_scenario(swept_scenario(
      kMixed, {{"intra_node.gpus", {72}}, {"intra_node.gb_per_s", {900}}}, {72, 900}));
  CHECK(nvlink.cluster.pools[1].gpu.nvlink_domain_gpus == 72);
  CHECK(nvlink.cluster.pools[1].gpu.intra_node.bandwidth_bytes_per_s == doctest::Approx(900e9));
  CHECK(nvlink.cluster.pools[1].gpu.intra_node.latency_s ==
        plain.cluster.pools[1].gpu.intra_node.latency_s);
  const Scenario nic =
      parse_scenario(swept_scenario(kMixed, {{"inter_node.gb_per_s", {100}}}, {100}));
  CHECK(nic.cluster.pools[0].gpu.inter_node.bandwidth_bytes_per_s == doctest::Approx(100e9));
  const Scenario hbm = parse_scenario(swept_scenario(kMixed, {{"hbm_gb_per_s", {8000}}}, {8000}));
  CHECK(hbm.cluster.pools[0].gpu.hbm_bytes_per_s == doctest::Approx(8000e9));
}
