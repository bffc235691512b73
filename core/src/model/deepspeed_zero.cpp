#include "model/deepspeed_zero.hpp"

#include <algorithm>
#include <cmath>

#include "model/layer_cost.hpp"

namespace paraplan::detail {

bool deepspeed_zero3(Framework framework, const Strategy& s) {
  return framework == Framework::deepspeed && s.zero_stage == 3;
}

bool deepspeed_bf16_optimizer(Framework framework, Precision precision, const Strategy& s) {
  return framework == Framework::deepspeed && precision == Precision::bf16 && s.zero_stage == 1;
}

bool deepspeed_zero_optimizer(Framework framework, Precision precision, const Strategy& s) {
  return framework == Framework::deepspeed &&
         (s.zero_stage == 2 || (s.zero_stage == 1 && precision != Precision::bf16));
}

double zero3_fetches_per_layer(const ModelSpec& model, const Strategy& s, bool moe_layer) {
  constexpr double kAttentionFetches = 2;  // query_key_value, dense
  constexpr double kMlpFetches = 2;        // dense_h_to_4h, dense_4h_to_h
  if (!moe_layer || !model.moe) return kAttentionFetches + kMlpFetches;
  const double local_experts =
      static_cast<double>(model.moe->num_experts) /
      static_cast<double>(std::max<int64_t>(1, s.expert_model_parallel_size));
  const double shared = model.moe->num_shared_experts > 0 ? kMlpFetches : 0;
  return kAttentionFetches + 1 + kMlpFetches * local_experts + shared;
}

Zero3Regather zero3_recompute_regather(const ModelSpec& model, const Strategy& s, bool moe_layer) {
  Zero3Regather out;
  if (moe_layer && model.moe) return out;
  const double h = static_cast<double>(model.hidden_size);
  const double heads = static_cast<double>(model.num_attention_heads);
  const double groups =
      static_cast<double>(model.num_query_groups > 0 ? model.num_query_groups : heads);
  const double head_dim =
      model.kv_channels > 0 ? static_cast<double>(model.kv_channels) : h / std::max(1.0, heads);
  const double ffn = static_cast<double>(model.ffn_hidden_size);
  const double tp = static_cast<double>(std::max<int64_t>(1, s.tensor_model_parallel_size));
  // Forward order: query_key_value, dense, dense_h_to_4h (two matrices when gated),
  // dense_4h_to_h.
  const double submodules[] = {h * (heads + 2 * groups) * head_dim / tp, heads * head_dim * h / tp,
                               h * ffn * (is_gated(model.activation) ? 2 : 1) / tp, ffn * h / tp};
  double after = 0;  // elements of the submodules after this one
  for (int k = 3; k >= 0; --k) {
    if (2 * after >= kDeepSpeed.max_reuse_distance_elements) {
      out.fetches += 1;
      out.parameters += submodules[k];
    }
    after += submodules[k];
  }
  return out;
}

Zero3UnitTraffic zero3_unit_traffic(double parameters, double fetches, double element_bytes,
                                    double stage_parameters) {
  Zero3UnitTraffic t;
  if (parameters <= 0) return t;
  t.gathers = std::max(1.0, fetches);
  t.gather_bytes = element_bytes * parameters / t.gathers;
  // Gradients fill the contiguous bucket and go out when the next would overflow it
  // (stage3.py __add_grad_to_ipg_bucket): the unit's share of full buckets, or of the stage's
  // one partial bucket.
  const double bucket =
      std::min(kDeepSpeed.reduce_bucket_elements, std::max(parameters, stage_parameters));
  t.reduce_scatters = parameters / bucket;
  t.reduce_scatter_bytes = element_bytes * bucket;
  return t;
}

double deepspeed_zero3_unit_comm_s(const GpuSpec& gpu, const Strategy& s, double element_bytes,
                                   int64_t data_parallel_cp, double parameters, double fetches,
                                   double stage_parameters, const Zero3UnitPasses& passes) {
  if (data_parallel_cp <= 1 || parameters <= 0) return 0;
  const Group dp = data_parallel_group(gpu, s, data_parallel_cp);
  const Zero3UnitTraffic t =
      zero3_unit_traffic(parameters, fetches, element_bytes, stage_parameters);
  const double gather = t.gathers * all_gather_s(gpu, dp, t.gather_bytes);
  const double scatter = t.reduce_scatters * reduce_scatter_s(gpu, dp, t.reduce_scatter_bytes);
  const Zero3Regather& again = passes.regather;
  const double regather =
      again.fetches > 0
          ? again.fetches * all_gather_s(gpu, dp, element_bytes * again.parameters / again.fetches)
          : 0.0;
  return exposed_s(gpu, gather, passes.forward_s) +
         exposed_s(gpu, gather + regather + scatter, passes.recompute_s + passes.backward_s);
}

double deepspeed_bucketed_all_reduce_s(const GpuSpec& gpu, const Group& group, double parameters,
                                       double element_bytes) {
  if (parameters <= 0 || group.size <= 1) return 0;
  const double buckets =
      std::max(1.0, std::ceil(parameters / kDeepSpeed.allreduce_bucket_elements));
  return buckets * all_reduce_s(gpu, group, element_bytes * parameters / buckets);
}

double deepspeed_zero2_micro_batch_s(const GpuSpec& gpu, const Strategy& s,
                                     int64_t data_parallel_cp, double parameters,
                                     double expert_parameters, double element_bytes) {
  if (data_parallel_cp <= 1) return 0;
  return deepspeed_bucketed_all_reduce_s(gpu, data_parallel_group(gpu, s, data_parallel_cp),
                                         parameters, element_bytes) +
         deepspeed_bucketed_all_reduce_s(gpu, expert_data_parallel_group(gpu, s, data_parallel_cp),
                                         expert_parameters, element_bytes);
}

SyncTime deepspeed_iteration_sync(const StageSync& in, double element_bytes,
                                  bool gradients_per_micro_batch) {
  SyncTime out;
  if (in.data_parallel <= 1) return out;
  const Strategy& s = *in.strategy;
  const GpuSpec& gpu = *in.gpu;
  const Group dp = data_parallel_group(gpu, s, in.data_parallel);
  const Group edp = expert_data_parallel_group(gpu, s, in.data_parallel);
  if (!gradients_per_micro_batch) {
    const double reduce =
        deepspeed_bucketed_all_reduce_s(gpu, dp, in.parameters, element_bytes) +
        deepspeed_bucketed_all_reduce_s(gpu, edp, in.expert_parameters, element_bytes);
    out.grad_exposed_s = std::max(0.0, reduce - in.backward_before_s);
  }
  out.param_exposed_s = all_gather_s(gpu, dp, element_bytes * in.parameters) +
                        all_gather_s(gpu, edp, element_bytes * in.expert_parameters);
  return out;
}

double deepspeed_bf16_accumulate_s(const GpuSpec& gpu, double parameters) {
  return memory_bound_s(gpu, kBf16AccumulateBytesPerParameter * parameters);
}

}  // namespace paraplan::detail
