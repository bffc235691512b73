#include "model/parameter_bytes.hpp"

namespace paraplan::detail {
namespace {

// Transformer Engine's fp8 weight copies, cached across micro-batches (TE Linear's weight
// workspace): a row-wise copy for the forward GEMM and a column-wise (transposed) one for the
// input-gradient GEMM, one byte per element each; MXFP8 adds one E8M0 scale per 32 elements
// to each (TE MXFP8Tensor); the block-wise recipe's fp32 scale per 128 x 128 block is negligible.
// Tensor-scaled copies (delayed, tensorwise) on a GPU whose fp8 GEMMs take any layout are one
// copy serving both (fp8_gemm_any_layout); MXFP8's and the block-wise recipe's column-wise
// copies are scaled along the other dimension and stay.
constexpr double kFp8CopyBytes = 2;
constexpr double kFp8AnyLayoutCopyBytes = 1;
constexpr double kMxfp8CopyBytes = 2 * (1 + 1.0 / 32);
// One fp8 element of the all-gathered weight with --fp8-param-gather (MXFP8: its row-wise
// data and scales).
constexpr double kFp8GatherBytes = 1;
constexpr double kMxfp8GatherBytes = 1 + 1.0 / 32;
// fp16's loss-scale unscaling and inf check read and write the fp32 gradients once more.
constexpr double kFp16UnscaleBytes = 8;
// MindSpeed's --reuse-fp32-param turns the shard's bf16 weights and 16-bit residuals into fp32
// values before the step and back after it (mindspeed/core/memory/reuse_param/adaptor.py
// fp16_tensor_convert_to_fp32_tensor, fp32_tensor_convert_to_fp16_tensor): each way the halves
// go through a workspace and a transposed contiguous copy and the int32 view takes or gives back
// the rounding offset, about 32 bytes of HBM traffic a parameter of the shard.
constexpr double kReuseConvertBytes = 2 * 32;

double moment_bytes(MomentDtype dtype) {
  switch (dtype) {
    case MomentDtype::fp32:
      return 4;
    case MomentDtype::fp8:
      return 1;
    default:
      return 2;  // fp16, bf16
  }
}

}  // namespace

bool fp8_gemm_any_layout(const GpuSpec& gpu) {
  const double cc = gpu.compute_capability;
  return (cc >= 10 && cc < 12) || cc >= 13;
}

ParameterBytes parameter_bytes(Precision precision, const Strategy& s, const GpuSpec& gpu) {
  ParameterBytes b;
  if (precision == Precision::fp32) {
    // fp32 weights are their own masters: Adam keeps two fp32 moments; the step reads and writes
    // weights and moments and reads the gradient, after the gradient norm's read.
    b = {4, 4, 4, 4, 8, 4, 4, 4 + (8 + 16 + 4)};
    return b;
  }
  const bool fp8 = precision == Precision::fp8;
  const bool mxfp8 = fp8 && s.fp8_recipe == Fp8Recipe::mxfp8;
  const bool fp8_weights = fp8 && s.fp8_param_gather;  // --fp8-param-gather: no 16-bit copy
  const bool tensor_scaled =
      s.fp8_recipe == Fp8Recipe::delayed || s.fp8_recipe == Fp8Recipe::tensorwise;
  const double copies = mxfp8                                       ? kMxfp8CopyBytes
                        : tensor_scaled && fp8_gemm_any_layout(gpu) ? kFp8AnyLayoutCopyBytes
                                                                    : kFp8CopyBytes;
  b.edge_weight = 2;
  b.layer_weight = fp8_weights ? copies : (fp8 ? 2 + copies : 2);
  b.edge_gather = 2;
  b.layer_gather = fp8_weights ? (mxfp8 ? kMxfp8GatherBytes : kFp8GatherBytes) : 2;

  // Main gradients (megatron/training/arguments.py validate_args): bf16 accumulates and reduces
  // in fp32 unless --grad-reduce-in-bf16 or --main-grads-dtype bf16; fp16 only with
  // --accumulate-allreduce-grads-in-fp32 (model-review P6). The buffer's dtype is what the
  // data-parallel reduction moves (distributed/param_and_grad_buffer.py: grad_dtype).
  if (precision == Precision::fp16) {
    b.gradient = s.accumulate_allreduce_grads_in_fp32 ? 4 : 2;
  } else {
    b.gradient = s.grad_reduce_in_bf16 || s.main_grads_dtype == MainGradsDtype::bf16 ? 2 : 4;
  }
  // Megatron-FSDP keeps main gradients in the compute weights' dtype by default
  // (--megatron-fsdp-main-grads-dtype auto).
  b.fsdp_gradient = 2;

  // Optimizer state per parameter of the shard: fp32 master and two fp32 moments (Megatron-LM
  // distributed optimizer), unless Transformer Engine's precision-aware FusedAdam keeps them
  // (optimizer/__init__.py: exp_avg_dtype, exp_avg_sq_dtype, master_weight_dtype). Its masters
  // of bf16 weights are 16-bit remainders (optimizer_config.py store_param_remainders, on by
  // default, TE >= 2.1; distrib_optimizer.py allocates them as int16) when Megatron-LM hands the
  // masters to TE: main params fp32 and no fp8 recipe but delayed
  // (use_precision_aware_optimizer_no_fp8_or_ds_fp8), and the weights stay 16-bit.
  double master = 4, remainder_read = 0;
  double moments = 8;
  bool fused_copy = false;
  const bool bf16_weights = precision == Precision::bf16 || (fp8 && !fp8_weights);
  // MindSpeed's --reuse-fp32-param (docs/features/reuse-fp32-param.md): the fp32 master is the
  // bf16 weight and a 16-bit residual in one storage, so it adds 2 bytes to the weight, not 4:
  // sizeof(bfloat16) x parameters saved without the distributed optimizer, x parameters / DP
  // with it (the shard). It shares Megatron-LM's own fp32 copy (shard_fp32_from_float16_groups),
  // which the precision-aware optimizer does not make (rules.cpp).
  const bool reuse = s.reuse_fp32_param && bf16_weights && !s.use_precision_aware_optimizer;
  if (reuse) master = 2;
  if (s.use_precision_aware_optimizer) {
    moments = moment_bytes(s.exp_avg_dtype) + moment_bytes(s.exp_avg_sq_dtype);
    const bool te_masters =
        s.main_params_dtype != MainParamsDtype::fp32 || !fp8 || s.fp8_recipe == Fp8Recipe::delayed;
    if (s.main_params_dtype == MainParamsDtype::fp16) {
      master = 2;
    } else if (te_masters && bf16_weights) {
      master = 2;
      remainder_read = 2;  // the bf16 weight holds the master's other 16 bits
    }
    fused_copy = te_masters;
  }
  b.optimizer = master + moments;

  // The step's HBM traffic per parameter of the shard: the gradient norm reads the gradient;
  // Adam reads master, gradient and moments and writes master and moments; then the master is
  // copied to the model weight (16-bit, or fp8 with fp8 weights) unless TE's kernel writes it.
  // With --reuse-fp32-param Adam reads and writes the whole fp32 value, and the conversions
  // around the step replace that copy.
  const double weight_write = fp8_weights ? 1 : 2;
  const double master_traffic = reuse ? 2 * 4 : 2 * (master + remainder_read);
  const double weight_update =
      reuse ? kReuseConvertBytes
            : (fused_copy ? (remainder_read > 0 ? 0 : weight_write) : master + weight_write);
  b.optimizer_step = b.gradient + (master_traffic + 2 * moments + b.gradient) + weight_update;
  if (precision == Precision::fp16) b.optimizer_step += kFp16UnscaleBytes;
  return b;
}

}  // namespace paraplan::detail
