#include "input/json_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"

namespace paraplan::detail {
namespace {

std::string format_number(double x) {
  std::ostringstream out;
  out.precision(12);
  out << x;
  return out.str();
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A string value as an error shows it: JSON-quoted, its first 40 characters.
std::string quoted(const nlohmann::json& value) {
  std::string text = value.get<std::string>();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string printable_key(const std::string& key) {
  const bool plain =
      !key.empty() && key.size() <= 60 && std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
      });
  if (plain) return key;
  const std::string shown = key.size() > 60 ? key.substr(0, 60) + "..." : key;
  return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string describe(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string:
      return "the string " + quoted(value);
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return format_number(value.get<double>());
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::vector<std::pair<std::string, std::string>> got_args(const nlohmann::json& value) {
  return {{"got_type", value.type_name()},
          {"got_value", value.is_string() ? quoted(value) : describe(value)}};
}

InputError value_error(const std::string& path, const char* id, const std::string& message,
                       std::vector<std::pair<std::string, std::string>> args,
                       const nlohmann::json& got) {
  for (auto& arg : got_args(got)) args.push_back(std::move(arg));
  return InputError(path, CoreText{id, message + ", got " + describe(got), std::move(args), {}});
}

InputError required_error(const std::string& path) {
  return input_error(path, text_id::kErrorRequired, "is required");
}

InputError input_error(const std::string& path, const char* id, std::string message,
                       std::vector<std::pair<std::string, std::string>> args) {
  return InputError(path, CoreText{id, std::move(message), std::move(args), {}});
}

InputError must_divide_heads_error(const std::string& path, int64_t heads, int64_t got) {
  const std::string head_count = std::to_string(heads), got_text = std::to_string(got);
  return input_error(path, text_id::kErrorMustDivideHeads,
                     "must divide num_attention_heads (" + head_count + "), got " + got_text,
                     {{"heads", head_count}, {"got_value", got_text}});
}

InputError head_dim_required_error(const std::string& path, int64_t hidden_size, int64_t heads) {
  const std::string hidden = std::to_string(hidden_size), head_count = std::to_string(heads);
  return input_error(path, text_id::kErrorHeadDimRequired,
                     "is required when hidden_size (" + hidden +
                         ") is not a multiple of num_attention_heads (" + head_count + ")",
                     {{"hidden_size", hidden}, {"heads", head_count}});
}

InputError unknown_preset_error(const std::string& path, const std::string& kind,
                                const nlohmann::json& got, const std::string& known) {
  std::vector<std::pair<std::string, std::string>> args = got_args(got);
  args.emplace_back("kind", kind);
  if (!known.empty()) args.emplace_back("known", known);
  return input_error(path, text_id::kErrorUnknownPreset,
                     "unknown " + (kind == "gpu" ? std::string("GPU") : kind) + " preset " +
                         describe(got) + (known.empty() ? "" : " (known: " + known + ")"),
                     std::move(args));
}

// The readers build their error messages only on the error path: formatting the bounds of
// every number read (an ostringstream each) was most of a request's parse time in the
// WebAssembly module's first search (issue 30 item 8).
int64_t read_integer(const nlohmann::json& value, const std::string& path, int64_t min,
                     int64_t max) {
  const auto fail = [&]() {
    const std::string low = std::to_string(min), high = std::to_string(max);
    return value_error(path, text_id::kErrorIntegerRange,
                       "expected an integer from " + low + " to " + high,
                       {{"min", low}, {"max", high}}, value);
  };
  if (!value.is_number()) throw fail();
  const double x = value.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < static_cast<double>(min) ||
      x > static_cast<double>(max)) {
    throw fail();
  }
  if (value.is_number_unsigned()) return static_cast<int64_t>(value.get<uint64_t>());
  if (value.is_number_integer()) return value.get<int64_t>();
  return static_cast<int64_t>(x);
}

double read_number(const nlohmann::json& value, const std::string& path, double min, double max) {
  const auto fail = [&]() {
    const std::string low = format_number(min), high = format_number(max);
    return value_error(path, text_id::kErrorNumberRange,
                       "expected a number from " + low + " to " + high,
                       {{"min", low}, {"max", high}}, value);
  };
  if (!value.is_number()) throw fail();
  const double x = value.get<double>();
  if (!std::isfinite(x) || x < min || x > max) throw fail();
  return x;
}

bool read_boolean(const nlohmann::json& value, const std::string& path) {
  if (!value.is_boolean()) {
    throw value_error(path, text_id::kErrorBoolean, "expected true or false", {}, value);
  }
  return value.get<bool>();
}

std::string read_string(const nlohmann::json& value, const std::string& path) {
  if (!value.is_string())
    throw value_error(path, text_id::kErrorString, "expected a string", {}, value);
  return value.get<std::string>();
}

int read_choice(const nlohmann::json& value, const std::string& path,
                std::span<const std::string_view> choices) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    for (size_t i = 0; i < choices.size(); ++i) {
      if (text == choices[i]) return static_cast<int>(i);
    }
  }
  std::string listed;
  for (size_t i = 0; i < choices.size(); ++i) {
    listed += (i == 0 ? "\"" : ", \"") + std::string(choices[i]) + "\"";
  }
  throw value_error(path, text_id::kErrorChoice, "expected one of " + listed, {{"choices", listed}},
                    value);
}

ObjectReader::ObjectReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {  // "$" names the document itself (JSONPath's root)
    throw value_error(path_.empty() ? "$" : path_, text_id::kErrorObject, "expected an object", {},
                      object_);
  }
}

std::string ObjectReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool ObjectReader::has(std::string_view key) const { return object_.contains(key); }

const nlohmann::json* ObjectReader::find(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

const nlohmann::json& ObjectReader::required(std::string_view key) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) throw required_error(path_of(key));
  return *value;
}

int64_t ObjectReader::integer(std::string_view key, int64_t min, int64_t max) {
  return read_integer(required(key), path_of(key), min, max);
}

std::optional<int64_t> ObjectReader::optional_integer(std::string_view key, int64_t min,
                                                      int64_t max) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  return read_integer(*value, path_of(key), min, max);
}

double ObjectReader::number(std::string_view key, double min, double max) {
  return read_number(required(key), path_of(key), min, max);
}

std::optional<double> ObjectReader::optional_number(std::string_view key, double min, double max) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  return read_number(*value, path_of(key), min, max);
}

bool ObjectReader::boolean(std::string_view key) {
  return read_boolean(required(key), path_of(key));
}

std::optional<bool> ObjectReader::optional_boolean(std::string_view key) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  return read_boolean(*value, path_of(key));
}

std::string ObjectReader::string(std::string_view key) {
  return read_string(required(key), path_of(key));
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  return read_string(*value, path_of(key));
}

int ObjectReader::choice(std::string_view key, std::span<const std::string_view> choices) {
  return read_choice(required(key), path_of(key), choices);
}

std::optional<int> ObjectReader::optional_choice(std::string_view key,
                                                 std::span<const std::string_view> choices) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  return read_choice(*value, path_of(key), choices);
}

void ObjectReader::reject_unknown_keys(std::initializer_list<std::string_view> also_allowed) const {
  for (const auto& [key, value] : object_.items()) {
    const bool known =
        std::find(known_.begin(), known_.end(), key) != known_.end() ||
        std::find(also_allowed.begin(), also_allowed.end(), key) != also_allowed.end();
    if (known) continue;
    std::string message = "unknown key";
    std::string_view closest;
    size_t best = std::max<size_t>(3, key.size() / 3) + 1;  // suggest only near misses
    for (const std::string& candidate : known_) {
      const size_t distance = edit_distance(key, candidate);
      if (distance < best) {
        best = distance;
        closest = candidate;
      }
    }
    std::vector<std::pair<std::string, std::string>> args;
    if (!closest.empty()) {
      message += " (did you mean \"" + std::string(closest) + "\"?)";
      args.emplace_back("closest", closest);
    }
    throw InputError(path_of(printable_key(key)),
                     CoreText{text_id::kErrorUnknownKey, message, std::move(args), {}});
  }
}

}  // namespace paraplan::detail
