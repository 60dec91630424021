#pragma once
// Values of the Jinja interpreter, with Python's semantics where templates can see them:
// truthiness, str()/repr(), ==, ordering, and jinja2's default Undefined (prints as "",
// iterates as empty, is false, and raises on attribute access, calls and arithmetic).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace lwb::jinja {

class Value;
using List = std::vector<Value>;

// Insertion-ordered like a Python dict; templates hold few keys, so a linear scan is fine.
struct Dict {
  std::vector<std::pair<std::string, Value>> entries;
  const Value* find(const std::string& key) const;
  void set(const std::string& key, Value value);
};

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
  const Value* keywordArg(const std::string& name) const;
};
using Function = std::function<Value(const CallArgs&)>;

class Value {
 public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Function };

  Value() = default;  // undefined
  static Value undefined(std::string hint);
  static Value none();
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value number(double d);
  static Value string(std::string s);
  static Value list(List items);
  static Value tuple(List items);  // a list that prints as (a, b) and differs from lists in ==
  static Value dict(Dict d);
  static Value namespaceOf(Dict d);  // mutable through {% set ns.attr = ... %}
  static Value function(std::string name, Function f);
  static Value fromJson(const nlohmann::json& j);
  static Value fromJson(const nlohmann::ordered_json& j);

  Kind kind() const { return kind_; }
  bool isUndefined() const { return kind_ == Kind::Undefined; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isString() const { return kind_ == Kind::String; }
  bool isNumber() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool isList() const { return kind_ == Kind::List; }
  bool isTuple() const { return kind_ == Kind::List && b_; }
  bool isMapping() const { return kind_ == Kind::Dict || kind_ == Kind::Namespace; }
  bool isIterable() const { return isList() || isString() || isMapping(); }

  bool asBool() const { return b_; }
  int64_t asInt() const;      // Bool/Int/Float (truncated)
  double asDouble() const;    // Bool/Int/Float
  const std::string& asString() const { return s_; }
  const List& asList() const { return *list_; }
  const Dict& asDict() const { return *dict_; }
  Dict& mutableDict() const { return *dict_; }  // namespaces only
  const Function& asFunction() const { return *fn_; }
  // What an undefined value stands for ("'foo' is undefined"), or a function's name.
  const std::string& hint() const { return s_; }

  bool truthy() const;
  std::string str() const;     // Python str()
  std::string repr() const;    // Python repr()
  std::string typeName() const;  // Python's type name, for messages
  // The items a for loop visits: list items, dict keys, string characters; [] for undefined.
  List iterate() const;

 private:
  Kind kind_ = Kind::Undefined;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::shared_ptr<List> list_;
  std::shared_ptr<Dict> dict_;
  std::shared_ptr<Function> fn_;
};

bool operator==(const Value& a, const Value& b);
inline bool operator!=(const Value& a, const Value& b) { return !(a == b); }
// <0, 0, >0 as Python orders numbers, strings and lists; throws for other pairs.
int compareValues(const Value& a, const Value& b);
// Python's repr() of a float: shortest round-trip digits, "1.0", "1e-05", "inf".
std::string formatFloat(double d);
// Python's json.dumps(value, ensure_ascii=, indent=, sort_keys=), indent < 0 meaning None.
std::string dumpJson(const Value& v, int indent, bool ensureAscii, bool sortKeys);

}  // namespace lwb::jinja
