#include "model/torchtitan_family.hpp"

#include <string>

#include "model/text_ids.hpp"

namespace paraplan::detail {

// torchtitan v0.2.2's families (torchtitan_family.hpp TorchtitanFamily), from their args.py and
// model.py at 73a0e6979dd1. Every family is SwiGLU, RMSNorm, rotary positions.
bool swiglu_rope(const ModelSpec& m) {
  return m.activation == Activation::swiglu && m.position_embedding_type == PositionEmbedding::rope;
}

namespace {

// llama3 TransformerModelArgs: no head_dim (dim / n_heads), no biases, no query/key norms, untied
// output, dense.
bool llama3_shaped(const ModelSpec& m) {
  return !m.add_bias_linear && !m.qk_layernorm && m.untie_embeddings_and_output_weights &&
         (m.kv_channels == 0 || m.kv_channels * m.num_attention_heads == m.hidden_size) && !m.moe &&
         !m.mla && m.window_size == 0;
}
// qwen3 Qwen3ModelArgs: head_dim, enable_weight_tying, moe_enabled in every layer or none
// (model.py TransformerBlock), MoEArgs with num_shared_experts; no biases, full attention.
bool qwen3_shaped(const ModelSpec& m) {
  return !m.add_bias_linear && !m.mla && m.window_size == 0 &&
         (!m.moe || m.moe->first_k_dense_layers == 0);
}
// deepseek_v3 DeepSeekV3ModelArgs: MLA in every layer, n_dense_layers dense layers of inter_dim
// first (model.py: moe_enabled = layer_id >= n_dense_layers), MoE of moe_inter_dim with shared
// experts after; no biases, untied, full attention.
bool deepseek_v3_shaped(const ModelSpec& m) {
  return m.mla && m.moe && !m.add_bias_linear && m.untie_embeddings_and_output_weights &&
         m.window_size == 0;
}
// gpt_oss GptOssModelArgs: MoE in every layer without shared experts (the 20b and 120b flavors),
// biases (model.py: bias=True), sliding_window_size keys (the query included,
// models/attention.py get_sliding_window_mask_mod) on layers with layer_id % 2 == 0 and full
// attention on the others: Megatron-LM's window_size = sliding_window_size - 1 with
// window_attn_skip_freq 2; untied.
bool gpt_oss_shaped(const ModelSpec& m) {
  return m.moe && m.moe->first_k_dense_layers == 0 && m.moe->num_shared_experts == 0 && !m.mla &&
         m.untie_embeddings_and_output_weights && m.window_size > 0 && m.window_attn_skip_freq == 2;
}

}  // namespace

TorchtitanFamily torchtitan_family(const ModelSpec& m) {
  if (!swiglu_rope(m)) return TorchtitanFamily::none;
  if (llama3_shaped(m)) return TorchtitanFamily::llama3;
  if (deepseek_v3_shaped(m)) return TorchtitanFamily::deepseek_v3;
  if (gpt_oss_shaped(m)) return TorchtitanFamily::gpt_oss;
  if (qwen3_shaped(m)) return TorchtitanFamily::qwen3;
  return TorchtitanFamily::none;
}

std::string_view to_string(TorchtitanFamily family) {
  switch (family) {
    case TorchtitanFamily::llama3:
      return "llama3";
    case TorchtitanFamily::qwen3:
      return "qwen3";
    case TorchtitanFamily::deepseek_v3:
      return "deepseek_v3";
    case TorchtitanFamily::gpt_oss:
      return "gpt_oss";
    case TorchtitanFamily::none:
      break;
  }
  return "none";
}

namespace {
bool drops_mtp(const ModelSpec& model, Framework framework) {
  return framework == Framework::torchtitan && model.mtp_num_layers > 0;
}
}  // namespace

ModelSpec trained_model(ModelSpec model, Framework framework) {
  if (drops_mtp(model, framework)) model.mtp_num_layers = 0;
  return model;
}

CoreText trained_model_note(const ModelSpec& model, Framework framework) {
  if (!drops_mtp(model, framework)) return {};
  const std::string family(to_string(torchtitan_family(model)));
  const std::string depth = std::to_string(model.mtp_num_layers);
  return {text_id::kTorchtitanDropsMtp,
          "torchtitan v0.2.2's " + family +
              " model has no multi-token prediction (models/deepseek_v3/model/model.py builds "
              "none): estimated and launched without the model's " +
              depth + " MTP depth(s)",
          {{"family", family}, {"mtp_num_layers", depth}},
          {}};
}

}  // namespace paraplan::detail
