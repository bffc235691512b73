#include "model/activation_offload.hpp"

#include <algorithm>

#include "model/collectives.hpp"

namespace paraplan::detail {

namespace {

// `bytes` copied to host memory during the forward pass and back during the backward, each copy
// hidden under that pass's compute as far as it goes.
double host_round_trip_s(const GpuSpec& gpu, double bytes, double forward_compute_s,
                         double backward_compute_s) {
  const double copy_s = bytes / gpu.host.bandwidth_bytes_per_s;
  return exposed_s(gpu, copy_s, forward_compute_s) + exposed_s(gpu, copy_s, backward_compute_s);
}

}  // namespace

// Megatron-LM activation offloading (--cpu-offloading-num-layers, TransformerConfig
// cpu_offloading; extensions/transformer_engine.py get_cpu_offload_context, Transformer Engine's):
// the first N layers' saved activations go to host memory after their forward and come back for
// their backward over the host link, each copy overlapped with those layers' compute on a side
// stream. Transformer Engine 2.10+ (the activation offloading refactor, TE #1762; Megatron-Bridge
// v0.3.0 pins >= 2.10) schedules each offloaded layer's copy to finish before the forward of layer
// num_layers - N + i and its reload to start after it, so that "activation memory usage is equal
// to (num_layers - num_offloaded_layers) * T" (TE d0067d0 cpu_offload.py
// _init_offload_synchronization_dicts, get_cpu_offload_context): no offloaded layer stays on the
// GPU at the peak (TE 2.9's cpu_offload_v1.py path, which this term priced before, held one
// layer more while in transit). Needs no pipeline parallelism and no recompute (rules.cpp).
void offload_activations(const PipelineInput& in, const StageGroup& group, double activation,
                         StageWork& work) {
  const double layers = static_cast<double>(group.layers);
  const double offloaded =
      std::min(static_cast<double>(in.strategy->cpu_offloading_num_layers), layers - 1);
  if (offloaded <= 0) return;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  const double fraction = offloaded / layers;
  work.offloaded_bytes = fraction * activation;
  work.stored_activation_bytes -= work.offloaded_bytes;
  work.offload_s = host_round_trip_s(gpu, work.offloaded_bytes, fraction * work.forward.compute_s,
                                     fraction * work.backward.compute_s);
}

namespace {

// What Megatron-LM's fine-grained activation offloading (--offload-modules) sends to host memory
// from one layer: the chosen modules' saved tensors, less what selective recompute already drops
// (the core attention's own and, with mla_up_proj, Q, K and V; with layernorm, the standalone
// input norm's output).
double module_offload_bytes(const LayerCost& l, const Strategy& s, const Recompute& r) {
  double bytes = 0;
  for (size_t m = 0; m < kNumOffloadModules; ++m) {
    if (s.offloads(static_cast<OffloadModule>(m))) bytes += l.offload_bytes[m];
  }
  if (s.offloads(OffloadModule::core_attn)) {
    for (const RecomputeModule dropped :
         {RecomputeModule::core_attn, RecomputeModule::mla_up_proj}) {
      if (r.recomputes(dropped)) bytes -= l.unit(dropped).saved_bytes;
    }
  }
  if (s.offloads(OffloadModule::qkv_linear) && r.recomputes(RecomputeModule::layernorm)) {
    bytes -= l.qkv_norm_output_bytes;
  }
  return std::max(0.0, bytes);
}

}  // namespace

// Fine-grained activation offloading (pipeline_parallel/fine_grained_activation_offload.py): each
// chosen module's saved tensors go to host memory on a side stream during the forward pass and
// come back before its backward, overlapped with the stage's compute; the last group of each
// module stays on the GPU so that the first backward waits for no reload (post_warmup_callback's
// offload margin). Under full recompute the layers keep only their inputs: nothing to offload.
void offload_module_activations(const PipelineInput& in, const StageGroup& group,
                                double dense_layers, double moe_layers, StageWork& work) {
  const Strategy& s = *in.strategy;
  const Recompute& recompute = s.recompute[static_cast<size_t>(group.pool)];
  if (recompute.granularity == RecomputeGranularity::full) return;
  const ModelCosts& c = *in.costs[static_cast<size_t>(group.pool)];
  const double dense = module_offload_bytes(c.dense, s, recompute);
  const double moe = module_offload_bytes(c.moe, s, recompute);
  const double offloaded = dense * dense_layers + moe * moe_layers;
  if (offloaded <= 0) return;
  const GpuSpec& gpu = in.cluster->pools[static_cast<size_t>(group.pool)].gpu;
  work.stored_activation_bytes -= offloaded;
  work.working_bytes += std::max(dense_layers > 0 ? dense : 0.0, moe_layers > 0 ? moe : 0.0);
  work.offloaded_bytes += offloaded;
  work.offload_s +=
      host_round_trip_s(gpu, offloaded, work.forward.compute_s, work.backward.compute_s);
}

}  // namespace paraplan::detail
