// The torchtitan model families and which one trains a model (torchtitan_family.cpp).
#pragma once

#include <string>
#include <string_view>

#include "paraplan/framework.hpp"
#include "paraplan/model.hpp"
#include "paraplan/report.hpp"

namespace paraplan::detail {

// torchtitan v0.2.2's language-model families (torchtitan/models/<family>/model/args.py and
// model.py at 73a0e6979dd1) and which one trains a model: llama3 (dense, head dimension
// dim / n_heads, untied), qwen3 (dense or MoE in every layer, any head_dim, tying optional),
// deepseek_v3 (multi-latent attention, n_dense_layers dense first, then MoE), gpt_oss (MoE in
// every layer, biases, sliding-window attention on every even layer, attention sinks). none:
// no family holds the model (framework_rules_torchtitan.cpp's "model.*" rules name the field).
enum class TorchtitanFamily { none, llama3, qwen3, deepseek_v3, gpt_oss };
TorchtitanFamily torchtitan_family(const ModelSpec& model);
std::string_view to_string(TorchtitanFamily family);

// The model as `framework` trains it: torchtitan's deepseek_v3 has no multi-token prediction
// (models/deepseek_v3/model/model.py at v0.2.2 builds no MTP module), so a DeepSeek-V3 run there
// trains without the MTP depth and is estimated without it. Every other case: `model` itself.
ModelSpec trained_model(ModelSpec model, Framework framework);
// The note that says what trained_model dropped; its id is empty where it dropped nothing.
CoreText trained_model_note(const ModelSpec& model, Framework framework);

// SwiGLU with rotary positions: what every torchtitan family is.
bool swiglu_rope(const ModelSpec& m);

}  // namespace paraplan::detail
