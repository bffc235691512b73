// The rulebook's CUDA graph rules (Megatron-LM --cuda-graph-impl, --cuda-graph-scope; their
// memory: cuda_graph_memory.cpp), part of rules().
#include "model/rules.hpp"

namespace paraplan::detail {
namespace {

using K = StrategyKeyId;
using C = const RuleContext&;
using S = const Strategy&;

uint32_t scope_bit(CudaGraphScope scope) { return 1u << static_cast<unsigned>(scope); }

// clang-format off
const Rule kCudaGraphRules[] = {
    {"a CUDA graph scope needs a CUDA graph implementation",
     "megatron/core/transformer/transformer_config.py: cuda_graph_modules has no effect when "
     "cuda_graph_impl=\"none\"",
     {K::cuda_graph_scope, K::cuda_graph_impl},
     [](C, S s) { return s.cuda_graph_scope == 0 || s.cuda_graph_impl != CudaGraphImpl::none; },
     [](C, S) {
       return std::string(
           "cuda_graph_scope needs cuda_graph_impl local or transformer_engine");
     }},
    {"full-iteration CUDA graphs are the local implementation's",
     "megatron/core/transformer/cuda_graph_config.py: cuda_graph_modules='full_iteration' cannot "
     "be combined with cuda_graph_impl='transformer_engine' (it becomes cuda_graph_impl "
     "full_iteration, FullCudaGraphWrapper)",
     {K::cuda_graph_scope, K::cuda_graph_impl},
     [](C, S s) {
       return !s.graphs(CudaGraphScope::full_iteration) ||
              s.cuda_graph_impl != CudaGraphImpl::transformer_engine;
     },
     [](C, S) {
       return std::string(
           "cuda_graph_scope full_iteration needs cuda_graph_impl local");
     }},
    {"a full-iteration CUDA graph captures no other scope",
     "megatron/training/arguments.py: --cuda-graph-modules must be empty when "
     "--cuda-graph-impl=full_iteration",
     {K::cuda_graph_scope},
     [](C, S s) {
       return !s.graphs(CudaGraphScope::full_iteration) ||
              s.cuda_graph_scope == scope_bit(CudaGraphScope::full_iteration);
     },
     [](C, S) { return std::string("cuda_graph_scope full_iteration needs no other scope"); }},
    {"MoE CUDA graph scopes need a MoE model",
     "megatron/core/transformer/transformer_config.py: moe cuda graph is only supported for MoE",
     {K::cuda_graph_scope},
     [](C c, S s) {
       return c.model.moe.has_value() ||
              (s.cuda_graph_scope & (scope_bit(CudaGraphScope::moe) |
                                     scope_bit(CudaGraphScope::moe_router) |
                                     scope_bit(CudaGraphScope::moe_preprocess))) == 0;
     },
     [](C, S) {
       return std::string(
           "cuda_graph_scope moe, moe_router or moe_preprocess needs a MoE model");
     }},
    {"the mlp CUDA graph scope needs dense layers",
     "megatron/core/transformer/transformer_config.py: mlp cuda graph is only supported for dense "
     "layers, but not found in the model",
     {K::cuda_graph_scope},
     [](C c, S s) {
       return !s.graphs(CudaGraphScope::mlp) || !c.model.moe ||
              c.model.moe->first_k_dense_layers > 0;
     },
     [](C, S) {
       return std::string(
           "cuda_graph_scope mlp needs dense layers; every layer is MoE");
     }},
    {"the moe and moe_router CUDA graph scopes exclude each other",
     "megatron/core/transformer/transformer_config.py: cuda_graph_modules must not contain both "
     "moe and moe_router",
     {K::cuda_graph_scope},
     [](C, S s) { return !s.graphs(CudaGraphScope::moe) || !s.graphs(CudaGraphScope::moe_router); },
     [](C, S) { return std::string("cuda_graph_scope moe needs moe_router out of it"); }},
    {"the moe CUDA graph scope needs drop-and-pad MoE",
     "megatron/core/transformer/transformer_config.py: moe cuda graph is only supported with "
     "drop-padding MoE (moe_expert_capacity_factor and moe_pad_expert_input_to_capacity)",
     {K::cuda_graph_scope, K::moe_expert_capacity_factor, K::moe_pad_expert_input_to_capacity},
     [](C, S s) { return !s.graphs(CudaGraphScope::moe) || s.drop_and_pad(); },
     [](C, S) {
       return std::string(
           "cuda_graph_scope moe needs moe_expert_capacity_factor with "
           "moe_pad_expert_input_to_capacity");
     }},
    {"the moe_preprocess CUDA graph scope excludes the all-to-all's token dropping",
     "megatron/core/transformer/transformer_config.py: moe_preprocess cuda graph is not supported "
     "when there are DtoH copies and synchronizations in the preprocess step (alltoall with "
     "moe_expert_capacity_factor)",
     {K::cuda_graph_scope, K::moe_token_dispatcher_type, K::moe_expert_capacity_factor},
     [](C, S s) {
       return !s.graphs(CudaGraphScope::moe_preprocess) ||
              s.moe_token_dispatcher_type != MoeDispatcher::alltoall ||
              s.moe_expert_capacity_factor <= 0;
     },
     [](C, S) {
       return std::string(
           "cuda_graph_scope moe_preprocess needs moe_token_dispatcher_type allgather or flex, "
           "or no moe_expert_capacity_factor, with alltoall (its token dropping syncs the host)");
     }},
    {"the moe_preprocess CUDA graph scope needs moe_router",
     "megatron/core/transformer/transformer_config.py: moe_preprocess cuda graph is only "
     "supported with moe_router cuda graph (the local implementation adds each for the other)",
     {K::cuda_graph_scope, K::cuda_graph_impl},
     [](C, S s) {
       return !s.graphs(CudaGraphScope::moe_preprocess) || s.graphs(CudaGraphScope::moe_router) ||
              s.cuda_graph_impl == CudaGraphImpl::local;
     },
     [](C, S) { return std::string("cuda_graph_scope moe_preprocess needs moe_router"); }},
    {"per-layer CUDA graphs exclude full recompute",
     "megatron/core/transformer/transformer_config.py: full recompute is only supported with full "
     "iteration CUDA graph",
     {K::cuda_graph_impl, K::cuda_graph_scope, K::recompute_granularity},
     [](C, S s) { return !s.per_layer_graphs() || !s.any_recompute(RecomputeGranularity::full); },
     [](C, S) {
       return std::string(
           "cuda_graph_impl with a per-layer scope needs recompute_granularity none or selective");
     }},
    {"per-layer CUDA graphs exclude CPU offloading by layer",
     "megatron/core/transformer/transformer_config.py: CUDA graphs not supported with CPU "
     "offloading (unless full_iteration)",
     {K::cuda_graph_impl, K::cuda_graph_scope, K::cpu_offloading_num_layers},
     [](C, S s) { return !s.per_layer_graphs() || s.cpu_offloading_num_layers == 0; },
     [](C, S) {
       return std::string(
           "cuda_graph_impl with a per-layer scope needs cpu_offloading_num_layers 0");
     }},
    {"recomputing whole MoE layers excludes Transformer Engine's moe_router graphs",
     "megatron/core/transformer/transformer_config.py: moe recompute is not supported with "
     "moe_router CUDA graph with --cuda-graph-impl transformer_engine",
     {K::cuda_graph_impl, K::cuda_graph_scope, K::recompute_modules, K::recompute_granularity},
     [](C, S s) {
       return s.cuda_graph_impl != CudaGraphImpl::transformer_engine ||
              !s.graphs(CudaGraphScope::moe_router) || !s.any_recomputes(RecomputeModule::moe);
     },
     [](C, S) {
       return std::string(
           "recompute_modules moe needs moe_router out of cuda_graph_scope");
     }},
    {"fine-grained activation offloading with local per-layer graphs offloads only the experts'",
     "megatron/core/transformer/transformer_config.py: fine-grained activation offloading with "
     "cuda_graph_impl='local' only supports offload_modules 'expert_fc1', 'moe_act' ... not "
     "supported with whole-layer CUDA graph capture ... when the full MoE module is not captured",
     {K::cuda_graph_impl, K::cuda_graph_scope, K::offload_modules},
     [](C, S s) {
       if (s.offload_modules == 0 || s.cuda_graph_impl != CudaGraphImpl::local ||
           s.full_iteration_graph()) {
         return true;
       }
       const uint32_t experts = (1u << static_cast<unsigned>(OffloadModule::expert_fc1)) |
                                (1u << static_cast<unsigned>(OffloadModule::moe_act));
       return (s.offload_modules & ~experts) == 0 && s.cuda_graph_scope != 0 &&
              !s.graphs(CudaGraphScope::moe);
     },
     [](C, S) {
       return std::string(
           "offload_modules with cuda_graph_impl local needs only expert_fc1 or moe_act, and a "
           "cuda_graph_scope without moe");
     }},
};
// clang-format on

}  // namespace

std::span<const Rule> cuda_graph_rules() { return kCudaGraphRules; }

}  // namespace paraplan::detail
