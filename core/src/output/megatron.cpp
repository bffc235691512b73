#include "paraplan/megatron.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "model/number_text.hpp"
#include "model/rules.hpp"
#include "model/stage_split.hpp"
#include "output/launch/hosts.hpp"

namespace paraplan {
namespace {

// A fraction key's value (millionths) as Megatron-LM's float argument: "0.5", "0.125".
std::string fraction_text(int64_t millionths) {
  std::string text = std::to_string(millionths / kFractionScale) + ".";
  std::string digits = std::to_string(kFractionScale + millionths % kFractionScale).substr(1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return text + digits;
}

// Flags for the pipeline's layer split: the virtual-pipeline flag and the split flags.
struct SplitFlags {
  std::vector<std::string> virtual_stages;
  std::vector<std::string> layers;
};

// --pipeline-model-parallel-layout (megatron/core/transformer/pipeline_parallel_layer_layout.py):
// PP x VP segments separated by '|' in model order, segment i on pipeline rank i % PP as its
// chunk i / PP; E the embedding (first), t a transformer layer, m a multi-token-prediction
// depth, L the loss (last); "t*n" repeats. Each stage's chunks as the model times them
// (chunk_layers); E and L need no slot of their own. validate_layer_layout (core_v0.19.0) asserts
// one m per --mtp-num-layers, after every t, all in one rank's last chunk: the last stage's, as
// Megatron-LM places MTP without a layout (gpt_model.py: mtp_process on the last stage).
std::string layout(const std::vector<int64_t>& stage_layers, int64_t virtual_stages,
                   int64_t mtp_num_layers) {
  const size_t p = stage_layers.size();
  std::vector<std::vector<int64_t>> chunks;
  for (size_t stage = 0; stage < p; ++stage) {
    chunks.push_back(detail::chunk_layers(stage_layers[stage], virtual_stages, false, false));
  }
  std::string text;
  for (size_t chunk = 0; chunk < static_cast<size_t>(virtual_stages); ++chunk) {
    for (size_t stage = 0; stage < p; ++stage) {
      if (chunk > 0 || stage > 0) text += '|';
      if (chunk == 0 && stage == 0) text += 'E';
      const int64_t layers = chunks[stage][chunk];
      if (layers == 1) text += 't';
      if (layers > 1) text += "t*" + std::to_string(layers);
      if (chunk + 1 == static_cast<size_t>(virtual_stages) && stage + 1 == p) {
        text += std::string(static_cast<size_t>(mtp_num_layers), 'm') + 'L';
      }
    }
  }
  return text;
}

SplitFlags split_flags(const Strategy& s, const ModelSpec& model) {
  SplitFlags flags;
  const int64_t p = s.pipeline_model_parallel_size;
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  const auto add = [](std::vector<std::string>& args, std::string_view name, int64_t value) {
    args.emplace_back(name);
    args.push_back(std::to_string(value));
  };
  const std::vector<int64_t> even = detail::standard_split(model.num_layers, p, v);
  const std::vector<int64_t>& layers =
      s.pipeline_stage_layers.empty() ? even : s.pipeline_stage_layers;
  if (p == 1) return flags;
  if (layers.empty() || layers == even) {
    // Megatron-LM's even split, counting the loss (and the embedding) as a layer where that
    // makes it even (arguments.py: num_layers + 1 for each --account-for-* flag).
    const int64_t accounted = detail::accounted_edges(model.num_layers, p, v);
    if (v > 1 && accounted == 0) {
      add(flags.virtual_stages, "--num-layers-per-virtual-pipeline-stage",
          model.num_layers / (p * v));
    } else if (v > 1) {
      add(flags.virtual_stages, "--num-virtual-stages-per-pipeline-rank", v);
    }
    if (accounted == 2) flags.layers.emplace_back("--account-for-embedding-in-pipeline-split");
    if (accounted >= 1) flags.layers.emplace_back("--account-for-loss-in-pipeline-split");
    return flags;
  }
  // An uneven first and last stage around equal middle stages, each divisible into the
  // virtual chunks (transformer_config.py __post_init__, "Uneven PP"); with interleaving
  // Megatron-LM then wants --num-virtual-stages-per-pipeline-rank (arguments.py).
  const int64_t first = layers.front(), last = layers.back();
  const int64_t middle = p > 2 ? layers[1] : 0;
  bool first_last =
      std::all_of(layers.begin() + 1, layers.end() - 1, [&](int64_t l) { return l == middle; });
  first_last &= first % v == 0 && last % v == 0 && middle % v == 0;
  if (first_last) {
    if (v > 1) add(flags.virtual_stages, "--num-virtual-stages-per-pipeline-rank", v);
    if (p == 2 || first != middle) {
      add(flags.layers, "--decoder-first-pipeline-num-layers", first);
    }
    if (p > 2 && last != middle) add(flags.layers, "--decoder-last-pipeline-num-layers", last);
    return flags;
  }
  // Any other split: the layout, which also sets the virtual pipeline size (arguments.py: at
  // most one of it, --num-layers-per-virtual-pipeline-stage, --num-virtual-stages-per-...).
  flags.layers.emplace_back("--pipeline-model-parallel-layout");
  flags.layers.push_back(
      std::string(1, '"').append(layout(layers, v, model.mtp_num_layers)).append(1, '"'));
  return flags;
}

// The argument list being written: a flag alone, or a flag and its value.
class MegatronArgs {
 public:
  explicit MegatronArgs(std::vector<std::string>& args) : args_(args) {}
  void flag(std::string_view name) { args_.emplace_back(name); }
  void value(std::string_view name, const std::string& v) {
    args_.emplace_back(name);
    args_.push_back(v);
  }
  void number(std::string_view name, int64_t v) { value(name, std::to_string(v)); }
  void append(const std::vector<std::string>& more) {
    args_.insert(args_.end(), more.begin(), more.end());
  }

 private:
  std::vector<std::string>& args_;
};

// A choice_set key's value as Megatron-LM's nargs='*' flags take it: names separated by spaces.
std::string choice_set_text(const StrategyKey& key, int64_t bits) {
  std::string names;
  for (const std::string_view name : choice_set_names(key, bits)) {
    if (!names.empty()) names += ' ';
    names += name;
  }
  return names;
}

// A key whose table row says how it becomes a flag; false for a composite key.
bool write_table_flag(MegatronArgs& out, const StrategyKey& key, int64_t key_value) {
  switch (key.megatron) {
    case MegatronFlag::value:
      out.number(key.megatron_flag, key_value);
      return true;
    case MegatronFlag::value_unless_default:
      if (key_value == key.default_value()) return true;
      if (key.type == KeyType::choice) {
        out.value(key.megatron_flag, std::string(key.choices[static_cast<size_t>(key_value)]));
      } else if (key.type == KeyType::fraction) {
        out.value(key.megatron_flag, fraction_text(key_value));
      } else {
        out.number(key.megatron_flag, key_value);
      }
      return true;
    case MegatronFlag::switch_on:
      if (key_value != 0) out.flag(key.megatron_flag);
      return true;
    case MegatronFlag::composite:
      break;
  }
  return false;
}

// What a composite key's flags depend on beyond its own value.
struct CompositeInputs {
  const Strategy& s;
  const Training& training;
  const SplitFlags& split;
  const Recompute& recompute;  // the GPU type's
};

// The recompute keys (the composite switch sends only them): the granularity, and the method
// and layers (full) or the modules (selective) it uses.
void write_recompute_flag(MegatronArgs& out, const StrategyKey& key, const Recompute& recompute) {
  if (key.id == StrategyKeyId::recompute_granularity) {
    if (recompute.granularity != RecomputeGranularity::none) {
      out.value(key.megatron_flag, std::string(to_string(recompute.granularity)));
    }
  } else if (key.id == StrategyKeyId::recompute_modules) {
    if (recompute.granularity == RecomputeGranularity::selective &&
        recompute.modules != Recompute{}.modules) {
      out.value(key.megatron_flag, choice_set_text(key, recompute.modules));
    }
  } else if (recompute.granularity == RecomputeGranularity::full) {  // method, num_layers
    const bool method = key.id == StrategyKeyId::recompute_method;
    out.value(key.megatron_flag, method ? std::string(to_string(recompute.method))
                                        : std::to_string(recompute.num_layers));
  }
}

void write_zero_stage_flags(MegatronArgs& out, const Strategy& s) {
  if (s.zero_stage == 1) out.flag("--use-distributed-optimizer");
  if (s.zero_stage >= 2) {  // Megatron-FSDP (its user guide's required flags)
    out.flag("--use-megatron-fsdp");
    out.value("--data-parallel-sharding-strategy",
              s.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
    out.flag("--no-gradient-accumulation-fusion");
    out.flag("--use-distributed-optimizer");
    // arguments.py asserts Megatron-FSDP checkpoints in fsdp_dtensor format.
    out.value("--ckpt-format", "fsdp_dtensor");
  }
}

void write_cuda_graph_impl_flags(MegatronArgs& out, const StrategyKey& key, int64_t key_value,
                                 const Strategy& s) {
  // arguments.py at d98e8a64ddf3: --cuda-graph-impl {none,local,transformer_engine,
  // full_iteration} and --cuda-graph-modules (the older --cuda-graph-scope's successor);
  // the full_iteration scope is its own implementation, which asserts
  // --no-check-for-nan-in-loss-and-grad.
  if (s.full_iteration_graph()) {
    out.value(key.megatron_flag, "full_iteration");
    out.flag("--no-check-for-nan-in-loss-and-grad");
  } else if (s.cuda_graph_impl != CudaGraphImpl::none) {
    out.value(key.megatron_flag, std::string(key.choices[static_cast<size_t>(key_value)]));
  }
}

// The pipeline's layer split and sequence parallelism: how the layers and the activations
// are laid out over the parallel ranks.
void write_layout_flag(MegatronArgs& out, const StrategyKey& key, const CompositeInputs& in) {
  const Strategy& s = in.s;
  if (key.id == StrategyKeyId::virtual_pipeline_model_parallel_size) {
    out.append(in.split.virtual_stages);
  } else if (key.id == StrategyKeyId::pipeline_stage_layers) {
    out.append(in.split.layers);
  } else if (s.sequence_parallel && s.tensor_model_parallel_size > 1) {  // sequence_parallel
    out.flag(key.megatron_flag);
  }
}

// What is kept in GPU memory: recompute, activation offloading, the optimizer's sharding.
void write_memory_flag(MegatronArgs& out, const StrategyKey& key, const CompositeInputs& in) {
  const Strategy& s = in.s;
  if (key.id == StrategyKeyId::zero_stage) {
    write_zero_stage_flags(out, s);
  } else if (key.id == StrategyKeyId::offload_modules) {
    if (s.offload_modules != 0) {
      out.flag("--fine-grained-activation-offloading");
      out.value(key.megatron_flag, choice_set_text(key, s.offload_modules));
    }
  } else {  // recompute_granularity, recompute_method, recompute_num_layers, recompute_modules
    write_recompute_flag(out, key, in.recompute);
  }
}

// The attention backend and the fp8 recipe: which kernels run.
void write_kernel_flag(MegatronArgs& out, const StrategyKey& key, const CompositeInputs& in) {
  const Strategy& s = in.s;
  if (key.id == StrategyKeyId::use_flash_attn) {
    // --use-flash-attn parses but nothing reads it; the backend is chosen by
    // --attention-backend (transformer/enums.py AttnBackend; default auto). auto is written
    // as auto: Transformer Engine then prefers cuDNN's fused attention on Hopper and later
    // (dot_product_attention/utils.py get_attention_backend), as the estimate prices it,
    // where flash would run FlashAttention-2.
    // Without it the estimate prices Megatron-LM's unfused attention: `unfused`.
    out.value(key.megatron_flag,
              s.use_flash_attn ? std::string(to_string(s.attention_backend)) : "unfused");
  } else if (key.id == StrategyKeyId::fp8_recipe) {
    if (in.training.precision == Precision::fp8) {
      out.value(key.megatron_flag, std::string(to_string(s.fp8_recipe)));
    }
  } else if (key.id == StrategyKeyId::fp8_param_gather) {
    if (in.training.precision == Precision::fp8 && s.fp8_param_gather) {
      out.flag(key.megatron_flag);
    }
  }  // attention_backend: written with use_flash_attn
}

// CUDA graphs: the implementation and, for per-layer graphs, the modules captured.
void write_cuda_graph_flag(MegatronArgs& out, const StrategyKey& key, int64_t key_value,
                           const Strategy& s) {
  if (key.id == StrategyKeyId::cuda_graph_impl) {
    write_cuda_graph_impl_flags(out, key, key_value, s);
  } else if (s.per_layer_graphs() && s.cuda_graph_scope != 0) {  // cuda_graph_scope
    out.value(key.megatron_flag, choice_set_text(key, s.cuda_graph_scope));
  }
}

// Which writer a composite key's flags come from, by what they describe. No default: a new key
// is a -Wswitch warning until it is given one. The ones written elsewhere are not Megatron-LM
// flags: reuse_fp32_param is MindSpeed's (the MindSpeed-LLM launch writes it),
// pipeline_stage_gpus the GPUs a process runs on, the allocator settings environment variables
// (launch.cpp writes them); deallocate_pipeline_outputs has no argument (Megatron-LM's training
// sets it; framework_rules_megatron.cpp refuses off), nor has fp8_dot_product_attention
// (Megatron-Bridge's launch writes it; framework_rules_megatron.cpp refuses on). The table-row keys
// are written by their row's MegatronFlag (write_table_flag) and never reach the composite writers.
enum class CompositeWriter { layout, memory, kernel, dispatcher, cuda_graph, elsewhere, table_row };

CompositeWriter composite_writer(StrategyKeyId id) {
  switch (id) {
    case StrategyKeyId::virtual_pipeline_model_parallel_size:
    case StrategyKeyId::pipeline_stage_layers:
    case StrategyKeyId::sequence_parallel:
      return CompositeWriter::layout;
    case StrategyKeyId::recompute_granularity:
    case StrategyKeyId::recompute_method:
    case StrategyKeyId::recompute_num_layers:
    case StrategyKeyId::recompute_modules:
    case StrategyKeyId::offload_modules:
    case StrategyKeyId::zero_stage:
      return CompositeWriter::memory;
    case StrategyKeyId::use_flash_attn:
    case StrategyKeyId::attention_backend:
    case StrategyKeyId::fp8_recipe:
    case StrategyKeyId::fp8_param_gather:
      return CompositeWriter::kernel;
    case StrategyKeyId::moe_token_dispatcher_type:
      return CompositeWriter::dispatcher;
    case StrategyKeyId::cuda_graph_impl:
    case StrategyKeyId::cuda_graph_scope:
      return CompositeWriter::cuda_graph;
    case StrategyKeyId::reuse_fp32_param:
    case StrategyKeyId::pipeline_stage_gpus:
    case StrategyKeyId::expandable_segments:
    case StrategyKeyId::graph_capture_record_stream_reuse:
    case StrategyKeyId::deallocate_pipeline_outputs:
    case StrategyKeyId::fp8_dot_product_attention:
      return CompositeWriter::elsewhere;
    case StrategyKeyId::tensor_model_parallel_size:
    case StrategyKeyId::pipeline_model_parallel_size:
    case StrategyKeyId::context_parallel_size:
    case StrategyKeyId::cp_comm_type:
    case StrategyKeyId::expert_model_parallel_size:
    case StrategyKeyId::expert_tensor_parallel_size:
    case StrategyKeyId::moe_flex_dispatcher_backend:
    case StrategyKeyId::moe_grouped_gemm:
    case StrategyKeyId::moe_permute_fusion:
    case StrategyKeyId::moe_router_fusion:
    case StrategyKeyId::moe_shared_expert_overlap:
    case StrategyKeyId::overlap_moe_expert_parallel_comm:
    case StrategyKeyId::delay_wgrad_compute:
    case StrategyKeyId::moe_router_force_load_balancing:
    case StrategyKeyId::moe_expert_capacity_factor:
    case StrategyKeyId::moe_pad_expert_input_to_capacity:
    case StrategyKeyId::micro_batch_size:
    case StrategyKeyId::overlap_grad_reduce:
    case StrategyKeyId::overlap_param_gather:
    case StrategyKeyId::tp_comm_overlap:
    case StrategyKeyId::grad_reduce_in_bf16:
    case StrategyKeyId::accumulate_allreduce_grads_in_fp32:
    case StrategyKeyId::use_precision_aware_optimizer:
    case StrategyKeyId::main_grads_dtype:
    case StrategyKeyId::main_params_dtype:
    case StrategyKeyId::exp_avg_dtype:
    case StrategyKeyId::exp_avg_sq_dtype:
    case StrategyKeyId::cross_entropy_loss_fusion:
    case StrategyKeyId::cross_entropy_fusion_impl:
    case StrategyKeyId::cpu_offloading_num_layers:
    case StrategyKeyId::optimizer_cpu_offload:
    case StrategyKeyId::optimizer_offload_fraction:
    case StrategyKeyId::overlap_cpu_optimizer_d2h_h2d:
    case StrategyKeyId::defer_embedding_wgrad_compute:
    case StrategyKeyId::wgrad_deferral_limit:
    case StrategyKeyId::count:
      break;
  }
  return CompositeWriter::table_row;
}

// A composite key's flags, by its own rule.
void write_composite_flags(MegatronArgs& out, const StrategyKey& key, int64_t key_value,
                           const CompositeInputs& in) {
  switch (composite_writer(key.id)) {
    case CompositeWriter::layout:
      write_layout_flag(out, key, in);
      break;
    case CompositeWriter::memory:
      write_memory_flag(out, key, in);
      break;
    case CompositeWriter::kernel:
      write_kernel_flag(out, key, in);
      break;
    case CompositeWriter::dispatcher:
      if (in.s.moe_token_dispatcher_type != MoeDispatcher::allgather) {
        out.value(key.megatron_flag, std::string(to_string(in.s.moe_token_dispatcher_type)));
      }
      break;
    case CompositeWriter::cuda_graph:
      write_cuda_graph_flag(out, key, key_value, in.s);
      break;
    case CompositeWriter::elsewhere:
    case CompositeWriter::table_row:
      break;
  }
}

void write_precision_flags(MegatronArgs& out, Precision precision) {
  switch (precision) {
    case Precision::bf16:
      out.flag("--bf16");
      break;
    case Precision::fp16:
      out.flag("--fp16");
      break;
    case Precision::fp8:
      out.flag("--bf16");
      out.value("--fp8-format", "hybrid");  // the recipe: --fp8-recipe with the strategy keys
      break;
    case Precision::fp32:
      break;
  }
}

// YaRN rotary positions (Megatron-LM core_v0.19.0 arguments.py: --position-embedding-type yarn,
// --rotary-scaling-factor, --yarn-*; argument_utils.py _apply_yarn_config_from_args maps them to
// the config's yarn_* attributes, rounding the correction range unless told not to).
void write_yarn_arguments(MegatronArgs& out, const ModelSpec& model) {
  out.value("--position-embedding-type", "yarn");
  out.value("--rotary-scaling-factor", number_text(model.yarn_rotary_scaling_factor));
  out.number("--yarn-original-max-position-embeddings",
             model.yarn_original_max_position_embeddings);
  out.value("--yarn-beta-fast", number_text(model.yarn_beta_fast));
  out.value("--yarn-beta-slow", number_text(model.yarn_beta_slow));
  if (!model.yarn_correction_range_round_to_int) {
    out.flag("--no-yarn-correction-range-round-to-int");
  }
}

// The model's sizes: layers, widths, heads, and the positions it embeds.
void write_shape_arguments(MegatronArgs& out, const ModelSpec& model, const Training& training) {
  out.number("--num-layers", model.num_layers);
  out.number("--hidden-size", model.hidden_size);
  out.number("--ffn-hidden-size", model.ffn_hidden_size);
  out.number("--num-attention-heads", model.num_attention_heads);
  if (model.num_query_groups > 0 && model.num_query_groups != model.num_attention_heads) {
    out.flag("--group-query-attention");
    out.number("--num-query-groups", model.num_query_groups);
  }
  if (model.kv_channels > 0 && model.kv_channels * model.num_attention_heads != model.hidden_size) {
    out.number("--kv-channels", model.kv_channels);
  }
  out.number("--max-position-embeddings", training.seq_length);
  switch (model.position_embedding_type) {
    case PositionEmbedding::learned_absolute:
      break;
    case PositionEmbedding::rope:
      if (model.yarn_rotary_scaling_factor > 1) {
        write_yarn_arguments(out, model);
      } else {
        out.value("--position-embedding-type", "rope");
      }
      break;
    case PositionEmbedding::none:
      out.value("--position-embedding-type", "none");
      break;
  }
  if (model.qk_layernorm) out.flag("--qk-layernorm");
}

// A dropout probability, written only where it differs from Megatron-LM's default 0.1.
void write_dropout(MegatronArgs& out, std::string_view name, double value) {
  if (value == 0.1) return;  // Megatron-LM's default
  out.value(name, number_text(value));
}

// What each layer is made of: the norm, the activation, biases, the output weights, dropout.
void write_layer_arguments(MegatronArgs& out, const ModelSpec& model) {
  if (is_gated(model.activation)) out.value("--normalization", "RMSNorm");  // the Llama family's
  if (model.activation == Activation::swiglu) out.flag("--swiglu");
  if (model.activation == Activation::squared_relu) out.flag("--squared-relu");
  if (!model.add_bias_linear) out.flag("--disable-bias-linear");
  if (model.untie_embeddings_and_output_weights) out.flag("--untie-embeddings-and-output-weights");
  write_dropout(out, "--hidden-dropout", model.hidden_dropout);
  write_dropout(out, "--attention-dropout", model.attention_dropout);
}

// The mixture of experts: experts, routing, shared experts and the dense first layers.
void write_moe_arguments(MegatronArgs& out, const MoeSpec& moe, int64_t num_layers) {
  out.number("--num-experts", moe.num_experts);
  out.number("--moe-router-topk", moe.top_k);
  out.number("--moe-ffn-hidden-size", moe.moe_ffn_hidden_size);
  if (moe.num_shared_experts > 0) {
    out.number("--moe-shared-expert-intermediate-size",
               moe.num_shared_experts * moe.moe_ffn_hidden_size);
  }
  if (moe.first_k_dense_layers > 0) {  // a Python list expression (arguments.py moe_freq_type)
    out.value("--moe-layer-freq", "\"([0]*" + std::to_string(moe.first_k_dense_layers) + "+[1]*" +
                                      std::to_string(num_layers - moe.first_k_dense_layers) +
                                      ")\"");
  }
  if (moe.moe_router_enable_expert_bias) {
    // transformer_config.py (core_v0.19.0) raises unless the score function is sigmoid or
    // sqrtsoftplus; DeepSeek-V3, whose balancing this is, scores by sigmoid (config.json
    // scoring_func, Megatron-Bridge's DeepSeekV3Bridge moe_router_score_function).
    out.value("--moe-router-score-function", "sigmoid");
    out.flag("--moe-router-enable-expert-bias");
  }
}

// Multi-latent attention's ranks and head dimensions.
void write_mla_arguments(MegatronArgs& out, const MlaSpec& mla) {
  out.flag("--multi-latent-attention");
  if (mla.q_lora_rank > 0) out.number("--q-lora-rank", mla.q_lora_rank);
  out.number("--kv-lora-rank", mla.kv_lora_rank);
  out.number("--qk-head-dim", mla.qk_head_dim);
  out.number("--qk-pos-emb-head-dim", mla.qk_pos_emb_head_dim);
  out.number("--v-head-dim", mla.v_head_dim);
}

}  // namespace

std::vector<std::string> megatron_arguments(const Strategy& s, const ModelSpec& model,
                                            const Training& training, int pool) {
  std::vector<std::string> args;
  MegatronArgs out(args);
  const SplitFlags split = split_flags(s, model);
  const Recompute& recompute = s.recompute.at(static_cast<size_t>(pool));
  // The keys in the table's order; composite ones by their own rule.
  for (const StrategyKey& key : strategy_keys()) {
    const int64_t key_value =
        key.scalar() ? key.get(s, key.per_gpu ? static_cast<size_t>(pool) : 0) : 0;
    if (!write_table_flag(out, key, key_value)) {
      write_composite_flags(out, key, key_value, {s, training, split, recompute});
    }
  }
  out.number("--global-batch-size", training.global_batch_size);
  out.number("--seq-length", training.seq_length);
  write_precision_flags(out, training.precision);
  return args;
}

std::vector<std::string> megatron_model_arguments(const ModelSpec& model,
                                                  const Training& training) {
  std::vector<std::string> args;
  MegatronArgs out(args);
  write_shape_arguments(out, model, training);
  write_layer_arguments(out, model);
  if (model.moe) write_moe_arguments(out, *model.moe, model.num_layers);
  if (model.mla) write_mla_arguments(out, *model.mla);
  if (model.mtp_num_layers > 0) out.number("--mtp-num-layers", model.mtp_num_layers);
  if (model.window_size > 0) {
    // arguments.py tuple_type: "LEFT,RIGHT" (causal: right 0); moe_freq_type: an integer.
    out.value("--window-size", std::to_string(model.window_size) + ",0");
    if (model.window_attn_skip_freq > 0) {
      out.number("--window-attn-skip-freq", model.window_attn_skip_freq);
    }
  }
  return args;
}

std::string join_arguments(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& argument : arguments) text += (text.empty() ? "" : " ") + argument;
  return text;
}

}  // namespace paraplan
