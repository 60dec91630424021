// Expressions, with jinja2's precedence: ternary < or < and < not < comparisons (and
// in / not in) < + - < ~ < * / // % < ** < unary minus < filters and tests < postfix.
#include <cstring>

#include "engine/common/error.h"
#include "engine/model/jinja/parser.h"

namespace lwb::jinja {

bool TokenStream::isOp(const char* op, size_t ahead) const {
  const Token* t = peek(ahead);
  return t && t->kind == Token::Kind::Op && t->text == op;
}

bool TokenStream::isName(const char* name, size_t ahead) const {
  const Token* t = peek(ahead);
  return t && t->kind == Token::Kind::Name && t->text == name;
}

bool TokenStream::acceptOp(const char* op) {
  if (!isOp(op)) return false;
  ++pos_;
  return true;
}

bool TokenStream::acceptName(const char* name) {
  if (!isName(name)) return false;
  ++pos_;
  return true;
}

void TokenStream::expectOp(const char* op) {
  if (!acceptOp(op)) fail(std::string("expected '") + op + "', got " + describeNext());
}

std::string TokenStream::expectName() {
  const Token* t = peek();
  if (!t || t->kind != Token::Kind::Name) fail("expected a name, got " + describeNext());
  ++pos_;
  return t->text;
}

const Token& TokenStream::next() {
  if (atEnd()) fail("unexpected end of expression");
  return tokens_[pos_++];
}

void TokenStream::expectEnd(const char* construct) {
  if (!atEnd()) fail(std::string("expected end of '") + construct + "', got " + describeNext());
}

std::string TokenStream::describeNext() const {
  const Token* t = peek();
  if (!t) return "end of tag";
  return t->kind == Token::Kind::String ? "a string" : "'" + t->text + "'";
}

void TokenStream::fail(const std::string& what) const {
  throw Error("template line " + std::to_string(line_) + ": " + what);
}

namespace {

ExprPtr make(Expr::Kind kind, int line, std::vector<ExprPtr> args, std::string name = {}) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->line = line;
  e->args = std::move(args);
  e->name = std::move(name);
  return e;
}

ExprPtr literal(Value v, int line) {
  auto e = std::make_shared<Expr>();
  e->kind = Expr::Kind::Literal;
  e->line = line;
  e->value = std::move(v);
  return e;
}

ExprPtr parseOr(TokenStream& ts);
ExprPtr parseUnary(TokenStream& ts, bool withFilter);

// `(a, k=v)` after a callee, filter or test; fills e's args (after args[0]) and kwargs.
void parseCallArgs(TokenStream& ts, Expr& e) {
  ts.expectOp("(");
  while (!ts.acceptOp(")")) {
    if (ts.isOp("*") || ts.isOp("**")) ts.fail("'*args'/'**kwargs' in calls is not supported");
    const Token* t = ts.peek();
    if (t && t->kind == Token::Kind::Name && ts.isOp("=", 1)) {
      ts.next();
      ts.next();
      e.kwargs.emplace_back(t->text, parseExpression(ts));
    } else {
      e.args.push_back(parseExpression(ts));
    }
    if (!ts.acceptOp(",")) {
      ts.expectOp(")");
      break;
    }
  }
}

ExprPtr parseSubscript(TokenStream& ts, ExprPtr subject) {
  const int line = ts.line();
  std::vector<ExprPtr> bounds;
  ExprPtr first;
  if (!ts.isOp(":")) {
    first = parseExpression(ts);
    if (!ts.isOp(":")) {
      ts.expectOp("]");
      return make(Expr::Kind::Index, line, {std::move(subject), first});
    }
  }
  ts.expectOp(":");
  ExprPtr stop, step;
  if (!ts.isOp(":") && !ts.isOp("]")) stop = parseExpression(ts);
  if (ts.acceptOp(":") && !ts.isOp("]")) step = parseExpression(ts);
  ts.expectOp("]");
  return make(Expr::Kind::Slice, line, {std::move(subject), first, stop, step});
}

ExprPtr parsePostfix(TokenStream& ts, ExprPtr e) {
  while (true) {
    if (ts.acceptOp(".")) {
      const Token& t = ts.next();
      if (t.kind == Token::Kind::Name) e = make(Expr::Kind::Attr, ts.line(), {e}, t.text);
      else if (t.kind == Token::Kind::Int) e = make(Expr::Kind::Index, ts.line(), {e, literal(Value::integer(t.integer), ts.line())});
      else ts.fail("expected an attribute name after '.', got '" + t.text + "'");
    } else if (ts.acceptOp("[")) {
      e = parseSubscript(ts, e);
    } else if (ts.isOp("(")) {
      auto call = std::make_shared<Expr>(*make(Expr::Kind::Call, ts.line(), {e}));
      parseCallArgs(ts, *call);
      e = call;
    } else {
      return e;
    }
  }
}

ExprPtr parseSequence(TokenStream& ts, Expr::Kind kind, const char* close) {
  const int line = ts.line();
  std::vector<ExprPtr> items;
  while (!ts.acceptOp(close)) {
    items.push_back(parseExpression(ts));
    if (kind == Expr::Kind::Dict) {
      ts.expectOp(":");
      items.push_back(parseExpression(ts));
    }
    if (!ts.acceptOp(",")) {
      ts.expectOp(close);
      break;
    }
  }
  return make(kind, line, std::move(items));
}

ExprPtr parsePrimary(TokenStream& ts) {
  const int line = ts.line();
  const Token& t = ts.next();
  switch (t.kind) {
    case Token::Kind::Name:
      if (t.text == "true" || t.text == "True") return literal(Value::boolean(true), line);
      if (t.text == "false" || t.text == "False") return literal(Value::boolean(false), line);
      if (t.text == "none" || t.text == "None") return literal(Value::none(), line);
      return make(Expr::Kind::Name, line, {}, t.text);
    case Token::Kind::String: {
      std::string s = t.text;  // adjacent literals concatenate
      while (ts.peek() && ts.peek()->kind == Token::Kind::String) s += ts.next().text;
      return literal(Value::string(std::move(s)), line);
    }
    case Token::Kind::Int: return literal(Value::integer(t.integer), line);
    case Token::Kind::Float: return literal(Value::number(t.number), line);
    case Token::Kind::Op:
      if (t.text == "(") {
        if (ts.acceptOp(")")) return make(Expr::Kind::Tuple, line, {});
        ExprPtr inner = parseTuple(ts, true);
        ts.expectOp(")");
        return inner;
      }
      if (t.text == "[") return parseSequence(ts, Expr::Kind::List, "]");
      if (t.text == "{") return parseSequence(ts, Expr::Kind::Dict, "}");
  }
  ts.fail("unexpected '" + t.text + "' in expression");
}

ExprPtr parseTest(TokenStream& ts, ExprPtr subject) {
  auto e = std::make_shared<Expr>(*make(Expr::Kind::Test, ts.line(), {std::move(subject)}));
  e->negated = ts.acceptName("not");
  e->name = ts.expectName();
  if (ts.isOp("(")) {
    parseCallArgs(ts, *e);
  } else if (const Token* t = ts.peek(); t && !ts.isName("else") && !ts.isName("or") && !ts.isName("and") &&
                                         (t->kind != Token::Kind::Op || ts.isOp("[") || ts.isOp("{"))) {
    if (ts.isName("is")) ts.fail("tests cannot be chained with 'is'");
    e->args.push_back(parsePostfix(ts, parsePrimary(ts)));
  }
  return e;
}

ExprPtr parseFilterAndTests(TokenStream& ts, ExprPtr e) {
  while (true) {
    if (ts.isOp("|")) e = parseFilterChain(ts, e);
    else if (ts.acceptName("is")) e = parseTest(ts, e);
    else if (ts.isOp("(")) e = parsePostfix(ts, e);
    else return e;
  }
}

ExprPtr parseUnary(TokenStream& ts, bool withFilter) {
  struct Guard {
    TokenStream& ts;
    explicit Guard(TokenStream& s) : ts(s) {
      if (++ts.depth > 200) ts.fail("expression nested too deeply");
    }
    ~Guard() { --ts.depth; }
  } guard(ts);
  ExprPtr e;
  const int line = ts.line();
  if (ts.acceptOp("-")) e = make(Expr::Kind::Unary, line, {parseUnary(ts, false)}, "-");
  else if (ts.acceptOp("+")) e = make(Expr::Kind::Unary, line, {parseUnary(ts, false)}, "+");
  else e = parsePrimary(ts);
  e = parsePostfix(ts, e);
  return withFilter ? parseFilterAndTests(ts, e) : e;
}

// One binary precedence level: `next (op next)*`, left-associative.
template <class Next>
ExprPtr parseLevel(TokenStream& ts, std::initializer_list<const char*> ops, Next next) {
  ExprPtr left = next(ts);
  while (true) {
    const char* found = nullptr;
    for (const char* op : ops)
      if (ts.isOp(op)) found = op;
    if (!found) return left;
    ts.next();
    left = make(Expr::Kind::Binary, ts.line(), {left, next(ts)}, found);
  }
}

ExprPtr parsePow(TokenStream& ts) { return parseLevel(ts, {"**"}, [](TokenStream& s) { return parseUnary(s, true); }); }
ExprPtr parseMul(TokenStream& ts) { return parseLevel(ts, {"*", "/", "//", "%"}, parsePow); }
ExprPtr parseConcat(TokenStream& ts) { return parseLevel(ts, {"~"}, parseMul); }
ExprPtr parseAdd(TokenStream& ts) { return parseLevel(ts, {"+", "-"}, parseConcat); }

ExprPtr parseCompare(TokenStream& ts) {
  ExprPtr left = parseAdd(ts);
  while (true) {
    std::string op;
    for (const char* o : {"==", "!=", "<", "<=", ">", ">="})
      if (ts.isOp(o)) op = o;
    if (!op.empty()) ts.next();
    else if (ts.acceptName("in")) op = "in";
    else if (ts.isName("not") && ts.isName("in", 1)) ts.next(), ts.next(), op = "not in";
    else return left;
    left = make(Expr::Kind::Binary, ts.line(), {left, parseAdd(ts)}, op);
  }
}

ExprPtr parseNot(TokenStream& ts) {
  if (ts.isName("not") && !ts.isName("in", 1)) {
    ts.next();
    return make(Expr::Kind::Unary, ts.line(), {parseNot(ts)}, "not");
  }
  return parseCompare(ts);
}

ExprPtr parseAnd(TokenStream& ts) {
  ExprPtr left = parseNot(ts);
  while (ts.acceptName("and")) left = make(Expr::Kind::Binary, ts.line(), {left, parseNot(ts)}, "and");
  return left;
}

ExprPtr parseOr(TokenStream& ts) {
  ExprPtr left = parseAnd(ts);
  while (ts.acceptName("or")) left = make(Expr::Kind::Binary, ts.line(), {left, parseAnd(ts)}, "or");
  return left;
}

}  // namespace

ExprPtr parseExpression(TokenStream& ts) {
  ExprPtr e = parseOr(ts);
  while (ts.acceptName("if")) {
    ExprPtr cond = parseOr(ts);
    ExprPtr otherwise = ts.acceptName("else") ? parseExpression(ts) : nullptr;
    e = make(Expr::Kind::Cond, ts.line(), {e, cond, otherwise});
  }
  return e;
}

ExprPtr parseTuple(TokenStream& ts, bool withCondExpr) {
  const int line = ts.line();
  std::vector<ExprPtr> items;
  bool comma = false;
  while (true) {
    items.push_back(withCondExpr ? parseExpression(ts) : parseOr(ts));
    if (!ts.acceptOp(",")) break;
    comma = true;
    if (ts.atEnd() || ts.isOp(")") || ts.isName("if") || ts.isName("recursive")) break;
  }
  return comma ? make(Expr::Kind::Tuple, line, std::move(items)) : items[0];
}

ExprPtr parseFilterChain(TokenStream& ts, ExprPtr subject) {
  while (ts.acceptOp("|")) {
    auto f = std::make_shared<Expr>(*make(Expr::Kind::Filter, ts.line(), {subject}, ts.expectName()));
    while (ts.acceptOp(".")) f->name += "." + ts.expectName();
    if (ts.isOp("(")) parseCallArgs(ts, *f);
    subject = f;
  }
  return subject;
}

KeywordExprs parseParameters(TokenStream& ts) {
  KeywordExprs params;
  ts.expectOp("(");
  while (!ts.acceptOp(")")) {
    std::string name = ts.expectName();
    params.emplace_back(name, ts.acceptOp("=") ? parseExpression(ts) : nullptr);
    if (!ts.acceptOp(",")) {
      ts.expectOp(")");
      break;
    }
  }
  return params;
}

}  // namespace lwb::jinja
