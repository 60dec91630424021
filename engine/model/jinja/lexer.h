#pragma once
// Splits a template into text and tags, applying whitespace control as Hugging Face's
// environment does (trim_blocks and lstrip_blocks on, `-`/`+` modifiers, newlines
// normalised, one trailing newline dropped), and lexes each tag's expression tokens.
#include <cstdint>
#include <string>
#include <vector>

namespace lwb::jinja {

struct Token {
  enum class Kind { Name, Int, Float, String, Op };
  Kind kind;
  std::string text;  // the name, operator, or the unescaped string literal
  int64_t integer = 0;
  double number = 0;
};

struct Segment {
  enum class Kind { Text, Output, Statement };  // text, {{ ... }}, {% ... %}
  Kind kind;
  std::string text;           // Text only
  std::vector<Token> tokens;  // Output and Statement
  int line;                   // where it starts, 1-based
};

// Throws lwb::Error naming the line on an unterminated tag or bad token.
std::vector<Segment> tokenize(const std::string& source);

}  // namespace lwb::jinja
