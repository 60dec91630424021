#define PCRE2_CODE_UNIT_WIDTH 8
#include "engine/model/hf_regex.h"

#include <pcre2.h>

#include "engine/common/error.h"
#include "engine/model/hf_unicode.h"

namespace lwb::hf {

struct Regex::Code {
  pcre2_code* re = nullptr;
  ~Code() { pcre2_code_free(re); }
};

Regex::Regex(const std::string& pattern, bool literal, const std::string& where) {
  if (literal) {
    check(!pattern.empty(), where + ": the pattern string is empty");
    literal_ = pattern;
    return;
  }
  code_ = std::make_unique<Code>();
  int error = 0;
  PCRE2_SIZE offset = 0;
  const uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK;
  code_->re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &error, &offset,
                            nullptr);
  if (!code_->re) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw Error(where + ": regex " + pattern + " does not compile at offset " + std::to_string(offset) + ": " +
                reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code_->re, PCRE2_JIT_COMPLETE);  // falls back to the interpreter when JIT is unavailable
}

Regex::~Regex() = default;

void Regex::forEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& found) const {
  if (!code_) {
    for (size_t pos = text.find(literal_); pos != std::string_view::npos; pos = text.find(literal_, pos + literal_.size()))
      found(pos, pos + literal_.size());
    return;
  }
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code_->re, nullptr);
  check(md != nullptr, "PCRE2: out of memory");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos <= text.size()) {
    const int rc = pcre2_match(code_->re, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(md);
      throw Error("PCRE2: match failed with error " + std::to_string(rc));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0], end = ov[1];
    if (end > start) found(start, end);
    if (end > start) pos = end;
    else if (end < text.size()) pos = end + utf8Length(static_cast<unsigned char>(text[end]));
    else break;
  }
  pcre2_match_data_free(md);
}

}  // namespace lwb::hf
