#include "engine/model/jinja/text.h"

#include <charconv>
#include <cmath>

namespace lwb::jinja {

std::u32string decodeUtf8(const std::string& s) {
  std::u32string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto cb = static_cast<unsigned char>(s[i + k]);
      ok = (cb & 0xC0) == 0x80;
      c = (c << 6) | (cb & 0x3F);
    }
    // Overlong forms and surrogates are invalid, as in Python's strict decoder.
    if (ok && ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
               (c >= 0xD800 && c <= 0xDFFF)))
      ok = false;
    if (!ok) {
      out.push_back(0xDC00 + b);
      ++i;
      continue;
    }
    out.push_back(c);
    i += len;
  }
  return out;
}

void appendUtf8(std::string& out, char32_t c) {
  if (c >= 0xDC80 && c <= 0xDCFF) {
    out.push_back(char(c - 0xDC00));  // an escaped invalid byte
  } else if (c < 0x80) {
    out.push_back(char(c));
  } else if (c < 0x800) {
    out.push_back(char(0xC0 | (c >> 6)));
    out.push_back(char(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(char(0xE0 | (c >> 12)));
    out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(char(0x80 | (c & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (c >> 18)));
    out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(char(0x80 | (c & 0x3F)));
  }
}

std::string encodeUtf8(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) appendUtf8(out, c);
  return out;
}

bool isPySpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string pyStrip(const std::string& s, const std::optional<std::string>& chars, bool left, bool right) {
  const std::u32string u = decodeUtf8(s);
  const std::u32string set = chars ? decodeUtf8(*chars) : std::u32string();
  auto strippable = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : isPySpace(c); };
  size_t b = 0, e = u.size();
  while (left && b < e && strippable(u[b])) ++b;
  while (right && e > b && strippable(u[e - 1])) --e;
  return encodeUtf8(u.substr(b, e - b));
}

namespace {

std::vector<std::string> splitOnWhitespace(const std::string& s, int64_t maxsplit) {
  const std::u32string u = decodeUtf8(s);
  std::vector<std::string> out;
  size_t i = 0;
  while (i < u.size()) {
    while (i < u.size() && isPySpace(u[i])) ++i;
    if (i == u.size()) break;
    if (maxsplit >= 0 && int64_t(out.size()) == maxsplit) {
      out.push_back(pyStrip(encodeUtf8(u.substr(i)), std::nullopt, false, true));
      break;
    }
    size_t j = i;
    while (j < u.size() && !isPySpace(u[j])) ++j;
    out.push_back(encodeUtf8(u.substr(i, j - i)));
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> pySplit(const std::string& s, const std::optional<std::string>& sep, int64_t maxsplit) {
  if (!sep) return splitOnWhitespace(s, maxsplit);
  std::vector<std::string> out;
  size_t start = 0;
  while (maxsplit < 0 || int64_t(out.size()) < maxsplit) {
    const size_t at = s.find(*sep, start);
    if (at == std::string::npos) break;
    out.push_back(s.substr(start, at - start));
    start = at + sep->size();
  }
  out.push_back(s.substr(start));
  return out;
}

std::string pyReplace(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  if (from.empty()) {
    // Python inserts `to` between every character (and at both ends).
    const std::u32string u = decodeUtf8(s);
    std::string out;
    int64_t n = 0;
    for (size_t i = 0; i <= u.size(); ++i) {
      if (count < 0 || n < count) out += to, ++n;
      if (i < u.size()) appendUtf8(out, u[i]);
    }
    return out;
  }
  std::string out;
  size_t start = 0;
  int64_t n = 0;
  while (count < 0 || n < count) {
    const size_t at = s.find(from, start);
    if (at == std::string::npos) break;
    out.append(s, start, at - start).append(to);
    start = at + from.size();
    ++n;
  }
  return out.append(s, start, std::string::npos);
}

// Case mapping covers ASCII; other scripts pass through unchanged.
std::string pyUpper(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = char(c - 32);
  return out;
}

std::string pyLower(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c + 32);
  return out;
}

namespace {
bool isAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
}  // namespace

std::string pyTitle(const std::string& s) {
  std::string out = s;
  bool prevCased = false;
  for (char& c : out) {
    if (isAsciiAlpha(c)) {
      c = prevCased ? pyLower(std::string(1, c))[0] : pyUpper(std::string(1, c))[0];
      prevCased = true;
    } else {
      prevCased = false;
    }
  }
  return out;
}

std::string pyCapitalize(const std::string& s) {
  std::string out = pyLower(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = char(out[0] - 32);
  return out;
}

bool parseDouble(const std::string& s, double* out) {
  size_t b = !s.empty() && s[0] == '+' ? 1 : 0;
  if (b == 1 && s.size() > 1 && s[1] == '-') return false;
  const char* first = s.data() + b;
  const char* last = s.data() + s.size();
  double v = 0;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (end != last || first == last) return false;
  if (ec == std::errc::result_out_of_range) {
    const size_t e = s.find_first_of("eE");
    const bool tiny = e != std::string::npos && s.find('-', e) != std::string::npos;
    v = tiny ? 0.0 : HUGE_VAL;
    if (s[b] == '-') v = -v;
  } else if (ec != std::errc()) {
    return false;
  }
  *out = v;
  return true;
}

bool pyStartsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool pyEndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string pyReprString(const std::string& s) {
  const bool hasSingle = s.find('\'') != std::string::npos, hasDouble = s.find('"') != std::string::npos;
  const char quote = hasSingle && !hasDouble ? '"' : '\'';
  std::string out(1, quote);
  for (char32_t c : decodeUtf8(s)) {
    if (c == char32_t(quote) || c == '\\') out.push_back('\\'), out.push_back(char(c));
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7F || (c >= 0xDC80 && c <= 0xDCFF)) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", unsigned(c >= 0xDC80 ? c - 0xDC00 : c));
      out += buf;
    } else {
      appendUtf8(out, c);
    }
  }
  out.push_back(quote);
  return out;
}

}  // namespace lwb::jinja
