// Statements: the tag stream becomes a tree of bodies ({% if %}, {% for %}, ...).
#include <algorithm>
#include <set>

#include "engine/common/error.h"
#include "engine/model/jinja/parser.h"

namespace lwb::jinja {

namespace {

class TemplateParser {
 public:
  explicit TemplateParser(std::vector<Segment> segments) : segs_(std::move(segments)) {}

  Body parseAll() {
    std::string end;
    return parseBody({}, end);
  }

 private:
  std::vector<Segment> segs_;
  size_t pos_ = 0;
  std::vector<std::string> open_;  // block names being parsed, for "missing end tag" errors

  static NodePtr node(Node n) { return std::make_shared<Node>(std::move(n)); }

  [[noreturn]] static void fail(int line, const std::string& what) {
    throw Error("template line " + std::to_string(line) + ": " + what);
  }

  // Parses nodes until a statement named in `ends`; stores that name in `end` and leaves
  // its tokens in `endTokens_` (with the name consumed) for the caller.
  Body parseBody(const std::set<std::string>& ends, std::string& end);
  NodePtr parseStatement(const Segment& seg);
  NodePtr parseIf(TokenStream& ts, int line);
  NodePtr parseFor(TokenStream& ts, int line);
  NodePtr parseSet(TokenStream& ts, int line);
  NodePtr parseMacro(TokenStream& ts, int line);
  NodePtr parseCallBlock(TokenStream& ts, int line);
  NodePtr parseFilterBlock(TokenStream& ts, int line);
  Body parseUntil(const char* construct, const std::set<std::string>& ends, std::string& end);
  std::vector<std::string> parseTargets(TokenStream& ts);

  const Segment* endSeg_ = nullptr;
  std::unique_ptr<TokenStream> endTokens_;
};

Body TemplateParser::parseBody(const std::set<std::string>& ends, std::string& end) {
  Body body;
  while (pos_ < segs_.size()) {
    const Segment& seg = segs_[pos_++];
    if (seg.kind == Segment::Kind::Text) {
      body.push_back(node({Node::Kind::Text, seg.line, seg.text}));
    } else if (seg.kind == Segment::Kind::Output) {
      TokenStream ts(seg.tokens, seg.line);
      if (ts.atEnd()) fail(seg.line, "empty expression '{{ }}'");
      Node n{Node::Kind::Output, seg.line};
      n.expr = parseTuple(ts, true);
      ts.expectEnd("{{ ... }}");
      body.push_back(node(std::move(n)));
    } else {
      if (seg.tokens.empty() || seg.tokens[0].kind != Token::Kind::Name) fail(seg.line, "expected a statement name after '{%'");
      const std::string& name = seg.tokens[0].text;
      if (ends.count(name)) {
        end = name;
        endSeg_ = &seg;
        endTokens_ = std::make_unique<TokenStream>(seg.tokens, seg.line);
        endTokens_->next();
        return body;
      }
      body.push_back(parseStatement(seg));
    }
  }
  if (!ends.empty()) {
    const std::string want = *ends.rbegin();  // "end..." sorts after "elif"/"else"
    fail(segs_.empty() ? 1 : segs_.back().line, "unexpected end of template: '{% " + open_.back() + " %}' needs '{% " + want + " %}'");
  }
  return body;
}

Body TemplateParser::parseUntil(const char* construct, const std::set<std::string>& ends, std::string& end) {
  if (open_.size() >= 200) fail(segs_[pos_ - 1].line, "blocks nested too deeply");
  open_.push_back(construct);
  Body b = parseBody(ends, end);
  open_.pop_back();
  return b;
}

NodePtr TemplateParser::parseStatement(const Segment& seg) {
  TokenStream ts(seg.tokens, seg.line);
  const std::string name = ts.next().text;
  const int line = seg.line;
  if (name == "if") return parseIf(ts, line);
  if (name == "for") return parseFor(ts, line);
  if (name == "set") return parseSet(ts, line);
  if (name == "macro") return parseMacro(ts, line);
  if (name == "call") return parseCallBlock(ts, line);
  if (name == "filter") return parseFilterBlock(ts, line);
  if (name == "break" || name == "continue") {
    ts.expectEnd(name.c_str());
    if (std::find(open_.begin(), open_.end(), "for") == open_.end()) fail(line, "'" + name + "' outside a for loop");
    return node({name == "break" ? Node::Kind::Break : Node::Kind::Continue, line});
  }
  if (name == "generation") {  // Hugging Face's assistant-mask marker: renders its body
    ts.expectEnd("generation");
    std::string end;
    Node n{Node::Kind::If, line};
    auto always = std::make_shared<Expr>();
    always->kind = Expr::Kind::Literal;
    always->value = Value::boolean(true);
    n.expr = always;
    n.body = parseUntil("generation", {"endgeneration"}, end);
    endTokens_->expectEnd("endgeneration");
    return node(std::move(n));
  }
  static const std::set<std::string> known = {"endif", "endfor", "endset", "endmacro", "endcall", "endfilter", "else",
                                              "elif", "endraw", "endgeneration"};
  if (known.count(name)) fail(line, "unexpected '{% " + name + " %}'");
  fail(line, "unsupported construct '{% " + name + " %}'");
}

NodePtr TemplateParser::parseIf(TokenStream& ts, int line) {
  Node n{Node::Kind::If, line};
  n.expr = parseTuple(ts, false);
  ts.expectEnd("if");
  std::string end;
  n.body = parseUntil("if", {"elif", "else", "endif"}, end);
  if (end == "elif") {
    // The elif's tokens outlive endTokens_, which the nested parse reuses.
    const std::unique_ptr<TokenStream> elif = std::move(endTokens_);
    n.elseBody.push_back(parseIf(*elif, endSeg_->line));  // consumes through the shared endif
    return node(std::move(n));
  }
  if (end == "else") {
    endTokens_->expectEnd("else");
    n.elseBody = parseUntil("if", {"endif"}, end);
  }
  endTokens_->expectEnd("endif");
  return node(std::move(n));
}

std::vector<std::string> TemplateParser::parseTargets(TokenStream& ts) {
  std::vector<std::string> names;
  const bool paren = ts.acceptOp("(");
  do {
    names.push_back(ts.expectName());
  } while (ts.acceptOp(",") && !(paren && ts.isOp(")")) && !ts.isOp("="));
  if (paren) ts.expectOp(")");
  return names;
}

NodePtr TemplateParser::parseFor(TokenStream& ts, int line) {
  Node n{Node::Kind::For, line};
  n.targets = parseTargets(ts);
  if (!ts.acceptName("in")) ts.fail("expected 'in' in for loop, got " + ts.describeNext());
  n.expr = parseTuple(ts, false);
  if (ts.acceptName("if")) n.filter = parseExpression(ts);
  if (ts.isName("recursive")) ts.fail("unsupported construct 'recursive' for loop");
  ts.expectEnd("for");
  std::string end;
  n.body = parseUntil("for", {"else", "endfor"}, end);
  if (end == "else") {
    endTokens_->expectEnd("else");
    n.elseBody = parseUntil("for", {"endfor"}, end);
  }
  endTokens_->expectEnd("endfor");
  return node(std::move(n));
}

NodePtr TemplateParser::parseSet(TokenStream& ts, int line) {
  Node n{Node::Kind::Set, line};
  if (ts.isOp(".", 1)) {
    n.targets.push_back(ts.expectName());
    ts.expectOp(".");
    n.attr = ts.expectName();
  } else {
    n.targets = parseTargets(ts);
  }
  if (ts.acceptOp("=")) {
    n.expr = parseTuple(ts, true);
    ts.expectEnd("set");
    return node(std::move(n));
  }
  if (n.targets.size() != 1 || !n.attr.empty()) ts.fail("a block '{% set %}' takes one plain name");
  n.kind = Node::Kind::SetBlock;
  if (ts.isOp("|")) n.filter = parseFilterChain(ts, nullptr);
  ts.expectEnd("set");
  std::string end;
  n.body = parseUntil("set", {"endset"}, end);
  endTokens_->expectEnd("endset");
  return node(std::move(n));
}

NodePtr TemplateParser::parseMacro(TokenStream& ts, int line) {
  Node n{Node::Kind::Macro, line};
  n.name = ts.expectName();
  n.params = parseParameters(ts);
  ts.expectEnd("macro");
  std::string end;
  n.body = parseUntil("macro", {"endmacro"}, end);
  endTokens_->acceptName(n.name.c_str());
  endTokens_->expectEnd("endmacro");
  return node(std::move(n));
}

NodePtr TemplateParser::parseCallBlock(TokenStream& ts, int line) {
  Node n{Node::Kind::CallBlock, line};
  if (ts.isOp("(")) n.params = parseParameters(ts);
  n.expr = parseExpression(ts);
  if (n.expr->kind != Expr::Kind::Call) ts.fail("'{% call %}' needs a macro call");
  ts.expectEnd("call");
  std::string end;
  n.body = parseUntil("call", {"endcall"}, end);
  endTokens_->expectEnd("endcall");
  return node(std::move(n));
}

NodePtr TemplateParser::parseFilterBlock(TokenStream& ts, int line) {
  Node n{Node::Kind::FilterBlock, line};
  // The chain is parsed as `| f | g` on an empty subject that the body's text fills.
  std::vector<Token> piped{{Token::Kind::Op, "|"}};
  while (!ts.atEnd()) piped.push_back(ts.next());
  TokenStream chain(piped, line);
  n.filter = parseFilterChain(chain, nullptr);
  chain.expectEnd("filter");
  std::string end;
  n.body = parseUntil("filter", {"endfilter"}, end);
  endTokens_->expectEnd("endfilter");
  return node(std::move(n));
}

}  // namespace

Body parseTemplate(const std::string& source) { return TemplateParser(tokenize(source)).parseAll(); }

}  // namespace lwb::jinja
