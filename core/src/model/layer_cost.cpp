#include "model/layer_cost.hpp"

#include <algorithm>
#include <utility>

#include "model/collectives.hpp"
#include "model/cost_builder.hpp"
#include "model/host_time.hpp"
#include "model/kernels.hpp"
#include "model/tp_comm_overlap.hpp"

namespace paraplan::detail {

CostBuilder::CostBuilder(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
                         int64_t gpus_per_node, const Strategy& strategy,
                         FrameworkKernels framework)
    : model_(model),
      training_(training),
      gpu_(gpu),
      s_(strategy),
      kernels_(gpu, training.precision, strategy.fp8_recipe),
      // The LM head and attention stay in 16-bit in fp8 training (Transformer Engine).
      kernels16_(gpu, training.precision == Precision::fp8 ? Precision::bf16 : training.precision),
      e_(kernels_.element_bytes()),
      saved_input_bytes_(kernels_.operand_bytes()),
      t_(static_cast<double>(strategy.tensor_model_parallel_size)),
      h_(static_cast<double>(model.hidden_size)),
      tokens_(static_cast<double>(strategy.micro_batch_size) * training.seq_length /
              static_cast<double>(strategy.context_parallel_size)),
      sequence_parallel_(strategy.sequence_parallel && strategy.tensor_model_parallel_size > 1),
      norm_tokens_(sequence_parallel_ ? tokens_ / t_ : tokens_),
      hidden_mask_bytes_(model.hidden_dropout > 0 ? 1.0 : 0.0),
      tp_group_(place_group(strategy.tensor_model_parallel_size, 1, gpus_per_node)),
      cp_group_(place_group(strategy.context_parallel_size, strategy.tensor_model_parallel_size,
                            gpus_per_node)),
      gpus_per_node_(gpus_per_node),
      framework_(framework) {}

ModelCosts CostBuilder::build() {
  SharedCosts shared = build_shared();
  ModelCosts costs;
  costs.moe = model_.moe ? build_moe_layer(shared.moe_attention) : shared.dense;
  costs.dense = std::move(shared.dense);
  costs.embedding = shared.embedding;
  costs.head = shared.head;
  costs.mtp = shared.mtp;
  set_ungraphed_passes(costs);
  return costs;
}

SharedCosts CostBuilder::build_shared() {
  SharedCosts shared;
  shared.dense = layer(/*moe=*/false);
  if (model_.moe) shared.moe_attention = attention(/*moe=*/true);
  shared.embedding = embedding();
  shared.head = head();
  if (model_.mtp_num_layers > 0) shared.mtp = mtp_depth(shared.embedding, shared.head);
  return shared;
}

// Whether the bias gradient comes with no pass of its own. A Transformer Engine module that adds
// its own bias fuses its gradient: into the weight-gradient GEMM's epilogue in 16-bit training
// (module/base.py grad_output_preprocess, "Non-FP8 case: bgrad is fused with wgrad"; grouped:
// grouped_linear.py "Grad bias is fused with wgrad GEMM"), into the output gradient's
// quantisation in fp8 (tex.bgrad_quantize) except with 1 x 128 block scaling, whose bias
// gradient is summed on its own ("unfuse bgrad for now", TE 2.9). Megatron-LM's own bias add
// and any other framework's linear leave it to autograd: a sum over the output gradient.
bool CostBuilder::bias_gradient_fused(BiasAdd bias_add) const {
  if (!framework_.transformer_engine || bias_add != BiasAdd::in_module) return false;
  return training_.precision != Precision::fp8 || s_.fp8_recipe != Fp8Recipe::blockwise;
}

// A linear layer on this GPU, `groups` times over `g` (local experts). With biases
// (Megatron-LM --add-bias-linear), the bias gradient is one more pass over the output
// gradient unless fused (bias_gradient_fused).
LinearTime CostBuilder::linear(const Kernels& kernels, const Gemm& g, double groups,
                               bool grouped_gemm, BiasAdd bias_add) const {
  LinearTime time;
  if (grouped_gemm) {
    // TEGroupedMLP (--moe-grouped-gemm): Transformer Engine's GroupedLinear, one GEMM per local
    // expert on its compute streams, a wave of concurrent experts as efficient as one GEMM of
    // their summed work (kGroupedGemmStreams).
    // In fp8 the forward quantises the input and the input gradient's GEMM the output gradient
    // (GroupedLinear's split_quantize under Transformer Engine, once over the grouped tensor
    // otherwise); the weight gradient reads their column-wise copies.
    const double concurrent = framework_.grouped_gemm_concurrency;
    const double out = kernels.element_bytes();
    const GroupedQuantisation quantise = framework_.transformer_engine
                                             ? GroupedQuantisation::transformer_engine
                                             : GroupedQuantisation::all_at_once;
    time.forward_s = kernels.grouped_gemm_s(g, groups, out, concurrent, quantise);
    time.dgrad_s = kernels.grouped_gemm_s({g.m, g.k, g.n}, groups, out, concurrent, quantise);
    time.wgrad_s = kernels.grouped_gemm_s({g.k, g.n, g.m}, groups, kMainGradBytes, concurrent,
                                          GroupedQuantisation::none);
  } else {
    // One GEMM per group at its own size (SequentialMLP for experts).
    time.forward_s = groups * kernels.gemm_s(g);
    time.dgrad_s = groups * kernels.dgrad_s(g);
    time.wgrad_s = groups * kernels.wgrad_s(g);
  }
  if (model_.add_bias_linear && bias_add != BiasAdd::expert_output &&
      !bias_gradient_fused(bias_add)) {
    time.wgrad_s += kernels.memory_s(e_ * groups * g.m * g.n);
  }
  return time;
}

LayerCost CostBuilder::attention(bool moe) {
  LayerCost cost;
  attention_block(cost, moe);
  return cost;
}

LayerCost CostBuilder::finish_layer(LayerCost cost, bool moe) {
  if (moe) {
    moe_block(cost);
  } else {
    dense_mlp_block(cost, static_cast<double>(model_.ffn_hidden_size));
  }
  // Kept per layer besides the blocks' own: the two norm inputs, the inputs of the first
  // GEMM of each block and the two dropout masks, replicated over tensor parallelism unless
  // sequence parallel (Korthikanti et al. 2022, eq. 2: the "10sbh" term).
  cost.activation_bytes +=
      (2 * e_ + 2 * saved_input_bytes_ + 2 * hidden_mask_bytes_) * h_ * norm_tokens_;
  cost.checkpoint_bytes = e_ * h_ * norm_tokens_;
  // --offload-modules: a norm fused into the next GEMM (Transformer Engine's LayerNormLinear)
  // saves the layer input and its normed copy within qkv_linear (attention) and fc1 (a dense
  // MLP, no offload module); a standalone norm saves its input within attn_norm or mlp_norm and
  // its output within the next module (transformer_layer.py, gpt_layer_specs.py).
  const double hidden = e_ * h_ * norm_tokens_;
  if (model_.mla) {
    cost.offload(OffloadModule::attn_norm) += hidden;
  } else {
    cost.offload(OffloadModule::qkv_linear) += hidden + saved_input_bytes_ * h_ * norm_tokens_;
  }
  if (moe) cost.offload(OffloadModule::mlp_norm) += hidden;
  per_op_checkpoint(cost, moe);
  cost.host = layer_host_time(model_, s_, gpu_, moe, framework_.transformer_engine,
                              training_.precision == Precision::fp8);
  return cost;
}

// --recompute-modules layernorm: a norm outside a fused norm-linear (the input norm before
// MLA's down-projections, the pre-MLP norm before a router; gpt_layer_specs.py) drops its
// output, the next GEMM's saved input, and makes it again before the backward
// (transformer_layer.py, CheckpointWithoutOutput). Fused norms are IdentityOp and unaffected.
void CostBuilder::add_norm_recompute(LayerCost& cost) const {
  const double n = h_ * norm_tokens_;
  RecomputeUnit& unit = cost.unit(RecomputeModule::layernorm);
  unit.saved_bytes += saved_input_bytes_ * n;
  unit.forward.compute_s += kernels_.memory_s(2 * e_ * n);  // norm: read x, write y
}

// Norm + bias/dropout/residual add of a block, forward and backward.
void CostBuilder::block_elementwise(LayerCost& cost) const {
  const double n = h_ * norm_tokens_;
  cost.forward.compute_s += kernels_.memory_s(2 * e_ * n);   // norm: read x, write y
  cost.backward.compute_s += kernels_.memory_s(3 * e_ * n);  // norm backward
  // Fused bias-dropout-add: read two, write one (+ mask); backward adds the residual grads.
  cost.forward.compute_s += kernels_.memory_s((3 * e_ + hidden_mask_bytes_) * n);
  cost.backward.compute_s += kernels_.memory_s((5 * e_ + hidden_mask_bytes_) * n);
}

// Tensor-parallel communication of a block: column-parallel linear in, row-parallel out.
// Megatron-LM communicates at the block edges: all-reduce, or all-gather + reduce-scatter
// with sequence parallelism (Korthikanti et al. 2022, Fig. 5). `input` is what the
// column-parallel side gathers (the hidden state, or multi-latent attention's latents); the
// row-parallel side reduces the hidden state.
void CostBuilder::block_tp_comm(LayerCost& cost, const LinearTime& column, const LinearTime& row,
                                TpColumnInput input) const {
  if (s_.tensor_model_parallel_size <= 1) return;
  const double row_bytes = hidden_bytes();
  // The gathers move GEMM inputs (gathered_input_element_bytes), the reduce-scatters GEMM
  // outputs, 16-bit.
  const double quantised = gathered_input_element_bytes() / e_;
  if (input.bytes < 0) input.bytes = row_bytes;
  if (input.gathered_bytes < 0) input.gathered_bytes = quantised * input.bytes;
  // Each sequence-parallel gather of an fp8 input under current scaling first reduces the
  // input's amax over the group (amax_reduction_s): the column-parallel modules' inputs forward,
  // the row-parallel module's output gradient backward.
  cost.forward.tp_comm_s += input.modules * amax_reduction_s();
  cost.backward.tp_comm_s += amax_reduction_s();
  if (!sequence_parallel_) {
    // Forward all-reduce after the row-parallel GEMM; backward all-reduce of the column
    // GEMM's input gradient overlaps its weight-gradient GEMM (async all-reduce).
    cost.forward.tp_comm_s += all_reduce_s(gpu_, tp_group_, row_bytes);
    const double column_reduce = all_reduce_s(gpu_, tp_group_, input.bytes);
    cost.backward.tp_comm_s +=
        tp_overlap_exposed_s(column_reduce, exposed_s(gpu_, column_reduce, column.wgrad_s));
    return;
  }
  const double column_gather = all_gather_s(gpu_, tp_group_, input.gathered_bytes);
  const double column_scatter = reduce_scatter_s(gpu_, tp_group_, input.bytes);
  const double row_gather = all_gather_s(gpu_, tp_group_, quantised * row_bytes);
  const double row_scatter = reduce_scatter_s(gpu_, tp_group_, row_bytes);
  if (s_.tp_comm_overlap) {
    // Transformer Engine's userbuffers with their default methods (tp_comm_overlap.hpp).
    cost.forward.tp_comm_s +=
        tp_overlap_exposed_s(column_gather,
                             ring_exchange_exposed_s(gpu_, column_gather, column.forward_s, t_)) +
        tp_overlap_exposed_s(row_scatter, pipelined_exposed_s(gpu_, row_scatter, row.forward_s));
    cost.backward.tp_comm_s +=
        tp_overlap_exposed_s(row_gather,
                             ring_exchange_exposed_s(gpu_, row_gather, row.dgrad_s, t_)) +
        tp_overlap_exposed_s(column_gather, bulk_exposed_s(gpu_, column_gather, column.dgrad_s)) +
        tp_overlap_exposed_s(column_scatter, bulk_exposed_s(gpu_, column_scatter, column.wgrad_s));
    return;
  }
  cost.forward.tp_comm_s += column_gather + row_scatter;
  // Backward: the output-gradient all-gather before the row GEMM is exposed; the input
  // re-gather for the column weight gradient overlaps its input-gradient GEMM, and the
  // input-gradient reduce-scatter overlaps the weight-gradient GEMM.
  cost.backward.tp_comm_s +=
      row_gather +
      tp_overlap_exposed_s(column_gather, exposed_s(gpu_, column_gather, column.dgrad_s)) +
      tp_overlap_exposed_s(column_scatter, exposed_s(gpu_, column_scatter, column.wgrad_s));
}

// Bytes per element of a GEMM input that a sequence-parallel all-gather moves. Transformer Engine
// gathers it quantised in fp8 training (module/linear.py and layernorm_linear.py: the local rows
// through the input quantizer, then gather_along_first_dim(..., quantizer=...) or the
// userbuffers' fp8 buffer; the backward's re-gather of a column-parallel input and
// grad_output_preprocess's gather of a row-parallel output gradient likewise, TE 2.9): the
// quantised copy's bytes (kFp8Quantisation copy_bytes, scales included). Otherwise 16-bit.
double CostBuilder::gathered_input_element_bytes() const {
  return framework_.transformer_engine ? kernels_.quantised_copy_bytes() : e_;
}

// Transformer Engine's current scaling (fp8_recipe tensorwise) gathers a sequence-parallel
// input in fp8 with one scale for the whole group: the quantizer of a column-parallel module's
// input and of a row-parallel module's output gradient reduces its amax over the tensor-parallel
// group before the cast (module/linear.py and layernorm_linear.py
// _customize_quantizers_float8_current_scaling: with_amax_reduction, amax_reduction_group =
// tp_group, when sequence_parallel; csrc/quantizer.cpp Float8CurrentScalingQuantizer::
// quantize_impl: amax kernel, allreduce(MAX)->wait() of the one fp32 amax, scale, cast; TE 2.9 to
// 2.16): an all-reduce of one fp32 on the compute stream's path, nothing beside it. Delayed
// scaling's scales come from the amax history (reduced after each autocast region's forward and
// backward, not per input), MXFP8's and the block-wise recipe's from each block.
double CostBuilder::amax_reduction_s() const {
  const bool current_scaling =
      training_.precision == Precision::fp8 && s_.fp8_recipe == Fp8Recipe::tensorwise;
  if (!current_scaling || !sequence_parallel_ || !framework_.transformer_engine) return 0;
  return scalar_all_reduce_s(tp_group_);
}

// FC1, activation, FC2 of width `ffn` split over `tp` GPUs, on `rows` token rows spread evenly
// over `groups` experts.
CostBuilder::MlpTime CostBuilder::mlp(LayerCost& cost, double rows, double ffn, double groups,
                                      double tp, bool grouped_gemm) {
  const double gate = is_gated(model_.activation) ? 2.0 : 1.0;
  const double rows_per_group = rows / groups;
  // The grouped experts' linear_fc1 adds its own bias (experts.py TEGroupedMLP
  // skip_bias_add=False); an MLP's goes to the bias-activation fusion (mlp.py).
  const BiasAdd fc1_bias = grouped_gemm ? BiasAdd::in_module : BiasAdd::after_module;
  const LinearTime fc1 =
      linear(kernels_, {rows_per_group, gate * ffn / tp, h_}, groups, grouped_gemm, fc1_bias);
  const bool eager_output_bias = model_.add_bias_linear && eager_grouped_experts(grouped_gemm);
  const BiasAdd fc2_bias = eager_output_bias ? BiasAdd::expert_output : BiasAdd::after_module;
  const LinearTime fc2 =
      linear(kernels_, {rows_per_group, h_, ffn / tp}, groups, grouped_gemm, fc2_bias);
  add_linear(cost, fc1);
  add_linear(cost, fc2);
  if (eager_output_bias) {
    const ExpertBiasTime bias = expert_output_bias(rows * h_, groups);
    cost.forward.compute_s += bias.forward_s;
    cost.backward.compute_s += bias.backward_s;
  }
  const double activation_elements = rows * ffn / tp;
  const ClampTime clamp = clamped_activation(gate * activation_elements, grouped_gemm);
  const double activation_s =
      kernels_.memory_s(e_ * (gate + 1) * activation_elements) + clamp.forward_s;
  cost.forward.compute_s += activation_s;
  cost.backward.compute_s +=
      kernels_.memory_s(e_ * (2 * gate + 1) * activation_elements) + clamp.backward_s;
  // FC1 output (the activation's input) and the activation's output (FC2's input), which
  // recomputing the activation does not keep.
  cost.activation_bytes +=
      (e_ * gate + saved_input_bytes_) * activation_elements + clamp.saved_bytes;
  MlpTime time{fc1, fc2, {}};
  time.activation.saved_bytes = saved_input_bytes_ * activation_elements + clamp.saved_bytes;
  time.fc1_output_bytes = e_ * gate * activation_elements;
  time.activation.forward.compute_s = activation_s;
  return time;
}

// A clamped gated activation (ModelSpec::activation_func_clamp_value, GPT-OSS) in the routed
// experts as Megatron-Core's TEGroupedMLP runs it with bias_activation_fusion (Megatron-Bridge
// gpt_oss_bridge.py; experts.py bias_act_func -> fused_bias_geglu.py
// weighted_bias_quick_geglu_impl, Megatron-LM 2e29a5e1e3 of 2025-09-09, unchanged at the
// recipes' 4415119 (Megatron-Bridge 21d102f5e, 26.04.01) and 24bad8e (4ab94dfad, 26.08)). Before
// the jit-fused activation it runs eagerly, outside the fusion:
//   forward   input.chunk (views); x_glu.clamp(max=v) and x_linear.clamp(-v, v), each reading and
//             writing half the fc1 output; torch.cat of the two, reading and writing all of it;
//             torch.tensor(linear_offset, device=cuda), a pageable host-to-device copy that
//             PyTorch makes with memcpy_and_sync (ATen native/cuda/Copy.cu, non_blocking
//             false): the host waits for the GPU's queue, which idles the GPU for the preset's
//             host.sync_gap_us where the host's issue cost is priced;
//   backward  PyTorch's clamp_backward (FunctionsManual.cpp): where(self <= v, grad, 0) for the
//             gate half (le, where) and where((self >= -v).logical_and_(self <= v), grad, 0) for
//             the linear half (ge, le, logical_and_, where), boolean masks of one byte; the
//             chunk's backward (split_backward) concatenates the two halves' gradients.
// Autograd keeps the clamp's input (the fc1 output) and the activation its clamped copy: one more
// copy of the fc1 output. A CUDA graph that captures the routed experts cannot hold the
// synchronising copy, so a launch that captures them runs another path (the GPT-OSS full-iteration
// recipes set Transformer Engine's op fuser, Megatron-Bridge 4ab94dfad perf_recipes/gpt_oss
// common.py): nothing is added there, nor for other frameworks' experts.
CostBuilder::ClampTime CostBuilder::clamped_activation(double fc1_output_elements,
                                                       bool grouped_gemm) const {
  ClampTime clamp;
  if (model_.activation_func_clamp_value <= 0 || !eager_grouped_experts(grouped_gemm)) {
    return clamp;
  }
  constexpr double kMaskBytes = 1;  // torch.bool
  const double half = fc1_output_elements / 2;
  const double clamp_half_bytes = 2 * e_ * half;            // read, write
  const double cat_bytes = 2 * e_ * fc1_output_elements;    // read, write
  const double compare_bytes = (e_ + kMaskBytes) * half;    // ge or le
  const double and_bytes = 3 * kMaskBytes * half;           // logical_and_
  const double where_bytes = (kMaskBytes + 2 * e_) * half;  // mask and grad in, grad out
  const double sync_s = gpu_.host_issue.torch_op_s > 0 ? gpu_.host_issue.sync_gap_s : 0;
  clamp.forward_s = 2 * kernels_.memory_s(clamp_half_bytes) + kernels_.memory_s(cat_bytes) + sync_s;
  clamp.backward_s = 3 * kernels_.memory_s(compare_bytes) + kernels_.memory_s(and_bytes) +
                     2 * kernels_.memory_s(where_bytes) + kernels_.memory_s(cat_bytes);
  clamp.saved_bytes = e_ * fc1_output_elements;
  return clamp;
}

// Whether Megatron-Core's TEGroupedMLP runs the routed experts eagerly (experts.py forward) rather
// than through Transformer Engine's op fuser (_fused_forward: GroupedLinear, the scaled activation
// and GroupedLinear as one fused sequence, biases inside), which is taken wherever a CUDA graph
// captures the routed experts (clamped_activation).
bool CostBuilder::eager_grouped_experts(bool grouped_gemm) const {
  return grouped_gemm && framework_.transformer_engine && model_.moe &&
         !graph_captures(s_, HostRegion::moe_experts);
}

// The routed experts' fc2 bias (--add-bias-linear, GPT-OSS) as Megatron-Core's eager TEGroupedMLP
// adds it: linear_fc2 returns its biases (skip_bias_add=True) and experts.py _apply_bias adds
// each expert's, weighted by its rows' routing probabilities, in a loop over the local experts:
//   torch.cat([t + b * p for t, b, p in zip(split(output), biases, split(probs))])
// (Megatron-LM a329dd6da5 "Enable bias in expert mlp [gpt-oss 5/5]", the same at the recipes'
// pins 0d8e0714cd (Megatron-Bridge 25.11), 4415119 (26.04.01) and 24bad8e (26.08)). The
// probabilities are in the activations' dtype (router.py: moe_router_dtype unset, as the GPT-OSS
// recipes leave it), so every pass moves 16-bit rows of the hidden width:
//   forward   per expert: b * p writes its rows; t + (b * p) reads two and writes one; the cat
//             reads and writes all rows;
//   backward  per expert (autograd's MulBackward0): grad * p and grad * b each read and write
//             the rows, and their sums to the bias's [h] and the probabilities' [rows, 1] read
//             them; the split's backward concatenates the rows' gradients (read, write).
// The bias gradient is among these passes (BiasAdd::expert_output).
CostBuilder::ExpertBiasTime CostBuilder::expert_output_bias(double output_elements,
                                                            double groups) const {
  const double expert_elements = output_elements / groups;
  const double product_s = kernels_.memory_s(e_ * expert_elements);   // b * p: write
  const double add_s = kernels_.memory_s(3 * e_ * expert_elements);   // t + bp: 2 reads, 1 write
  const double copy_s = kernels_.memory_s(2 * e_ * output_elements);  // cat: read, write
  const double grad_product_s = kernels_.memory_s(2 * e_ * expert_elements);  // read, write
  const double grad_sum_s = kernels_.memory_s(e_ * expert_elements);          // read
  ExpertBiasTime time;
  time.forward_s = groups * (product_s + add_s) + copy_s;
  time.backward_s = groups * 2 * (grad_product_s + grad_sum_s) + copy_s;
  return time;
}

// A dense MLP on all tokens, with its TP communication.
// --recompute-modules mlp runs the whole MLP again from its (kept) input.
void CostBuilder::dense_mlp_block(LayerCost& cost, double ffn) {
  LayerCost block;
  const MlpTime time = mlp(block, tokens_, ffn, 1.0, t_);
  block_tp_comm(block, time.fc1, time.fc2);
  const double flops = 2 * tokens_ * mlp_weights(ffn) / t_;
  cost.unit(RecomputeModule::mlp) = {block.activation_bytes, block.forward, flops};
  cost.forward += block.forward;
  cost.backward += block.backward;
  cost.activation_bytes += block.activation_bytes;
  cost.parameters += mlp_weights(ffn) / t_;
  cost.forward_flops += flops;
  block_elementwise(cost);
}

double exposed_s(const GpuSpec& gpu, double comm_s, double window_s) {
  return std::max(0.0, comm_s - window_s) + gpu.overlap_slowdown * std::min(comm_s, window_s);
}

double memory_bound_s(const GpuSpec& gpu, double bytes) {
  if (bytes <= 0) return 0;
  return bytes / (gpu.hbm_bytes_per_s * gpu.memory_efficiency.at(bytes)) + gpu.kernel_overhead_s;
}

double activation_element_bytes(Precision precision) {
  return precision == Precision::fp32 ? 4.0 : 2.0;
}

ModelCosts compute_model_costs(const ModelSpec& model, const Training& training, const GpuSpec& gpu,
                               int64_t gpus_per_node, const Strategy& strategy,
                               Framework framework) {
  return CostBuilder(model, training, gpu, gpus_per_node, strategy, framework_kernels(framework))
      .build();
}

SharedCosts compute_shared_costs(const ModelSpec& model, const Training& training,
                                 const GpuSpec& gpu, int64_t gpus_per_node,
                                 const Strategy& strategy, Framework framework) {
  return CostBuilder(model, training, gpu, gpus_per_node, strategy, framework_kernels(framework))
      .build_shared();
}

LayerCost compute_moe_layer_cost(const ModelSpec& model, const Training& training,
                                 const GpuSpec& gpu, int64_t gpus_per_node,
                                 const Strategy& strategy, const LayerCost& moe_attention,
                                 Framework framework) {
  return CostBuilder(model, training, gpu, gpus_per_node, strategy, framework_kernels(framework))
      .build_moe_layer(moe_attention);
}

}  // namespace paraplan::detail
