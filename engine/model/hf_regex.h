#pragma once
// A compiled PCRE2 pattern (UTF + UCP, JIT when available) for tokenizer.json's Split
// pre-tokenizers and Replace normalizers. The compiled code is shared read-only between
// threads; each search makes its own match data.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace lwb::hf {

class Regex {
 public:
  // `literal`: the pattern is a plain string (tokenizer.json's {"String": ...}).
  // Throws lwb::Error naming `where` and PCRE2's message when it does not compile.
  Regex(const std::string& pattern, bool literal, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls found(start, end) for each non-overlapping match, left to right. `text` must be
  // valid UTF-8. An empty match advances by one character.
  void forEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& found) const;

 private:
  struct Code;
  std::unique_ptr<Code> code_;  // null for a literal
  std::string literal_;
};

}  // namespace lwb::hf
