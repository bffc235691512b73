#include "paraplan/framework.hpp"

#include <array>

namespace paraplan {
namespace {

// The launch targets' names (docs/contract.md section 5), indexed by Framework.
constexpr std::array<std::string_view, 6> kFrameworks = {
    "megatron", "megatron-bridge", "mindspeed-llm", "deepspeed", "colossalai", "torchtitan"};

}  // namespace

std::span<const std::string_view> framework_names() { return kFrameworks; }

std::string_view to_string(Framework framework) {
  return kFrameworks[static_cast<size_t>(framework)];
}

}  // namespace paraplan
