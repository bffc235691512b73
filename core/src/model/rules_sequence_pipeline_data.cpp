// The rulebook's sequence-, context-, pipeline- and data-parallel rules (rules.hpp): how the
// sequence, the layers and the batch split, and what sharding the optimizer needs.
#include <algorithm>

#include "model/rule_parts.hpp"

namespace paraplan::detail::rule_parts {
namespace {

// clang-format off
const Rule kSequencePipelineDataRules[] = {
    // --- Sequence and context parallelism, attention.
    {"sequence parallel splits the sequence over tensor parallel",
     "megatron/core/tensor_parallel/mappings.py: _split_along_first_dim asserts "
     "dim_size % world_size == 0",
     {K::tensor_model_parallel_size, K::sequence_parallel},
     [](C c, S s) {
       return !sequence_parallel_on(s) ||
              divides(s.tensor_model_parallel_size, c.training.seq_length);
     },
     [](C c, S s) {
       return does_not_divide("tensor_model_parallel_size (sequence parallel)",
                              s.tensor_model_parallel_size, "seq_length", c.training.seq_length);
     }},
    {"tensor-parallel overlap needs sequence parallelism",
     "megatron/training/arguments.py: Tensor parallel communication/GEMM overlap can happen only "
     "when sequence parallelism is enabled",
     {K::tensor_model_parallel_size, K::sequence_parallel, K::tp_comm_overlap},
     [](C, S s) { return !s.tp_comm_overlap || sequence_parallel_on(s); },
     [](C, S) {
       return std::string(
           "tp_comm_overlap needs sequence_parallel and tensor_model_parallel_size > 1");
     }},
    {"context parallel splits the sequence into 2 x cp chunks",
     "megatron/training/arguments.py: seq-length should be a multiple of 2 * "
     "context-parallel-size",
     {K::context_parallel_size},
     [](C c, S s) {
       return s.context_parallel_size == 1 ||
              divides(2 * s.context_parallel_size, c.training.seq_length);
     },
     [](C c, S s) {
       return does_not_divide("2 x context_parallel_size", 2 * s.context_parallel_size,
                              "seq_length", c.training.seq_length);
     }},
    {"sliding-window attention with context parallelism needs all-gather or all-to-all",
     "transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, "
     "attn_forward_func_with_cp: a sliding window needs cp_comm_type a2a or all_gather",
     {K::cp_comm_type, K::context_parallel_size},
     [](C c, S s) {
       return c.model.window_size == 0 || s.context_parallel_size == 1 ||
              s.cp_comm_type != CpCommType::p2p;
     },
     [](C c, S s) {
       return "sliding-window attention (window_size " + str(c.model.window_size) +
              ") with context_parallel_size " + str(s.context_parallel_size) +
              " needs cp_comm_type a2a or allgather, not p2p";
     }},
    {"all-to-all context parallelism divides the heads",
     "transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py: "
     "cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V",
     {K::cp_comm_type, K::context_parallel_size, K::tensor_model_parallel_size},
     [](C c, S s) {
       if (s.cp_comm_type != CpCommType::a2a || s.context_parallel_size == 1) return true;
       const int64_t t = s.tensor_model_parallel_size;
       const int64_t groups = std::max<int64_t>(1, c.model.num_query_groups / t);
       return divides(s.context_parallel_size, c.model.num_attention_heads / t) &&
              divides(s.context_parallel_size, groups);
     },
     [](C c, S s) {
       return "cp_comm_type a2a needs context_parallel_size (" + str(s.context_parallel_size) +
              ") to divide the attention heads (" +
              str(c.model.num_attention_heads / s.tensor_model_parallel_size) +
              ") and query groups (" +
              str(std::max<int64_t>(1, c.model.num_query_groups / s.tensor_model_parallel_size)) +
              ") of a tensor-parallel rank";
     }},
    {"context parallel needs fused attention",
     "megatron/core/extensions/transformer_engine.py: TEDotProductAttention implements context "
     "parallelism; the unfused path does not",
     {K::context_parallel_size, K::use_flash_attn},
     [](C, S s) { return s.context_parallel_size == 1 || s.use_flash_attn; },
     [](C, S s) {
       return "context_parallel_size " + str(s.context_parallel_size) + " needs use_flash_attn";
     }},
    {"fused attention needs 16-bit training",
     "FlashAttention and cuDNN fused attention support fp16 and bf16 inputs only",
     {K::use_flash_attn},
     [](C c, S s) { return !s.use_flash_attn || c.training.precision != Precision::fp32; },
     [](C, S) { return std::string("use_flash_attn needs fp16, bf16 or fp8 training, not fp32"); }},

    // --- Pipeline parallelism.
    {"interleaving needs pipeline parallelism",
     "megatron/core/parallel_state.py: pipeline-model-parallel size should be greater than 1 "
     "with interleaved schedule",
     {K::virtual_pipeline_model_parallel_size, K::pipeline_model_parallel_size},
     [](C, S s) {
       return s.virtual_pipeline_model_parallel_size == 1 || s.pipeline_model_parallel_size > 1;
     },
     [](C, S s) {
       return "virtual_pipeline_model_parallel_size " +
              str(s.virtual_pipeline_model_parallel_size) +
              " needs pipeline_model_parallel_size > 1";
     }},
    {"deferring the output layer's weight gradients needs pipeline parallelism",
     "megatron/core/model_parallel_config.py __post_init__: Cannot defer embedding wgrad compute "
     "when pipeline model parallel is not used",
     {K::defer_embedding_wgrad_compute, K::pipeline_model_parallel_size},
     [](C, S s) { return !s.defer_embedding_wgrad_compute || s.pipeline_model_parallel_size > 1; },
     [](C, S) {
       return std::string("defer_embedding_wgrad_compute needs pipeline_model_parallel_size > 1");
     }},
    {"every pipeline stage holds a layer",
     "Paraplan models stages of whole transformer layers, at least one each",
     {K::pipeline_model_parallel_size},
     [](C c, S s) { return s.pipeline_model_parallel_size <= c.model.num_layers; },
     [](C c, S s) {
       return "pipeline_model_parallel_size (" + str(s.pipeline_model_parallel_size) +
              ") exceeds num_layers (" + str(c.model.num_layers) + ")";
     }},
    {"every virtual pipeline chunk holds a layer",
     "Paraplan models chunks of at least one transformer layer, the embedding or the loss "
     "(Megatron-LM's even split with both counted needs (num_layers + 2) / (PP x VP) >= 1)",
     {K::pipeline_model_parallel_size, K::virtual_pipeline_model_parallel_size},
     [](C c, S s) {
       return s.pipeline_model_parallel_size * s.virtual_pipeline_model_parallel_size <=
              c.model.num_layers + 2;
     },
     [](C c, S s) {
       return "pipeline_model_parallel_size x virtual_pipeline_model_parallel_size (" +
              str(s.pipeline_model_parallel_size * s.virtual_pipeline_model_parallel_size) +
              ") exceeds num_layers + 2 (" + str(c.model.num_layers + 2) +
              "): some chunk would hold no layer";
     }},
    // Layers that do not split evenly need no rule: Megatron-LM runs any split with
    // --pipeline-model-parallel-layout (pipeline_parallel_layer_layout.py: PP x VP segments in
    // model order, each holding any number of layers, empty ones included), or with
    // --decoder-first/last-pipeline-num-layers where those suffice (output/megatron.cpp).
    {"interleaving runs micro-batches in groups of the pipeline size",
     "megatron/core/pipeline_parallel/schedules.py: microbatch_group_size_per_vp_stage "
     "(default: pipeline size) must lie in [PP, M], and M % group must be 0 or >= PP",
     {K::virtual_pipeline_model_parallel_size, K::pipeline_model_parallel_size,
      K::tensor_model_parallel_size, K::context_parallel_size, K::micro_batch_size},
     [](C c, S s) {
       const int64_t m = num_micro_batches(c, s);
       const int64_t p = s.pipeline_model_parallel_size;
       return s.virtual_pipeline_model_parallel_size == 1 || m == 0 || (m >= p && m % p == 0);
     },
     [](C c, S s) {
       return "the interleaved schedule (virtual_pipeline_model_parallel_size " +
              str(s.virtual_pipeline_model_parallel_size) + ") needs the " +
              str(num_micro_batches(c, s)) +
              " micro-batches per iteration to be a multiple of pipeline_model_parallel_size (" +
              str(s.pipeline_model_parallel_size) + ")";
     }},

    // --- Data parallelism, sharding and the batch.
    {"model parallelism divides the GPUs",
     "megatron/core/parallel_state.py: world_size is not divisible by tensor x pipeline x context",
     {K::tensor_model_parallel_size, K::context_parallel_size, K::pipeline_model_parallel_size},
     [](C c, S s) { return data_parallel_size(c, s) > 0; },
     [](C c, S s) {
       return "tensor_model_parallel_size x context_parallel_size x "
              "pipeline_model_parallel_size (" +
              str(s.tensor_model_parallel_size * s.context_parallel_size *
                  s.pipeline_model_parallel_size) +
              ") does not divide the " + str(c.num_gpus) + " GPUs";
     }},
    {"data parallel x micro-batch divides the global batch",
     "megatron/core/num_microbatches_calculator.py: global batch size is not divisible by micro "
     "batch size times data parallel size",
     {K::tensor_model_parallel_size, K::context_parallel_size, K::pipeline_model_parallel_size,
      K::micro_batch_size},
     [](C c, S s) {
       const int64_t dp = data_parallel_size(c, s);
       return dp == 0 || divides(dp * s.micro_batch_size, c.training.global_batch_size);
     },
     [](C c, S s) {
       return "data parallel (" + str(data_parallel_size(c, s)) + ") x micro_batch_size (" +
              str(s.micro_batch_size) + ") does not divide global_batch_size (" +
              str(c.training.global_batch_size) + ")";
     }},
    // torchtitan's FSDP2 composes with its pipeline schedules (torchtitan/distributed/
    // pipeline_parallel.py, fsdp.py: "For PP, by default do not reshard after forward").
    {"Megatron-FSDP runs without pipeline parallelism",
     "Megatron-FSDP user guide: pipeline parallelism is not supported with "
     "--use-megatron-fsdp",
     {K::zero_stage, K::pipeline_model_parallel_size},
     [](C c, S s) {
       return s.zero_stage < 2 || s.pipeline_model_parallel_size == 1 ||
              c.framework == Framework::torchtitan;
     },
     [](C, S s) {
       return "zero_stage " + str(s.zero_stage) +
              " shards with Megatron-FSDP, which needs pipeline_model_parallel_size 1 (got " +
              str(s.pipeline_model_parallel_size) + ")";
     }},
    {"overlapped parameter gathers need a sharded optimizer",
     "megatron/training/arguments.py: --overlap-param-gather only supported with distributed "
     "optimizer",
     {K::overlap_param_gather, K::zero_stage},
     [](C, S s) { return !s.overlap_param_gather || s.zero_stage >= 1; },
     [](C, S) {
       return std::string(
           "overlap_param_gather needs zero_stage >= 1 (the distributed optimizer)");
     }},
    {"overlapped parameter gathers need overlapped gradient reduction",
     "megatron/training/arguments.py: Must use --overlap-param-gather with --overlap-grad-reduce",
     {K::overlap_param_gather, K::overlap_grad_reduce},
     [](C, S s) { return !s.overlap_param_gather || s.overlap_grad_reduce; },
     [](C, S) { return std::string("overlap_param_gather needs overlap_grad_reduce"); }},

    {"fp8 parameter gathers need a sharded optimizer",
     "megatron/training/arguments.py: --fp8-param-gather only supported with distributed "
     "optimizer, torch fsdp2, megatron fsdp, or inference mode",
     {K::fp8_param_gather, K::zero_stage},
     [](C, S s) { return !s.fp8_param_gather || s.zero_stage >= 1; },
     [](C, S) {
       return std::string("fp8_param_gather needs zero_stage >= 1 (the distributed optimizer)");
     }},

    {"the precision-aware optimizer needs a sharded optimizer",
     "megatron/core/optimizer/__init__.py: --use-precision-aware-optimizer only supported with "
     "distributed optimizer",
     {K::use_precision_aware_optimizer, K::zero_stage},
     [](C, S s) { return !s.use_precision_aware_optimizer || s.zero_stage >= 1; },
     [](C, S) {
       return std::string(
           "use_precision_aware_optimizer needs zero_stage >= 1 (the distributed optimizer)");
     }},
    {"fp32 gradient accumulation keeps fp32 main gradients",
     "megatron/training/arguments.py: --main-grads-dtype can only be fp32 when "
     "--accumulate-allreduce-grads-in-fp32 is set (bf16 training)",
     {K::accumulate_allreduce_grads_in_fp32, K::main_grads_dtype},
     [](C c, S s) {
       return c.training.precision == Precision::fp16 ||
              c.training.precision == Precision::fp32 || !s.accumulate_allreduce_grads_in_fp32 ||
              s.main_grads_dtype == MainGradsDtype::fp32;
     },
     [](C, S) {
       return std::string(
           "accumulate_allreduce_grads_in_fp32 needs main_grads_dtype fp32 in bf16 training");
     }},
};
// clang-format on

}  // namespace

std::span<const Rule> sequence_pipeline_data_rules() { return kSequencePipelineDataRules; }

}  // namespace paraplan::detail::rule_parts
