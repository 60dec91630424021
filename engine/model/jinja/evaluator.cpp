// Expression evaluation for the Renderer.
#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/renderer.h"

namespace lwb::jinja {

Value Renderer::eval(const Expr& e) {
  Value v = evalNode(e);
  if (v.isString() && v.asString().size() > (size_t(16) << 20)) throw Error("string value larger than 16 MiB");
  if (v.isList() && v.asList().size() > (size_t(1) << 20)) throw Error("list value longer than 1M items");
  return v;
}

Value Renderer::evalNode(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Literal: return e.value;
    case Expr::Kind::Name: return lookup(e.name);
    case Expr::Kind::List:
    case Expr::Kind::Tuple: {
      List items;
      for (const ExprPtr& a : e.args) items.push_back(eval(*a));
      return e.kind == Expr::Kind::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
    }
    case Expr::Kind::Dict: {
      Dict d;
      for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
        const Value key = eval(*e.args[i]);
        if (!key.isString()) throw Error("dict literal keys must be strings here, got " + key.typeName());
        d.set(key.asString(), eval(*e.args[i + 1]));
      }
      return Value::dict(std::move(d));
    }
    case Expr::Kind::Attr: return getAttribute(eval(*e.args[0]), e.name);
    case Expr::Kind::Index: return getItem(eval(*e.args[0]), eval(*e.args[1]));
    case Expr::Kind::Slice: {
      auto bound = [&](size_t i) { return e.args[i] ? eval(*e.args[i]) : Value::none(); };
      return getSlice(eval(*e.args[0]), bound(1), bound(2), bound(3));
    }
    case Expr::Kind::Call: {
      const Value callee = eval(*e.args[0]);
      return callValue(callee, evalArgs(e));
    }
    case Expr::Kind::Filter: {
      const Value subject = e.args[0] ? eval(*e.args[0]) : blockSubject_;
      return applyFilter(e.name, subject, evalArgs(e));
    }
    case Expr::Kind::Test: return Value::boolean(applyTest(e.name, eval(*e.args[0]), evalArgs(e)) != e.negated);
    case Expr::Kind::Unary: return evalUnary(e);
    case Expr::Kind::Binary: return evalBinary(e);
    case Expr::Kind::Cond:
      if (eval(*e.args[1]).truthy()) return eval(*e.args[0]);
      if (e.args[2]) return eval(*e.args[2]);
      return Value::undefined("the inline if-expression evaluated to false and no else section was defined");
  }
  return Value();
}

// Arguments after args[0] (the callee, filter subject or test subject).
CallArgs Renderer::evalArgs(const Expr& e) {
  CallArgs args;
  for (size_t i = 1; i < e.args.size(); ++i) args.positional.push_back(eval(*e.args[i]));
  for (const auto& [name, expr] : e.kwargs) args.keyword.emplace_back(name, eval(*expr));
  return args;
}

Value Renderer::evalUnary(const Expr& e) {
  const Value v = eval(*e.args[0]);
  if (e.name == "not") return Value::boolean(!v.truthy());
  if (v.isUndefined()) throw Error(v.hint());
  if (!v.isNumber()) throw Error("bad operand type for unary " + e.name + ": '" + v.typeName() + "'");
  if (e.name == "+") return v.kind() == Value::Kind::Bool ? Value::integer(v.asInt()) : v;
  if (v.kind() == Value::Kind::Float) return Value::number(-v.asDouble());
  if (v.asInt() == INT64_MIN) throw Error("integer overflow (the interpreter's integers are 64-bit)");
  return Value::integer(-v.asInt());
}

// `and`/`or` short-circuit and yield an operand, as in Python.
Value Renderer::evalBinary(const Expr& e) {
  if (e.name == "and" || e.name == "or") {
    Value left = eval(*e.args[0]);
    if (left.truthy() == (e.name == "or")) return left;
    return eval(*e.args[1]);
  }
  return binaryOp(e.name, eval(*e.args[0]), eval(*e.args[1]));
}

}  // namespace lwb::jinja
