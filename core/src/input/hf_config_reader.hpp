// Reading a Hugging Face config.json: each key read once through ConfigReader, which remembers
// the keys used and what was reported, and accounts for the rest (ignored with a reason from
// the table, or unknown). Used by the import (hf_config.cpp) and its families' mappings.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "input/json_reader.hpp"
#include "model/text_ids.hpp"
#include "paraplan/errors.hpp"
#include "paraplan/hf_config.hpp"

namespace paraplan::detail {

// Keys that change nothing Paraplan counts, whatever their value, with the reason.
const std::map<std::string, std::string, std::less<>>& ignored_keys();

// A parameter count as text: 1.23B, 4.56M, or the whole number.
std::string count_text(double parameters);

// Reads the config's keys, remembering which were used and what was reported.
class ConfigReader {
 public:
  explicit ConfigReader(const nlohmann::json& config) : config_(config) {}

  const nlohmann::json* find(std::string_view key) {
    const auto it = config_.find(key);
    if (it == config_.end()) return nullptr;
    used_.insert(std::string(key));
    return &*it;
  }
  // Present and not null.
  const nlohmann::json* value(std::string_view key) {
    const nlohmann::json* found = find(key);
    return found == nullptr || found->is_null() ? nullptr : found;
  }

  int64_t positive(std::string_view key, int64_t max) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) throw required_error(std::string(key));
    return read_positive(*found, key, max);
  }
  std::optional<int64_t> optional_positive(std::string_view key, int64_t max) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) return std::nullopt;
    return read_positive(*found, key, max);
  }
  // Non-negative; null and absent read as `otherwise`.
  int64_t count(std::string_view key, int64_t max, int64_t otherwise = 0) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) return otherwise;
    if (!is_integer(*found) || found->get<double>() < 0 || found->get<double>() > max) {
      const std::string high = std::to_string(max);
      throw value_error(std::string(key), text_id::kErrorIntegerRange,
                        "expected an integer from 0 to " + high, {{"min", "0"}, {"max", high}},
                        *found);
    }
    return static_cast<int64_t>(found->get<double>());
  }
  bool flag(std::string_view key, bool otherwise) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) return otherwise;
    if (!found->is_boolean()) {
      throw value_error(std::string(key), text_id::kErrorBoolean, "expected true or false", {},
                        *found);
    }
    return found->get<bool>();
  }
  std::optional<double> fraction(std::string_view key) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) return std::nullopt;
    return read_number(*found, std::string(key), 0, 0.99);
  }
  std::optional<std::string> text(std::string_view key) {
    const nlohmann::json* found = value(key);
    if (found == nullptr) return std::nullopt;
    if (!found->is_string()) {
      throw value_error(std::string(key), text_id::kErrorString, "expected a string", {}, *found);
    }
    return found->get<std::string>();
  }

  // Reports `key` as not mapped, with the reason's English, id and values.
  void report(std::string_view key, std::string status, CoreText reason) {
    used_.insert(std::string(key));
    std::string english = reason.text;
    unmapped_.push_back(
        {std::string(key), std::move(status), std::move(english), std::move(reason)});
  }
  void ignore_if_present(std::string_view key, CoreText reason) {
    if (config_.contains(key)) report(key, "ignored", std::move(reason));
  }
  // The reason of a key that another key's reason covers ("see n_group").
  static CoreText see_key(std::string_view other) {
    return {text_id::kHfSeeKey, "see " + std::string(other), {{"key", std::string(other)}}, {}};
  }
  // `key` ignored with the reason of the table of ignored keys.
  static CoreText ignored_key(const std::string& key, const std::string& reason) {
    return {text_id::kHfIgnoredKey, reason, {{"key", key}}, {}};
  }
  bool used(std::string_view key) const { return used_.count(key) > 0; }
  bool present(std::string_view key) const {
    const auto it = config_.find(key);
    return it != config_.end() && !it->is_null();
  }

  // Every key not yet used: ignored with the table's reason, or unknown.
  std::vector<UnmappedKey> finish(std::string_view architecture) {
    for (const auto& [key, value] : config_.items()) {
      if (used_.count(key)) continue;
      const auto known = ignored_keys().find(key);
      if (known != ignored_keys().end()) {
        unmapped_.push_back({key, "ignored", known->second, ignored_key(key, known->second)});
      } else {
        const std::string reason = "not a key Paraplan knows for " + std::string(architecture) +
                                   ": left out; check that it does not change the layers";
        unmapped_.push_back(
            {key,
             "unknown",
             reason,
             {text_id::kHfUnknownKey, reason, {{"architecture", std::string(architecture)}}, {}}});
      }
    }
    std::stable_sort(unmapped_.begin(), unmapped_.end(),
                     [](const UnmappedKey& a, const UnmappedKey& b) { return a.key < b.key; });
    return std::move(unmapped_);
  }

 private:
  static bool is_integer(const nlohmann::json& value) {
    if (!value.is_number()) return false;
    const double x = value.get<double>();
    return std::isfinite(x) && x == std::floor(x);
  }
  static int64_t read_positive(const nlohmann::json& value, std::string_view key, int64_t max) {
    if (!is_integer(value) || value.get<double>() < 1) {
      throw value_error(std::string(key), text_id::kErrorPositiveInteger,
                        "expected a positive integer", {}, value);
    }
    if (value.get<double>() > static_cast<double>(max)) {
      const std::string high = std::to_string(max);
      throw value_error(std::string(key), text_id::kErrorPositiveInteger,
                        "expected a positive integer up to " + high, {{"max", high}}, value);
    }
    return static_cast<int64_t>(value.get<double>());
  }

  const nlohmann::json& config_;
  std::set<std::string, std::less<>> used_;
  std::vector<UnmappedKey> unmapped_;
};

}  // namespace paraplan::detail
