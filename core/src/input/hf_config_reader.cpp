#include "input/hf_config_reader.hpp"

#include "model/number_text.hpp"

namespace paraplan::detail {

std::string count_text(double parameters) {
  if (parameters >= 1e9) return fixed_text(parameters / 1e9, 2) + "B";
  if (parameters >= 1e6) return fixed_text(parameters / 1e6, 2) + "M";
  return fixed_text(parameters, 0);
}

// Keys that change nothing Paraplan counts, whatever their value, with the reason.
const std::map<std::string, std::string, std::less<>>& ignored_keys() {
  static const std::map<std::string, std::string, std::less<>> keys = {
      {"_name_or_path", "where the checkpoint came from (used as the model's name)"},
      {"auto_map", "which Python classes load the checkpoint"},
      {"aux_loss_alpha", "weight of the load-balancing loss: no effect on sizes or time"},
      {"bos_token_id", "a token id"},
      {"eos_token_id", "a token id"},
      {"pad_token_id", "a token id"},
      {"dtype", "the checkpoint's storage type; the training precision is set under training"},
      {"torch_dtype",
       "the checkpoint's storage type; the training precision is set under training"},
      {"ep_size", "an inference setting; the search chooses expert parallelism"},
      {"initial_context_length", "the context length before RoPE scaling"},
      {"initializer_range", "weight initialization"},
      {"max_position_embeddings",
       "the longest sequence the model was built for; the sequence length is set under "
       "training"},
      {"max_window_layers", "used only with use_sliding_window"},
      {"model_type", "the family, read with architectures"},
      {"norm_topk_prob", "normalization of the routing weights: no effect on sizes or time"},
      {"output_router_logits", "an output option"},
      {"pretraining_tp", "a numerics option of the original checkpoint"},
      {"quantization_config",
       "the checkpoint's storage format; the training precision is set under training"},
      {"rms_norm_eps", "a numerical constant"},
      {"rope_parameters", "RoPE frequencies change no weight shape or FLOP count"},
      {"rope_scaling", "RoPE frequency scaling changes no weight shape or FLOP count"},
      {"rope_theta", "the RoPE base changes no weight shape or FLOP count"},
      {"routed_scaling_factor", "a scale of the routed experts' output"},
      {"router_aux_loss_coef", "weight of the load-balancing loss: no effect on sizes or time"},
      {"scoring_func", "the router's score function: no effect on sizes or time"},
      {"seq_aux", "how the load-balancing loss is averaged"},
      {"transformers_version", "the library version that wrote the file"},
      {"use_cache", "an inference option (key/value cache)"},
      {"use_mrope", "multimodal RoPE positions: no weight shape or FLOP count"},
  };
  return keys;
}

}  // namespace paraplan::detail
