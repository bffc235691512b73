// The rulebook: each rule has a case that breaks it, the estimate reports the rule's reason
// with its numbers, and the search checks every rule at some level of its loop.
#include "model/rules.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <functional>
#include <set>

#include "model/framework_rules.hpp"
#include "search/searcher.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

struct Case {
  std::string_view rule;
  std::string scenario;  // model, training and cluster
  std::function<void(Strategy&)> strategy;
};

std::string job(const std::string& model, int gpus, int batch = 64, int seq = 4096,
                const std::string& precision = "bf16", const std::string& gpu = "a100") {
  return R"({"model": )" + model + R"(, "training": {"global_batch_size": )" +
         std::to_string(batch) + R"(, "seq_length": )" + std::to_string(seq) +
         R"(, "precision": ")" + precision + R"("}, "cluster": {"gpus": [{"type": ")" + gpu +
         R"(", "count": )" + std::to_string(gpus) + "}]}}";
}

// Selective recompute of `modules` on every GPU type.
void recompute_modules(Strategy& s, std::initializer_list<RecomputeModule> modules) {
  for (Recompute& r : s.recompute) {
    r.granularity = RecomputeGranularity::selective;
    r.modules = 0;
    for (const RecomputeModule m : modules) r.modules |= 1u << static_cast<unsigned>(m);
  }
}

uint32_t graph_scope(std::initializer_list<CudaGraphScope> scopes) {
  uint32_t bits = 0;
  for (const CudaGraphScope scope : scopes) bits |= 1u << static_cast<unsigned>(scope);
  return bits;
}

std::string custom(int heads, int groups, int ffn, int moe_ffn = 0, int experts = 8) {
  std::string model = R"({"name": "m", "num_layers": 8, "hidden_size": 1024, "ffn_hidden_size": )" +
                      std::to_string(ffn) + R"(, "num_attention_heads": )" + std::to_string(heads) +
                      R"(, "num_query_groups": )" + std::to_string(groups) +
                      R"(, "vocab_size": 32000, "activation": "swiglu")";
  if (moe_ffn > 0) {
    model += R"(, "moe": {"num_experts": )" + std::to_string(experts) +
             R"(, "top_k": 2, "moe_ffn_hidden_size": )" + std::to_string(moe_ffn) + "}";
  }
  return model + "}";
}

const std::string kLlama = R"("llama2-7b")";  // 32 layers, 32 heads, ffn 11008
// A GPT-style MoE (biases on) and one with a shared expert.
const std::string kBiasMoe = R"({"name": "m", "num_layers": 8, "hidden_size": 1024,
    "ffn_hidden_size": 1024, "num_attention_heads": 16, "vocab_size": 32000,
    "activation": "gelu", "add_bias_linear": true, "moe": {"num_experts": 8, "top_k": 2}})";
const std::string kSharedMoe = R"({"name": "m", "num_layers": 8, "hidden_size": 1024,
    "ffn_hidden_size": 1024, "num_attention_heads": 16, "vocab_size": 32000,
    "activation": "swiglu", "moe": {"num_experts": 8, "top_k": 2, "num_shared_experts": 1}})";

std::vector<Case> cases() {
  return {
      {"tensor parallel divides the attention heads", job(kLlama, 6),
       [](Strategy& s) { s.tensor_model_parallel_size = 3; }},
      {"tensor parallel divides the query groups", job(R"("llama3-8b")", 16),
       [](Strategy& s) { s.tensor_model_parallel_size = 16; }},
      {"tensor parallel divides the MLP width", job(custom(16, 16, 1004), 8),
       [](Strategy& s) { s.tensor_model_parallel_size = 8; }},
      {"expert tensor parallel divides the expert MLP width", job(custom(16, 16, 1024, 1004), 8),
       [](Strategy& s) {
         s.tensor_model_parallel_size = 8;
         s.sequence_parallel = true;
       }},
      {"expert parallel needs experts", job(kLlama, 8),
       [](Strategy& s) { s.expert_model_parallel_size = 2; }},
      {"expert parallel divides the experts", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) { s.expert_model_parallel_size = 3; }},
      {"expert grid divides the GPUs", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.tensor_model_parallel_size = 2;
         s.sequence_parallel = true;
         s.expert_model_parallel_size = 8;
       }},
      {"MoE with tensor parallelism needs sequence parallelism", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) { s.tensor_model_parallel_size = 2; }},
      {"expert-parallel bias needs no expert tensor parallelism", job(kBiasMoe, 8),
       [](Strategy& s) {
         s.tensor_model_parallel_size = 2;
         s.sequence_parallel = true;
       }},
      {"the flex dispatcher needs tokens to leave the GPU", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) { s.moe_token_dispatcher_type = MoeDispatcher::flex; }},
      {"DeepEP pads no expert input to capacity", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::flex;
         s.moe_expert_capacity_factor = 1.0;
         s.moe_pad_expert_input_to_capacity = true;
       }},
      {"shared-expert overlap needs an all-to-all dispatcher", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_shared_expert_overlap = true;
       }},
      {"expert-parallel overlap needs an all-to-all over experts",
       job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.overlap_moe_expert_parallel_comm = true;
       }},
      {"expert-parallel overlap with a pipeline needs interleaving",
       job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.pipeline_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.overlap_moe_expert_parallel_comm = true;
       }},
      {"delayed weight gradients need the expert-parallel overlap",
       job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.delay_wgrad_compute = true;
       }},
      {"expert-parallel overlap excludes full recompute", job(custom(16, 16, 1024, 1024), 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.overlap_moe_expert_parallel_comm = true;
         s.recompute[0].granularity = RecomputeGranularity::full;
       }},
      {"expert-parallel overlap excludes shared-expert overlap", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.overlap_moe_expert_parallel_comm = true;
         s.moe_shared_expert_overlap = true;
       }},
      {"expert-parallel overlap needs 16-bit training and at most one MTP layer",
       job(custom(16, 16, 1024, 1024), 8, 64, 4096, "fp32"),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.overlap_moe_expert_parallel_comm = true;
       }},
      {"sequence parallel splits the sequence over tensor parallel", job(kLlama, 8, 64, 4100),
       [](Strategy& s) {
         s.tensor_model_parallel_size = 8;
         s.sequence_parallel = true;
       }},
      {"tensor-parallel overlap needs sequence parallelism", job(kLlama, 8),
       [](Strategy& s) { s.tp_comm_overlap = true; }},
      {"context parallel splits the sequence into 2 x cp chunks", job(kLlama, 8, 64, 4100),
       [](Strategy& s) {
         s.context_parallel_size = 4;
         s.use_flash_attn = true;
       }},
      {"context parallel needs fused attention", job(kLlama, 8),
       [](Strategy& s) { s.context_parallel_size = 2; }},
      {"fused attention needs 16-bit training", job(kLlama, 8, 64, 4096, "fp32"),
       [](Strategy& s) { s.use_flash_attn = true; }},
      {"interleaving needs pipeline parallelism", job(kLlama, 8),
       [](Strategy& s) { s.virtual_pipeline_model_parallel_size = 2; }},
      {"deferring the output layer's weight gradients needs pipeline parallelism", job(kLlama, 8),
       [](Strategy& s) { s.defer_embedding_wgrad_compute = true; }},
      {"every pipeline stage holds a layer", job(custom(16, 16, 1024), 16),
       [](Strategy& s) { s.pipeline_model_parallel_size = 16; }},
      {"every virtual pipeline chunk holds a layer", job(kLlama, 8),
       [](Strategy& s) {
         s.pipeline_model_parallel_size = 2;
         s.virtual_pipeline_model_parallel_size = 18;
       }},
      {"interleaving runs micro-batches in groups of the pipeline size", job(kLlama, 8, 12),
       [](Strategy& s) {
         s.pipeline_model_parallel_size = 4;
         s.virtual_pipeline_model_parallel_size = 2;
       }},
      {"model parallelism divides the GPUs", job(kLlama, 8),
       [](Strategy& s) { s.pipeline_model_parallel_size = 3; }},
      {"data parallel x micro-batch divides the global batch", job(kLlama, 8, 6), [](Strategy&) {}},
      {"Megatron-FSDP runs without pipeline parallelism", job(kLlama, 8),
       [](Strategy& s) {
         s.pipeline_model_parallel_size = 2;
         s.zero_stage = 2;
       }},
      {"overlapped parameter gathers need a sharded optimizer", job(kLlama, 8),
       [](Strategy& s) {
         s.overlap_grad_reduce = true;
         s.overlap_param_gather = true;
       }},
      {"overlapped parameter gathers need overlapped gradient reduction", job(kLlama, 8),
       [](Strategy& s) {
         s.zero_stage = 1;
         s.overlap_param_gather = true;
       }},
      {"fp8 parameter gathers need a sharded optimizer", job(kLlama, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) { s.fp8_param_gather = true; }},
      {"the precision-aware optimizer needs a sharded optimizer", job(kLlama, 8),
       [](Strategy& s) { s.use_precision_aware_optimizer = true; }},
      {"fp32 gradient accumulation keeps fp32 main gradients", job(kLlama, 8),
       [](Strategy& s) {
         s.accumulate_allreduce_grads_in_fp32 = true;
         s.main_grads_dtype = MainGradsDtype::bf16;
       }},
      {"every stage's GPU has tensor cores for the precision", job(kLlama, 8, 64, 4096, "fp8"),
       [](Strategy&) {}},
      {"optimizer CPU offload needs the precision-aware optimizer", job(kLlama, 8),
       [](Strategy& s) {
         s.zero_stage = 1;
         s.optimizer_cpu_offload = true;
       }},
      {"optimizer CPU offload runs with the distributed optimizer, not Megatron-FSDP",
       job(kLlama, 8),
       [](Strategy& s) {
         s.zero_stage = 2;
         s.use_precision_aware_optimizer = true;
         s.optimizer_cpu_offload = true;
       }},
      {"optimizer CPU offload gathers fp8 parameters only with delayed scaling",
       job(kLlama, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) {
         s.zero_stage = 1;
         s.use_precision_aware_optimizer = true;
         s.optimizer_cpu_offload = true;
         s.fp8_param_gather = true;
         s.fp8_recipe = Fp8Recipe::tensorwise;
       }},
      {"CPU offloading leaves a layer on the GPU", job(kLlama, 8),
       [](Strategy& s) { s.cpu_offloading_num_layers = 32; }},
      {"CPU offloading runs without pipeline parallelism", job(kLlama, 8),
       [](Strategy& s) {
         s.cpu_offloading_num_layers = 4;
         s.pipeline_model_parallel_size = 2;
       }},
      {"CPU offloading runs without recompute", job(kLlama, 8),
       [](Strategy& s) {
         s.cpu_offloading_num_layers = 4;
         s.recompute[0].granularity = RecomputeGranularity::selective;
       }},
      {"a CUDA graph scope needs a CUDA graph implementation", job(kLlama, 8),
       [](Strategy& s) { s.cuda_graph_scope = graph_scope({CudaGraphScope::attn}); }},
      {"full-iteration CUDA graphs are the local implementation's", job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::full_iteration});
       }},
      {"a full-iteration CUDA graph captures no other scope", job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::local;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::full_iteration, CudaGraphScope::attn});
       }},
      {"MoE CUDA graph scopes need a MoE model", job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::moe_router});
       }},
      {"the mlp CUDA graph scope needs dense layers", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::mlp});
       }},
      {"the moe and moe_router CUDA graph scopes exclude each other", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::local;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::moe, CudaGraphScope::moe_router});
       }},
      {"the moe CUDA graph scope needs drop-and-pad MoE", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::moe});
       }},
      {"the moe_preprocess CUDA graph scope excludes the all-to-all's token dropping",
       job(kSharedMoe, 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 8;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.moe_expert_capacity_factor = 1.0;
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope =
             graph_scope({CudaGraphScope::moe_router, CudaGraphScope::moe_preprocess});
       }},
      {"padding to capacity needs a capacity factor", job(kSharedMoe, 8),
       [](Strategy& s) { s.moe_pad_expert_input_to_capacity = true; }},
      {"the moe_preprocess CUDA graph scope needs moe_router", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::moe_preprocess});
       }},
      {"per-layer CUDA graphs exclude full recompute", job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.recompute[0].granularity = RecomputeGranularity::full;
       }},
      {"per-layer CUDA graphs exclude CPU offloading by layer", job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::local;
         s.cpu_offloading_num_layers = 4;
       }},
      {"recomputing whole MoE layers excludes Transformer Engine's moe_router graphs",
       job(kSharedMoe, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::transformer_engine;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::moe_router});
         recompute_modules(s, {RecomputeModule::moe});
       }},
      {"fine-grained activation offloading with local per-layer graphs offloads only the experts'",
       job(kLlama, 8),
       [](Strategy& s) {
         s.cuda_graph_impl = CudaGraphImpl::local;
         s.cuda_graph_scope = graph_scope({CudaGraphScope::attn});
         s.offload_modules = 1u << static_cast<unsigned>(OffloadModule::qkv_linear);
       }},
      {"fine-grained activation offloading excludes CPU offloading by layer", job(kLlama, 8),
       [](Strategy& s) {
         s.cpu_offloading_num_layers = 4;
         s.offload_modules = 1u << static_cast<unsigned>(OffloadModule::qkv_linear);
       }},
      {"offloading the attention projection's input needs the core attention's", job(kLlama, 8),
       [](Strategy& s) {
         s.offload_modules = 1u << static_cast<unsigned>(OffloadModule::attn_proj);
       }},
      {"offloading inside a MoE layer excludes recomputing the whole layer", job(kSharedMoe, 8),
       [](Strategy& s) {
         recompute_modules(s, {RecomputeModule::moe});
         s.offload_modules = 1u << static_cast<unsigned>(OffloadModule::moe_act);
       }},
      {"parameter-copy reuse needs bf16 weights", job(kLlama, 8, 64, 4096, "fp16"),
       [](Strategy& s) { s.reuse_fp32_param = true; }},
      {"parameter-copy reuse needs Megatron-LM's optimizer or distributed optimizer",
       job(kLlama, 8),
       [](Strategy& s) {
         s.reuse_fp32_param = true;
         s.zero_stage = 3;
       }},
      {"parameter-copy reuse needs Megatron-LM's fp32 main parameters", job(kLlama, 8),
       [](Strategy& s) {
         s.reuse_fp32_param = true;
         s.zero_stage = 1;
         s.use_precision_aware_optimizer = true;
       }},
      {"all-to-all context parallelism divides the heads", job(R"("llama3-8b")", 16),
       [](Strategy& s) {
         s.use_flash_attn = true;
         s.tensor_model_parallel_size = 2;
         s.sequence_parallel = true;
         s.context_parallel_size = 8;  // 4 query groups on a tensor-parallel rank
         s.cp_comm_type = CpCommType::a2a;
       }},
      {"sliding-window attention with context parallelism needs all-gather or all-to-all",
       job(R"("gpt-oss-20b")", 8),
       [](Strategy& s) {
         s.use_flash_attn = true;
         s.context_parallel_size = 2;
         s.cp_comm_type = CpCommType::p2p;
       }},
      {"recomputing the experts' activation needs grouped GEMM", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.moe_grouped_gemm = false;
         recompute_modules(s, {RecomputeModule::moe_act});
       }},
      {"recomputing MLA's up-projections needs multi-latent attention", job(kLlama, 8),
       [](Strategy& s) { recompute_modules(s, {RecomputeModule::mla_up_proj}); }},
      {"recomputing the shared experts excludes their overlap", job(kSharedMoe, 8),
       [](Strategy& s) {
         s.expert_model_parallel_size = 2;
         s.moe_token_dispatcher_type = MoeDispatcher::alltoall;
         s.moe_shared_expert_overlap = true;
         recompute_modules(s, {RecomputeModule::shared_experts});
       }},
      {"recomputing the experts' activation or the norms in fp8 needs current scaling",
       job(kSharedMoe, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) {
         s.moe_grouped_gemm = true;
         recompute_modules(s, {RecomputeModule::moe_act});
       }},
      {"recomputing the experts' activation or the norms in fp8 needs current scaling",
       job(kSharedMoe, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) { recompute_modules(s, {RecomputeModule::layernorm}); }},
      {"Transformer Engine's loss kernel is a fused loss", job(kLlama, 8),
       [](Strategy& s) {
         s.cross_entropy_loss_fusion = false;
         s.cross_entropy_fusion_impl = CrossEntropyFusionImpl::te;
       }},
      // fp8 attention: fp8 training, cuDNN's fused attention, its GPUs, recipes and head dims.
      {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
       job(kLlama, 8, 64, 4096, "bf16", "h100"),
       [](Strategy& s) { s.fp8_dot_product_attention = true; }},
      {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
       job(kLlama, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) {
         s.fp8_dot_product_attention = true;
         s.use_flash_attn = true;
         s.attention_backend = AttentionBackend::flash;
       }},
      {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
       job(kLlama, 8, 64, 4096, "fp8", "h100"),
       [](Strategy& s) {
         s.fp8_dot_product_attention = true;
         s.use_flash_attn = true;
         s.fp8_recipe = Fp8Recipe::tensorwise;  // current scaling: sm100 and later
       }},
      {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
       job(custom(16, 16, 4096), 8, 64, 4096, "fp8", "h100"),  // head dim 64 on Hopper
       [](Strategy& s) {
         s.fp8_dot_product_attention = true;
         s.use_flash_attn = true;
       }},
      {"fp8 attention runs only in cuDNN's fused attention, for its GPUs, recipes and head dims",
       job(kLlama, 8, 64, 4096, "fp8", "b200"),
       [](Strategy& s) {
         s.fp8_dot_product_attention = true;
         s.use_flash_attn = true;
         s.fp8_recipe = Fp8Recipe::blockwise;
       }},
  };
}

const detail::Rule& rule_named(std::string_view name) {
  for (const detail::Rule& rule : detail::rules()) {
    if (rule.name == name) return rule;
  }
  FAIL("no rule named " << name);
  return detail::rules().front();
}

// A case's scenario and completed strategy, the rule it breaks, and that rule's reason there.
struct Broken {
  Scenario scenario;
  Strategy strategy;
  const detail::Rule* rule = nullptr;
  std::string reason;
};

Broken break_rule(const Case& c) {
  Broken b{test::scenario(c.scenario), {}, &rule_named(c.rule), {}};
  b.strategy = complete_strategy(b.scenario);
  c.strategy(b.strategy);
  int64_t gpus = 0;
  for (const GpuPool& pool : b.scenario.cluster.pools) gpus += pool.count;
  const detail::RuleContext context{b.scenario.model, b.scenario.training, b.scenario.cluster,
                                    gpus};
  REQUIRE_FALSE(b.rule->holds(context, b.strategy));
  b.reason = b.rule->reason(context, b.strategy);
  return b;
}

}  // namespace

TEST_CASE("every rule has a case that breaks it, and the estimate gives its reason") {
  std::set<std::string_view> covered;
  for (const Case& c : cases()) {
    CAPTURE(c.rule);
    const Broken broken = break_rule(c);
    const Strategy& strategy = broken.strategy;
    const detail::Rule& rule = *broken.rule;
    const std::string& reason = broken.reason;
    const Scenario& scenario = broken.scenario;
    const Report report =
        Estimator(scenario.model, scenario.training, scenario.cluster).estimate(strategy);
    CHECK_FALSE(report.feasible);
    const auto found =
        std::find(report.infeasible_reasons.begin(), report.infeasible_reasons.end(), reason);
    REQUIRE(found != report.infeasible_reasons.end());
    // Each reason carries its rule's name as its stable id (the page translates by it).
    REQUIRE(report.infeasible_reason_ids.size() == report.infeasible_reasons.size());
    CHECK(report.infeasible_reason_ids[static_cast<size_t>(
              found - report.infeasible_reasons.begin())] == rule.name);
    covered.insert(rule.name);
    CHECK_FALSE(rule.source.empty());
  }
  for (const detail::Rule& rule : detail::rules()) {
    CAPTURE(rule.name);
    CHECK(covered.count(rule.name) == 1);
  }
}

namespace {

// Whether `text` holds `word` between characters that cannot continue a key's name.
bool names_word(std::string_view text, std::string_view word) {
  const auto continues = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !continues(text[at - 1])) && (end == text.size() || !continues(text[end]))) {
      return true;
    }
  }
  return false;
}

// The names of the keys in `reads` that `text` names.
std::vector<std::string_view> keys_named(std::string_view text, KeySet reads) {
  std::vector<std::string_view> named;
  for (const StrategyKey& key : strategy_keys()) {
    if (reads.contains(key.id) && names_word(text, key.name)) named.push_back(key.name);
  }
  return named;
}

}  // namespace

// A user reads an infeasible reason to know what to change: each rule's reason, at its breaking
// case, names (as the key table spells it) at least one strategy key the rule reads; each launch
// target's rule names the key it cannot express, one it reads, or else the model field or the
// training precision it cannot.
TEST_CASE("every infeasible reason names a strategy key its rule reads") {
  for (const Case& c : cases()) {
    CAPTURE(c.rule);
    const Broken broken = break_rule(c);
    CAPTURE(broken.reason);
    CHECK_FALSE(keys_named(broken.reason, broken.rule->reads).empty());
  }
  for (size_t f = 0; f < framework_names().size(); ++f) {
    for (const detail::FrameworkRule* rule : detail::framework_rules(static_cast<Framework>(f))) {
      const std::string reason = rule->reason();
      CAPTURE(reason);
      const bool names_a_key = !keys_named(rule->field, KeySet::all()).empty();
      if (names_a_key) {
        CHECK_FALSE(keys_named(rule->field, rule->reads).empty());
      } else {  // the scenario outside the strategy: the model, or the training precision
        CHECK((rule->field == "model" || rule->field.starts_with("model.") ||
               rule->field == "precision"));
      }
      CHECK(reason.starts_with(rule->field));
    }
  }
}

namespace {

// Other values of a scalar key to try in its place.
std::vector<int64_t> other_values(const StrategyKey& key) {
  switch (key.type) {
    case KeyType::boolean:
      return {0, 1};
    case KeyType::choice: {
      std::vector<int64_t> values(key.choices.size());
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
      return values;
    }
    case KeyType::integer:
      return {1, 2, 4, 8};
    case KeyType::choice_set:
      return {0, 1, (int64_t{1} << key.choices.size()) - 1};
    case KeyType::fraction:
      return {0, kFractionScale / 2, kFractionScale};
    case KeyType::gpu_list:
    case KeyType::integer_list:
      break;
  }
  return {};
}

// `base` with a stage list set to other values of the pipeline's length: none (the even split,
// the first GPU type), and uneven layers or every stage on the last GPU type.
std::vector<Strategy> other_stage_lists(const StrategyKey& key, const Strategy& base) {
  const auto stages = static_cast<size_t>(base.pipeline_model_parallel_size);
  Strategy none = base, given = base;
  if (key.id == StrategyKeyId::pipeline_stage_layers) {
    none.pipeline_stage_layers.clear();
    given.pipeline_stage_layers.assign(stages, 1);
    given.pipeline_stage_layers.front() = 2;
  } else {  // pipeline_stage_gpus
    none.pipeline_stage_gpus.clear();
    given.pipeline_stage_gpus.assign(stages, static_cast<int>(base.recompute.size()) - 1);
  }
  return {none, given};
}

// `base` with a key set to each of its other values (a scalar on every GPU type).
std::vector<Strategy> other_strategies(const StrategyKey& key, const Strategy& base) {
  if (!key.scalar()) return other_stage_lists(key, base);
  std::vector<Strategy> strategies;
  for (const int64_t value : other_values(key)) {
    Strategy& perturbed = strategies.emplace_back(base);
    const size_t pools = key.per_gpu ? perturbed.recompute.size() : 1;
    for (size_t pool = 0; pool < pools; ++pool) key.set(perturbed, pool, value);
  }
  return strategies;
}

// Calls `check(key, perturbed)` for `base` with each key outside `reads` set to each of its
// other values.
template <typename Check>
void perturb_unread_keys(const Strategy& base, KeySet reads, Check check) {
  for (const StrategyKey& key : strategy_keys()) {
    if (reads.contains(key.id)) continue;
    for (const Strategy& perturbed : other_strategies(key, base)) check(key, perturbed);
  }
}

}  // namespace

// The search checks a rule as soon as the keys it lists are decided, and the count memo keys on
// them: a rule that reads a key it does not list would be checked against a stale value. At each
// rule's breaking case (and the defaults of the same job), every other key is set to other values:
// no rule's verdict, of the rulebook or of any launch target, may change. Under the sanitizers
// every third case (the optimised build runs them all; a few million checks take 40 s there).
TEST_CASE("each rule's verdict depends only on the keys it lists as read") {
  const size_t case_step = test::kSanitizedBuild ? 3 : 1;
  const std::vector<Case> all_cases = cases();
  for (size_t i = 0; i < all_cases.size(); i += case_step) {
    const Case& c = all_cases[i];
    CAPTURE(c.rule);
    const Scenario scenario = test::scenario(c.scenario);
    Strategy broken = complete_strategy(scenario);
    c.strategy(broken);
    int64_t gpus = 0;
    for (const GpuPool& pool : scenario.cluster.pools) gpus += pool.count;
    for (const Strategy& base : {complete_strategy(scenario), broken}) {
      for (size_t f = 0; f < framework_names().size(); ++f) {
        const auto framework = static_cast<Framework>(f);
        const detail::RuleContext context{scenario.model, scenario.training, scenario.cluster, gpus,
                                          framework};
        for (const detail::Rule& rule : detail::rules()) {
          CAPTURE(rule.name);
          const bool verdict = rule.holds(context, base);
          perturb_unread_keys(base, rule.reads, [&](const StrategyKey& key, const Strategy& s) {
            CAPTURE(key.name);
            CHECK(rule.holds(context, s) == verdict);
          });
        }
        for (const detail::FrameworkRule* rule : detail::framework_rules(framework)) {
          CAPTURE(rule->why);
          const bool verdict = rule->expressible(context, base);
          perturb_unread_keys(base, rule->reads, [&](const StrategyKey& key, const Strategy& s) {
            CAPTURE(key.name);
            CHECK(rule->expressible(context, s) == verdict);
          });
        }
      }
    }
  }
}

TEST_CASE("the search decides every key at some level, so it checks every rule") {
  for (const bool leaf_splits_layers : {false, true}) {
    KeySet decided;
    for (size_t level = 0; level < detail::kNumLevels; ++level) {
      const KeySet keys =
          detail::keys_decided_at(static_cast<detail::Level>(level), leaf_splits_layers);
      CHECK_FALSE(keys.intersects(decided));  // each key decided once
      decided = decided | keys;
    }
    CHECK(KeySet::all().subset_of(decided));
  }
}

TEST_CASE("parameter-copy reuse: bf16 weights (bf16, or fp8 without fp8 weights), ZeRO 0-1") {
  const auto broken = [](const std::string& precision, const std::function<void(Strategy&)>& f) {
    const Scenario scenario = test::scenario(job(kLlama, 8, 64, 4096, precision, "h100"));
    Strategy s = complete_strategy(scenario);
    s.fp8_param_gather = false;
    s.reuse_fp32_param = true;
    f(s);
    const detail::RuleContext context{scenario.model, scenario.training, scenario.cluster, 8};
    std::vector<std::string> reasons;
    detail::check_rules(context, s, reasons);
    return reasons;
  };
  const auto none = [](Strategy&) {};
  CHECK(broken("bf16", none).empty());
  CHECK(broken("fp8", none).empty());  // --bf16 with --fp8-format: bf16 weights
  CHECK(broken("bf16", [](Strategy& s) { s.zero_stage = 1; }).empty());
  CHECK(broken("fp16", none) ==
        std::vector<std::string>{"reuse_fp32_param needs bf16 training (got fp16)"});
  CHECK(broken("fp32", none) ==
        std::vector<std::string>{"reuse_fp32_param needs bf16 training (got fp32)"});
  CHECK(
      broken("fp8", [](Strategy& s) {
        s.zero_stage = 1;
        s.fp8_param_gather = true;
      }) == std::vector<std::string>{"reuse_fp32_param needs bf16 weights: fp8_param_gather off"});
  CHECK(broken("bf16", [](Strategy& s) { s.zero_stage = 2; }) ==
        std::vector<std::string>{"reuse_fp32_param needs zero_stage 0 or 1 (got 2)"});
}
