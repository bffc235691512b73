// torchtitan v0.2.2 (73a0e6979dd1, the last release with TOML job files; launch-targets.md
// section 7): a job file and `torchrun -m torchtitan.train`.
#include <cctype>

#include "model/stage_split.hpp"
#include "output/launch/writers.hpp"

namespace paraplan::detail {
namespace {

std::string toml_bool(bool value) { return value ? "true" : "false"; }

// "Llama 2 13B" -> "llama-2-13b": a directory name.
std::string slug(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
    out += keep ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  }
  return out;
}

// The model parts of each virtual stage in model order (stage i on pipeline rank i % PP, as
// the looped schedules place them): embedding, layers, final norm and output.
std::string module_fqns(const Strategy& s, int64_t num_layers) {
  const int64_t p = s.pipeline_model_parallel_size, v = s.virtual_pipeline_model_parallel_size;
  std::vector<std::vector<int64_t>> chunks;
  for (const int64_t layers : s.pipeline_stage_layers) {
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

}  // namespace

Launch torchtitan_launch(const LaunchInput& in) {
  const Strategy& s = in.strategy;
  const ModelSpec& model = in.scenario.model;
  const Training& training = in.scenario.training;
  Launch launch;
  const std::string name = model.mla ? "deepseek_v3" : model.moe ? "llama4" : "llama3";
  std::string t = "# torchtitan v0.2.2 (73a0e6979dd1) job file for " + model.name +
                  ", with the strategy Paraplan found.\n";
  t += "[job]\ndump_folder = \"./outputs\"\n\n[model]\nname = \"" + name + "\"\n";
  t += "# Register a flavor named \"paraplan\" in torchtitan/models/" + name +
       "/__init__.py with: " + std::to_string(model.num_layers) + " layers, dim " +
       std::to_string(model.hidden_size) + ", FFN " + std::to_string(model.ffn_hidden_size) + ", " +
       std::to_string(model.num_attention_heads) + " heads, " +
       std::to_string(model.num_query_groups) + " KV heads, vocab " +
       std::to_string(model.vocab_size) +
       (model.moe ? ", " + std::to_string(model.moe->num_experts) + " experts (top " +
                        std::to_string(model.moe->top_k) + ")"
                  : std::string()) +
       "\nflavor = \"paraplan\"\nhf_assets_path = \"./assets/hf/" + slug(model.name) + "\"\n";
  if (training.precision == Precision::fp8) {
    t += std::string("converters = [\"") +
         (s.fp8_recipe == Fp8Recipe::mxfp8 ? "quantize.linear.mx" : "quantize.linear.float8") +
         "\"]\n";
  }
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
  t += std::string("mixed_precision_param = \"") +
       (training.precision == Precision::fp16   ? "float16"
        : training.precision == Precision::fp32 ? "float32"
                                                : "bfloat16") +
       "\"\nmixed_precision_reduce = \"float32\"\n";

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
  if (s.context_parallel_size > 1) {
    t += std::string("context_parallel_rotate_method = \"") +
         (s.cp_comm_type == CpCommType::allgather ? "allgather" : "alltoall") + "\"\n";
  }
  if (model.moe) {
    t += "expert_parallel_degree = " + std::to_string(s.expert_model_parallel_size) + "\n";
    t += "expert_tensor_parallel_degree = " + std::to_string(s.expert_tensor_parallel()) + "\n";
  }
  const Recompute& r = stage_recompute(in);
  t += "\n[activation_checkpoint]\nmode = \"" + std::string(to_string(r.granularity)) + "\"\n";
  if (r.granularity == RecomputeGranularity::selective) t += "selective_ac_option = \"op\"\n";
  if (s.tp_comm_overlap) t += "\n[compile]\nenable = true\ncomponents = [\"model\"]\n";
  if (training.precision == Precision::fp8 && s.fp8_recipe != Fp8Recipe::mxfp8) {
    t += "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n"
         "enable_fsdp_float8_all_gather = " +
         toml_bool(s.fp8_param_gather) +
         "\nprecompute_float8_dynamic_scale_for_fsdp = " + toml_bool(s.fp8_param_gather) + "\n";
  }
  launch.files["job.toml"] = t;
  std::string text = "# torchtitan v0.2.2 (73a0e6979dd1), with job.toml beside it.\n";
  text += rendezvous_environment(in.hosts);
  text += torchrun_lines(in.hosts, [](const HostGroup&) {
    return std::string("-m torchtitan.train --job.config_file job.toml");
  });
  launch.command = text;
  return launch;
}

}  // namespace paraplan::detail
