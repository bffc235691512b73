#include "input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "paraplan/errors.hpp"
#include "paraplan/limits.hpp"
#include "paraplan/request.hpp"

namespace paraplan::cli {
namespace {

// Reads at most `limit` + 1 bytes, so that oversized input is rejected without reading it all.
std::string read_limited(std::istream& in, size_t limit) {
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= limit && in.read(buffer, sizeof buffer).gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
  }
  return text;
}

}  // namespace

nlohmann::json read_json_document(const std::string& path) {
  constexpr size_t kLimit = limits::kMaxJsonBytes;
  std::string text;
  const std::string what = path == "-" ? "standard input" : path;
  if (path == "-") {
    text = read_limited(std::cin, kLimit);
  } else {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InputError(what, std::string("cannot be read: ") + std::strerror(errno));
    text = read_limited(file, kLimit);
  }
  return parse_json_text(text, what);
}

}  // namespace paraplan::cli
