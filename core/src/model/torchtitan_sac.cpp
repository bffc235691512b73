// torchtitan's per-op selective activation checkpointing of one layer (framework torchtitan,
// recompute_granularity selective): torchtitan/distributed/activation_checkpoint.py SelectiveAC,
// at v0.2.2 _apply_op_sac with the models' _op_sac_save_list. Each transformer block is a
// checkpoint region that keeps its input and the outputs of the ops on the save list (matrix
// multiplies, the attention kernel, reduce-scatters, expert all-to-alls) except every second
// matrix multiply, counted in execution order within the block; the router's gate is always
// recomputed (per_op_sac_force_recompute_mm_shapes_by_fqns "moe.router.gate"), and the experts'
// grouped GEMMs are not on the list. Everything else runs again before the block's backward.
#include <algorithm>
#include <vector>

#include "model/collectives.hpp"
#include "model/cost_builder.hpp"
#include "model/moe_dispatch.hpp"

namespace paraplan::detail {
namespace {

// One torchtitan linear layer on this GPU: its output width and reduction size per token row.
struct Projection {
  double width;
  double k;
};

}  // namespace

void CostBuilder::per_op_checkpoint(LayerCost& cost, bool moe) const {
  const double heads = static_cast<double>(model_.num_attention_heads) / t_;
  const double groups = std::max(1.0, static_cast<double>(model_.num_query_groups) / t_);
  const HeadDims dims = head_dims();
  const double qk_head_dim = dims.qk, v_head_dim = dims.v;
  // The block's linear layers in the order the forward runs them (torchtitan's models:
  // llama3 Attention wq, wk, wv then wo; deepseek_v3 MLA wq_a, wq_b or wq, wkv_a, wkv_b, wo;
  // FeedForward w1, w3, w2 and the shared experts alike; GELU MLPs w1, w2).
  std::vector<Projection> projections;
  if (model_.mla) {
    const MlaSpec& mla = *model_.mla;
    const double q_rank = static_cast<double>(mla.q_lora_rank);
    const double kv_rank = static_cast<double>(mla.kv_lora_rank);
    if (q_rank > 0) {
      projections.push_back({q_rank, h_});
      projections.push_back({heads * qk_head_dim, q_rank});
    } else {
      projections.push_back({heads * qk_head_dim, h_});
    }
    projections.push_back({kv_rank + static_cast<double>(mla.qk_pos_emb_head_dim), h_});
    projections.push_back({heads * static_cast<double>(mla.qk_head_dim + mla.v_head_dim), kv_rank});
  } else {
    projections.push_back({heads * qk_head_dim, h_});
    projections.push_back({groups * qk_head_dim, h_});
    projections.push_back({groups * v_head_dim, h_});
  }
  projections.push_back({h_, heads * v_head_dim});
  const auto add_mlp = [&](double ffn) {
    projections.push_back({ffn / t_, h_});
    if (is_gated(model_.activation)) projections.push_back({ffn / t_, h_});
    projections.push_back({h_, ffn / t_});
  };
  const MoeSpec* spec = moe ? &*model_.moe : nullptr;
  if (!spec) {
    add_mlp(static_cast<double>(model_.ffn_hidden_size));
  } else if (spec->num_shared_experts > 0) {
    add_mlp(static_cast<double>(spec->num_shared_experts * spec->moe_ffn_hidden_size));
  }

  // Kept: the block input, the odd-numbered projections' outputs, the attention kernel's
  // output and its fp32 log-sum-exp per head, the reduce-scatters' outputs, and the expert
  // all-to-alls' outputs. What is kept is not run again.
  double kept = cost.checkpoint_bytes;
  PassTime skipped = cost.unit(RecomputeModule::core_attn).forward;
  double rerun_flops = 0;
  for (size_t i = 0; i < projections.size(); ++i) {
    const Gemm g{tokens_, projections[i].width, projections[i].k};
    if (i % 2 == 0) {
      kept += e_ * tokens_ * g.n;
      skipped.compute_s += kernels_.gemm_s(g);
    } else {
      rerun_flops += g.flops();
    }
  }
  kept += (e_ * v_head_dim + 4) * tokens_ * heads;
  if (s_.tensor_model_parallel_size > 1) {
    kept += 2 * e_ * h_ * norm_tokens_;
    skipped.tp_comm_s += 2 * reduce_scatter_s(gpu_, tp_group_, hidden_bytes());
  }
  if (spec) {
    const MoeDispatch d = moe_dispatch(gpu_, model_, s_, gpus_per_node_, norm_tokens_, e_);
    if (s_.expert_model_parallel_size > 1) {
      kept += e_ * h_ * (d.expert_rows + d.unpermute_in_rows);
    }
    // The router and the routed experts run again.
    const double experts = static_cast<double>(spec->num_experts);
    rerun_flops += 2 * norm_tokens_ * experts * h_ +
                   2 * norm_tokens_ * static_cast<double>(spec->top_k) *
                       mlp_weights(static_cast<double>(spec->moe_ffn_hidden_size)) /
                       static_cast<double>(s_.expert_tensor_parallel());
  }
  RecomputeUnit& unit = cost.per_op_checkpoint;
  unit.saved_bytes = std::max(0.0, cost.activation_bytes - kept);
  // The forward again without what is kept; the expert all-to-alls are kept.
  unit.forward.compute_s = std::max(0.0, cost.forward.compute_s - skipped.compute_s);
  unit.forward.tp_comm_s = std::max(0.0, cost.forward.tp_comm_s - skipped.tp_comm_s);
  unit.forward.cp_comm_s = std::max(0.0, cost.forward.cp_comm_s - skipped.cp_comm_s);
  unit.forward_flops = rerun_flops;
}

}  // namespace paraplan::detail
