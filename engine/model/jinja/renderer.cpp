#include "engine/model/jinja/renderer.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"

namespace lwb::jinja {

namespace {

constexpr size_t kMaxOutput = size_t(64) << 20;

// Errors from inside a node get the template line once (the innermost node's).
[[noreturn]] void rethrowWithLine(const Error& e, int line) {
  const std::string what = e.what();
  if (what.rfind("template line ", 0) == 0) throw e;
  throw Error("template line " + std::to_string(line) + ": " + what);
}

bool holdsNamespace(const Value& v) {
  if (v.kind() == Value::Kind::Namespace) return true;
  if (v.isList())
    for (const Value& item : v.asList())
      if (holdsNamespace(item)) return true;
  if (v.kind() == Value::Kind::Dict)
    for (const auto& entry : v.asDict().entries)
      if (holdsNamespace(entry.second)) return true;
  return false;
}

Value loopObject(const List& items, size_t i) {
  const int64_t n = int64_t(items.size()), k = int64_t(i);
  Dict loop;
  loop.set("index", Value::integer(k + 1));
  loop.set("index0", Value::integer(k));
  loop.set("revindex", Value::integer(n - k));
  loop.set("revindex0", Value::integer(n - k - 1));
  loop.set("first", Value::boolean(k == 0));
  loop.set("last", Value::boolean(k == n - 1));
  loop.set("length", Value::integer(n));
  loop.set("depth", Value::integer(1));
  loop.set("depth0", Value::integer(0));
  loop.set("previtem", i > 0 ? items[i - 1] : Value::undefined("there is no previous item"));
  loop.set("nextitem", i + 1 < items.size() ? items[i + 1] : Value::undefined("there is no next item"));
  loop.set("cycle", Value::function("loop.cycle", [k](const CallArgs& a) {
             if (a.positional.empty()) throw Error("loop.cycle: no items given");
             return a.positional[size_t(k) % a.positional.size()];
           }));
  return Value::dict(std::move(loop));
}

}  // namespace

Renderer::Renderer(const Dict& variables) { scopes_.push_back(std::make_shared<Dict>(variables)); }

std::string Renderer::run(const Body& body) {
  std::string out;
  renderBody(body, out);
  return out;
}

void Renderer::spend(int64_t steps) {
  budget_ -= steps;
  if (budget_ < 0) throw Error("template does too much work (more than 2 million steps)");
}

Renderer::Flow Renderer::renderBody(const Body& body, std::string& out) {
  for (const NodePtr& n : body) {
    const Flow f = renderNode(*n, out);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Renderer::Flow Renderer::renderNode(const Node& n, std::string& out) {
  spend(1);
  try {
    switch (n.kind) {
      case Node::Kind::Text: out += n.text; break;
      case Node::Kind::Output: out += eval(*n.expr).str(); break;
      case Node::Kind::If: return renderBody(eval(*n.expr).truthy() ? n.body : n.elseBody, out);
      case Node::Kind::For: return renderFor(n, out);
      case Node::Kind::Set:
      case Node::Kind::SetBlock: renderSet(n); break;
      case Node::Kind::Macro: assign({n.name}, makeMacro(n, n.params, n.body, n.name)); break;
      case Node::Kind::CallBlock: out += evalCallBlock(n).str(); break;
      case Node::Kind::FilterBlock: {
        std::string text;
        renderBody(n.body, text);
        blockSubject_ = Value::string(text);
        out += eval(*n.filter).str();
        break;
      }
      case Node::Kind::Break: return Flow::Break;
      case Node::Kind::Continue: return Flow::Continue;
    }
  } catch (const Error& e) {
    rethrowWithLine(e, n.line);
  }
  if (out.size() > kMaxOutput) throw Error("template line " + std::to_string(n.line) + ": output larger than 64 MiB");
  return Flow::Normal;
}

Renderer::Flow Renderer::renderFor(const Node& n, std::string& out) {
  List items;
  const Value iterable = eval(*n.expr);
  if (!iterable.isIterable() && !iterable.isUndefined()) throw Error("'" + iterable.typeName() + "' object is not iterable");
  for (const Value& item : iterable.iterate()) {
    if (n.filter) {  // `for x in xs if cond`: loop.* counts only the items kept
      spend(1);
      scopes_.push_back(std::make_shared<Dict>());
      assign(n.targets, item);
      const bool keep = eval(*n.filter).truthy();
      scopes_.pop_back();
      if (!keep) continue;
    }
    items.push_back(item);
  }
  if (items.empty()) return renderBody(n.elseBody, out);
  for (size_t i = 0; i < items.size(); ++i) {
    spend(1);
    scopes_.push_back(std::make_shared<Dict>());
    scopes_.back()->set("loop", loopObject(items, i));
    assign(n.targets, items[i]);
    const Flow f = renderBody(n.body, out);
    scopes_.pop_back();
    if (f == Flow::Break) break;
  }
  return Flow::Normal;
}

void Renderer::renderSet(const Node& n) {
  Value value;
  if (n.kind == Node::Kind::SetBlock) {
    std::string text;
    renderBody(n.body, text);
    value = Value::string(text);
    if (n.filter) {
      blockSubject_ = value;
      value = eval(*n.filter);
    }
  } else {
    value = eval(*n.expr);
  }
  if (n.attr.empty()) return assign(n.targets, value);
  const Value target = lookup(n.targets[0]);
  if (target.kind() != Value::Kind::Namespace)
    throw Error("cannot assign attribute '" + n.attr + "' on '" + n.targets[0] + "', which is not a namespace()");
  if (holdsNamespace(value)) throw Error("a namespace attribute cannot hold a namespace (it could contain itself)");
  target.mutableDict().set(n.attr, value);
}

Value Renderer::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (const Value* v = (*it)->find(name)) return *v;
  return Value::undefined("'" + name + "' is undefined");
}

void Renderer::assign(const std::vector<std::string>& targets, const Value& value) {
  if (targets.size() == 1) return scopes_.back()->set(targets[0], value);
  const List items = value.iterate();
  if (items.size() != targets.size())
    throw Error("cannot unpack " + std::to_string(items.size()) + " values into " + std::to_string(targets.size()) + " names");
  for (size_t i = 0; i < targets.size(); ++i) scopes_.back()->set(targets[i], items[i]);
}

// A macro closes over the scopes where it is defined and renders its body in a new one
// holding its parameters, `varargs`, `kwargs` and, under {% call %}, `caller`.
// The closure holds the scopes weakly: a macro is stored in one of them, and owning them
// would make a reference cycle that outlives the render.
Value Renderer::makeMacro(const Node& n, const KeywordExprs& params, const Body& body, const std::string& name) {
  const std::vector<std::weak_ptr<Dict>> closure(scopes_.begin(), scopes_.end());
  return Value::function(name, [this, closure, &params, &body, name, line = n.line](const CallArgs& args) {
    if (callDepth_ >= 64) throw Error("macro calls nested too deeply (recursion?)");
    std::vector<Scope> scopes;
    for (const auto& weak : closure) {
      scopes.push_back(weak.lock());
      if (!scopes.back()) throw Error("macro '" + name + "' called after the block that defined it ended");
    }
    std::vector<Scope> saved = std::move(scopes_);
    scopes_ = std::move(scopes);
    scopes_.push_back(std::make_shared<Dict>());
    ++callDepth_;
    struct Restore {
      Renderer& r;
      std::vector<Scope>& saved;
      ~Restore() {
        r.scopes_ = std::move(saved);
        --r.callDepth_;
      }
    } restore{*this, saved};
    Dict extraKeywords;
    for (const auto& [k, v] : args.keyword) extraKeywords.set(k, v);
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& pname = params[i].first;  // not a structured binding: clang 14 cannot capture those
      const ExprPtr& fallback = params[i].second;
      Value v = Value::undefined("parameter '" + pname + "' was not provided");
      if (i < args.positional.size()) v = args.positional[i];
      else if (const Value* kw = args.keywordArg(pname)) v = *kw;
      else if (fallback) v = eval(*fallback);
      scopes_.back()->set(pname, v);
      extraKeywords.entries.erase(std::remove_if(extraKeywords.entries.begin(), extraKeywords.entries.end(),
                                                 [&](const auto& e) { return e.first == pname; }),
                                  extraKeywords.entries.end());
    }
    if (const Value* c = args.keywordArg("caller")) scopes_.back()->set("caller", *c);
    extraKeywords.entries.erase(std::remove_if(extraKeywords.entries.begin(), extraKeywords.entries.end(),
                                               [](const auto& e) { return e.first == "caller"; }),
                                extraKeywords.entries.end());
    List varargs;
    for (size_t i = params.size(); i < args.positional.size(); ++i) varargs.push_back(args.positional[i]);
    scopes_.back()->set("varargs", Value::tuple(varargs));
    scopes_.back()->set("kwargs", Value::dict(extraKeywords));
    std::string out;
    try {
      renderBody(body, out);
    } catch (const Error& e) {
      rethrowWithLine(e, line);
    }
    return Value::string(out);
  });
}

Value Renderer::evalCallBlock(const Node& n) {
  const Expr& call = *n.expr;
  CallArgs args = evalArgs(call);
  args.keyword.emplace_back("caller", makeMacro(n, n.params, n.body, "caller"));
  return callValue(eval(*call.args[0]), args);
}

Value Renderer::callValue(const Value& callee, const CallArgs& args) {
  if (callee.isUndefined()) throw Error(callee.hint());
  if (callee.kind() != Value::Kind::Function) throw Error("'" + callee.typeName() + "' object is not callable");
  return callee.asFunction()(args);
}

}  // namespace lwb::jinja
