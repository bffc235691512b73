// Every limit on input, in one place: the parsers (core), the CLI's flags and the web page's
// checks (through the module's info()) all read them from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace paraplan::limits {

// Far beyond any real cluster or model, small enough that products of a few stay exact in
// double precision.
inline constexpr int64_t kMaxGpus = int64_t{1} << 24;
inline constexpr int64_t kMaxGpuTypes = 16;
inline constexpr int64_t kMaxGpusPerNode = int64_t{1} << 20;
inline constexpr int64_t kMaxGlobalBatchSize = int64_t{1} << 30;
inline constexpr int64_t kMaxSeqLength = int64_t{1} << 26;
inline constexpr int64_t kMaxParallelSize = int64_t{1} << 24;
inline constexpr int64_t kMaxModelDimension = int64_t{1} << 24;
inline constexpr int64_t kMaxLayers = int64_t{1} << 16;
inline constexpr int64_t kMaxVocab = int64_t{1} << 30;
inline constexpr size_t kMaxJsonBytes = size_t{8} << 20;
inline constexpr int kMaxJsonDepth = 32;

// Search options.
inline constexpr int kMaxTop = 1000;
inline constexpr int kDefaultTop = 10;
inline constexpr double kMinTimeBudgetS = 0.1;
inline constexpr double kMaxTimeBudgetS = 86400;
inline constexpr double kDefaultTimeBudgetS = 30;
// Memory kept free on every GPU (the search's --memory-margin): GiB, or a percentage of each
// GPU's capacity.
inline constexpr double kMaxMemoryMarginGib = 1024;
inline constexpr double kMaxMemoryMarginPercent = 90;
// The default margin, in percent of each GPU's capacity: a strategy whose peak leaves less free
// is `at_risk` (the band where published launches went either way), and the search ranks it
// below those that fit. Defined beside its basis (input/memory_margin.cpp; docs/model.md,
// "Memory verdict").
double default_memory_margin_percent();
// The caching allocator's mode a launch runs with: PyTorch's default fixed segments, or
// PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch 2.1+; PYTORCH_NPU_ALLOC_CONF on
// Ascend), which grows one segment per stream instead of leaving fixed ones stranded.
enum class AllocatorMode { default_segments, expandable_segments };
// A class of launches that share a default margin, each derived from the out-of-memory outcomes
// of its class (input/memory_margin.cpp): the allocator's mode, whether the launch captures CUDA
// graphs (Megatron-LM --cuda-graph-impl, any scope: a graph's capture allocates from a private
// pool the caching allocator keeps apart from the eager allocations), and whether its context
// parallelism exchanges K and V over a ring of point-to-point sends (cp_comm_type p2p, outside
// torchtitan: margin_class_of in paraplan/estimate.hpp).
struct MarginClass {
  AllocatorMode mode = AllocatorMode::default_segments;
  bool cuda_graphs = false;
  bool p2p_context_parallel = false;
};
double default_memory_margin_percent(MarginClass margin_class);
// Series of searches: points of a scaling series (paraplan scaling) and of a hardware sweep
// (paraplan sweep); each point is one search.
inline constexpr int64_t kMaxScalingPoints = 4096;
inline constexpr int64_t kMaxSweepPoints = 4096;
inline constexpr int64_t kMaxSweepParameters = 2;

// The limits as JSON, for the web page: {"max_gpus": ..., "search": {"top": {...}, ...}}.
nlohmann::json limits_json();

}  // namespace paraplan::limits
