// The result of estimating one strategy (docs/contract.md section 4).
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "paraplan/limits.hpp"

namespace paraplan {

// Exposed (not overlapped) time of each part of one iteration; the parts sum to the
// iteration time.
struct TimeBreakdown {
  double compute_s = 0;
  double recompute_s = 0;
  double tp_comm_s = 0;
  double pp_comm_s = 0;
  double dp_comm_s = 0;
  double cp_comm_s = 0;
  double ep_comm_s = 0;
  double optimizer_s = 0;
  double bubble_s = 0;
  double offload_s = 0;  // activation copies to and from host memory, exposed

  double total_s() const {
    return compute_s + recompute_s + tp_comm_s + pp_comm_s + dp_comm_s + cp_comm_s + ep_comm_s +
           optimizer_s + bubble_s + offload_s;
  }
};

// What a GPU holds besides the model's tensors (docs/model.md, "Reserve").
struct MemoryReserve {
  double cuda_context_bytes = 0;  // CUDA context and loaded kernel modules (outside PyTorch)
  double workspaces_bytes = 0;    // cuBLAS and Transformer Engine workspaces (PyTorch tensors)
  double nccl_buffers_bytes = 0;  // NCCL buffers of the communicators the strategy uses
  double userbuffers_bytes = 0;   // Transformer Engine's tensor-parallel overlap buffers
  double dispatcher_buffers_bytes = 0;  // DeepEP's NVLink and RDMA buffers (flex dispatcher)
  double fragmentation_bytes = 0;       // reserved by PyTorch's caching allocator but not allocated

  double total_bytes() const {
    return cuda_context_bytes + workspaces_bytes + nccl_buffers_bytes + userbuffers_bytes +
           dispatcher_buffers_bytes + fragmentation_bytes;
  }
};

// Memory of one GPU of one pipeline stage at its peak.
struct StageMemory {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  // Of activations_bytes, what the CUDA graphs' own saved tensors hold in their private memory
  // pool: reserved by the pool for the graphs' lifetime, but freed in the allocator's account
  // once captured, so torch.cuda.max_memory_allocated() leaves it out (cuda_graph_memory.hpp).
  double graph_pool_bytes = 0;
  MemoryReserve reserve;
  double host_bytes = 0;  // offloaded activations and optimizer state, in host memory

  // The reserve: CUDA context, workspaces, communication buffers, fragmentation.
  double other_bytes() const { return reserve.total_bytes(); }
  // Live tensors in a training step once the graphs are captured: the graphs' saved tensors
  // sit in their pool, freed in the allocator's account.
  double step_allocated_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes -
           graph_pool_bytes + reserve.workspaces_bytes;
  }
  // Live tensors while the graphs are captured: PyTorch's caching allocator counts a capture's
  // allocations from the private pool in its statistics like any other
  // (c10/cuda/CUDACachingAllocator.cpp malloc/free update stats.allocated_bytes whatever the
  // block's pool), so the saved tensors of every layer and micro-batch the capture holds between
  // its forward and backward graphs (the in-flight ones, captured in the schedule's order) are
  // allocated then; and Megatron-LM/Bridge capture after cuda_graph_warmup_steps steps
  // (training.py, Bridge train.py: `create_cudagraphs()` at that step), when weights, gradients
  // and the optimizer's state exist. The eager activations are not live then (the capture runs
  // the graphed modules on their sample arguments), and the sample arguments are left out: this
  // is the least the capture holds.
  double capture_allocated_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + graph_pool_bytes +
           reserve.workspaces_bytes;
  }
  // The most live tensors at any time, as torch.cuda.max_memory_allocated() reports it (never
  // reset by Megatron-LM's logs): the step's or the capture's, whichever is larger (with TE
  // graphs of the MLP the capture's: Megatron-Bridge PR #3107's logged peaks, OOM01-RAN06).
  double peak_allocated_bytes() const {
    return std::max(step_allocated_bytes(), capture_allocated_bytes());
  }
  // What PyTorch's caching allocator reserves at the peak, as torch.cuda.max_memory_reserved()
  // reports it: a step's live tensors, the CUDA graphs' pool and the allocator's fragmentation
  // (the CUDA context, NCCL's buffers and Transformer Engine's userbuffers are allocated outside
  // it).
  double peak_reserved_bytes() const {
    return step_allocated_bytes() + graph_pool_bytes + reserve.fragmentation_bytes;
  }
  // What the GPU must hold: decides out-of-memory.
  double peak_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + other_bytes();
  }
};

// One pipeline stage: where it runs, what it holds, and its time per micro-batch.
struct StageReport {
  std::string gpu;
  int64_t layers = 0;
  double capacity_bytes = 0;
  StageMemory memory;
  double in_flight_micro_batches = 0;
  double forward_s = 0;   // one micro-batch through all this stage's layers, comm included
  double backward_s = 0;  // recompute included
  double recompute_s = 0;
  double pp_comm_s = 0;
  double dp_comm_exposed_s = 0;
  double optimizer_s = 0;
  double host_copy_bytes = 0;  // over the host link in one iteration: offloaded activations,
                               // the offloaded optimizer's gradients and parameters
};

// Whether a launch of the strategy will fit in GPU memory (docs/model.md, "Memory verdict"):
// `oom` when a stage's peak exceeds its GPU's capacity, `at_risk` when a stage's peak leaves less
// than the default memory margin free (the band where published launches went either way),
// `fits` otherwise.
enum class MemoryVerdict { fits, at_risk, oom };

const char* to_string(MemoryVerdict verdict);

// The verdict of one stage whose peak is `peak_bytes` on a GPU of `capacity_bytes`, with the
// default margin of the launch's class (limits.hpp MarginClass: allocator mode, CUDA graphs,
// point-to-point context parallelism; PyTorch's default allocator and neither when left out).
MemoryVerdict memory_verdict_of(double peak_bytes, double capacity_bytes,
                                limits::MarginClass margin_class = {});

// A text of a report with a stable id and the values it names, so that the page writes it in
// its language without parsing the English (web/src/i18n/core-texts.ts; docs/contract.md
// section 4): `text` is the English, `args` its values by name as `text` writes them, `parts`
// the texts it includes.
struct CoreText {
  std::string id;
  std::string text;
  std::vector<std::pair<std::string, std::string>> args;
  std::vector<CoreText> parts;
};

// Whether a result lies inside the regimes the validation test covers (published runs of the
// same GPU and precision, model family and sequence length, and an MFU no higher than the best
// published for that GPU); each note names one way it leaves them.
struct Validation {
  bool validated = true;
  std::vector<std::string> notes;
  std::vector<CoreText> note_texts;  // one per note, same order

  // Adds a note: its English to `notes`, its id and values to `note_texts`.
  void add(CoreText note) {
    notes.push_back(note.text);
    note_texts.push_back(std::move(note));
    validated = false;
  }
};

// Stable ids of the infeasible reasons that are not a rule's (a rule's id is its name,
// model/rules.cpp), for translations that must not parse the English text.
inline constexpr const char* kStageGpusReason = "pipeline stages use the GPUs of their type";
inline constexpr const char* kStageMemoryReason = "every pipeline stage fits in GPU memory";
inline constexpr const char* kHostMemoryReason = "offloaded activations fit in host memory";
inline constexpr const char* kOverflowReason = "the estimate stays finite";

// The interval the measured throughput of a run in this estimate's regime falls in `level` of
// the time: the 80% interval of measured / predicted tokens/s of that regime's published runs
// times the estimate (docs/contract.md section 4 `uncertainty`, model/uncertainty.hpp).
struct Uncertainty {
  double low_tokens_per_s_per_gpu = 0;
  double high_tokens_per_s_per_gpu = 0;
  double level = 0.8;
  std::string regime;    // e.g. "Hopper, MoE, Megatron-Core"
  int64_t runs = 0;      // published runs that inform it
  std::string basis;     // how it was derived, and why it is wide where few runs inform it
  CoreText regime_text;  // `regime` with its id and values
  CoreText basis_text;   // `basis` with its id and values
};

struct Report {
  bool feasible = true;
  std::vector<std::string> infeasible_reasons;
  std::vector<std::string> infeasible_reason_ids;  // one per reason, same order

  double iteration_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double samples_per_s = 0;
  double model_tflops_per_gpu = 0;
  double mfu = 0;
  double hfu = 0;
  // The same in Megatron-LM's causal convention (core attention halved), as Megatron-LM logs
  // and Megatron-Bridge reports them.
  double model_tflops_per_gpu_causal = 0;
  double mfu_causal = 0;
  TimeBreakdown time_breakdown;
  std::vector<StageReport> stages;

  int64_t num_gpus = 0;
  int64_t data_parallel_size = 0;
  int64_t num_micro_batches = 0;
  double model_parameters = 0;
  double model_flops_per_token = 0;
  double model_flops_per_token_causal = 0;
  Validation validation;
  Uncertainty uncertainty;

  double peak_memory_bytes() const;
  double peak_allocated_bytes() const;
  // The smallest capacity minus peak over the stages (negative when a stage overflows).
  double headroom_bytes() const;
  // A stage keeps less free than the default memory margin (verdict at_risk); memory_warnings
  // says which stage and by how much.
  bool memory_tight = false;
  std::vector<std::string> memory_warnings;
  // The worst stage's verdict, and the numbers behind it.
  MemoryVerdict memory_verdict = MemoryVerdict::fits;
  std::string memory_verdict_reason;
  CoreText memory_verdict_text;  // memory_verdict_reason with its id and values
  int bottleneck_stage = 0;      // the stage that sets the pipeline's pace
};

nlohmann::json to_json(const Report& report);
// A text's id and values (docs/contract.md section 4, "Text ids").
nlohmann::json to_json(const CoreText& text);

// What a results table draws of a report: the keys of to_json's `feasible`,
// `infeasible_reasons`, `infeasible_reason_ids`, `iteration_time_s`, `tokens_per_s_per_gpu`, `mfu`,
// `num_gpus`, `data_parallel_size`, `validation`, `uncertainty`, and of its `memory`
// `peak_gib_per_gpu`, `verdict` and `verdict_reason`, with the same values (to_json builds on it);
// none of the per-stage parts.
nlohmann::json to_table_json(const Report& report);

}  // namespace paraplan
