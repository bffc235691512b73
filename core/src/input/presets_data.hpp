// The preset files compiled into the library (see cmake/embed_presets.cmake).
#pragma once

#include <cstddef>

namespace paraplan::detail {

struct EmbeddedPreset {
  const char* path;  // relative to presets/, e.g. "gpus/h100.json"
  const char* text;
};

extern const EmbeddedPreset kEmbeddedPresets[];
extern const size_t kNumEmbeddedPresets;

}  // namespace paraplan::detail
