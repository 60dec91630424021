#pragma once
// The parsed template: expression and statement nodes. One node struct per tree keeps
// the parser and renderer short; which fields a kind uses is noted beside it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/jinja/value.h"

namespace lwb::jinja {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;
using KeywordExprs = std::vector<std::pair<std::string, ExprPtr>>;

struct Expr {
  enum class Kind {
    Literal,  // value
    Name,     // name
    List,     // args: items
    Tuple,    // args: items
    Dict,     // args: key, value, key, value, ...
    Attr,     // args[0].name
    Index,    // args[0][args[1]]
    Slice,    // args[0][args[1]:args[2]:args[3]], absent bounds are null
    Call,     // args[0](args[1..], kwargs)
    Filter,   // args[0] | name(args[1..], kwargs); args[0] null in a filter block
    Test,     // args[0] is name(args[1..]); negated for `is not`
    Unary,    // name ("-", "+", "not") args[0]
    Binary,   // args[0] name args[1]: arithmetic, ~, comparisons, in, and, or
    Cond,     // args[0] if args[1] else args[2] (args[2] may be null)
  };
  Kind kind;
  int line;
  Value value;
  std::string name;
  std::vector<ExprPtr> args;
  KeywordExprs kwargs;
  bool negated = false;
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;
using Body = std::vector<NodePtr>;

struct Node {
  enum class Kind {
    Text,         // text
    Output,       // {{ expr }}
    If,           // if expr: body else elseBody (elif nests an If in elseBody)
    For,          // for targets in expr [if filter]: body else elseBody
    Set,          // set targets = expr, or set targets[0].attr = expr
    SetBlock,     // set targets[0] [| filter]: body
    Macro,        // macro name(params): body
    CallBlock,    // call(params) expr: body, the body being the callee's caller()
    FilterBlock,  // filter ...: body, filter applied to the rendered body
    Break,
    Continue,
  };
  Kind kind;
  int line;
  std::string text;
  ExprPtr expr;
  ExprPtr filter;
  std::vector<std::string> targets;
  std::string attr;
  std::string name;
  KeywordExprs params;  // macro/caller parameters with their defaults (null when none)
  Body body, elseBody;
};

}  // namespace lwb::jinja
