#include "model/rules.hpp"

#include <algorithm>

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;
using C = const RuleContext&;
using S = const Strategy&;

std::string str(int64_t value) { return std::to_string(value); }

std::string does_not_divide(std::string_view divisor_name, int64_t divisor,
                            std::string_view value_name, int64_t value) {
  return std::string(divisor_name) + " (" + str(divisor) + ") does not divide " +
         std::string(value_name) + " (" + str(value) + ")";
}

bool divides(int64_t divisor, int64_t value) { return divisor > 0 && value % divisor == 0; }

bool sequence_parallel_on(S s) { return s.sequence_parallel && s.tensor_model_parallel_size > 1; }

// clang-format off
const Rule kRules[] = {
    // --- Tensor parallelism splits heads, query groups and MLP widths evenly.
    {"tensor parallel divides the attention heads",
     "megatron/core/transformer/attention.py: divide(num_attention_heads, world_size)",
     {K::tensor_model_parallel_size},
     [](C c, S s) { return divides(s.tensor_model_parallel_size, c.model.num_attention_heads); },
     [](C c, S s) {
       return does_not_divide("tensor_model_parallel_size", s.tensor_model_parallel_size,
                              "num_attention_heads", c.model.num_attention_heads);
     }},
    {"tensor parallel divides the query groups",
     "megatron/core/transformer/attention.py: divide(num_query_groups, world_size)",
     {K::tensor_model_parallel_size},
     [](C c, S s) { return divides(s.tensor_model_parallel_size, c.model.num_query_groups); },
     [](C c, S s) {
       return does_not_divide("tensor_model_parallel_size", s.tensor_model_parallel_size,
                              "num_query_groups", c.model.num_query_groups);
     }},
    {"tensor parallel divides the MLP width",
     "megatron/core/tensor_parallel/layers.py: ColumnParallelLinear divide(output_size, world_size)",
     {K::tensor_model_parallel_size},
     [](C c, S s) { return divides(s.tensor_model_parallel_size, c.model.ffn_hidden_size); },
     [](C c, S s) {
       return does_not_divide("tensor_model_parallel_size", s.tensor_model_parallel_size,
                              "ffn_hidden_size", c.model.ffn_hidden_size);
     }},
    {"expert tensor parallel divides the expert MLP width",
     "megatron/core/transformer/moe/experts.py: TEGroupedMLP and SequentialMLP split "
     "moe_ffn_hidden_size over the expert tensor-parallel group (pg_collection.expt_tp)",
     {K::tensor_model_parallel_size, K::expert_tensor_parallel_size},
     [](C c, S s) {
       return !c.model.moe ||
              divides(s.expert_tensor_parallel(), c.model.moe->moe_ffn_hidden_size);
     },
     [](C c, S s) {
       return does_not_divide("expert tensor parallel", s.expert_tensor_parallel(),
                              "moe_ffn_hidden_size", c.model.moe->moe_ffn_hidden_size);
     }},

    // --- Expert parallelism.
    {"expert parallel needs experts",
     "megatron/training/arguments.py: num_experts must be non None to use expert model "
     "parallelism",
     {K::expert_model_parallel_size},
     [](C c, S s) { return c.model.moe.has_value() || s.expert_model_parallel_size == 1; },
     [](C, S s) {
       return "expert_model_parallel_size " + str(s.expert_model_parallel_size) +
              " needs a MoE model; this model has no experts";
     }},
    {"expert parallel divides the experts",
     "megatron/training/arguments.py: Number of experts should be a multiple of expert model "
     "parallel_size",
     {K::expert_model_parallel_size},
     [](C c, S s) {
       return !c.model.moe || divides(s.expert_model_parallel_size, c.model.moe->num_experts);
     },
     [](C c, S s) {
       return does_not_divide("expert_model_parallel_size", s.expert_model_parallel_size,
                              "num_experts", c.model.moe->num_experts);
     }},
    {"expert grid divides the GPUs",
     "megatron/core/parallel_state.py: world_size is not divisible by "
     "expert_tensor_model_pipeline_parallel size (expert tensor x expert x pipeline parallel; "
     "MoE parallel folding lets expert parallel exceed data parallel)",
     {K::expert_model_parallel_size, K::expert_tensor_parallel_size,
      K::tensor_model_parallel_size, K::pipeline_model_parallel_size},
     [](C c, S s) {
       return divides(s.expert_tensor_parallel() * s.expert_model_parallel_size *
                          s.pipeline_model_parallel_size,
                      c.num_gpus);
     },
     [](C c, S s) {
       return "expert tensor x expert x pipeline parallel (" +
              str(s.expert_tensor_parallel()) + " x " + str(s.expert_model_parallel_size) +
              " x " + str(s.pipeline_model_parallel_size) + ") does not divide the " +
              str(c.num_gpus) + " GPUs";
     }},
    {"expert-parallel bias needs no expert tensor parallelism",
     "megatron/core/transformer/transformer_config.py: Bias in Moe is only supported when ETP==1",
     {K::expert_tensor_parallel_size, K::tensor_model_parallel_size},
     [](C c, S s) {
       return !c.model.moe || !c.model.add_bias_linear || s.expert_tensor_parallel() == 1;
     },
     [](C, S s) {
       return "a MoE model with add_bias_linear needs expert tensor parallel 1 (got " +
              str(s.expert_tensor_parallel()) +
              "): set expert_tensor_parallel_size 1 or train without biases";
     }},
    {"the flex dispatcher needs tokens to leave the GPU",
     "megatron/core/transformer/moe/token_dispatcher.py: MoEFlexTokenDispatcher: DeepEP "
     "dispatcher requires TPxEP > 1",
     {K::moe_token_dispatcher_type, K::expert_model_parallel_size,
      K::expert_tensor_parallel_size, K::tensor_model_parallel_size},
     [](C c, S s) {
       return !c.model.moe || s.moe_token_dispatcher_type != MoeDispatcher::flex ||
              s.expert_tensor_parallel() * s.expert_model_parallel_size > 1;
     },
     [](C, S) {
       return std::string(
           "moe_token_dispatcher_type flex needs expert tensor x expert parallel > 1");
     }},
    {"DeepEP pads no expert input to capacity",
     "megatron/core/transformer/transformer_config.py: Flex token dispatcher with deepep backend "
     "does not support moe_pad_expert_input_to_capacity",
     {K::moe_token_dispatcher_type, K::moe_flex_dispatcher_backend,
      K::moe_pad_expert_input_to_capacity},
     [](C c, S s) {
       return !c.model.moe || s.moe_token_dispatcher_type != MoeDispatcher::flex ||
              s.moe_flex_dispatcher_backend != MoeFlexBackend::deepep ||
              !s.moe_pad_expert_input_to_capacity;
     },
     [](C, S) {
       return std::string(
           "moe_pad_expert_input_to_capacity with moe_token_dispatcher_type flex needs "
           "moe_flex_dispatcher_backend hybridep (DeepEP does not pad expert inputs)");
     }},
    {"shared-expert overlap needs an all-to-all dispatcher",
     "megatron/core/transformer/transformer_config.py: moe_shared_expert_overlap only works with "
     "alltoall or flex token dispatcher",
     {K::moe_shared_expert_overlap, K::moe_token_dispatcher_type},
     [](C c, S s) {
       return !s.moe_shared_expert_overlap || !c.model.moe ||
              c.model.moe->num_shared_experts == 0 ||
              s.moe_token_dispatcher_type != MoeDispatcher::allgather;
     },
     [](C, S) {
       return std::string(
           "moe_shared_expert_overlap needs moe_token_dispatcher_type alltoall or flex");
     }},
    {"padding to capacity needs a capacity factor",
     "megatron/core/transformer/transformer_config.py: moe_expert_capacity_factor must be set to "
     "use moe_pad_expert_input_to_capacity",
     {K::moe_pad_expert_input_to_capacity, K::moe_expert_capacity_factor},
     [](C, S s) { return !s.moe_pad_expert_input_to_capacity || s.moe_expert_capacity_factor > 0; },
     [](C, S) {
       return std::string("moe_pad_expert_input_to_capacity needs moe_expert_capacity_factor");
     }},
    {"expert-parallel overlap needs an all-to-all over experts",
     "megatron/core/transformer/transformer_config.py: overlap_moe_expert_parallel_comm is only "
     "supported with expert model parallelism, with alltoall/flex token dispatcher",
     {K::overlap_moe_expert_parallel_comm, K::expert_model_parallel_size,
      K::moe_token_dispatcher_type},
     [](C, S s) {
       return !s.overlap_moe_expert_parallel_comm ||
              (s.expert_model_parallel_size > 1 &&
               s.moe_token_dispatcher_type != MoeDispatcher::allgather);
     },
     [](C, S s) {
       return "overlap_moe_expert_parallel_comm needs expert_model_parallel_size > 1 (got " +
              str(s.expert_model_parallel_size) +
              ") and moe_token_dispatcher_type alltoall or flex";
     }},
    {"expert-parallel overlap with a pipeline needs interleaving",
     "megatron/core/transformer/transformer_config.py: If enabling EP A2A overlap, "
     "virtual_pipeline_model_parallel_size must be specified when pipeline_model_parallel_size "
     "> 1",
     {K::overlap_moe_expert_parallel_comm, K::pipeline_model_parallel_size,
      K::virtual_pipeline_model_parallel_size},
     [](C, S s) {
       return !s.overlap_moe_expert_parallel_comm || s.pipeline_model_parallel_size == 1 ||
              s.virtual_pipeline_model_parallel_size > 1;
     },
     [](C, S) {
       return std::string(
           "overlap_moe_expert_parallel_comm with pipeline parallelism needs "
           "virtual_pipeline_model_parallel_size > 1");
     }},
    {"delayed weight gradients need the expert-parallel overlap",
     "megatron/core/transformer/transformer_config.py: overlap_moe_expert_parallel_comm must be "
     "enabled when enabling delay_wgrad_compute",
     {K::delay_wgrad_compute, K::overlap_moe_expert_parallel_comm},
     [](C, S s) { return !s.delay_wgrad_compute || s.overlap_moe_expert_parallel_comm; },
     [](C, S) {
       return std::string("delay_wgrad_compute needs overlap_moe_expert_parallel_comm");
     }},
    {"expert-parallel overlap excludes full recompute",
     "megatron/core/transformer/transformer_config.py: disable full recomputation when enabling "
     "overlap_moe_expert_parallel_comm",
     {K::overlap_moe_expert_parallel_comm, K::recompute_granularity},
     [](C, S s) {
       return !s.overlap_moe_expert_parallel_comm ||
              std::none_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
                return r.granularity == RecomputeGranularity::full;
              });
     },
     [](C, S) {
       return std::string(
           "overlap_moe_expert_parallel_comm needs recompute_granularity none or selective");
     }},
    {"expert-parallel overlap excludes shared-expert overlap",
     "megatron/core/transformer/transformer_config.py: disable moe_shared_expert_overlap when "
     "enabling overlap_moe_expert_parallel_comm",
     {K::overlap_moe_expert_parallel_comm, K::moe_shared_expert_overlap},
     [](C, S s) { return !s.overlap_moe_expert_parallel_comm || !s.moe_shared_expert_overlap; },
     [](C, S) {
       return std::string(
           "overlap_moe_expert_parallel_comm needs moe_shared_expert_overlap off");
     }},
    {"expert-parallel overlap needs 16-bit training and at most one MTP layer",
     "megatron/core/transformer/transformer_config.py: overlap_moe_expert_parallel_comm is only "
     "supported with bf16 or fp16 model; MTP supports at most one layer",
     {K::overlap_moe_expert_parallel_comm},
     [](C c, S s) {
       return !s.overlap_moe_expert_parallel_comm ||
              (c.training.precision != Precision::fp32 && c.model.mtp_num_layers <= 1);
     },
     [](C c, S) {
       return "overlap_moe_expert_parallel_comm needs bf16, fp16 or fp8 training and at most "
              "one MTP layer (mtp_num_layers " +
              str(c.model.mtp_num_layers) + ")";
     }},
    {"MoE with tensor parallelism needs sequence parallelism",
     "megatron/core/transformer/moe/moe_layer.py: MoE and tensor parallelism are enabled without "
     "also enabling sequence parallelism (ValueError in training)",
     {K::tensor_model_parallel_size, K::sequence_parallel},
     [](C c, S s) {
       return !c.model.moe || s.tensor_model_parallel_size == 1 || s.sequence_parallel;
     },
     [](C, S s) {
       return "a MoE model with tensor_model_parallel_size " + str(s.tensor_model_parallel_size) +
              " needs sequence_parallel (Megatron-LM requires it)";
     }},

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
       return "pipeline x virtual pipeline (" +
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
       return "tensor x context x pipeline parallel (" +
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

    // --- MindSpeed's parameter-copy reuse (--reuse-fp32-param; framework_rules.cpp: only
    // MindSpeed-LLM launches it).
    {"parameter-copy reuse needs bf16 weights",
     "mindspeed/features_manager/memory/reuse_fp32_param.py: validate_args "
     "dependency_check(args, 'bf16'); the fp32 value is the bf16 weight and a 16-bit residual "
     "(docs/features/reuse-fp32-param.md), so fp8 weights (fp8_param_gather) leave none to reuse",
     {K::reuse_fp32_param, K::fp8_param_gather},
     [](C c, S s) {
       const Precision p = c.training.precision;
       return !s.reuse_fp32_param || p == Precision::bf16 ||
              (p == Precision::fp8 && !s.fp8_param_gather);
     },
     [](C c, S) {
       return c.training.precision == Precision::fp8
                  ? std::string("reuse_fp32_param needs bf16 weights: fp8_param_gather off")
                  : "reuse_fp32_param needs bf16 training (got " +
                        std::string(to_string(c.training.precision)) + ")";
     }},
    {"parameter-copy reuse needs Megatron-LM's optimizer or distributed optimizer",
     "mindspeed/features_manager/memory/reuse_fp32_param.py: validate_args "
     "incompatible_check(args, 'enable_zero3'); its patches wrap only "
     "Float16OptimizerWithFloat16Params and DistributedOptimizer, not a fully sharded data "
     "parallelism",
     {K::reuse_fp32_param, K::zero_stage},
     [](C, S s) { return !s.reuse_fp32_param || s.zero_stage <= 1; },
     [](C, S s) {
       return "reuse_fp32_param needs zero_stage 0 or 1 (got " + str(s.zero_stage) + ")";
     }},
    {"parameter-copy reuse needs Megatron-LM's fp32 main parameters",
     "megatron/core/optimizer/distrib_optimizer.py (core_v0.12.1): with the precision-aware "
     "optimizer \"main params are held by FusedAdam\" and shard_fp32_from_float16_groups, the "
     "copy MindSpeed's reuse_fp32_param_distrib_optimizer_init_wrapper shares, is not made",
     {K::reuse_fp32_param, K::use_precision_aware_optimizer},
     [](C, S s) { return !s.reuse_fp32_param || !s.use_precision_aware_optimizer; },
     [](C, S) {
       return std::string("reuse_fp32_param needs use_precision_aware_optimizer off");
     }},

    // --- Activation offloading.
    {"CPU offloading leaves a layer on the GPU",
     "megatron/core/transformer/transformer_config.py: CPU offloading can be done only for "
     "layers less than num_layers",
     {K::cpu_offloading_num_layers},
     [](C c, S s) { return s.cpu_offloading_num_layers < c.model.num_layers; },
     [](C c, S s) {
       return "cpu_offloading_num_layers (" + str(s.cpu_offloading_num_layers) +
              ") must be below num_layers (" + str(c.model.num_layers) + ")";
     }},
    {"optimizer CPU offload needs the precision-aware optimizer",
     "megatron/training/arguments.py: The optimizer cpu offload must be used in conjunction with "
     "`--use-precision-aware-optimizer`",
     {K::optimizer_cpu_offload, K::use_precision_aware_optimizer},
     [](C, S s) { return !s.optimizer_cpu_offload || s.use_precision_aware_optimizer; },
     [](C, S) {
       return std::string("optimizer_cpu_offload needs use_precision_aware_optimizer");
     }},
    {"optimizer CPU offload runs with the distributed optimizer, not Megatron-FSDP",
     "megatron/core/optimizer/fully_sharded_optimizer.py: MFSDP v2 does not currently support "
     "optimizer CPU offload",
     {K::optimizer_cpu_offload, K::zero_stage},
     [](C, S s) { return !s.optimizer_cpu_offload || s.zero_stage <= 1; },
     [](C, S s) {
       return "optimizer_cpu_offload needs zero_stage 1 (the distributed optimizer), got " +
              str(s.zero_stage);
     }},
    {"optimizer CPU offload gathers fp8 parameters only with delayed scaling",
     "megatron/training/arguments.py: When `--fp8-param-gather` is enabled, the optimizer cpu "
     "offload must be used in conjunction with `--fp8-recipe delayed`",
     {K::optimizer_cpu_offload, K::fp8_param_gather, K::fp8_recipe},
     [](C, S s) {
       return !s.optimizer_cpu_offload || !s.fp8_param_gather ||
              s.fp8_recipe == Fp8Recipe::delayed;
     },
     [](C, S s) {
       return "optimizer_cpu_offload with fp8_param_gather needs fp8_recipe delayed (got " +
              std::string(to_string(s.fp8_recipe)) + ")";
     }},
    {"CPU offloading runs without pipeline parallelism",
     "megatron/core/transformer/transformer_config.py: Currently there is no support for "
     "Pipeline parallelism with CPU offloading",
     {K::cpu_offloading_num_layers, K::pipeline_model_parallel_size},
     [](C, S s) { return s.cpu_offloading_num_layers == 0 || s.pipeline_model_parallel_size == 1; },
     [](C, S s) {
       return "cpu_offloading_num_layers needs pipeline_model_parallel_size 1 (got " +
              str(s.pipeline_model_parallel_size) + ")";
     }},
    {"CPU offloading runs without recompute",
     "megatron/core/transformer/transformer_config.py: CPU offloading does not work when "
     "activation recomputation is enabled",
     {K::cpu_offloading_num_layers, K::recompute_granularity},
     [](C, S s) {
       return s.cpu_offloading_num_layers == 0 ||
              std::all_of(s.recompute.begin(), s.recompute.end(), [](const Recompute& r) {
                return r.granularity == RecomputeGranularity::none;
              });
     },
     [](C, S) {
       return std::string("cpu_offloading_num_layers needs recompute_granularity none");
     }},
    {"fine-grained activation offloading excludes CPU offloading by layer",
     "megatron/core/transformer/transformer_config.py: fine_grained_activation_offloading cannot "
     "be enabled with cpu_offloading",
     {K::offload_modules, K::cpu_offloading_num_layers},
     [](C, S s) { return s.offload_modules == 0 || s.cpu_offloading_num_layers == 0; },
     [](C, S) {
       return std::string("offload_modules needs cpu_offloading_num_layers 0");
     }},
    {"offloading the attention projection's input needs the core attention's",
     "megatron/core/transformer/transformer_config.py: attn_proj cannot be set to "
     "offload_modules alone without core_attn",
     {K::offload_modules},
     [](C, S s) {
       return !s.offloads(OffloadModule::attn_proj) || s.offloads(OffloadModule::core_attn);
     },
     [](C, S) { return std::string("offload_modules attn_proj needs core_attn"); }},
    {"offloading inside a MoE layer excludes recomputing the whole layer",
     "megatron/core/transformer/transformer_config.py: Cannot offload ... while recomputing the "
     "entire MoE layer",
     {K::offload_modules, K::recompute_modules, K::recompute_granularity},
     [](C, S s) {
       return (!s.offloads(OffloadModule::expert_fc1) && !s.offloads(OffloadModule::moe_act)) ||
              !s.any_recomputes(RecomputeModule::moe);
     },
     [](C, S) {
       return std::string("offload_modules expert_fc1 or moe_act needs moe out of recompute_modules");
     }},
    {"recomputing the experts' activation needs grouped GEMM",
     "megatron/core/transformer/transformer_config.py: moe_act in recompute_modules is only "
     "supported with moe_grouped_gemm",
     {K::recompute_modules, K::recompute_granularity, K::moe_grouped_gemm},
     [](C, S s) { return s.moe_grouped_gemm || !s.any_recomputes(RecomputeModule::moe_act); },
     [](C, S) { return std::string("recompute_modules moe_act needs moe_grouped_gemm"); }},
    {"recomputing MLA's up-projections needs multi-latent attention",
     "megatron/core/transformer/transformer_config.py: mla_up_proj in recompute_modules is only "
     "supported with multi_latent_attention",
     {K::recompute_modules, K::recompute_granularity},
     [](C c, S s) {
       return c.model.mla.has_value() || !s.any_recomputes(RecomputeModule::mla_up_proj);
     },
     [](C, S) {
       return std::string("recompute_modules mla_up_proj needs a multi-latent-attention model");
     }},
    {"recomputing the shared experts excludes their overlap",
     "megatron/core/transformer/transformer_config.py: shared_experts recompute cannot work "
     "with --moe-shared-expert-overlap",
     {K::recompute_modules, K::recompute_granularity, K::moe_shared_expert_overlap},
     [](C, S s) {
       return !s.moe_shared_expert_overlap ||
              !s.any_recomputes(RecomputeModule::shared_experts);
     },
     [](C, S) {
       return std::string(
           "recompute_modules shared_experts needs moe_shared_expert_overlap off");
     }},
    {"recomputing the experts' activation or the norms in fp8 needs current scaling",
     "megatron/core/transformer/transformer_config.py: Delayed scaling does not support moe_act "
     "and layernorm recompute for fp8",
     {K::recompute_modules, K::recompute_granularity, K::fp8_recipe},
     [](C c, S s) {
       return c.training.precision != Precision::fp8 || s.fp8_recipe != Fp8Recipe::delayed ||
              (!s.any_recomputes(RecomputeModule::moe_act) &&
               !s.any_recomputes(RecomputeModule::layernorm));
     },
     [](C, S s) {
       return std::string("recompute_modules ") +
              (s.any_recomputes(RecomputeModule::moe_act) ? "moe_act" : "layernorm") +
              " in fp8 needs an fp8_recipe other than delayed";
     }},
    {"Transformer Engine's loss kernel is a fused loss",
     "megatron/core/models/common/language_module/language_module.py: "
     "cross_entropy_fusion_impl is read only under cross_entropy_loss_fusion",
     {K::cross_entropy_fusion_impl, K::cross_entropy_loss_fusion},
     [](C, S s) {
       return s.cross_entropy_loss_fusion ||
              s.cross_entropy_fusion_impl == CrossEntropyFusionImpl::native;
     },
     [](C, S) {
       return std::string("cross_entropy_fusion_impl te needs cross_entropy_loss_fusion");
     }},

    // --- The GPUs.
    {"every stage's GPU has tensor cores for the precision",
     "the GPU preset's tensor_tflops",
     {K::pipeline_stage_gpus},
     [](C c, S s) {
       if (s.pipeline_stage_gpus.empty()) {
         return c.cluster.pools.front().gpu.tensor_flops(c.training.precision) > 0;
       }
       return std::all_of(s.pipeline_stage_gpus.begin(), s.pipeline_stage_gpus.end(), [&](int p) {
         return c.cluster.pools[static_cast<size_t>(p)].gpu.tensor_flops(c.training.precision) > 0;
       });
     },
     [](C c, S s) {
       std::string ids;
       for (size_t pool = 0; pool < c.cluster.pools.size(); ++pool) {
         const bool used = s.pipeline_stage_gpus.empty()
                               ? pool == 0
                               : std::count(s.pipeline_stage_gpus.begin(),
                                            s.pipeline_stage_gpus.end(), static_cast<int>(pool));
         const GpuSpec& gpu = c.cluster.pools[pool].gpu;
         if (used && gpu.tensor_flops(c.training.precision) <= 0) {
           ids += (ids.empty() ? "" : ", ") + gpu.id;
         }
       }
       return ids + " has no " + std::string(to_string(c.training.precision)) + " tensor cores";
     }},
};
// clang-format on

}  // namespace

std::span<const Rule> rules() {
  static const std::vector<Rule> all = [] {
    std::vector<Rule> joined(std::begin(kRules), std::end(kRules));
    joined.insert(joined.end(), cuda_graph_rules().begin(), cuda_graph_rules().end());
    return joined;
  }();
  return all;
}

bool check_rules(const RuleContext& context, const Strategy& strategy,
                 std::vector<std::string>& reasons, std::vector<std::string>* ids) {
  bool all_hold = true;
  for (const Rule& rule : rules()) {
    if (rule.holds(context, strategy)) continue;
    reasons.push_back(rule.reason(context, strategy));
    if (ids != nullptr) ids->emplace_back(rule.name);
    all_hold = false;
  }
  return all_hold;
}

int64_t data_parallel_size(const RuleContext& context, const Strategy& s) {
  const int64_t model_parallel =
      s.tensor_model_parallel_size * s.context_parallel_size * s.pipeline_model_parallel_size;
  return divides(model_parallel, context.num_gpus) ? context.num_gpus / model_parallel : 0;
}

int64_t num_micro_batches(const RuleContext& context, const Strategy& s) {
  const int64_t per_step = data_parallel_size(context, s) * s.micro_batch_size;
  return divides(per_step, context.training.global_batch_size)
             ? context.training.global_batch_size / per_step
             : 0;
}

}  // namespace paraplan::detail
