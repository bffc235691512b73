// The rulebook's tensor- and expert-parallel rules (rules.hpp): how tensor parallelism splits
// heads and widths, and what expert parallelism and the MoE dispatchers need.
#include "model/rule_parts.hpp"

namespace paraplan::detail::rule_parts {
namespace {

// clang-format off
const Rule kTensorExpertRules[] = {
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
       return does_not_divide("expert_tensor_parallel_size", s.expert_tensor_parallel(),
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
       return "expert_tensor_parallel_size x expert_model_parallel_size x "
              "pipeline_model_parallel_size (" +
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
};
// clang-format on

}  // namespace

std::span<const Rule> tensor_expert_rules() { return kTensorExpertRules; }

}  // namespace paraplan::detail::rule_parts
