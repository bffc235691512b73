// The transformer being trained: dimensions and derived parameter counts.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace paraplan {

enum class Activation { gelu, relu, squared_relu, swiglu, geglu };
// Megatron-LM --position-embedding-type (learned_absolute adds a table; rope and none do not).
enum class PositionEmbedding { learned_absolute, rope, none };

std::string_view to_string(Activation activation);
std::span<const std::string_view> activation_names();  // indexed by Activation

// Gated activations (SwiGLU, GeGLU) use three MLP weight matrices instead of two.
constexpr bool is_gated(Activation activation) {
  return activation == Activation::swiglu || activation == Activation::geglu;
}

// Mixture-of-experts feed-forward layers (Megatron-LM --num-experts, --moe-router-topk,
// --moe-ffn-hidden-size; shared experts as in DeepSeek-V2/V3).
struct MoeSpec {
  int64_t num_experts = 0;
  int64_t top_k = 0;
  int64_t moe_ffn_hidden_size = 0;
  int64_t num_shared_experts = 0;    // each as wide as moe_ffn_hidden_size
  int64_t first_k_dense_layers = 0;  // leading layers that keep a dense MLP of ffn_hidden_size
  // Loss-free balancing by a per-expert routing bias (DeepSeek-V3; Megatron-LM
  // --moe-router-enable-expert-bias) instead of an auxiliary loss: a smaller load imbalance.
  bool moe_router_enable_expert_bias = false;
};

// Multi-latent attention (DeepSeek-V2/V3, Megatron-LM --multi-latent-attention): queries and
// keys/values go through low-rank projections; keys share one rotary part across heads.
struct MlaSpec {
  int64_t q_lora_rank = 0;  // 0: full-rank query projection
  int64_t kv_lora_rank = 0;
  int64_t qk_head_dim = 0;          // per-head query/key dimension without the rotary part
  int64_t qk_pos_emb_head_dim = 0;  // per-head rotary dimension
  int64_t v_head_dim = 0;
};

// Field names follow Megatron-LM's arguments (--num-layers, --hidden-size, ...).
struct ModelSpec {
  std::string name;
  int64_t num_layers = 0;
  int64_t hidden_size = 0;
  int64_t ffn_hidden_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_query_groups = 0;
  int64_t vocab_size = 0;
  Activation activation = Activation::gelu;
  int64_t kv_channels = 0;  // per-head dimension (default hidden_size / num_attention_heads)
  bool untie_embeddings_and_output_weights = false;
  // Learned absolute (Megatron-LM's default) for non-gated MLPs, rope for gated ones (the
  // Llama-family recipes).
  PositionEmbedding position_embedding_type = PositionEmbedding::learned_absolute;
  // Biases and dropout default to Megatron-LM's (true, 0.1) for non-gated MLPs and to none for
  // gated ones, as in the Llama-family recipes.
  bool add_bias_linear = true;
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  // Multi-token prediction (DeepSeek-V3, Megatron-LM --mtp-num-layers): extra depths on the last
  // pipeline stage, each a projection, one transformer layer like the last one, the LM head and
  // its loss.
  int64_t mtp_num_layers = 0;
  // Sliding-window attention (Megatron-LM --window-size LEFT,0 and --window-attn-skip-freq N):
  // each query attends to itself and the `window_size` keys before it; 0 is full causal
  // attention. With window_attn_skip_freq N every N-th layer (1-based) keeps full attention,
  // with 0 every layer is windowed.
  int64_t window_size = 0;
  int64_t window_attn_skip_freq = 0;
  // Clamped gated activation (Megatron-Core TransformerConfig activation_func_clamp_value,
  // GPT-OSS: 7.0): before the gated activation the gate half is clamped from above and the
  // linear half to [-v, v]; 0 means no clamp.
  double activation_func_clamp_value = 0;
  // YaRN rotary scaling (Megatron-LM --position-embedding-type yarn --rotary-scaling-factor s;
  // Megatron-Core's yarn_rotary_scaling_factor, GPT-OSS: 32): the rotary embedding with its
  // frequencies stretched and its sine and cosine scaled by the concentration factor below; 1
  // means plain RoPE.
  double yarn_rotary_scaling_factor = 1;
  // YaRN's frequency correction, with yarn_rotary_scaling_factor > 1 (Megatron-Core's
  // TransformerConfig yarn_* attributes; defaults those of Megatron-LM's argument_utils.py
  // _apply_yarn_config_from_args; GPT-OSS: 4096, 32, 1 and no rounding, gpt_oss_bridge.py). They
  // change no shape or FLOP count: the launches write them so the model trained is the model.
  int64_t yarn_original_max_position_embeddings = 4096;
  double yarn_beta_fast = 32;
  double yarn_beta_slow = 1;
  bool yarn_correction_range_round_to_int = true;
  // Per-head normalisation of the queries and keys before the rotary embedding (Megatron-LM
  // --qk-layernorm; Qwen3's q_norm and k_norm): one norm module over each.
  bool qk_layernorm = false;

  // YaRN's concentration factor with Megatron-Core's defaults (yarn_rotary_pos_embedding.py
  // _yarn_get_mscale: 0.1 ln s + 1 for s > 1, else 1; neither yarn_mscale nor
  // yarn_mscale_all_dim set, as Megatron-Bridge's gpt_oss_bridge.py leaves them).
  double yarn_concentration_factor() const;

  int64_t num_moe_layers() const { return moe ? num_layers - moe->first_k_dense_layers : 0; }
  bool is_moe_layer(int64_t layer_index) const {
    return moe && layer_index >= moe->first_k_dense_layers;
  }
  // Megatron-LM megatron/core/transformer/utils.py is_layer_window_attention: with an integer
  // skip frequency, layer_number (1-based) % window_attn_skip_freq != 0 is windowed.
  bool is_window_attention_layer(int64_t layer_index) const {
    if (window_size <= 0) return false;
    return window_attn_skip_freq <= 0 || (layer_index + 1) % window_attn_skip_freq != 0;
  }
};

// The (query, key) pairs a causal sliding window of `window_size` keys before each query (and the
// query itself) attends over a sequence of `seq_length`, as a fraction of full causal attention's
// s (s + 1) / 2: (w + 1)(2s - w) / (s (s + 1)) for w < s - 1, else 1. 0 means no window (1).
double window_attention_fraction(int64_t window_size, int64_t seq_length);

// The share of the dense (moe = false) or MoE layers that use sliding-window attention.
double window_attention_layer_share(const ModelSpec& model, bool moe);

// Parameter counts (biases and position embeddings are left out: under 0.1% for the presets).
struct ParameterCounts {
  double attention = 0;       // one layer: projections and norms
  double dense_mlp = 0;       // one dense layer's MLP
  double moe_mlp = 0;         // one MoE layer's MLP: router, all experts, shared experts
  double moe_expert_mlp = 0;  // of which routed experts (sharded by expert parallelism)
  double moe_active_mlp = 0;  // one MoE layer's MLP as used by one token (top_k experts)
  double embedding = 0;       // input embedding
  double output_layer = 0;    // LM head (0 when tied to the embedding)
  double mtp = 0;             // multi-token-prediction depths (not in total, as published)
  double total = 0;
  double active = 0;  // used per token (differs from total for MoE)
};

ParameterCounts count_parameters(const ModelSpec& model);

// {"total", "active", "mtp", "embedding", "output_layer", "attention_per_layer", ...}.
nlohmann::json to_json(const ParameterCounts& counts);

// Model FLOPs per token for one training step (forward + backward, no recompute): every GEMM
// three times, full (non-causal) attention scores, the convention of Narayanan et al. 2021
// (SC21 eq. 3) and Korthikanti et al. 2022 (eq. 7). This is the numerator of MFU.
double model_flops_per_token(const ModelSpec& model, int64_t seq_length);

// The same in Megatron-LM's current convention (megatron/training/training.py,
// num_floating_point_operations: the core-attention term halved for the causal mask), which
// Megatron-LM logs and Megatron-Bridge reports. The numerator of `mfu_causal`.
double model_flops_per_token_causal(const ModelSpec& model, int64_t seq_length);

// Parses a model: a preset name or an object with the fields above. `path` names the value
// in error messages.
ModelSpec parse_model(const nlohmann::json& value, const std::string& path);

}  // namespace paraplan
