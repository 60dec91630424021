#pragma once
// Errors the user can read: which file, which field or tensor, what was expected, what
// was found. The engine throws lwb::Error on bad input and catches it at its API
// boundaries (CLI, EngineLoop, model loading); it never aborts the process.
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lwb {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Throws lwb::Error(message) when the condition is false.
inline void check(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

// A literal message: no std::string is built unless the check fails (the kernels check
// their arguments per call and per task, thousands of times a decode step).
inline void check(bool condition, const char* message) {
  if (!condition) throw Error(message);
}

// The same, with the message built only when the condition is false: for checks that run
// every step over every row or block, where building the text each time would cost more
// than the check.
template <typename MakeMessage>
  requires std::is_invocable_r_v<std::string, MakeMessage>
inline void check(bool condition, MakeMessage&& message) {
  if (!condition) throw Error(message());
}

}  // namespace lwb
