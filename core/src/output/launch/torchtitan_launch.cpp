// torchtitan v0.2.2 (73a0e6979dd1, the last release with TOML job files; launch-targets.md
// section 7): a job file and `torchrun -m torchtitan.train`.
#include <string>
#include <vector>

#include "model/even_split.hpp"
#include "model/framework_rules.hpp"
#include "model/number_text.hpp"
#include "model/stage_split.hpp"
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

std::string toml_bool(bool value) { return value ? "true" : "false"; }

// torchtitan v0.2.2's built-in llama3 flavors (torchtitan/models/llama3/__init__.py): dim,
// layers, heads, KV heads and the FFN width their ffn_dim_multiplier and multiple_of give
// (model.py FeedForward: multiple_of * ceil(int(multiplier * int(8 * dim / 3)) / multiple_of)),
// all with the Llama 3 vocabulary of 128256.
struct Llama3Flavor {
  const char* name;
  int64_t dim, n_layers, n_heads, n_kv_heads, ffn_hidden_size;
};
constexpr Llama3Flavor kLlama3Flavors[] = {
    {"8B", 4096, 32, 32, 8, 14336},
    {"70B", 8192, 80, 64, 8, 28672},
    {"405B", 16384, 126, 128, 8, 53248},
};
constexpr int64_t kLlama3VocabSize = 128256;

// The built-in flavor with the model's dimensions, or none.
const Llama3Flavor* builtin_flavor(const ModelSpec& m) {
  const int64_t kv = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  for (const Llama3Flavor& f : kLlama3Flavors) {
    if (f.dim == m.hidden_size && f.n_layers == m.num_layers &&
        f.n_heads == m.num_attention_heads && f.n_kv_heads == kv &&
        f.ffn_hidden_size == m.ffn_hidden_size && m.vocab_size == kLlama3VocabSize) {
      return &f;
    }
  }
  return nullptr;
}

// A module that registers the flavor "paraplan" with the model's dimensions in llama3_args,
// imported by [experimental] custom_import (train.py imports it before it reads the train spec),
// so torchtitan's source is not edited. The FFN width: multiple_of = ffn_hidden_size and a
// multiplier that brings int(8 * dim / 3) to at most it, which model.py rounds up to it.
std::string flavor_module(const ModelSpec& m) {
  const int64_t kv = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  const int64_t base = 8 * m.hidden_size / 3;
  return "\"\"\"Registers torchtitan v0.2.2's llama3 flavor 'paraplan' for " + m.name +
         " (Paraplan).\n\nImported by job.toml's [experimental] custom_import from torchtitan's "
         "repository root,\nbefore the trainer reads the train spec; torchtitan's source is not "
         "edited.\n\"\"\"\nfrom torchtitan.models.llama3 import TransformerModelArgs, "
         "llama3_args\n\n"
         "FFN_HIDDEN_SIZE = " +
         std::to_string(m.ffn_hidden_size) +
         "\nllama3_args[\"paraplan\"] = TransformerModelArgs(\n    dim=" +
         std::to_string(m.hidden_size) + ",\n    n_layers=" + std::to_string(m.num_layers) +
         ",\n    n_heads=" + std::to_string(m.num_attention_heads) +
         ",\n    n_kv_heads=" + std::to_string(kv) +
         ",\n    vocab_size=" + std::to_string(m.vocab_size) +
         ",\n    # FeedForward: multiple_of * ceil(int(multiplier * int(8 * dim / 3)) / "
         "multiple_of)\n"
         "    multiple_of=FFN_HIDDEN_SIZE,\n    ffn_dim_multiplier=FFN_HIDDEN_SIZE / " +
         std::to_string(base) +
         ",\n    rope_theta=500000,  # the Llama 3 flavors'; it does not change the cost "
         "priced\n)\n";
}

std::string num(int64_t value) { return std::to_string(value); }

// MoEArgs (torchtitan/models/moe/moe.py at v0.2.2) for the model's experts: the router's score
// function and normalisation do not change the cost priced, so each family's own is written
// (softmax with route_norm as the Qwen3 and gpt-oss flavors; sigmoid for expert-bias routing as
// the 671B flavor). load_balance_coeff sets the expert-bias update (auxiliary-loss-free
// balancing, moe.py), None without it.
std::string moe_args(const MoeSpec& moe, bool gate_bias, bool grouped_mm) {
  return "MoEArgs(\n        num_experts=" + num(moe.num_experts) +
         ",\n        num_shared_experts=" + num(moe.num_shared_experts) +
         ",\n        top_k=" + num(moe.top_k) + ",\n        score_func=\"" +
         (moe.moe_router_enable_expert_bias ? "sigmoid" : "softmax") +
         "\",\n        route_norm=True,\n        score_before_experts=False,\n" +
         (gate_bias ? "        gate_bias=True,\n" : "") +
         "        use_grouped_mm=" + py_bool(grouped_mm) + ",  # moe_grouped_gemm\n" +
         "        load_balance_coeff=" + (moe.moe_router_enable_expert_bias ? "1e-3" : "None") +
         ",\n    )";
}

// The family's args for the model (framework_rules.hpp TorchtitanFamily; each args.py at v0.2.2).
std::string family_args(TorchtitanFamily family, const ModelSpec& m, bool grouped_mm) {
  const int64_t kv = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  const int64_t head_dim =
      m.kv_channels > 0 ? m.kv_channels : m.hidden_size / m.num_attention_heads;
  const std::string common = "    vocab_size=" + num(m.vocab_size) +
                             ",\n    dim=" + num(m.hidden_size) +
                             ",\n    n_layers=" + num(m.num_layers) +
                             ",\n    n_heads=" + num(m.num_attention_heads) + ",\n";
  if (family == TorchtitanFamily::deepseek_v3) {
    const MlaSpec& a = *m.mla;
    return "DeepSeekV3ModelArgs(\n" + common + "    inter_dim=" + num(m.ffn_hidden_size) +
           ",\n    moe_inter_dim=" + num(m.moe->moe_ffn_hidden_size) +
           ",\n    n_dense_layers=" + num(m.moe->first_k_dense_layers) +
           ",\n    moe_args=" + moe_args(*m.moe, false, grouped_mm) +
           ",\n    q_lora_rank=" + num(a.q_lora_rank) +
           ",\n    kv_lora_rank=" + num(a.kv_lora_rank) +
           ",\n    qk_nope_head_dim=" + num(a.qk_head_dim) +
           ",\n    qk_rope_head_dim=" + num(a.qk_pos_emb_head_dim) +
           ",\n    v_head_dim=" + num(a.v_head_dim) +
           ",\n    attn_type=\"flex\",  # as the 16B, 236B and 671B flavors\n)\n";
  }
  if (family == TorchtitanFamily::gpt_oss) {
    return "GptOssModelArgs(\n" + common + "    n_kv_heads=" + num(kv) +
           ",\n    head_dim=" + num(head_dim) +
           ",\n    moe_inter_dim=" + num(m.moe->moe_ffn_hidden_size) +
           ",\n    # keys attended, the query included (models/attention.py), on even layers\n"
           "    sliding_window_size=" +
           num(m.window_size + 1) +
           // YaRN (1 is plain RoPE: precompute_rope_cache scales only above 1); ntk_alpha is
           // the slow correction, ntk_beta the fast one.
           ",\n    rope_factor=" + number_text(m.yarn_rotary_scaling_factor) +
           ",\n    original_seq_len=" + num(m.yarn_original_max_position_embeddings) +
           ",\n    ntk_alpha=" + number_text(m.yarn_beta_slow) +
           ",\n    ntk_beta=" + number_text(m.yarn_beta_fast) +
           ",\n    moe_args=" + moe_args(*m.moe, true, grouped_mm) + ",\n)\n";
  }
  // qwen3: qk_norm as the model's qk_layernorm (Qwen3's q_norm and k_norm).
  std::string text =
      "Qwen3ModelArgs(\n" + common + "    n_kv_heads=" + num(kv) +
      ",\n    head_dim=" + num(head_dim) + ",\n    hidden_dim=" + num(m.ffn_hidden_size) +
      ",\n    qk_norm=" + py_bool(m.qk_layernorm) +
      ",\n    enable_weight_tying=" + py_bool(!m.untie_embeddings_and_output_weights) + ",\n";
  if (m.moe) {
    text += "    moe_enabled=True,\n    moe_inter_dim=" + num(m.moe->moe_ffn_hidden_size) +
            ",\n    moe_args=" + moe_args(*m.moe, false, grouped_mm) + ",\n";
  }
  return text + ")\n";
}

// The module, package and args class and dictionary of each family's flavors (its __init__.py).
struct FamilyModule {
  TorchtitanFamily family;
  const char* package;
  const char* args_class;
  const char* flavors;
};
constexpr FamilyModule kFamilyModules[] = {
    {TorchtitanFamily::qwen3, "qwen3", "Qwen3ModelArgs", "qwen3_args"},
    {TorchtitanFamily::deepseek_v3, "deepseek_v3", "DeepSeekV3ModelArgs", "deepseekv3_args"},
    {TorchtitanFamily::gpt_oss, "gpt_oss", "GptOssModelArgs", "gptoss_configs"},
};

// flavor_module for the families other than llama3: the flavor "paraplan" in the family's
// dictionary, registered the same way.
std::string family_module(TorchtitanFamily family, const ModelSpec& m, bool grouped_mm) {
  const FamilyModule* f = nullptr;
  for (const FamilyModule& row : kFamilyModules) {
    if (row.family == family) f = &row;
  }
  return "\"\"\"Registers torchtitan v0.2.2's " + std::string(f->package) +
         " flavor 'paraplan' for " + m.name +
         " (Paraplan).\n\nImported by job.toml's [experimental] custom_import from torchtitan's "
         "repository root,\nbefore the trainer reads the train spec; torchtitan's source is not "
         "edited.\n\"\"\"\nfrom torchtitan.models." +
         f->package + " import " + f->args_class + ", " + f->flavors +
         "\nfrom torchtitan.models.moe import MoEArgs\n\n" + f->flavors +
         "[\"paraplan\"] = " + family_args(family, m, grouped_mm);
}

// The model parts of each virtual stage in model order (stage i on pipeline rank i % PP, as
// the looped schedules place them): embedding, layers, final norm and output.
std::string module_fqns(const Strategy& s, int64_t num_layers) {
  const int64_t p = s.pipeline_model_parallel_size, v = s.virtual_pipeline_model_parallel_size;
  std::vector<std::vector<int64_t>> chunks;
  // Where the strategy gives no split: Megatron-LM's, or the layers spread as evenly as they go
  // where it has none (a layer count PP x VP does not divide).
  std::vector<int64_t> stage_layers =
      s.pipeline_stage_layers.empty() ? standard_split(num_layers, p, v) : s.pipeline_stage_layers;
  if (static_cast<int64_t>(stage_layers.size()) != p) {
    stage_layers.clear();
    for (int64_t i = 0; i < p; ++i) stage_layers.push_back(num_layers / p + (i < num_layers % p));
  }
  for (const int64_t layers : stage_layers) {
    chunks.push_back(chunk_layers(layers, v, false, false));
  }
  std::string text = "[";
  int64_t layer = 0;
  for (int64_t chunk = 0; chunk < v; ++chunk) {
    for (int64_t stage = 0; stage < p; ++stage) {
      std::vector<std::string> parts;
      if (chunk == 0 && stage == 0) parts.emplace_back("\"tok_embeddings\"");
      const int64_t count = chunks[static_cast<size_t>(stage)][static_cast<size_t>(chunk)];
      for (int64_t i = 0; i < count; ++i)
        parts.push_back("\"layers." + std::to_string(layer++) + "\"");
      if (layer == num_layers && chunk + 1 == v && stage + 1 == p) {
        parts.emplace_back("\"norm\"");
        parts.emplace_back("\"output\"");
      }
      text += std::string(text.size() > 1 ? ", " : "") + "[" + join(parts, ", ") + "]";
    }
  }
  return text + "]";
}

// The [training] section: the batch as torchtitan counts it, the data, the mixed precision.
std::string training_section(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const Training& training = in.scenario.training;
  std::string t;
  // local_batch_size is what one data-parallel rank runs at once: with a pipeline, all its
  // micro-batches (split by pipeline_parallel_microbatch_size); without one, one micro-batch,
  // and global_batch_size / (local x DP) of them accumulate (v0.2.2 train.py).
  const int64_t micro_batches = in.num_micro_batches;
  const bool piped = s.pipeline_model_parallel_size > 1;
  t += "\n[training]\nlocal_batch_size = " +
       std::to_string(piped ? s.micro_batch_size * micro_batches : s.micro_batch_size) +
       (piped ? "  # per data-parallel rank: micro-batch " + std::to_string(s.micro_batch_size) +
                    " x " + std::to_string(micro_batches)
              : "  # one micro-batch; " + std::to_string(micro_batches) + " accumulate") +
       "\nglobal_batch_size = " + std::to_string(training.global_batch_size) +
       "\nseq_len = " + std::to_string(training.seq_length) + "\nsteps = 1000\n";
  t += "# INPUT: dataset (a name in hf_datasets/text_datasets.py) and dataset_path. The default,\n"
       "# c4_test, ships in torchtitan's repository (tests/assets/c4_test): it runs offline.\n"
       "dataset = \"c4_test\"\n";
  // fp16 is refused (framework_rules.cpp): mixed_precision_param has bfloat16 and float32.
  t += std::string("mixed_precision_param = \"") +
       (training.precision == Precision::fp32 ? "float32" : "bfloat16") +
       "\"\nmixed_precision_reduce = \"" + (s.grad_reduce_in_bf16 ? "bfloat16" : "float32") +
       "\"  # as priced (grad_reduce_in_bf16)\n";
  return t;
}

// The [compile] section (job_config.py Compile: components "model" and "loss"): the blocks, which
// async tensor parallelism needs, and the loss, as priced under cross_entropy_loss_fusion
// (torchtitan_fsdp.hpp kTorchtitanCompiledLossLogitElements).
std::string compile_section(const Strategy& s) {
  std::vector<std::string> components;
  if (s.tp_comm_overlap) components.emplace_back("\"model\"");
  if (s.cross_entropy_loss_fusion) components.emplace_back("\"loss\"");
  if (components.empty()) return "";
  std::string list;
  for (const std::string& c : components) list += (list.empty() ? "" : ", ") + c;
  return "\n[compile]\nenable = true\ncomponents = [" + list + "]\n";
}

// The [parallelism] section: data (replicated or sharded), tensor, pipeline, context and expert
// parallelism.
std::string parallelism_section(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const ModelSpec& model = in.scenario.model;
  std::string t;
  t += "\n[parallelism]\n";
  const int64_t dp = in.data_parallel_size;
  const bool fsdp = s.zero_stage >= 2;
  t += "data_parallel_replicate_degree = " + std::to_string(fsdp ? 1 : dp) + "\n";
  t += "data_parallel_shard_degree = " + std::to_string(fsdp ? dp : 1) + "\n";
  if (fsdp) {
    t += std::string("fsdp_reshard_after_forward = \"") +
         (s.zero_stage == 2 ? "never\"  # ZeRO-2"
                            : "default\"  # ZeRO-3; kept whole from forward to backward with "
                              "pipelines") +
         "\n";
  }
  t += "tensor_parallel_degree = " + std::to_string(s.tensor_model_parallel_size) +
       (s.tensor_model_parallel_size > 1 ? "  # with sequence parallelism\n" : "\n");
  if (s.tp_comm_overlap) t += "enable_async_tensor_parallel = true  # needs [compile]\n";
  const int64_t p = s.pipeline_model_parallel_size, v = s.virtual_pipeline_model_parallel_size;
  t += "pipeline_parallel_degree = " + std::to_string(p) + "\n";
  if (p > 1) {
    t += std::string("pipeline_parallel_schedule = \"") + (v > 1 ? "Interleaved1F1B" : "1F1B") +
         "\"\n";
    t += "pipeline_parallel_microbatch_size = " + std::to_string(s.micro_batch_size) + "\n";
    const bool even =
        std::all_of(s.pipeline_stage_layers.begin(), s.pipeline_stage_layers.end(),
                    [&](int64_t l) { return l == s.pipeline_stage_layers.front(); }) &&
        model.num_layers % (p * v) == 0;
    if (even) {
      t += "pipeline_parallel_layers_per_stage = " + std::to_string(model.num_layers / (p * v)) +
           "\npipeline_parallel_first_stage_less_layers = 0\n"
           "pipeline_parallel_last_stage_less_layers = 0\n";
    } else {
      t += "module_fqns_per_model_part = " + module_fqns(s, model.num_layers) + "\n";
    }
  }
  t += "context_parallel_degree = " + std::to_string(s.context_parallel_size) + "\n";
  if (model.moe) {
    // parallel_dims.py: experts over ep x etp ranks of dp_shard x cp x tp, sharded over the rest
    // (efsdp); tokens reach them by all-to-all (expert_parallel_comm_backend "standard").
    t += "expert_parallel_degree = " + std::to_string(s.expert_model_parallel_size) +
         "\nexpert_tensor_parallel_degree = " + std::to_string(s.expert_tensor_parallel()) +
         (s.moe_token_dispatcher_type == MoeDispatcher::flex && s.expert_model_parallel_size > 1
              ? "\nexpert_parallel_comm_backend = \"deepep\"  # moe_token_dispatcher_type flex\n"
              : "\nexpert_parallel_comm_backend = \"standard\"  # all-to-all\n");
  }
  if (s.context_parallel_size > 1) {
    t += std::string("context_parallel_rotate_method = \"") +
         (s.cp_comm_type == CpCommType::allgather ? "allgather" : "alltoall") + "\"\n";
  }
  return t;
}

}  // namespace

Launch torchtitan_launch(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const ModelSpec& model = in.scenario.model;
  const Training& training = in.scenario.training;
  Launch launch;
  // framework_rules.cpp: only models one of torchtitan's families holds reach here.
  const TorchtitanFamily family = torchtitan_family(model);
  const bool llama3 = family == TorchtitanFamily::llama3;
  const Llama3Flavor* flavor = llama3 ? builtin_flavor(model) : nullptr;
  std::string t = "# torchtitan v0.2.2 (73a0e6979dd1) job file for " + model.name +
                  ", with the strategy Paraplan found.\n";
  t += "[job]\ndump_folder = \"./outputs\"\n\n[model]\nname = \"" +
       std::string(llama3 ? "llama3" : to_string(family)) + "\"\n";
  t += flavor != nullptr
           ? "flavor = \"" + std::string(flavor->name) + "\"  # built in: the model's dimensions\n"
           : std::string("flavor = \"paraplan\"  # registered by paraplan_flavor.py\n");
  t +=
      "# INPUT: the tokenizer's directory (tokenizer.json, tokenizer_config.json). The default is\n"
      "# torchtitan's test tokenizer, shipped in its repository, so the job runs offline.\n"
      "hf_assets_path = \"./tests/assets/tokenizer\"\n";
  if (training.precision == Precision::fp8) {
    t += std::string("converters = [\"") +
         (s.fp8_recipe == Fp8Recipe::mxfp8 ? "quantize.linear.mx" : "quantize.linear.float8") +
         "\"]\n";
  }
  t += training_section(in);

  t += parallelism_section(in);
  const Recompute& r = stage_recompute(in);
  t += "\n[activation_checkpoint]\nmode = \"" + std::string(to_string(r.granularity)) + "\"\n";
  if (r.granularity == RecomputeGranularity::selective) t += "selective_ac_option = \"op\"\n";
  if (s.moe_router_force_load_balancing) {
    t += "\n[debug]\nmoe_force_load_balance = true  # round-robin routing (models/moe/moe.py)\n";
  }
  t += compile_section(s);
  if (training.precision == Precision::fp8 && s.fp8_recipe != Fp8Recipe::mxfp8) {
    t += "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n"
         "enable_fsdp_float8_all_gather = " +
         toml_bool(s.fp8_param_gather) +
         "\nprecompute_float8_dynamic_scale_for_fsdp = " + toml_bool(s.fp8_param_gather) + "\n";
  }
  if (flavor == nullptr) t += "\n[experimental]\ncustom_import = \"paraplan_flavor\"\n";
  launch.files["job.toml"] = t;
  if (flavor == nullptr) {
    launch.files["paraplan_flavor.py"] =
        llama3 ? flavor_module(model)
               : family_module(family, trained_model(model, Framework::torchtitan),
                               s.moe_grouped_gemm);
  }
  std::string text = std::string(
                         "# torchtitan v0.2.2 (73a0e6979dd1), run from its repository root "
                         "with job.toml") +
                     (flavor == nullptr ? " and paraplan_flavor.py" : "") + " there.\n";
  text += allocator_environment(in.strategy, Framework::torchtitan);
  text += rendezvous_environment(in.hosts);
  text += torchrun_lines(in.hosts, [](const HostGroup&) {
    return std::string("-m torchtitan.train --job.config_file job.toml");
  });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
