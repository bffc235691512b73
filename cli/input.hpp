// Reading scenario documents from a file or standard input.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace paraplan::cli {

// The JSON document in `path` ("-" for standard input); InputError when unreadable or invalid.
nlohmann::json read_json_document(const std::string& path);

}  // namespace paraplan::cli
