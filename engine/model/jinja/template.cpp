#include "engine/model/jinja/template.h"

#include <ctime>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/parser.h"
#include "engine/model/jinja/renderer.h"

namespace lwb::jinja {

namespace {

Value raiseException(const CallArgs& a) {
  throw Error(a.positional.empty() ? std::string("raise_exception() called") : a.positional[0].str());
}

Value strftimeNow(const CallArgs& a) {
  const std::string format = stringArgument(a, 0, "format", "strftime_now");
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[512];
  const size_t n = std::strftime(buf, sizeof buf, format.c_str(), &local);
  return Value::string(std::string(buf, n));
}

Value makeNamespace(const CallArgs& a) {
  Dict d;
  for (const Value& p : a.positional) {
    if (p.kind() != Value::Kind::Dict) throw Error("namespace() takes keyword arguments or a dict");
    for (const auto& [k, v] : p.asDict().entries) d.set(k, v);
  }
  for (const auto& [k, v] : a.keyword) d.set(k, v);
  return Value::namespaceOf(std::move(d));
}

Value range(const CallArgs& a) {
  std::vector<int64_t> n;
  for (const Value& v : a.positional) {
    if (v.kind() != Value::Kind::Int && v.kind() != Value::Kind::Bool) throw Error("range() takes integers, got " + v.typeName());
    n.push_back(v.asInt());
  }
  if (n.empty() || n.size() > 3) throw Error("range() takes 1 to 3 integers");
  const int64_t start = n.size() == 1 ? 0 : n[0], stop = n.size() == 1 ? n[0] : n[1], step = n.size() == 3 ? n[2] : 1;
  if (step == 0) throw Error("range() step must not be zero");
  List out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (out.size() >= 100000) throw Error("range() too large (the sandbox allows 100000 items)");
    out.push_back(Value::integer(i));
  }
  return Value::list(out);
}

Value makeDict(const CallArgs& a) {
  Dict d;
  for (const auto& [k, v] : a.keyword) d.set(k, v);
  return Value::dict(std::move(d));
}

bool readsIn(const Expr* e, const std::string& name) {
  if (!e) return false;
  if (e->kind == Expr::Kind::Name && e->name == name) return true;
  for (const ExprPtr& a : e->args)
    if (readsIn(a.get(), name)) return true;
  for (const auto& kv : e->kwargs)
    if (readsIn(kv.second.get(), name)) return true;
  return false;
}

bool readsIn(const Body& body, const std::string& name) {
  for (const NodePtr& n : body) {
    if (readsIn(n->expr.get(), name) || readsIn(n->filter.get(), name) || readsIn(n->body, name) ||
        readsIn(n->elseBody, name))
      return true;
    for (const auto& kv : n->params)
      if (readsIn(kv.second.get(), name)) return true;
  }
  return false;
}

}  // namespace

Template::Template(const std::string& source) : body_(parseTemplate(source)) {}

std::string Template::render(const Dict& variables) const {
  Dict globals;
  globals.set("raise_exception", Value::function("raise_exception", raiseException));
  globals.set("strftime_now", Value::function("strftime_now", strftimeNow));
  globals.set("namespace", Value::function("namespace", makeNamespace));
  globals.set("range", Value::function("range", range));
  globals.set("dict", Value::function("dict", makeDict));
  for (const auto& [k, v] : variables.entries) globals.set(k, v);
  return Renderer(globals).run(body_);
}

std::string Template::render(const nlohmann::ordered_json& variables) const {
  check(variables.is_object(), "template variables must be a JSON object, got " + variables.dump());
  return render(Value::fromJson(variables).asDict());
}

bool Template::readsVariable(const std::string& name) const { return readsIn(body_, name); }

}  // namespace lwb::jinja
