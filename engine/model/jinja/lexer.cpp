#include "engine/model/jinja/lexer.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

std::string rstripWhitespace(const std::string& s) {
  size_t e = s.size();
  while (e > 0 && isSpace(s[e - 1])) --e;
  return s.substr(0, e);
}

// jinja2 splits the source on \r\n, \r and \n and joins with \n, dropping one final
// empty line (keep_trailing_newline=False).
std::string normalizeNewlines(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out.push_back(source[i]);
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class Lexer {
 public:
  explicit Lexer(const std::string& source) : src_(normalizeNewlines(source)) {}

  std::vector<Segment> run() {
    while (pos_ < src_.size()) {
      const size_t tag = findTag(pos_);
      std::string text = src_.substr(pos_, tag - pos_);
      if (tag == src_.size()) {
        pushText(std::move(text), pos_);
        break;
      }
      const char kind = src_[tag + 1];
      const char modifier = tag + 2 < src_.size() ? src_[tag + 2] : '\0';
      leftStrip(text, kind, modifier);
      pushText(std::move(text), pos_);
      line_ = lineAt(tag);
      pos_ = tag + 2 + (modifier == '-' || modifier == '+' ? 1 : 0);
      if (kind == '#') comment();
      else tag_(kind == '{' ? Segment::Kind::Output : Segment::Kind::Statement);
    }
    return std::move(out_);
  }

 private:
  const std::string src_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<Segment> out_;

  int lineAt(size_t at) const { return 1 + int(std::count(src_.begin(), src_.begin() + long(at), '\n')); }

  size_t findTag(size_t from) const {
    for (size_t i = from; i + 1 < src_.size(); ++i)
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    return src_.size();
  }

  void pushText(std::string text, size_t at) {
    if (!text.empty()) out_.push_back({Segment::Kind::Text, std::move(text), {}, lineAt(at)});
  }

  // `{%-` strips all whitespace before the tag; otherwise lstrip_blocks strips the
  // spaces between a line start and a block or comment tag.
  void leftStrip(std::string& text, char kind, char modifier) const {
    if (modifier == '-') {
      text = rstripWhitespace(text);
      return;
    }
    if (modifier == '+' || kind == '{') return;
    const size_t lineStart = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    const bool lineStarting = pos_ == 0 || src_[pos_ - 1] == '\n';
    if (lineStart == 0 && !lineStarting) return;
    for (size_t i = lineStart; i < text.size(); ++i)
      if (!isSpace(text[i])) return;
    text.resize(lineStart);
  }

  // After a closing delimiter: `-` eats all whitespace, trim_blocks one newline after
  // block and comment tags (not after `{{ }}`, not with `+`).
  void rightStrip(char modifier, bool trimBlock) {
    if (modifier == '-') {
      while (pos_ < src_.size() && isSpace(src_[pos_])) ++pos_;
    } else if (modifier != '+' && trimBlock && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
    }
  }

  void comment() {
    const size_t end = src_.find("#}", pos_);
    if (end == std::string::npos) fail("unterminated comment '{#'");
    const char modifier = end > pos_ && (src_[end - 1] == '-' || src_[end - 1] == '+') ? src_[end - 1] : '\0';
    pos_ = end + 2;
    rightStrip(modifier, true);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("template line " + std::to_string(line_) + ": " + what);
  }

  void tag_(Segment::Kind kind);
  bool closes(Segment::Kind kind, int depth, char& modifier, size_t& length) const;
  Token lexToken();
  Token lexNumber();
  Token lexString();
  void rawBlock();
};

bool Lexer::closes(Segment::Kind kind, int depth, char& modifier, size_t& length) const {
  if (depth > 0) return false;
  const char* close = kind == Segment::Kind::Output ? "}}" : "%}";
  modifier = '\0';
  size_t at = pos_;
  if (src_[at] == '-' || src_[at] == '+') modifier = src_[at++];
  if (modifier == '+' && kind == Segment::Kind::Output) return false;
  if (src_.compare(at, 2, close) != 0) return false;
  length = at + 2 - pos_;
  return true;
}

void Lexer::tag_(Segment::Kind kind) {
  Segment seg{kind, {}, {}, line_};
  int depth = 0;  // brackets open, so that `}}` inside a dict literal does not close
  while (true) {
    while (pos_ < src_.size() && isSpace(src_[pos_])) ++pos_;
    if (pos_ >= src_.size()) fail(kind == Segment::Kind::Output ? "unterminated '{{'" : "unterminated '{%'");
    char modifier;
    size_t length;
    if (closes(kind, depth, modifier, length)) {
      pos_ += length;
      const bool raw = kind == Segment::Kind::Statement && seg.tokens.size() == 1 && seg.tokens[0].text == "raw" &&
                       seg.tokens[0].kind == Token::Kind::Name;
      rightStrip(modifier, kind == Segment::Kind::Statement && !raw);
      if (raw) return rawBlock();
      out_.push_back(std::move(seg));
      return;
    }
    Token t = lexToken();
    if (t.kind == Token::Kind::Op && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
    if (t.kind == Token::Kind::Op && (t.text == ")" || t.text == "]" || t.text == "}")) --depth;
    seg.tokens.push_back(std::move(t));
  }
}

// {% raw %}...{% endraw %}: the text between is output verbatim.
void Lexer::rawBlock() {
  for (size_t at = src_.find("{%", pos_); at != std::string::npos; at = src_.find("{%", at + 2)) {
    size_t p = at + 2;
    const char open = src_[p] == '-' || src_[p] == '+' ? src_[p++] : '\0';
    while (p < src_.size() && isSpace(src_[p])) ++p;
    if (src_.compare(p, 6, "endraw") != 0) continue;
    p += 6;
    while (p < src_.size() && isSpace(src_[p])) ++p;
    const char close = src_[p] == '-' || src_[p] == '+' ? src_[p++] : '\0';
    if (src_.compare(p, 2, "%}") != 0) continue;
    std::string text = src_.substr(pos_, at - pos_);
    leftStrip(text, '%', open);
    pushText(std::move(text), pos_);
    pos_ = p + 2;
    rightStrip(close, true);
    return;
  }
  fail("'raw' block without '{% endraw %}'");
}

Token Lexer::lexToken() {
  const char c = src_[pos_];
  if (isNameStart(c)) {
    const size_t b = pos_;
    while (pos_ < src_.size() && isNameChar(src_[pos_])) ++pos_;
    return {Token::Kind::Name, src_.substr(b, pos_ - b)};
  }
  if (isDigit(c)) return lexNumber();
  if (c == '\'' || c == '"') return lexString();
  static const char* ops[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">",
                              "=",  ".",  ",",  ":",  "|",  "(",  ")", "[", "]", "{", "}"};
  for (const char* op : ops)
    if (src_.compare(pos_, strlen(op), op) == 0) {
      pos_ += strlen(op);
      return {Token::Kind::Op, op};
    }
  fail(std::string("unexpected character '") + c + "'");
}

Token Lexer::lexNumber() {
  const size_t b = pos_;
  auto digits = [&] {
    while (pos_ < src_.size() && (isDigit(src_[pos_]) || (src_[pos_] == '_' && isDigit(src_[pos_ + 1])))) ++pos_;
  };
  digits();
  bool isFloat = false;
  if (pos_ + 1 < src_.size() && src_[pos_] == '.' && isDigit(src_[pos_ + 1])) {
    ++pos_;
    digits();
    isFloat = true;
  }
  if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
    if (p < src_.size() && isDigit(src_[p])) {
      pos_ = p;
      digits();
      isFloat = true;
    }
  }
  std::string text;
  for (size_t i = b; i < pos_; ++i)
    if (src_[i] != '_') text.push_back(src_[i]);
  Token t{isFloat ? Token::Kind::Float : Token::Kind::Int, text};
  if (isFloat) {
    if (!parseDouble(text, &t.number)) fail("bad number '" + text + "'");
  } else if (std::from_chars(text.data(), text.data() + text.size(), t.integer).ec != std::errc()) {
    fail("integer '" + text + "' out of range (the interpreter's integers are 64-bit)");
  }
  return t;
}

// String literals unescape as Python's "unicode-escape" codec, which jinja2 applies.
Token Lexer::lexString() {
  const char quote = src_[pos_++];
  std::string out;
  auto hexValue = [&](size_t n) -> long {
    if (pos_ + n > src_.size()) return -1;
    long v = 0;
    for (size_t k = 0; k < n; ++k) {
      const char h = src_[pos_ + k];
      const int d = isDigit(h) ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    pos_ += n;
    return v;
  };
  while (true) {
    if (pos_ >= src_.size()) fail("unterminated string literal");
    const char c = src_[pos_++];
    if (c == quote) break;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (pos_ >= src_.size()) fail("unterminated string literal");
    const char e = src_[pos_++];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'v': out.push_back('\v'); break;
      case '\n': break;  // line continuation
      case '\\': case '\'': case '"': out.push_back(e); break;
      case 'x': case 'u': case 'U': {
        const long v = hexValue(e == 'x' ? 2 : e == 'u' ? 4 : 8);
        if (v < 0 || v > 0x10FFFF) fail(std::string("invalid \\") + e + " escape in string literal");
        appendUtf8(out, char32_t(v));
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          long v = e - '0';
          for (int k = 0; k < 2 && pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '7'; ++k)
            v = v * 8 + (src_[pos_++] - '0');
          appendUtf8(out, char32_t(v));
        } else {
          out.push_back('\\');
          out.push_back(e);
        }
    }
  }
  return {Token::Kind::String, out};
}

}  // namespace

std::vector<Segment> tokenize(const std::string& source) { return Lexer(source).run(); }

}  // namespace lwb::jinja
