#pragma once
// Template source → statement tree. Unsupported statements (include, extends, import,
// recursive loops, ...) are an lwb::Error naming the line and the construct.
#include <string>

#include "engine/model/jinja/ast.h"
#include "engine/model/jinja/lexer.h"

namespace lwb::jinja {

Body parseTemplate(const std::string& source);

// The tokens of one tag, consumed left to right by the expression parser.
class TokenStream {
 public:
  TokenStream(const std::vector<Token>& tokens, int line) : tokens_(tokens), line_(line) {}
  bool atEnd() const { return pos_ >= tokens_.size(); }
  const Token* peek(size_t ahead = 0) const { return pos_ + ahead < tokens_.size() ? &tokens_[pos_ + ahead] : nullptr; }
  bool isOp(const char* op, size_t ahead = 0) const;
  bool isName(const char* name, size_t ahead = 0) const;
  bool acceptOp(const char* op);
  bool acceptName(const char* name);
  void expectOp(const char* op);
  std::string expectName();
  const Token& next();
  void expectEnd(const char* construct);
  int line() const { return line_; }
  [[noreturn]] void fail(const std::string& what) const;
  std::string describeNext() const;
  int depth = 0;  // expression nesting, bounded so hostile input cannot exhaust the stack

 private:
  const std::vector<Token>& tokens_;
  size_t pos_ = 0;
  int line_;
};

ExprPtr parseExpression(TokenStream& ts);                    // with `x if c else y`
ExprPtr parseTuple(TokenStream& ts, bool withCondExpr);      // `a, b` becomes a tuple
ExprPtr parseFilterChain(TokenStream& ts, ExprPtr subject);  // `| f(x) | g` after a subject
KeywordExprs parseParameters(TokenStream& ts);               // `(a, b=1)` of macro/call

}  // namespace lwb::jinja
