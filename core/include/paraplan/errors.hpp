// Errors raised for bad input. Infeasible strategies are not errors: they are reports with
// `feasible == false` and reasons.
#pragma once

#include <stdexcept>
#include <string>

namespace paraplan {

// Bad input: names the offending field by its JSON path (or CLI flag) and says what was
// expected. `what()` is the one-line "path: message" the CLI prints; the WebAssembly module
// hands `path()` and `message()` to JavaScript as separate fields.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(path),
        message_(message) {}

  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  std::string path_;
  std::string message_;
};

}  // namespace paraplan
