// Strict reading of JSON objects: every key must be known, every value of the right type and
// range, and every error names the JSON path of the offending value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "paraplan/errors.hpp"

namespace paraplan::detail {

std::string describe(const nlohmann::json& value);  // "a string", "the number -2", ...
// The values an input error gives of the value it got (text_ids.hpp, kError...): its JSON type
// as `got_type` and as describe writes it, strings quoted without "the string", as `got_value`.
std::vector<std::pair<std::string, std::string>> got_args(const nlohmann::json& value);
// An input error at `path` with id `id`, English `message` (", got ..." is appended) and values
// `args` (got_args are appended).
InputError value_error(const std::string& path, const char* id, const std::string& message,
                       std::vector<std::pair<std::string, std::string>> args,
                       const nlohmann::json& got);
// "is required" at `path`.
InputError required_error(const std::string& path);
// An input error at `path` with id `id` (text_ids.hpp), English `message` and values `args`.
InputError input_error(const std::string& path, const char* id, std::string message,
                       std::vector<std::pair<std::string, std::string>> args = {});
// The model readers' errors that both the scenario's model and the Hugging Face import give: a
// key-value head count that does not divide the heads, a head dimension the hidden size does not
// give, and a preset name (`kind`: "model" or "gpu") that is none of `known` ("": not listed).
InputError must_divide_heads_error(const std::string& path, int64_t heads, int64_t got);
InputError head_dim_required_error(const std::string& path, int64_t hidden_size, int64_t heads);
InputError unknown_preset_error(const std::string& path, const std::string& kind,
                                const nlohmann::json& got, const std::string& known);
std::string printable_key(const std::string& key);  // quoted and shortened when odd

// Largest integer accepted anywhere: far beyond any real cluster or model, small enough that
// products of a few of them stay exact in double precision.
inline constexpr int64_t kMaxInteger = int64_t{1} << 40;

int64_t read_integer(const nlohmann::json& value, const std::string& path, int64_t min,
                     int64_t max);
double read_number(const nlohmann::json& value, const std::string& path, double min, double max);
bool read_boolean(const nlohmann::json& value, const std::string& path);
std::string read_string(const nlohmann::json& value, const std::string& path);

// Index of `value` (a string) in `choices`; the error lists the choices.
int read_choice(const nlohmann::json& value, const std::string& path,
                std::span<const std::string_view> choices);

class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& object, std::string path);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;
  bool has(std::string_view key) const;
  // The value of `key`, marked as known; nullptr when absent.
  const nlohmann::json* find(std::string_view key);
  const nlohmann::json& required(std::string_view key);

  int64_t integer(std::string_view key, int64_t min, int64_t max);
  std::optional<int64_t> optional_integer(std::string_view key, int64_t min, int64_t max);
  double number(std::string_view key, double min, double max);
  std::optional<double> optional_number(std::string_view key, double min, double max);
  bool boolean(std::string_view key);
  std::optional<bool> optional_boolean(std::string_view key);
  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  int choice(std::string_view key, std::span<const std::string_view> choices);
  std::optional<int> optional_choice(std::string_view key,
                                     std::span<const std::string_view> choices);

  // Throws for the first key that was never looked up, suggesting the closest known one.
  void reject_unknown_keys(std::initializer_list<std::string_view> also_allowed = {}) const;

 private:
  const nlohmann::json& object_;
  std::string path_;
  std::vector<std::string> known_;
};

}  // namespace paraplan::detail
