// Errors raised for bad input. Infeasible strategies are not errors: they are reports with
// `feasible == false` and reasons.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "paraplan/report.hpp"

namespace paraplan {

// Bad input: names the offending field by its JSON path (or CLI flag) and says what was
// expected. `what()` is the one-line "path: message" the CLI prints; the WebAssembly module
// hands `path()` and `message()` to JavaScript as separate fields, and `text()` (the message's
// id and values, model/text_ids.hpp; no id where it has none) for the page to write it in its
// language.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(path),
        message_(message) {}
  InputError(const std::string& path, CoreText message) : InputError(path, message.text) {
    text_ = std::move(message);
  }

  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  const CoreText& text() const { return text_; }

 private:
  std::string path_;
  std::string message_;
  CoreText text_;
};

}  // namespace paraplan
