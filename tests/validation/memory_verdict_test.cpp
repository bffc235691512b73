// Memory verdicts against real outcomes: no launch that ran out of memory may be called `fits`,
// and the default margin (the `at_risk` band) is the least these outcomes give; how many of the
// published launches that ran are then `fits` is printed and held to a floor (docs/model.md,
// "Memory verdict").
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "paraplan/estimate.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/units.hpp"
#include "stated_settings.hpp"
#include "validation_data.hpp"

using namespace paraplan;
using namespace paraplan::validation;
using units::kGiB;

namespace {

// One launch with a known outcome and the model's largest stage peak over its capacity.
struct Outcome {
  std::string file, name;
  bool ran_out = false;
  limits::MarginClass margin_class;  // its allocator mode (the file's field), CUDA graphs and
                                     // point-to-point context parallelism (margin_class_of)
  double share = 0;                  // largest stage peak / that stage's capacity
  MemoryVerdict verdict = MemoryVerdict::fits;
  bool memory_only = true;    // rejected for memory alone, or not rejected
  StageMemory worst;          // the terms of the stage with the largest share
  double capacity_bytes = 0;  // that stage's capacity
  std::string features;       // the worst stage's GPU, CUDA graphs, pipeline layout
  std::string measured;       // a published peak of the launch, where one exists
};

double free_gib(const Outcome& o) { return (1 - o.share) * o.capacity_bytes / kGiB; }

// What the outcomes inside the band differ by: the GPU (its capacity), TE CUDA graphs' private
// pool, the pipeline layout (the interleaved schedule's lifetimes).
std::string features_of(const std::string& gpu, const nlohmann::json& strategy) {
  const std::string graphs = strategy.value("cuda_graph_impl", std::string("none"));
  return gpu + (graphs == "none" ? "" : " graphs") + " pp" +
         std::to_string(strategy.value("pipeline_model_parallel_size", 1)) + " vp" +
         std::to_string(strategy.value("virtual_pipeline_model_parallel_size", 1));
}

// The published peaks by launch: Megatron-LM's max allocated (oom-outcomes.json `reported`) and
// torchtitan's max reserved (measured-reserved.json, by recipe name).
std::string measured_peak_of(const std::string& name, const nlohmann::json& entry) {
  char text[48] = "";
  if (entry.contains("reported")) {
    std::snprintf(text, sizeof text, "measured allocated %.1f",
                  entry["reported"]["peak_gb"].get<double>());
    return text;
  }
  static const nlohmann::json reserved = load("measured-reserved.json");
  for (const nlohmann::json& point : reserved["points"]) {
    if (point["recipe"] == name) {
      std::snprintf(text, sizeof text, "measured reserved %.1f",
                    point["measured"]["max_reserved_gib"].get<double>());
      return text;
    }
  }
  return "no measured peak";
}

// The stage whose peak is the largest share of its capacity.
const StageReport* worst_stage(const Report& r) {
  const StageReport* worst = nullptr;
  for (const StageReport& stage : r.stages) {
    if (!worst || stage.memory.peak_bytes() / stage.capacity_bytes >
                      worst->memory.peak_bytes() / worst->capacity_bytes) {
      worst = &stage;
    }
  }
  return worst;
}

double largest_share(const Report& r) {
  const StageReport* worst = worst_stage(r);
  return worst ? worst->memory.peak_bytes() / worst->capacity_bytes : 0;
}

// The worst stage's terms in GiB, the largest named: weights, gradients, optimizer state,
// activations (with the loss's and layers' transients, graph and pipelining buffers), reserve.
std::string terms_of(const StageMemory& m) {
  const double terms[] = {m.weights_bytes, m.gradients_bytes, m.optimizer_bytes,
                          m.activations_bytes, m.other_bytes()};
  const char* names[] = {"weights", "gradients", "optimizer", "activations", "reserve"};
  const size_t top =
      static_cast<size_t>(std::max_element(std::begin(terms), std::end(terms)) - std::begin(terms));
  char line[160];
  std::snprintf(line, sizeof line, "w %5.1f g %5.1f o %5.1f a %5.1f r %4.1f  dominant %s",
                terms[0] / kGiB, terms[1] / kGiB, terms[2] / kGiB, terms[3] / kGiB, terms[4] / kGiB,
                names[top]);
  return line;
}

Outcome outcome_of(const std::string& file, const std::string& name, bool ran_out, bool expandable,
                   nlohmann::json scenario, const nlohmann::json& entry = {}) {
  // The allocator mode the launch ran in, as the strategy key the verdict reads.
  scenario["strategy"]["expandable_segments"] = expandable;
  const Scenario parsed = parse_scenario(scenario);
  const Report r = estimate(parsed);
  Outcome o{file,
            name,
            ran_out,
            margin_class_of(complete_strategy(parsed), parsed.framework),
            largest_share(r),
            r.memory_verdict,
            r.feasible || out_of_memory_only(r),
            {},
            0,
            {},
            measured_peak_of(name, entry)};
  if (const StageReport* worst = worst_stage(r)) {
    o.worst = worst->memory;
    o.capacity_bytes = worst->capacity_bytes;
    o.features = features_of(worst->gpu, scenario["strategy"]);
  }
  if (!r.stages.empty()) {
    CAPTURE(name);
    // The verdict says `oom` exactly when the estimate rejects the launch for memory.
    CHECK((r.memory_verdict == MemoryVerdict::oom) == (o.share > 1));
    CHECK(!r.memory_verdict_reason.empty());
  }
  return o;
}

// Launches whose sources say they ran, with the configurations the sources give in full. The
// four Megatron-Bridge 26.02 configurations without a row in that release's table may never
// have run (launches_fit_test.cpp): left out.
void add_launch_files(std::vector<Outcome>& out) {
  const std::set<std::string> never_ran = {
      "LLAMA31_405B_PRETRAIN_CONFIG_B300_BF16_V1", "LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_CS_V1",
      "LLAMA31_405B_PRETRAIN_CONFIG_B300_FP8_MX_V1", "LLAMA31_405B_PRETRAIN_CONFIG_GB200_BF16_V2"};
  for (const char* file :
       {"recipe-configs.json", "recipe-configs-26.02.json", "moe-model-zoo-configs.json",
        "torchtitan-configs.json", "torchtitan-async-tp-configs.json",
        "torchtitan-h200-configs.json", "mindspeed-llm-configs.json"}) {
    const nlohmann::json recipes = load(file);
    for (const nlohmann::json& recipe : recipes["recipes"]) {
      const std::string name = recipe["name"];
      if (never_ran.count(name)) continue;
      out.push_back(outcome_of(file, name, false, recipe["expandable_segments"].get<bool>(),
                               recipe["scenario"], recipe));
    }
  }
}

// A published sweep's configuration with its published outcome, as sweeps_test.cpp reads it: the
// sweep's scenario with the configuration's strategy (and batch), or a whole scenario of its own.
Outcome sweep_outcome(const nlohmann::json& sweep, const nlohmann::json& configuration) {
  nlohmann::json entry = configuration.contains("scenario") ? configuration["scenario"] : sweep;
  if (configuration.contains("strategy")) entry["strategy"] = configuration["strategy"];
  if (configuration.contains("global_batch_size")) {
    entry["training"]["global_batch_size"] = configuration["global_batch_size"];
  }
  nlohmann::json scenario = with_stated_settings(scenario_of(entry), sweep["source"]);
  if (entry.contains("framework")) scenario["framework"] = entry["framework"];
  // SC21's runs (2021) predate expandable segments (PyTorch 2.1, 2023): default allocator.
  return outcome_of("published-sweeps.json",
                    sweep["id"].get<std::string>() + " " + configuration["name"].get<std::string>(),
                    !configuration["published_feasible"].get<bool>(), false, scenario);
}

// The cases of a file in oom-outcomes.json's schema.
void add_cases(std::vector<Outcome>& out, const std::string& file) {
  const nlohmann::json document = load(file);
  for (const nlohmann::json& entry : document["cases"]) {
    out.push_back(
        outcome_of(file, entry["id"].get<std::string>() + " " + entry["name"].get<std::string>(),
                   entry["outcome"] == "oom", entry["expandable_segments"].get<bool>(),
                   entry["scenario"], entry));
  }
}

// Out-of-memory outcomes and the fixes that ran (oom-outcomes.json), Fujii et al. 2024's
// Llama-3.1-8B sweep (fujii-4d-sweep.json: every layout that trained or did not fit), and the SC21
// sweeps' configurations with the published outcome (published-sweeps.json: Figure 17's runs
// without recompute ran out of memory).
void add_outcome_files(std::vector<Outcome>& out) {
  add_cases(out, "oom-outcomes.json");
  add_cases(out, "fujii-4d-sweep.json");
  const nlohmann::json sweeps = load("published-sweeps.json");
  for (const nlohmann::json& sweep : sweeps["sweeps"]) {
    for (const nlohmann::json& configuration : sweep["configurations"]) {
      out.push_back(sweep_outcome(sweep, configuration));
    }
  }
}

std::vector<Outcome> all_outcomes() {
  std::vector<Outcome> out;
  add_outcome_files(out);
  add_launch_files(out);
  return out;
}

using limits::AllocatorMode;
using limits::MarginClass;

// The classes of launches that share a margin (input/memory_margin.cpp): the caching allocator's
// mode, CUDA graphs, and context parallelism over point-to-point sends.
constexpr MarginClass kClasses[] = {{AllocatorMode::default_segments, false, false},
                                    {AllocatorMode::default_segments, true, false},
                                    {AllocatorMode::expandable_segments, false, false},
                                    {AllocatorMode::expandable_segments, true, false},
                                    {AllocatorMode::default_segments, false, true},
                                    {AllocatorMode::default_segments, true, true},
                                    {AllocatorMode::expandable_segments, false, true},
                                    {AllocatorMode::expandable_segments, true, true}};

std::string name_of(MarginClass c) {
  return std::string(c.mode == AllocatorMode::expandable_segments ? "expandable" : "default") +
         (c.cuda_graphs ? ", graphs" : ", no graphs") + (c.p2p_context_parallel ? ", p2p CP" : "");
}

bool in_class(const Outcome& o, MarginClass c) {
  return o.margin_class.mode == c.mode && o.margin_class.cuda_graphs == c.cuda_graphs &&
         o.margin_class.p2p_context_parallel == c.p2p_context_parallel;
}

bool expandable(const Outcome& o) {
  return o.margin_class.mode == AllocatorMode::expandable_segments;
}

double margin_of(MarginClass c) { return limits::default_memory_margin_percent(c); }

// The share of launches in class `c` that ran whose verdict at a default margin of `percent` is
// `fits`.
double fits_share(const std::vector<Outcome>& outcomes, MarginClass c, double percent) {
  int ran = 0, fits = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran_out || !o.memory_only || !in_class(o, c)) continue;
    ++ran;
    fits += o.share <= 1 - percent / 100;
  }
  return ran > 0 ? static_cast<double>(fits) / ran : 0;
}

// The share of all launches that ran which are `fits` with each class's default margin, or with
// `percent` for all when given.
double fits_share(const std::vector<Outcome>& outcomes, std::optional<double> percent = {}) {
  int ran = 0, fits = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran_out || !o.memory_only) continue;
    ++ran;
    fits += o.share <= 1 - percent.value_or(margin_of(o.margin_class)) / 100;
  }
  return ran > 0 ? static_cast<double>(fits) / ran : 0;
}

// The lowest predicted peak / capacity of a launch in class `c` that ran out of memory (2 if
// none).
double lowest_oom(const std::vector<Outcome>& outcomes, MarginClass c) {
  double lowest = 2;
  for (const Outcome& o : outcomes) {
    if (o.ran_out && o.memory_only && in_class(o, c)) {
      lowest = std::min(lowest, o.share);
    }
  }
  return lowest;
}

// The margin a class's own outcomes give: the least that calls each of its out-of-memory
// launches at_risk or oom, rounded up to a whole percent; none when every one is priced over
// capacity (`oom` at any margin: no outcome bounds the band).
std::optional<double> derived_percent(const std::vector<Outcome>& outcomes, MarginClass c) {
  const double lowest = lowest_oom(outcomes, c);
  if (lowest >= 1) return std::nullopt;
  return std::ceil(100 * (1 - lowest));
}

// The lowest predicted peak / capacity of a launch with point-to-point context parallelism that
// ran out of memory, in any allocator mode and with or without graphs (2 if none).
double lowest_p2p_context_parallel_oom(const std::vector<Outcome>& outcomes) {
  double lowest = 2;
  for (const MarginClass c : kClasses) {
    if (c.p2p_context_parallel) lowest = std::min(lowest, lowest_oom(outcomes, c));
  }
  return lowest;
}

// The margin of an allocator mode and use of graphs: its own, else the default allocator's with
// the same use of graphs, else the widest a user may give.
double allocator_percent(const std::vector<Outcome>& outcomes, MarginClass c) {
  c.p2p_context_parallel = false;
  if (const auto own = derived_percent(outcomes, c)) return *own;
  const MarginClass fallback{AllocatorMode::default_segments, c.cuda_graphs};
  if (const auto theirs = derived_percent(outcomes, fallback)) return *theirs;
  return limits::kMaxMemoryMarginPercent;
}

// The margin for class `c`: its allocator mode's and graphs', and with point-to-point context
// parallelism the wider of that and the one every launch with it that ran out of memory gives.
double expected_percent(const std::vector<Outcome>& outcomes, MarginClass c) {
  const double allocator = allocator_percent(outcomes, c);
  const double lowest = lowest_p2p_context_parallel_oom(outcomes);
  if (!c.p2p_context_parallel || lowest >= 1) return allocator;
  return std::max(allocator, std::ceil(100 * (1 - lowest)));
}

// The alternative unit, printed for comparison only: a margin of whole GiB, the most free memory
// any launch that ran out of memory had as priced (rounded up), and the share of launches that
// ran which keep at least that free. The outcomes inside the band all ran on 80 GB parts, so
// they cannot tell a margin proportional to capacity from an absolute one (docs/model.md, "The
// risk the default margin leaves").
double most_free_of_oom_gib(const std::vector<Outcome>& outcomes) {
  double most = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran_out && o.memory_only && o.share <= 1) {
      most = std::max(most, free_gib(o));
    }
  }
  return std::ceil(most);
}

double fits_share_free_gib(const std::vector<Outcome>& outcomes, double margin_gib) {
  int ran = 0, fits = 0;
  for (const Outcome& o : outcomes) {
    if (o.ran_out || !o.memory_only) continue;
    ++ran;
    fits += free_gib(o) >= margin_gib;
  }
  return ran > 0 ? static_cast<double>(fits) / ran : 0;
}

}  // namespace

TEST_CASE("memory verdicts: no launch that ran out of memory is called fits") {
  const std::vector<Outcome> outcomes = all_outcomes();
  std::printf("\n%-28s %-72s %5s %7s %8s\n", "file", "launch", "out", "peak %", "verdict");
  int out_of_memory = 0;
  for (const Outcome& o : outcomes) {
    if (!o.ran_out) continue;
    ++out_of_memory;
    std::printf("%-28s %-72.72s %5s %6.1f%% %8s  free %5.1f of %5.1f GiB  %-22s %s  %s\n",
                o.file.c_str(), o.name.c_str(), "OOM", 100 * o.share, to_string(o.verdict),
                free_gib(o), o.capacity_bytes / kGiB, o.features.c_str(), terms_of(o.worst).c_str(),
                o.measured.c_str());
    CAPTURE(o.name);
    CHECK(o.verdict != MemoryVerdict::fits);
  }
  std::printf("%d launches ran out of memory\n", out_of_memory);
  CHECK(out_of_memory >= 135);
}

// Fujii et al. 2024's sweep (fujii-4d-sweep.json): Llama-3.1-8B at sequence 8192 and 16384 on A100
// 40GB and H100 94GB, every layout of TP, CP, PP and micro-batch that trained or did not fit. Its
// out-of-memory cells the model prices inside capacity lie in the band (at_risk), and most of its
// cells that trained are fits: 129 of 168, the others at_risk for the margin of context
// parallelism over point-to-point sends (36%, set by this sweep's A100 layouts) or inside 18%.
TEST_CASE("memory verdicts: Fujii et al. 2024's Llama-3.1-8B sweep") {
  std::vector<Outcome> sweep;
  add_cases(sweep, "fujii-4d-sweep.json");
  int ran = 0, fits = 0, out_of_memory = 0, at_risk = 0;
  for (const Outcome& o : sweep) {
    REQUIRE(o.memory_only);
    if (o.ran_out) {
      ++out_of_memory;
      at_risk += o.verdict == MemoryVerdict::at_risk;
    } else {
      ++ran;
      fits += o.verdict == MemoryVerdict::fits;
    }
  }
  std::printf("\nFujii et al. 2024: %d trained (%d fits), %d out of memory (%d at_risk)\n", ran,
              fits, out_of_memory, at_risk);
  CHECK(ran == 168);
  CHECK(out_of_memory == 124);
  CHECK(fits >= 129);
}

// The lowest-priced out-of-memory launch without CUDA graphs, which sets the default allocator's
// margin: SC21 Figure 17's GPT 145.6B without recompute at batch 16 (TP 8, PP 16, micro-batch 1,
// fp16), whose first stage holds 16 micro-batches. Counted from the code its scripts ran,
// NVIDIA/Megatron-LM de7dc40 (examples/sc21: run_figure_17.sh, CONFIG.sh; SRUN.sh's container
// nvcr.io/nvidia/pytorch:20.12-py3, PyTorch 1.8):
// - weights, fp16 (--fp16): 5 layers of 12h^2/t + 7h/t + 6h, the word embedding's v/t rows and the
//   learned position embedding, not split over TP (model/language_model.py Embedding);
// - gradients, one fp16 copy: --DDP-impl local without --use-contiguous-buffers-in-ddp
//   (arguments.py:582, off) keeps autograd's param.grad; the last step's stays referenced by
//   param.main_grad (model/distributed.py:206) until this step's all-reduce, live at the peak while
//   the new one grows as the first backward frees its micro-batch; the fp32 copies the step makes
//   (optimizer/optimizer.py:309) are freed by zero_grad(set_to_none) before the forward
//   (training.py:354-358);
// - optimizer: the fp32 master copy (optimizer.py:247) and Adam's two fp32 moments, 12 bytes;
// - activations per layer and micro-batch: sbh(10 + 24/t) + 5as^2b/t bytes (Korthikanti et al.
//   2022): the fused causal softmax runs (model/fused_softmax.py custom_kernel_constraint: s <=
//   2048, b a / t a multiple of 4) and saves its fp16 output, dropout masks are one byte (PyTorch
//   1.8 fused_dropout), the linear layers save their input; plus the embedding's dropout mask
//   (sbh bytes) and the stage output, kept whole per micro-batch (schedules.py output_tensors).
// The model prices each as held (the reserve adds the context, NCCL and 5% fragmentation): the
// outcome is not a term the source shows (docs/model.md, "The risk the default margin leaves").
TEST_CASE(
    "memory verdicts: SC21 Figure 17's first stage is priced as Megatron-LM de7dc40 holds it") {
  const nlohmann::json sweeps = load("published-sweeps.json");
  std::optional<Outcome> found;
  for (const nlohmann::json& sweep : sweeps["sweeps"]) {
    if (sweep["id"] != "S17") continue;
    for (const nlohmann::json& configuration : sweep["configurations"]) {
      if (configuration["name"] == "no recompute, batch 16") {
        found = sweep_outcome(sweep, configuration);
      }
    }
  }
  REQUIRE(found);
  const Outcome& o = *found;
  CHECK(o.ran_out);
  constexpr double s = 2048, b = 1, h = 12288, a = 96, t = 8, v = 51200, layers = 5, in_flight = 16;
  const double parameters = layers * (12 * h * h / t + 7 * h / t + 6 * h) + v * h / t + s * h;
  const double layer_bytes = s * b * h * (10 + 24 / t) + 5 * a * s * s * b / t;
  const double activations = in_flight * (layers * layer_bytes + s * b * h + 2 * s * b * h);
  std::printf(
      "\nS17 stage 0 (GiB): weights %.2f / %.2f, gradients %.2f / %.2f, optimizer %.2f / "
      "%.2f, activations %.2f / %.2f (priced / de7dc40), reserve %.2f, peak %.1f%%\n",
      o.worst.weights_bytes / kGiB, 2 * parameters / kGiB, o.worst.gradients_bytes / kGiB,
      2 * parameters / kGiB, o.worst.optimizer_bytes / kGiB, 12 * parameters / kGiB,
      o.worst.activations_bytes / kGiB, activations / kGiB, o.worst.other_bytes() / kGiB,
      100 * o.share);
  CHECK(o.worst.weights_bytes == doctest::Approx(2 * parameters).epsilon(0.001));
  CHECK(o.worst.gradients_bytes == doctest::Approx(2 * parameters).epsilon(0.001));
  CHECK(o.worst.optimizer_bytes == doctest::Approx(12 * parameters).epsilon(0.001));
  CHECK(o.worst.activations_bytes == doctest::Approx(activations).epsilon(0.001));
}

TEST_CASE(
    "memory verdicts: the default margin is the band where published launches went either "
    "way") {
  const std::vector<Outcome> outcomes = all_outcomes();
  // How the launches that ran spread over peak / capacity.
  std::vector<double> ran;
  for (const Outcome& o : outcomes) {
    if (!o.ran_out && o.memory_only) ran.push_back(o.share);
  }
  std::sort(ran.begin(), ran.end());
  REQUIRE(ran.size() >= 250);
  const auto quantile = [&](double q) {
    return ran[static_cast<size_t>(q * static_cast<double>(ran.size() - 1))];
  };
  std::printf("\nlaunches that ran: %zu; peak / capacity median %.1f%%, p90 %.1f%%, max %.1f%%\n",
              ran.size(), 100 * quantile(0.5), 100 * quantile(0.9), 100 * ran.back());
  // Per class (each outcome's `expandable_segments`, read from its launch script, whether it
  // captures CUDA graphs, and whether its context parallelism is a point-to-point ring): the
  // lowest predicted peak of a launch that ran out of memory in it, the margin that gives, and the
  // share of that class's launches that ran which are then fits.
  std::printf("%-30s %4s %4s %11s %8s %7s %6s %7s %10s\n", "allocator mode, graphs, CP", "OOM",
              "ran", "lowest OOM", "derived", "margin", "fits", "at 10%", "at derived");
  std::map<std::pair<AllocatorMode, bool>, int> oom_by_allocator;
  int p2p_context_parallel_oom = 0;
  for (const MarginClass c : kClasses) {
    int oom = 0, ran_in_class = 0;
    for (const Outcome& o : outcomes) {
      if (!in_class(o, c)) continue;
      oom += o.ran_out;
      ran_in_class += !o.ran_out && o.memory_only;
    }
    const double margin = margin_of(c);
    const std::optional<double> own = derived_percent(outcomes, c);
    char derived[16] = "none";
    if (own) std::snprintf(derived, sizeof derived, "%.0f%%", *own);
    oom_by_allocator[{c.mode, c.cuda_graphs}] += oom;
    if (c.p2p_context_parallel) p2p_context_parallel_oom += oom;
    std::printf("%-30s %4d %4d %10.1f%% %8s %6.0f%% %5.1f%% %6.1f%% %9.1f%%\n", name_of(c).c_str(),
                oom, ran_in_class, 100 * lowest_oom(outcomes, c), derived, margin,
                100 * fits_share(outcomes, c, margin), 100 * fits_share(outcomes, c, 10),
                100 * fits_share(outcomes, c, own.value_or(0)));
    CAPTURE(name_of(c));
    // Each class's margin is the least its own out-of-memory launches allow, rounded up to a
    // whole percent; a class none of whose out-of-memory launches is priced inside capacity
    // takes the default allocator's with the same use of graphs; with point-to-point context
    // parallelism, the wider of that and the least every such launch allows
    // (input/memory_margin.cpp).
    CHECK(margin == expected_percent(outcomes, c));
  }
  // Each allocator mode and use of graphs, and point-to-point context parallelism, rest on
  // outcomes of their own.
  for (const auto& [allocator, oom] : oom_by_allocator) CHECK(oom >= 1);
  CHECK(p2p_context_parallel_oom >= 1);
  const double overall = fits_share(outcomes);
  std::printf(
      "with each class's margin: %.1f%% of the launches that ran are fits (at 20%%, Fujii et al. "
      "2024's 80%% line, for all: %.1f%%; at 19%% for all: %.1f%%)\n",
      100 * overall, 100 * fits_share(outcomes, 20.0), 100 * fits_share(outcomes, 19.0));
  const double margin_gib = most_free_of_oom_gib(outcomes);
  std::printf(
      "a margin of %.0f GiB instead (the most free of an out-of-memory launch, rounded up; not "
      "used): %.1f%% of the launches that ran are fits\n",
      margin_gib, 100 * fits_share_free_gib(outcomes, margin_gib));
  for (const Outcome& o : outcomes) {
    if (!o.ran_out && o.memory_only && o.verdict != MemoryVerdict::fits) {
      std::printf("  ran, %-7s %5.1f%% %-3s free %5.1f of %5.1f GiB  %-26s %s  %s  %s: %s\n",
                  to_string(o.verdict), 100 * o.share, expandable(o) ? "exp" : "def", free_gib(o),
                  o.capacity_bytes / kGiB, o.features.c_str(), terms_of(o.worst).c_str(),
                  o.measured.c_str(), o.file.c_str(), o.name.c_str());
    }
  }
  // Most of those that ran are fits. The target of 90% is out of reach with these outcomes:
  // launches that ran out of memory with the default allocator sit at 82.5% (OOM01, OOM02, TE
  // graphs), 82.8% (FWY152, no graphs) and 83.5% (SC21 Figure 17, with its kept stage outputs) of
  // capacity as the model prices them, those with a point-to-point context-parallel ring from
  // 64.3% (fujii-4d-sweep.json's A100 layouts) (OOM14, a full-iteration graph, is over capacity
  // once its capture's deferred frees are priced), and every out-of-memory launch with expandable
  // segments is priced over capacity, so that mode takes the same margins; a quarter of the
  // launches that ran sit above 81% (NVIDIA's tuned recipes up to 99%). The floor is today's share
  // (docs/model.md, "The risk the default margin leaves"): 73.8% of 526 since launches with context
  // parallelism over point-to-point sends take a margin of their own (36%: Fujii et al. 2024's A100
  // layouts ran out of memory at 64.3-81.6% as priced) and the default allocator's without graphs
  // 18% (FWY152 at 82.8%); 83.4% of 526 when Fujii et al. 2024's sweep joined the outcomes
  // (fujii-4d-sweep.json) with 12 of its out-of-memory cells called fits; 77.9% of 358 (279) since
  // torchtitan's H100 96 GB HBM2e holds the 95.0 GiB CUDA reports (torchtitan's own log),
  // not 89.4; 75.7% of 358 (271) since each GPU's capacity is what CUDA reports (the A100's 79.25
  // GiB: SC21 at 83.5%, the default class's margin 18% -> 17%; presets/README.md "Memory
  // capacity"); 74.9% of 358 since the output projection's 16-bit input was priced in memory
  // (OOM01/OOM02 at 82.5%: the graphs class's margin 19% -> 18%); 73.7% of 358 since the model
  // zoo's two launches with Megatron-LM's dev-branch --offload-optimizer-states left the
  // outcomes; 73.3% of 360 since the input each QK norm keeps for its backward was counted (Qwen3's
  // recipe launches); 75.8% of 360 since the deferred output-layer gradients of PR #3107's launches
  // were priced (RAN06 at 82.5%, at_risk); 76.1% of 360 since RAN17 (OOM01's launch with expandable
  // segments, which ran at 81.6% as priced) joined the outcomes; 76.3% of 359 before.
  CHECK(overall >= 0.737);
}
