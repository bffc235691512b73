// Reading scenario documents from a file or standard input.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace paraplan::cli {

// The JSON document in `path` ("-" for standard input); InputError when unreadable or invalid.
nlohmann::json read_json_document(const std::string& path);

}  // namespace paraplan::cli
