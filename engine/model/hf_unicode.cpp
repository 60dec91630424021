#include "engine/model/hf_unicode.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "engine/common/error.h"

namespace lwb::hf {

namespace {

// How many bytes of a sequence starting at s[pos] are well formed (1..4), and whether
// they make a whole code point. Ranges follow Unicode's table 3-7.
size_t wellFormedPrefix(std::string_view s, size_t pos, bool* complete) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 < 0x80) need = 1;
  else if (b0 >= 0xC2 && b0 <= 0xDF) need = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) need = 3, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
  else if (b0 >= 0xF0 && b0 <= 0xF4) need = 4, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
  else return *complete = false, 1;
  for (size_t i = 1; i < need; ++i) {
    const bool inRange = pos + i < s.size() && static_cast<unsigned char>(s[pos + i]) >= (i == 1 ? lo : 0x80) &&
                         static_cast<unsigned char>(s[pos + i]) <= (i == 1 ? hi : 0xBF);
    if (!inRange) return *complete = false, i;
  }
  *complete = true;
  return need;
}

}  // namespace

std::string toValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    bool complete = false;
    const size_t n = wellFormedPrefix(s, pos, &complete);
    if (complete) out.append(s.substr(pos, n));
    else out += "\xEF\xBF\xBD";
    pos += n;
  }
  return out;
}

uint32_t codePointAt(std::string_view s, size_t pos, size_t* len) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  const size_t n = std::min(utf8Length(b0), s.size() - pos);
  *len = n;
  if (n == 1) return b0;
  uint32_t cp = b0 & (0x7F >> n);
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[pos + i]) & 0x3F);
  return cp;
}

void appendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += char(cp);
  } else if (cp < 0x800) {
    *out += char(0xC0 | (cp >> 6));
    *out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += char(0xE0 | (cp >> 12));
    *out += char(0x80 | ((cp >> 6) & 0x3F));
    *out += char(0x80 | (cp & 0x3F));
  } else {
    *out += char(0xF0 | (cp >> 18));
    *out += char(0x80 | ((cp >> 12) & 0x3F));
    *out += char(0x80 | ((cp >> 6) & 0x3F));
    *out += char(0x80 | (cp & 0x3F));
  }
}

std::string normalizeUnicode(std::string_view s, NormalForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  switch (form) {
    case NormalForm::NFC: n = icu::Normalizer2::getNFCInstance(status); break;
    case NormalForm::NFD: n = icu::Normalizer2::getNFDInstance(status); break;
    case NormalForm::NFKC: n = icu::Normalizer2::getNFKCInstance(status); break;
    case NormalForm::NFKD: n = icu::Normalizer2::getNFKDInstance(status); break;
  }
  check(U_SUCCESS(status) && n, std::string("ICU: no Unicode normalizer: ") + u_errorName(status));
  // Most text is already normalized; ICU's quick check avoids the UTF-16 round trip.
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), int32_t(s.size())));
  if (n->isNormalized(in, status) && U_SUCCESS(status)) return std::string(s);
  status = U_ZERO_ERROR;
  const icu::UnicodeString outU = n->normalize(in, status);
  check(U_SUCCESS(status), std::string("ICU: normalization failed: ") + u_errorName(status));
  std::string out;
  outU.toUTF8String(out);
  return out;
}

namespace {

struct ByteLevelTables {
  std::array<std::string, 256> chars;
  std::array<int, 324> bytes{};  // code point → byte; every alphabet char is below U+0144
  ByteLevelTables() {
    bytes.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      const uint32_t cp = printable ? uint32_t(b) : uint32_t(next++);
      appendUtf8(&chars[size_t(b)], cp);
      bytes[cp] = b;
    }
  }
};

const ByteLevelTables& tables() {
  static const ByteLevelTables t;
  return t;
}

}  // namespace

const std::array<std::string, 256>& byteLevelChars() { return tables().chars; }

int byteOfByteLevelChar(uint32_t cp) { return cp < tables().bytes.size() ? tables().bytes[cp] : -1; }

bool byteLevelToBytes(std::string_view token, std::string* bytes) {
  bytes->clear();
  for (size_t pos = 0; pos < token.size();) {
    size_t len = 1;
    const int b = byteOfByteLevelChar(codePointAt(token, pos, &len));
    if (b < 0) return false;
    *bytes += char(b);
    pos += len;
  }
  return true;
}

int byteOfFallbackPiece(std::string_view p) {
  if (p.size() != 6 || !p.starts_with("<0x") || p.back() != '>') return -1;
  const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  const int hi = hex(p[3]), lo = hex(p[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace lwb::hf
