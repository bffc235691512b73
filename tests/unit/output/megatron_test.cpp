// Megatron-LM's pipeline flags for even and uneven layer splits, checked by hand against
// megatron/training/arguments.py, transformer_config.py and pipeline_parallel_layer_layout.py.
#include "paraplan/megatron.hpp"

#include <doctest/doctest.h>

#include <random>
#include <regex>

#include "paraplan/launch.hpp"
#include "support.hpp"

using namespace paraplan;

namespace {

ModelSpec layers_model(int layers) {
  return parse_model(nlohmann::json::parse(test::gpt_model(layers, 1024, 16)), "model");
}

// The pipeline flags only (after --micro-batch-size and before --global-batch-size they are
// the split's), as one string.
std::string split_flags(int layers, int64_t p, int64_t v, std::vector<int64_t> stage_layers = {}) {
  Strategy s;
  s.pipeline_model_parallel_size = p;
  s.virtual_pipeline_model_parallel_size = v;
  s.pipeline_stage_layers = std::move(stage_layers);
  const std::vector<std::string> args = megatron_arguments(s, layers_model(layers), Training{});
  std::string text;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool split =
        a.find("virtual") != std::string::npos || a.find("account-for") != std::string::npos ||
        a.find("pipeline-num-layers") != std::string::npos || a.find("layout") != std::string::npos;
    if (!split) continue;
    text += (text.empty() ? "" : " ") + a;
    if (a.rfind("--account-for", 0) != 0) text += " " + args[++i];
  }
  return text;
}

// Layers per pipeline stage that Megatron-LM builds from a layout string: unroll "x*n", split
// at '|', segment i goes to stage i % p (PipelineParallelLayerLayout.__init__ and
// parse_str_to_list).
std::vector<int64_t> parse_layout(std::string layout, int64_t p, int64_t& segments) {
  layout = layout.substr(1, layout.size() - 2);  // the shell quotes
  const std::regex repeat(R"((.)\*(\d+))");
  std::smatch match;
  while (std::regex_search(layout, match, repeat)) {
    layout.replace(static_cast<size_t>(match.position(0)), static_cast<size_t>(match.length(0)),
                   std::string(std::stoul(match[2]), match[1].str()[0]));
  }
  std::vector<int64_t> stages(static_cast<size_t>(p));
  segments = 0;
  size_t start = 0;
  while (true) {
    const size_t end = layout.find('|', start);
    const std::string segment = layout.substr(start, end - start);
    stages[static_cast<size_t>(segments % p)] += std::count(segment.begin(), segment.end(), 't');
    ++segments;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  CHECK(layout.front() == 'E');
  CHECK(layout.back() == 'L');
  return stages;
}

}  // namespace

TEST_CASE("even splits use Megatron-LM's layer counts, with the loss and embedding as layers") {
  CHECK(split_flags(32, 4, 1) == "");
  CHECK(split_flags(32, 4, 2) == "--num-layers-per-virtual-pipeline-stage 4");
  // 126 layers (Llama 3.1 405B) on 8 x 8: (126 + 2) / 64 with both counted.
  CHECK(split_flags(126, 8, 8) ==
        "--num-virtual-stages-per-pipeline-rank 8 --account-for-embedding-in-pipeline-split "
        "--account-for-loss-in-pipeline-split");
  // 63 layers on 4 stages: (63 + 1) / 4 with the loss alone (both would give 65, which
  // arguments.py rejects: "Number of layers should be divisible by the pipeline-model-parallel
  // size").
  CHECK(split_flags(63, 4, 1) == "--account-for-loss-in-pipeline-split");
}

TEST_CASE("uneven splits use the first/last flags where they suffice, else the layout") {
  // DeepSeek-V3's 61 layers on 4 stages as Megatron-Bridge's recipe splits them, 16/16/16/13:
  // the middle stages equal, so --decoder-last-pipeline-num-layers says it.
  CHECK(split_flags(61, 4, 1, {16, 16, 16, 13}) == "--decoder-last-pipeline-num-layers 13");
  CHECK(split_flags(61, 4, 1, {13, 16, 16, 16}) == "--decoder-first-pipeline-num-layers 13");
  CHECK(split_flags(30, 2, 1, {14, 16}) == "--decoder-first-pipeline-num-layers 14");
  // With interleaving the first/last flags need --num-virtual-stages-per-pipeline-rank and
  // every stage divisible by the chunks.
  CHECK(split_flags(60, 4, 2, {12, 16, 16, 16}) ==
        "--num-virtual-stages-per-pipeline-rank 2 --decoder-first-pipeline-num-layers 12");
  // 61 layers on 4 x 4: 13 does not divide into 4 chunks, so the layout, and no virtual flag
  // (arguments.py: at most one of the layout and the two virtual-pipeline flags).
  CHECK(split_flags(61, 4, 4, {16, 16, 16, 13}) ==
        "--pipeline-model-parallel-layout "
        "\"Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*3|t*4|t*4|t*4|t*3|t*4|t*4|t*4|t*3L\"");
  // 3/4/3 is the even split with the embedding and loss counted; 4/3/3 is not.
  CHECK(split_flags(10, 3, 1, {3, 4, 3}) ==
        "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
  CHECK(split_flags(10, 3, 1, {4, 3, 3}) == "--decoder-first-pipeline-num-layers 4");
  // Middle stages that differ: the layout, one segment per stage without interleaving.
  CHECK(split_flags(10, 4, 1, {2, 3, 4, 1}) ==
        "--pipeline-model-parallel-layout \"Et*2|t*3|t*4|tL\"");
}

TEST_CASE("every layout Megatron-LM parses back to the stages' layers, PP x VP segments") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t p = std::uniform_int_distribution<int64_t>(2, 8)(random);
    const int64_t v = std::uniform_int_distribution<int64_t>(1, 4)(random);
    std::vector<int64_t> layers(static_cast<size_t>(p));
    int total = 0;
    for (int64_t& l : layers)
      total += static_cast<int>(l = std::uniform_int_distribution<int64_t>(1, 9)(random));
    CAPTURE(p);
    CAPTURE(v);
    const std::string flags = split_flags(total, p, v, layers);
    CAPTURE(flags);
    const std::string prefix = "--pipeline-model-parallel-layout ";
    if (flags.rfind(prefix, 0) != 0) continue;  // expressed otherwise
    int64_t segments = 0;
    CHECK(parse_layout(flags.substr(prefix.size()), p, segments) == layers);
    CHECK(segments == p * v);
  }
}

TEST_CASE("sliding-window attention: --window-size LEFT,0 and --window-attn-skip-freq N") {
  // arguments.py: --window-size type=tuple_type ("127,0" -> (127, 0)); --window-attn-skip-freq
  // type=moe_freq_type (an integer N: every N-th layer full).
  const auto model_flags = [](const ModelSpec& model) {
    std::string text;
    for (const std::string& a : megatron_model_arguments(model, Training{})) text += a + " ";
    return text;
  };
  ModelSpec model = parse_model(nlohmann::json("gpt-oss-120b"), "model");
  CHECK(model_flags(model).find("--window-size 127,0 --window-attn-skip-freq 2 ") !=
        std::string::npos);
  model.window_attn_skip_freq = 0;
  const std::string every = model_flags(model);
  CHECK(every.find("--window-size 127,0 ") != std::string::npos);
  CHECK(every.find("--window-attn-skip-freq") == std::string::npos);
  CHECK(model_flags(layers_model(4)).find("--window") == std::string::npos);
}

TEST_CASE("--attention-backend names the kernels the estimate priced, auto as auto") {
  const auto backend_flag = [](AttentionBackend backend, bool fused_path) {
    Strategy s;
    s.use_flash_attn = fused_path;
    s.attention_backend = backend;
    const std::vector<std::string> args = megatron_arguments(s, layers_model(4), Training{});
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--attention-backend") return args[i + 1];
    }
    return std::string();
  };
  CHECK(backend_flag(AttentionBackend::automatic, true) == "auto");
  CHECK(backend_flag(AttentionBackend::fused, true) == "fused");
  CHECK(backend_flag(AttentionBackend::flash, true) == "flash");
  CHECK(backend_flag(AttentionBackend::fused, false) == "unfused");  // the unfused path
}
