#pragma once
// Walks the statement tree with a stack of scopes: the variables given to render() at
// the bottom, one scope per for-loop iteration and per macro call on top, as jinja2
// scopes them ({% if %} opens none; {% set %} inside a loop stays in the loop).
#include <memory>
#include <string>
#include <vector>

#include "engine/model/jinja/ast.h"

namespace lwb::jinja {

class Renderer {
 public:
  explicit Renderer(const Dict& variables);
  std::string run(const Body& body);
  // Evaluates an expression; results past 16 MiB of text or 1M list items are an error,
  // so that a template cannot grow a value without bound.
  Value eval(const Expr& e);

 private:
  enum class Flow { Normal, Break, Continue };
  using Scope = std::shared_ptr<Dict>;

  std::vector<Scope> scopes_;
  Value blockSubject_;        // the text a {% filter %} block feeds its filter chain
  int64_t budget_ = 2'000'000;  // statements and loop iterations left; bounds hostile templates
  int callDepth_ = 0;

  Flow renderBody(const Body& body, std::string& out);
  Flow renderNode(const Node& n, std::string& out);
  Flow renderFor(const Node& n, std::string& out);
  void renderSet(const Node& n);
  void spend(int64_t steps);

  Value lookup(const std::string& name) const;
  void assign(const std::vector<std::string>& targets, const Value& value);
  Value makeMacro(const Node& n, const KeywordExprs& params, const Body& body, const std::string& name);
  Value callValue(const Value& callee, const CallArgs& args);
  CallArgs evalArgs(const Expr& e);
  Value evalNode(const Expr& e);
  Value evalUnary(const Expr& e);
  Value evalBinary(const Expr& e);
  Value evalCallBlock(const Node& n);
};

}  // namespace lwb::jinja
