// The validated-regime tables (model/validated_regime.cpp) against the published runs they come
// from, and the report's notes outside them.
#include "model/validated_regime.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/text_ids.hpp"
#include "model/uncertainty.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

// The English of detail::regime_notes.
std::vector<std::string> regime_notes(const ModelSpec& model, const Training& training,
                                      const Cluster& cluster, Framework framework,
                                      const Strategy& strategy, double mfu) {
  std::vector<std::string> texts;
  for (const CoreText& note :
       detail::regime_notes(model, training, cluster, framework, strategy, mfu)) {
    texts.push_back(note.text);
  }
  return texts;
}

struct Best {
  double mfu = 0;
  std::string run;
};

// The tables as the data gives them: per (GPU, precision class) the highest measured MFU in the
// causal convention (the work a causal kernel executes, comparable at any sequence length).
struct Derived {
  std::map<std::pair<std::string, std::string>, Best> gpus;
  std::set<std::string> families;
  int64_t longest = 0;
};

// Both files' scored runs (entries of confidence "low" are there for information only).
Derived derive_from_data() {
  Derived derived;
  for (const char* name : {"/published-runs.json", "/published-runs-2025.json"}) {
    std::ifstream file(std::string(PARAPLAN_VALIDATION_DIR) + name);
    REQUIRE(file.good());
    for (const nlohmann::json& entry : nlohmann::json::parse(file)) {
      if (entry["measured"].value("confidence", "") == "low") continue;
      nlohmann::json document;
      for (const char* key : {"model", "training", "cluster", "strategy"}) {
        document[key] = entry[key];
      }
      const Scenario s = parse_scenario(document);
      REQUIRE(s.cluster.pools.size() == 1);
      const GpuSpec& gpu = s.cluster.pools.front().gpu;
      const double mfu = entry["measured"]["tokens_per_s_per_gpu"].get<double>() *
                         model_flops_per_token_causal(s.model, s.training.seq_length) /
                         gpu.tensor_flops(s.training.precision);
      Best& best = derived.gpus[{detail::gpu_family(gpu),
                                 std::string(detail::precision_class(s.training.precision))}];
      if (mfu > best.mfu) best = {mfu, entry["id"].get<std::string>()};
      derived.families.insert(detail::model_family(s.model));
      derived.longest = std::max(derived.longest, s.training.seq_length);
    }
  }
  return derived;
}

}  // namespace

TEST_CASE("the validated regimes are the published runs' GPUs, precisions, families, lengths") {
  const Derived derived = derive_from_data();
  // What the tables should say, printed in their own format when they drift.
  std::string expected;
  for (const auto& [key, best] : derived.gpus) {
    char line[160];
    std::snprintf(line, sizeof line, "    {\"%s\", \"%s\", %.3f, \"%s\"},\n", key.first.c_str(),
                  key.second.c_str(), best.mfu, best.run.c_str());
    expected += line;
  }
  for (const std::string& family : derived.families) expected += "    \"" + family + "\",\n";
  expected += "    longest " + std::to_string(derived.longest) + "\n";
  CAPTURE(expected);

  REQUIRE(detail::validated_gpus().size() == derived.gpus.size());
  for (const detail::ValidatedGpu& v : detail::validated_gpus()) {
    CAPTURE(v.family);
    CAPTURE(v.precision);
    const auto it = derived.gpus.find({std::string(v.family), std::string(v.precision)});
    REQUIRE(it != derived.gpus.end());
    CHECK(v.best_mfu == doctest::Approx(it->second.mfu).epsilon(0.002));
    CHECK(v.run == it->second.run);
  }
  const std::set<std::string> families(detail::validated_model_families().begin(),
                                       detail::validated_model_families().end());
  CHECK(families == derived.families);
  CHECK(detail::longest_validated_seq_length() == derived.longest);
}

TEST_CASE("a report outside the validated regimes says how") {
  const auto report = [](const std::string& model, const std::string& gpu, int seq,
                         const std::string& precision, const std::string& strategy) {
    return estimate(test::scenario(R"({"model": ")" + model +
                                   R"(", "training": {"global_batch_size": 64, "seq_length": )" +
                                   std::to_string(seq) + R"(, "precision": ")" + precision +
                                   R"("}, "cluster": {"gpus": [{"type": ")" + gpu +
                                   R"(", "count": 8}]}, "strategy": )" + strategy + "}"));
  };
  const std::string tp8 = R"({"tensor_model_parallel_size": 8, "sequence_parallel": true,
      "use_flash_attn": true, "recompute_granularity": "selective"})";
  // Llama 3.1 8B in bf16 on H100: GPU, precision, family and length all validated.
  const Report inside = report("llama3.1-8b", "h100", 8192, "bf16", tp8);
  REQUIRE(inside.feasible);
  CHECK(inside.mfu_causal < 0.556);
  CHECK(inside.validation.validated);
  CHECK(inside.validation.notes.empty());

  const Report mi300x = report("llama3.1-8b", "mi300x", 8192, "bf16", tp8);
  CHECK_FALSE(mi300x.validation.validated);
  REQUIRE(mi300x.validation.notes.size() == 1);
  CHECK(mi300x.validation.notes[0] ==
        "GPU type mi300x was never validated against a published run");

  const Report b200 = report("llama3.1-8b", "b200", 8192, "fp32", tp8);
  REQUIRE(b200.validation.notes.size() == 1);
  CHECK(b200.validation.notes[0] ==
        "fp32 training on b200 (Blackwell) was never validated against a published run");

  const Report long_context = report("llama3.1-8b", "h100", 2097152, "bf16", tp8);
  REQUIRE_FALSE(long_context.validation.notes.empty());
  CHECK(long_context.validation.notes.back() ==
        "sequence length 2097152 is longer than any validated run (1048576)");

  // DeepSeek-V3's family has published runs (issue 32's 2025 set); a dense model with its
  // multi-latent attention has none.
  Scenario mla = test::scenario(R"({"model": "deepseek-v3", "training": {"global_batch_size": 64,
      "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100", "count": 8}]}})");
  mla.model.moe.reset();
  const std::vector<std::string> dense_mla =
      regime_notes(mla.model, mla.training, mla.cluster, mla.framework, complete_strategy(mla), -1);
  REQUIRE(dense_mla.size() == 1);
  CHECK(dense_mla[0] ==
        "model family \"dense, multi-latent attention, gated MLP\" was never validated against a "
        "published run");
}

TEST_CASE("an MFU above the best published for its GPU is outside the validated regime") {
  const Scenario s = test::scenario(R"({"model": "llama3.1-8b", "training": {
      "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100",
      "count": 8}]}})");
  CHECK(regime_notes(s.model, s.training, s.cluster, s.framework, complete_strategy(s), 0.55)
            .empty());
  const std::vector<std::string> notes =
      regime_notes(s.model, s.training, s.cluster, s.framework, complete_strategy(s), 0.70);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "causal MFU 70.0% is above the best published for h100 (Hopper) in 16-bit (55.6%, run "
        "R091)");
}

TEST_CASE(
    "a GPU is compared with its family's runs: the A100 40 GB with the A100, the H800 with "
    "the H100") {
  const auto notes = [](const std::string& gpu, double mfu) {
    const Scenario s = test::scenario(R"({"model": "llama3.1-8b", "training": {
        "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": ")" +
                                      gpu + R"(", "count": 8}]}})");
    return regime_notes(s.model, s.training, s.cluster, s.framework, complete_strategy(s), mfu);
  };
  // Issue 32: Llama 3 8B on 8 A100 40 GB at 59.8% causal MFU, above any published A100 run.
  const std::vector<std::string> a100_40g = notes("a100-40g", 0.598);
  REQUIRE(a100_40g.size() == 1);
  CHECK(a100_40g[0] ==
        "causal MFU 59.8% is above the best published for a100-40g (A100) in 16-bit (55.9%, run "
        "R030)");
  CHECK(notes("a100-40g", 0.50).empty());
  // The H800 has the H100's Tensor Cores: its MFU is read against the H100's runs, not against
  // MegaScale-MoE's 9.9%.
  CHECK(notes("h800", 0.40).empty());
  CHECK(notes("h800", 0.60).size() == 1);
}

TEST_CASE("a GPU whose preset fields are overridden is not validated") {
  const Scenario s = test::scenario(R"({"model": "llama3.1-8b", "training": {
      "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": {"base": "h100",
      "id": "h100-fast", "tensor_tflops": {"bf16": 2000}}, "count": 8}]}})");
  const std::vector<std::string> notes =
      regime_notes(s.model, s.training, s.cluster, s.framework, complete_strategy(s), 0.3);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "GPU h100-fast is not a preset as published (its fields are given or overridden): no "
        "published run measured it");
}

TEST_CASE("mixture-of-experts and FSDP estimates carry their regime's measured error") {
  const auto report = [](const std::string& model, const std::string& framework,
                         const std::string& strategy) {
    return estimate(test::scenario(R"({"model": ")" + model + R"(", "framework": ")" + framework +
                                   R"(", "training": {"global_batch_size": 64, "seq_length": 4096},
        "cluster": {"gpus": [{"type": "h100", "count": 8}]}, "strategy": )" +
                                   strategy + "}"));
  };
  const Report moe = report("mixtral-8x7b", "megatron", R"({"expert_model_parallel_size": 8})");
  REQUIRE_FALSE(moe.validation.notes.empty());
  CHECK(moe.validation.notes.back().starts_with(
      "mixture-of-experts, where the model errs most: published runs of \""));
  CHECK(moe.validation.notes.back().find(moe.uncertainty.regime) != std::string::npos);
  CHECK_FALSE(moe.validation.validated);
  const Report fsdp = report("llama3.1-8b", "megatron", R"({"zero_stage": 3})");
  REQUIRE_FALSE(fsdp.validation.notes.empty());
  CHECK(fsdp.validation.notes.back().starts_with("FSDP: few published runs measure it"));
  const Report dense = report("llama3.1-8b", "megatron",
                              R"({"tensor_model_parallel_size": 8, "sequence_parallel": true,
                                  "recompute_granularity": "selective"})");
  CHECK(dense.validation.notes.empty());
}

TEST_CASE("each note, the band and the memory verdict carry their text id and values") {
  // Issue 30: in 中文 these read English; the page writes them from id and values
  // (web/src/i18n/core-texts.ts).
  const Report moe = estimate(test::scenario(R"({"model": "mixtral-8x7b", "training": {
      "global_batch_size": 64, "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100",
      "count": 8}]}, "strategy": {"expert_model_parallel_size": 8}})"));
  const std::vector<CoreText>& texts = moe.validation.note_texts;
  REQUIRE(texts.size() == moe.validation.notes.size());
  for (size_t i = 0; i < texts.size(); ++i) CHECK(texts[i].text == moe.validation.notes[i]);
  REQUIRE_FALSE(texts.empty());
  CHECK(texts.back().id == text_id::kMoeMeasuredError);
  REQUIRE(texts.back().parts.size() == 1);
  CHECK(texts.back().parts[0].text == moe.uncertainty.regime);
  CHECK(moe.uncertainty.regime_text.text == moe.uncertainty.regime);
  CHECK(moe.uncertainty.basis_text.text == moe.uncertainty.basis);
  CHECK(moe.memory_verdict_text.text == moe.memory_verdict_reason);
  CHECK(moe.memory_verdict_text.id.starts_with("memory verdict: "));
  const nlohmann::json json = to_json(moe);
  CHECK(json["validation"]["note_texts"].size() == texts.size());
  CHECK(json["validation"]["note_texts"].back()["parts"][0]["id"] ==
        moe.uncertainty.regime_text.id);
  CHECK(json["uncertainty"]["basis_text"]["args"]["runs"] == std::to_string(moe.uncertainty.runs));
  CHECK(json["memory"]["verdict_reason_text"]["id"] == moe.memory_verdict_text.id);
}

TEST_CASE("a framework, ZeRO stage or MoE loop the published runs miss is outside the regime") {
  const auto notes = [](const std::string& framework, const std::string& model,
                        const std::string& strategy) {
    const Scenario s = test::scenario(R"({"model": ")" + model + R"(", "framework": ")" +
                                      framework + R"(", "training": {"global_batch_size": 64,
        "seq_length": 4096}, "cluster": {"gpus": [{"type": "h100", "count": 8}]},
        "strategy": )" + strategy + "}");
    return regime_notes(s.model, s.training, s.cluster, s.framework, complete_strategy(s), -1);
  };
  // Megatron-LM's runs validate Megatron-Core under Megatron-Bridge and MindSpeed-LLM too.
  for (const char* framework : {"megatron", "megatron-bridge", "mindspeed-llm"}) {
    CAPTURE(framework);
    CHECK(notes(framework, "llama3.1-8b", R"({"zero_stage": 1})").empty());
    CHECK(notes(framework, "llama3.1-8b", R"({"zero_stage": 3})").empty());  // R120
  }
  CHECK(notes("megatron", "llama3.1-8b", R"({"zero_stage": 2})") ==
        std::vector<std::string>{
            "megatron with zero_stage 2 was never validated against a published run"});
  const std::vector<std::string> titan = notes("torchtitan", "llama3.1-8b", R"({"zero_stage": 3})");
  REQUIRE(titan.size() == 1);
  CHECK(
      titan[0].starts_with("torchtitan with zero_stage 3 was never validated against a "
                           "published run's throughput; its published benchmarks"));
  CHECK(notes("deepspeed", "llama3.1-8b", R"({"zero_stage": 1})").empty());  // BLOOM-176B
  const std::vector<std::string> zero3 = notes("deepspeed", "llama3.1-8b", R"({"zero_stage": 3})");
  REQUIRE(zero3.size() == 1);
  CHECK(
      zero3[0].starts_with("deepspeed with zero_stage 3: its only published runs, DeepSpeed "
                           "ZeRO-3 of 2021 (SC21 Table 2), ran 1.4 to 3.1 times slower"));

  // CUDA graphs: their pool's fragmentation is not priced (oom-outcomes.json OOM01).
  const std::vector<std::string> graphs =
      notes("megatron", "llama3.1-8b",
            R"({"cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["mlp"]})");
  REQUIRE(graphs.size() == 1);
  CHECK(graphs[0].starts_with("CUDA graphs are priced by their static buffers only"));
  CHECK(graphs[0].ends_with("the default margin with graphs is 18%"));  // memory_margin.cpp

  // SequentialMLP: a host loop over the GPU's experts, unless each GPU holds one.
  const std::vector<std::string> loop =
      notes("megatron", "mixtral-8x7b", R"({"moe_grouped_gemm": false})");
  REQUIRE(loop.size() == 1);
  CHECK(loop[0].starts_with("moe_grouped_gemm off runs one expert at a time from the host"));
  CHECK(notes("megatron", "mixtral-8x7b", R"({"moe_grouped_gemm": true})").empty());
  CHECK(notes("megatron", "mixtral-8x7b",
              R"({"moe_grouped_gemm": false, "expert_model_parallel_size": 8})")
            .empty());
}
