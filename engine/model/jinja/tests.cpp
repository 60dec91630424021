// jinja2's tests (`x is defined`, `x is string`, `x is divisibleby 3`, ...).
#include <map>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

namespace {

const Value kMissing;

const Value& other(const CallArgs& a, const char* test) {
  if (a.positional.empty()) throw Error(std::string("test '") + test + "' needs an argument");
  return a.positional[0];
}

bool compareTest(const Value& v, const CallArgs& a, const char* op) { return binaryOp(op, v, other(a, op)).truthy(); }

using TestFn = bool (*)(const Value&, const CallArgs&);

const std::map<std::string, TestFn>& testTable() {
  using K = Value::Kind;
  static const std::map<std::string, TestFn> table = {
      {"defined", [](const Value& v, const CallArgs&) { return !v.isUndefined(); }},
      {"undefined", [](const Value& v, const CallArgs&) { return v.isUndefined(); }},
      {"none", [](const Value& v, const CallArgs&) { return v.isNone(); }},
      {"boolean", [](const Value& v, const CallArgs&) { return v.kind() == K::Bool; }},
      {"true", [](const Value& v, const CallArgs&) { return v.kind() == K::Bool && v.asBool(); }},
      {"false", [](const Value& v, const CallArgs&) { return v.kind() == K::Bool && !v.asBool(); }},
      {"integer", [](const Value& v, const CallArgs&) { return v.kind() == K::Int; }},
      {"float", [](const Value& v, const CallArgs&) { return v.kind() == K::Float; }},
      {"number", [](const Value& v, const CallArgs&) { return v.isNumber(); }},
      {"string", [](const Value& v, const CallArgs&) { return v.isString(); }},
      {"mapping", [](const Value& v, const CallArgs&) { return v.kind() == K::Dict; }},
      // Undefined is iterable (as empty) in jinja2.
      {"iterable", [](const Value& v, const CallArgs&) { return v.isIterable() || v.isUndefined(); }},
      // Undefined has __len__, __getitem__ and __call__ (all but len raise), so these hold.
      {"sequence", [](const Value& v, const CallArgs&) { return v.isList() || v.isString() || v.kind() == K::Dict || v.isUndefined(); }},
      {"callable", [](const Value& v, const CallArgs&) { return v.kind() == K::Function || v.isUndefined(); }},
      {"escaped", [](const Value&, const CallArgs&) { return false; }},
      {"odd", [](const Value& v, const CallArgs&) { return binaryOp("%", v, Value::integer(2)) == Value::integer(1); }},
      {"even", [](const Value& v, const CallArgs&) { return binaryOp("%", v, Value::integer(2)) == Value::integer(0); }},
      {"divisibleby", [](const Value& v, const CallArgs& a) {
         return binaryOp("%", v, other(a, "divisibleby")) == Value::integer(0);
       }},
      {"lower", [](const Value& v, const CallArgs&) { return pyLower(v.str()) == v.str(); }},
      {"upper", [](const Value& v, const CallArgs&) { return pyUpper(v.str()) == v.str(); }},
      {"sameas", [](const Value& v, const CallArgs& a) {
         const Value& o = other(a, "sameas");
         return v.kind() == o.kind() && v == o;
       }},
      {"in", [](const Value& v, const CallArgs& a) { return binaryOp("in", v, other(a, "in")).truthy(); }},
      {"eq", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "=="); }},
      {"equalto", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "=="); }},
      {"==", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "=="); }},
      {"ne", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "!="); }},
      {"!=", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "!="); }},
      {"lt", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "<"); }},
      {"lessthan", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "<"); }},
      {"<", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "<"); }},
      {"le", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "<="); }},
      {"<=", [](const Value& v, const CallArgs& a) { return compareTest(v, a, "<="); }},
      {"gt", [](const Value& v, const CallArgs& a) { return compareTest(v, a, ">"); }},
      {"greaterthan", [](const Value& v, const CallArgs& a) { return compareTest(v, a, ">"); }},
      {">", [](const Value& v, const CallArgs& a) { return compareTest(v, a, ">"); }},
      {"ge", [](const Value& v, const CallArgs& a) { return compareTest(v, a, ">="); }},
      {">=", [](const Value& v, const CallArgs& a) { return compareTest(v, a, ">="); }},
  };
  return table;
}

}  // namespace

bool applyTest(const std::string& name, const Value& subject, const CallArgs& args) {
  const auto& table = testTable();
  const auto it = table.find(name);
  if (it == table.end()) throw Error("unsupported test '" + name + "'");
  return it->second(subject, args);
}

}  // namespace lwb::jinja
