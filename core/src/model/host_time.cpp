// The host's issue time per layer region (host_time.hpp).
#include "model/host_time.hpp"

namespace paraplan::detail {

namespace {

// Ops per forward pass, read from Megatron-Core's Transformer Engine layer spec
// (gpt_layer_specs.py get_gpt_layer_with_transformer_engine_spec) and the modules it names.
// A Transformer Engine module call (TELayerNormColumnParallelLinear, TERowParallelLinear,
// TEDotProductAttention, TENorm, TEGroupedLinear) is priced as one TE module; every other
// PyTorch op (a fused rotary embedding, bias-dropout-add, an activation, a collective, a
// device-to-host copy) as one op.

// SelfAttention (attention.py): linear_qkv with the input norm fused, core_attention,
// linear_proj; rotary embedding of the query and the key, then bias-dropout-add.
constexpr HostOps kAttentionOps{3, 3};
// With YaRN's concentration factor other than 1 the rotary embedding of the query and of the key
// each runs unfused (attention_cost.cpp rotary_embedding): 12 ops (the sine and cosine tables'
// cos, sin, two multiplies and two casts; the tensor's two multiplies, neg, two cats and the
// add) in place of the fused one.
constexpr double kUnfusedRotaryExtraOps = 2 * (12 - 1);
// --qk-layernorm: q_layernorm and k_layernorm, two TENorm module calls (attention.py).
constexpr double kQkLayernormModules = 2;
// MLASelfAttention (multi_latent_attention.py) with a query LoRA: the standalone input norm,
// linear_q_down_proj, q_layernorm, linear_q_up_proj, linear_kv_down_proj, kv_layernorm,
// linear_kv_up_proj, core_attention, linear_proj; the rotary embedding of the query's and the
// key's positional parts, their concatenation with the rest of each (two cats), the key's
// positional part expanded over the heads, bias-dropout-add.
constexpr HostOps kMlaAttentionOps{9, 6};
// MLP (mlp.py): linear_fc1 with the pre-MLP norm fused, the activation (bias_swiglu_impl or
// bias_gelu_impl), linear_fc2; bias-dropout-add.
constexpr HostOps kMlpOps{2, 2};
// MoE layer (moe_layer.py): the standalone pre-MLP norm (TENorm), then the router
// (router.py TopKRouter: gating GEMM, softmax or sigmoid, top-k, score normalisation, the
// auxiliary loss): 72 kernels per forward without Megatron-LM's router fusion
// (--moe-router-fusion, off by default), 31 with it (Transformer Engine's fused top-k with score
// function and fused aux-loss kernels), per Megatron-LM's "Optimizing DeepSeek-V3 Training
// Performance on NVIDIA GB200 NVL72" (docs/discussions/deepseek-v3-gb200-optimization, commit
// 402bc50b1c, section 2.1.4: "72 kernels ... 31 kernels").
constexpr HostOps kMoeRouterOps{1, 72};
constexpr HostOps kMoeFusedRouterOps{1, 31};
// With the flex dispatcher (DeepEP, HybridEP) "a fused kernel for the EP communication
// preprocess" brings the router's and the preprocess's kernels to 17 with the router fusion (the
// same guide, section 2.2.1): the fused router's share, less the preprocess's own ops below.
constexpr double kFlexFusedRouterAndPreprocessOps = 17;
// The dispatcher's preprocess (token_dispatcher.py MoEAlltoAllTokenDispatcher
// preprocess/dispatch_preprocess): the tokens-per-expert count, its exchange over the expert
// group, the device-to-host copy of the counts (the sync), then the permutation: Transformer
// Engine's fused moe_permute (--moe-permute-fusion: the row map and the gather, 2 ops) or
// moe_utils.py permute (the routing map's transpose, the index computation, the sort and the
// gather, 4 ops).
constexpr HostOps kMoePreprocessOps{0, 3};
constexpr double kPermuteFusedOps = 2, kPermuteUnfusedOps = 4;
// The token all-to-all (or DeepEP's dispatch), the experts as TEGroupedMLP (experts.py:
// linear_fc1 and linear_fc2 as TEGroupedLinear, the activation between), the unpermute (fused:
// 1 op; moe_utils.py unpermute: the zero fill, the scatter-add and the probs' weighting, 3),
// the combine's all-to-all, and bias-dropout-add.
constexpr HostOps kMoeExpertsOps{2, 4};
constexpr double kUnpermuteFusedOps = 1, kUnpermuteUnfusedOps = 3;
// Shared experts (shared_experts.py SharedExpertMLP): an MLP, its own linear_fc1, activation
// and linear_fc2.
constexpr HostOps kSharedExpertOps{2, 1};
// With more than one local expert the all-to-all dispatcher sorts the received rows by local
// expert after its all-to-all and back by source rank before the combine's
// (token_dispatcher.py MoEAlltoAllTokenDispatcher dispatch_postprocess and combine_preprocess,
// Megatron-Core 0.14 to 0.18): moe_utils.py sort_chunks_by_idxs, with --moe-permute-fusion
// Transformer Engine's fused sort each way (2 ops), else a split and a cat of the tokens and of
// their probs, and of the experts' output (6); padded to capacity a transpose copy of each of
// the three (3).
constexpr double kSortChunksFusedOps = 2, kSortChunksUnfusedOps = 6, kSortChunksPaddedOps = 3;

// A PyTorch op inside a training layer costs its host more than the bare op a preset prices
// (host.torch_op_us: one eager torch.add on tensors without gradients): autograd records it and
// later runs its backward, and the layer's Python runs around it. Measured on a lent H200's host
// by scripts/calibration/measure_host.py, the eager layers without a host sync in them
// (measured/host-h200-2026-11-26-run1.json and -run2.json: dense_layer gpt-1.7b-s4096 and
// llama3-8b-s8192, moe_stage grouped; host_us over kernels, forward and backward): 32.0 to
// 45.5 us per kernel, median 37.6 us, against 6.83 us per bare eager torch.add on that host
// (measured/h200-2026-11-26.json samples.launch.eager_add_us): 5.50 times. The region ops
// below and the experts' Python-level bias ops are such ops; the per-expert GEMMs, allocations
// and quantize calls of GroupedLinear's C++ loops are not (they stay at the bare op's price).
constexpr double kLayerOpOverBareOp = 37.6 / 6.83;

// Transformer Engine's GroupedLinear (TEGroupedMLP's linear_fc1 and linear_fc2) works expert by
// expert on the host: grouped_linear.py (TE 2.9 to 2.16, the releases of the 2025-26 NeMo
// containers; the module keeps this path unless built with its single grouped weight) and
// cpp_extensions/gemm.py general_grouped_gemm, whose C++ te_general_grouped_gemm issues one
// cuBLAS GEMM per expert (common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm). Per local expert
// and GroupedLinear, each priced as one PyTorch op (the preset's host.torch_op_us):
//   forward   the GEMM;
//   backward  the input-gradient and the weight-gradient GEMMs; with biases in 16-bit training
//             one torch.empty for the expert's bias gradient (general_grouped_gemm with grad and
//             use_bias);
//   fp8       each quantised input (the forward's activation, the backward's output gradient)
//             allocates its row-wise and column-wise copies per expert (tex.split_quantize:
//             "torch.empty() (2x num_gemms calls)", TE issue #1499) and, except for delayed
//             scaling's one fused kernel over all experts (multi_tensor_quantize_impl), one
//             quantize call per expert; with biases the backward's tex.bgrad_quantize is per
//             expert for every recipe.
constexpr double kGroupedLinearGemmsForward = 1;
constexpr double kGroupedLinearGemmsBackward = 2;
constexpr double kGroupedLinearBiasGradAllocations = 1;
constexpr double kFp8QuantisedCopyAllocations = 2;
constexpr double kFp8QuantiseCallsPerExpert = 1;
// TEGroupedMLP's two GroupedLinears (experts.py linear_fc1, linear_fc2).
constexpr double kGroupedLinearsPerExpertMlp = 2;
// With biases, TEGroupedMLP adds the fc2 bias expert by expert (experts.py _apply_bias,
// layer_cost.cpp expert_output_bias): per local expert b * p and the add forward, and autograd's
// two products and two sums backward; once, the two splits and the cat forward (the cat's
// backward is views) and the split's backward cat.
constexpr GroupedLinearOps kExpertOutputBiasOpsPerExpert{2, 4};
constexpr GroupedLinearOps kExpertOutputBiasOpsOnce{3, 1};

// Megatron-Core's DistributedDataParallel (distributed_data_parallel.py, the same hooks in core
// 0.14 to 0.18) hooks every parameter, and GroupedLinear holds one weight and, with biases, one
// bias parameter per local expert (grouped_linear.py weight{i}, bias{i}; one grouped parameter
// only from TE 2.14 with single_grouped_weight, which Megatron-Core 0.18 leaves off:
// moe_single_grouped_weight). Per local expert and GroupedLinear, each priced as one bare op (the
// preset's host.torch_op_us):
//   backward  the weight's gradient-accumulator hook (_make_backward_post_hook: param.grad set to
//             None, the bucket's register_grad_ready), and the dummy gradient Transformer Engine
//             hands autograd for it once the weight gradient went into main_grad
//             (grouped_linear.py handle_custom_ddp_from_mcore: a torch.empty in TE 2.9,
//             get_dummy_wgrad's detach from TE 2.10); with biases the bias's hook and its
//             param.main_grad.add_ (TE marks only the weights grad_added_to_main_grad);
//   forward   with the distributed optimizer's overlap_param_gather, the forward pre-hook's
//             finish_param_sync for each of the module's parameters (_make_forward_pre_hook).
constexpr GroupedLinearOps kDdpWeightOpsPerExpert{1, 2};
constexpr GroupedLinearOps kDdpBiasOpsPerExpert{1, 2};

double sort_chunks_ops(const ModelSpec& model, const Strategy& strategy) {
  if (!model.moe || strategy.moe_token_dispatcher_type != MoeDispatcher::alltoall) return 0;
  if (model.moe->num_experts <= strategy.expert_model_parallel_size) return 0;
  if (strategy.drop_and_pad()) return kSortChunksPaddedOps;
  return strategy.moe_permute_fusion ? kSortChunksFusedOps : kSortChunksUnfusedOps;
}

}  // namespace

GroupedLinearOps grouped_linear_ops_per_expert(const Strategy& strategy, bool fp8, bool bias) {
  GroupedLinearOps ops{kGroupedLinearGemmsForward, kGroupedLinearGemmsBackward};
  if (!fp8) {
    if (bias) ops.backward += kGroupedLinearBiasGradAllocations;
    return ops;
  }
  const bool fused_over_experts = strategy.fp8_recipe == Fp8Recipe::delayed;
  ops.forward +=
      kFp8QuantisedCopyAllocations + (fused_over_experts ? 0 : kFp8QuantiseCallsPerExpert);
  ops.backward +=
      kFp8QuantisedCopyAllocations + (fused_over_experts && !bias ? 0 : kFp8QuantiseCallsPerExpert);
  return ops;
}

GroupedLinearOps ddp_ops_per_expert(const Strategy& strategy, bool bias) {
  // Megatron-FSDP (zero_stage 2 and 3) shards and hooks parameters its own way: not counted.
  if (strategy.zero_stage > 1) return {};
  const bool pre_hooks = strategy.zero_stage == 1 && strategy.overlap_param_gather;
  GroupedLinearOps ops{pre_hooks ? kDdpWeightOpsPerExpert.forward : 0,
                       kDdpWeightOpsPerExpert.backward};
  if (bias) {
    ops.forward += pre_hooks ? kDdpBiasOpsPerExpert.forward : 0;
    ops.backward += kDdpBiasOpsPerExpert.backward;
  }
  return ops;
}

HostOps host_ops(HostRegion region, const ModelSpec& model, const Strategy& strategy) {
  switch (region) {
    case HostRegion::attention: {
      if (model.mla) return kMlaAttentionOps;
      HostOps ops = kAttentionOps;
      if (model.yarn_concentration_factor() != 1.0) ops.torch_ops += kUnfusedRotaryExtraOps;
      if (model.qk_layernorm) ops.te_modules += kQkLayernormModules;
      return ops;
    }
    case HostRegion::mlp:
      return kMlpOps;
    case HostRegion::moe_router: {
      if (!strategy.moe_router_fusion) return kMoeRouterOps;
      if (strategy.moe_token_dispatcher_type != MoeDispatcher::flex) return kMoeFusedRouterOps;
      const double preprocess_ops = host_ops(HostRegion::moe_preprocess, model, strategy).torch_ops;
      return {kMoeFusedRouterOps.te_modules, kFlexFusedRouterAndPreprocessOps - preprocess_ops};
    }
    case HostRegion::moe_preprocess: {
      HostOps ops = kMoePreprocessOps;
      ops.torch_ops += strategy.moe_permute_fusion ? kPermuteFusedOps : kPermuteUnfusedOps;
      return ops;
    }
    case HostRegion::moe_experts: {
      HostOps ops = kMoeExpertsOps;
      ops.torch_ops += strategy.moe_permute_fusion ? kUnpermuteFusedOps : kUnpermuteUnfusedOps;
      ops.torch_ops += sort_chunks_ops(model, strategy);
      // SequentialMLP's per-expert loop has its own host floor (moe_layer_cost.cpp); only the
      // dispatch and combine around it are counted here.
      if (!strategy.moe_grouped_gemm) ops.te_modules = 0;
      return ops;
    }
    case HostRegion::shared_experts:
      return model.moe && model.moe->num_shared_experts > 0 ? kSharedExpertOps : HostOps{};
  }
  return {};
}

LayerHostTime layer_host_time(const ModelSpec& model, const Strategy& strategy, const GpuSpec& gpu,
                              bool moe, bool transformer_engine, bool fp8) {
  const double module_s =
      transformer_engine ? gpu.host_issue.te_module_s : gpu.host_issue.torch_linear_s;
  LayerHostTime host;
  host.backward_over_forward = moe ? kHostBackwardOverForwardMoe : kHostBackwardOverForwardDense;
  // The all-to-all dispatcher padding every expert's input to its capacity knows its splits
  // without a device-to-host copy (token_dispatcher.py MoEAlltoAllTokenDispatcher: drop_and_pad
  // keeps cuda_sync_point "no_sync"), and so does HybridEP, which is then given
  // num_permuted_tokens (_HybridEPManager.setup_metadata: capacity x group x local experts);
  // without it HybridEP syncs to size its output (hybrid_ep_buffer.py: the stream's
  // synchronize, tokens_per_expert through pinned memory), and DeepEP's normal kernels always
  // wait on the host for the received counts (fused_a2a.py, Buffer.dispatch); the others sync.
  const bool sync_free_padding = strategy.moe_token_dispatcher_type == MoeDispatcher::alltoall ||
                                 (strategy.moe_token_dispatcher_type == MoeDispatcher::flex &&
                                  strategy.moe_flex_dispatcher_backend == MoeFlexBackend::hybridep);
  host.syncs = moe && !(strategy.drop_and_pad() && sync_free_padding);
  if (host.syncs && gpu.host_issue.torch_op_s > 0) host.sync_gap_s = gpu.host_issue.sync_gap_s;
  const double layer_op_s = kLayerOpOverBareOp * gpu.host_issue.torch_op_s;
  const auto price = [&](HostRegion region) {
    const HostOps ops = host_ops(region, model, strategy);
    host[region] = ops.te_modules * module_s + ops.torch_ops * layer_op_s;
  };
  price(HostRegion::attention);
  if (!moe) {
    price(HostRegion::mlp);
    return host;
  }
  price(HostRegion::moe_router);
  price(HostRegion::moe_preprocess);
  price(HostRegion::moe_experts);
  price(HostRegion::shared_experts);
  if (transformer_engine && strategy.moe_grouped_gemm && model.moe) {
    const double local_experts = static_cast<double>(model.moe->num_experts) /
                                 static_cast<double>(strategy.expert_model_parallel_size);
    const GroupedLinearOps ops =
        grouped_linear_ops_per_expert(strategy, fp8, model.add_bias_linear);
    const GroupedLinearOps ddp = ddp_ops_per_expert(strategy, model.add_bias_linear);
    const double per_expert_s =
        kGroupedLinearsPerExpertMlp * local_experts * gpu.host_issue.torch_op_s;
    host.expert_forward_s = (ops.forward + ddp.forward) * per_expert_s;
    host.expert_backward_s = (ops.backward + ddp.backward) * per_expert_s;
    if (model.add_bias_linear) {
      const GroupedLinearOps& each = kExpertOutputBiasOpsPerExpert;
      const GroupedLinearOps& once = kExpertOutputBiasOpsOnce;
      host.expert_forward_s += (each.forward * local_experts + once.forward) * layer_op_s;
      host.expert_backward_s += (each.backward * local_experts + once.backward) * layer_op_s;
    }
  }
  return host;
}

bool graph_captures(const Strategy& strategy, HostRegion region) {
  if (strategy.cuda_graph_impl == CudaGraphImpl::none) return false;
  if (strategy.graphs(CudaGraphScope::full_iteration)) return true;
  // Whole-layer graphs leave out a dropless layer's routed experts, whose shapes follow the
  // routing; padded to capacity their shapes are static and the graph takes them too.
  if (strategy.cuda_graph_scope == 0) {
    return region != HostRegion::moe_experts || strategy.drop_and_pad();
  }
  switch (region) {
    case HostRegion::attention:
      return strategy.graphs(CudaGraphScope::attn);
    case HostRegion::mlp:
      return strategy.graphs(CudaGraphScope::mlp);
    // The moe scope captures the whole MoE block (Megatron-LM CudaGraphScope.moe, only for
    // drop-and-pad MoE), its router and preprocess included.
    case HostRegion::moe_router:
      return strategy.graphs(CudaGraphScope::moe_router) || strategy.graphs(CudaGraphScope::moe);
    case HostRegion::moe_preprocess:
      return strategy.graphs(CudaGraphScope::moe_preprocess) ||
             strategy.graphs(CudaGraphScope::moe);
    case HostRegion::moe_experts:
      return strategy.graphs(CudaGraphScope::moe);
    case HostRegion::shared_experts:
      // The moe_router graph runs the shared experts with the router unless they overlap the
      // dispatch on their own stream (moe_layer.py: the shared experts' forward in the router's
      // captured part when not moe_shared_expert_overlap).
      return strategy.graphs(CudaGraphScope::moe) ||
             (strategy.graphs(CudaGraphScope::moe_router) && !strategy.moe_shared_expert_overlap);
  }
  return false;
}

HostPassTime eager_host_forward_s(const LayerHostTime& host, const Strategy& strategy) {
  HostPassTime pass;
  for (size_t r = 0; r < kNumHostRegions; ++r) {
    const auto region = static_cast<HostRegion>(r);
    if (graph_captures(strategy, region)) continue;
    const bool after_sync =
        host.syncs && (region == HostRegion::moe_experts || region == HostRegion::shared_experts);
    (after_sync ? pass.after_sync_s : pass.before_sync_s) += host.forward_s[r];
  }
  pass.backward_s = host.backward_over_forward * pass.total_s();
  if (!graph_captures(strategy, HostRegion::moe_experts)) {
    (host.syncs ? pass.after_sync_s : pass.before_sync_s) += host.expert_forward_s;
    pass.backward_s += host.expert_backward_s;
    if (host.syncs) pass.sync_gap_s = host.sync_gap_s;
  }
  return pass;
}

}  // namespace paraplan::detail
