// Python methods templates call on str, dict and list values. Methods that mutate are
// refused, as Hugging Face's ImmutableSandboxedEnvironment refuses them.
#include <set>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

Value argument(const CallArgs& args, size_t i, const char* name, const Value& fallback) {
  if (const Value* v = args.keywordArg(name)) return *v;
  return i < args.positional.size() ? args.positional[i] : fallback;
}

std::string stringArgument(const CallArgs& args, size_t i, const char* name, const char* function) {
  static const Value missing;
  const Value& v = argument(args, i, name, missing);
  if (!v.isString())
    throw Error(std::string(function) + ": argument '" + name + "' must be a string, got " +
                (v.isUndefined() ? std::string("nothing") : v.typeName()));
  return v.asString();
}

namespace {

std::optional<std::string> optionalString(const CallArgs& args, size_t i, const char* name) {
  static const Value none = Value::none();
  const Value& v = argument(args, i, name, none);
  if (v.isNone()) return std::nullopt;
  if (!v.isString()) throw Error(std::string("argument '") + name + "' must be a string or None, got " + v.typeName());
  return v.asString();
}

int64_t intArgument(const CallArgs& args, size_t i, const char* name, int64_t fallback) {
  static const Value none = Value::none();
  const Value& v = argument(args, i, name, none);
  if (v.isNone()) return fallback;
  if (v.kind() != Value::Kind::Int) throw Error(std::string("argument '") + name + "' must be an integer, got " + v.typeName());
  return v.asInt();
}

Value stringList(const std::vector<std::string>& parts) {
  List out;
  for (const auto& p : parts) out.push_back(Value::string(p));
  return Value::list(out);
}

// startswith/endswith accept a string or a tuple of strings.
bool affixMatch(const std::string& s, const Value& affix, bool prefix) {
  if (affix.isList()) {
    for (const Value& a : affix.asList())
      if (affixMatch(s, a, prefix)) return true;
    return false;
  }
  if (!affix.isString()) throw Error(std::string(prefix ? "startswith" : "endswith") + " takes a string or a tuple of strings");
  return prefix ? pyStartsWith(s, affix.asString()) : pyEndsWith(s, affix.asString());
}

int64_t countOf(const std::string& s, const std::string& sub) {
  if (sub.empty()) return int64_t(decodeUtf8(s).size()) + 1;
  int64_t n = 0;
  for (size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
  return n;
}

Value stringMethod(const std::string& s, const std::string& name, const CallArgs& a) {
  if (name == "startswith" || name == "endswith") {
    static const Value missing;
    return Value::boolean(affixMatch(s, argument(a, 0, "prefix", missing), name == "startswith"));
  }
  if (name == "strip") return Value::string(pyStrip(s, optionalString(a, 0, "chars"), true, true));
  if (name == "lstrip") return Value::string(pyStrip(s, optionalString(a, 0, "chars"), true, false));
  if (name == "rstrip") return Value::string(pyStrip(s, optionalString(a, 0, "chars"), false, true));
  if (name == "split") {
    const auto sep = optionalString(a, 0, "sep");
    if (sep && sep->empty()) throw Error("split: empty separator");
    return stringList(pySplit(s, sep, intArgument(a, 1, "maxsplit", -1)));
  }
  if (name == "upper") return Value::string(pyUpper(s));
  if (name == "lower") return Value::string(pyLower(s));
  if (name == "title") return Value::string(pyTitle(s));
  if (name == "capitalize") return Value::string(pyCapitalize(s));
  if (name == "replace")
    return Value::string(pyReplace(s, stringArgument(a, 0, "old", "replace"), stringArgument(a, 1, "new", "replace"),
                                   intArgument(a, 2, "count", -1)));
  if (name == "find") {
    const size_t at = s.find(stringArgument(a, 0, "sub", "find"));
    return Value::integer(at == std::string::npos ? -1 : int64_t(decodeUtf8(s.substr(0, at)).size()));
  }
  if (name == "count") return Value::integer(countOf(s, stringArgument(a, 0, "sub", "count")));
  if (name == "join") {
    static const Value missing;
    std::string out;
    const List items = argument(a, 0, "iterable", missing).iterate();
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].isString()) throw Error("join: sequence item " + std::to_string(i) + ": expected str, got " + items[i].typeName());
      out += (i ? s : "") + items[i].asString();
    }
    return Value::string(out);
  }
  if (name == "splitlines") {
    std::vector<std::string> lines = pySplit(s, std::string("\n"), -1);
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    return stringList(lines);
  }
  const std::u32string u = decodeUtf8(s);
  auto all = [&](auto pred) {
    if (u.empty()) return Value::boolean(false);
    for (char32_t c : u)
      if (!pred(c)) return Value::boolean(false);
    return Value::boolean(true);
  };
  if (name == "isdigit") return all([](char32_t c) { return c >= '0' && c <= '9'; });
  if (name == "isspace") return all(isPySpace);
  if (name == "isalpha") return all([](char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
  if (name == "islower") return Value::boolean(pyLower(s) == s && pyUpper(s) != s);
  if (name == "isupper") return Value::boolean(pyUpper(s) == s && pyLower(s) != s);
  throw Error("unsupported method str." + name + "()");
}

Value dictMethod(const Value& d, const std::string& name, const CallArgs& a) {
  List out;
  for (const auto& [k, v] : d.asDict().entries) {
    if (name == "items") out.push_back(Value::tuple({Value::string(k), v}));
    else if (name == "keys") out.push_back(Value::string(k));
    else if (name == "values") out.push_back(v);
  }
  if (name != "get") return Value::list(out);
  static const Value none = Value::none();
  const Value& key = argument(a, 0, "key", none);
  if (key.isString())
    if (const Value* v = d.asDict().find(key.asString())) return *v;
  return argument(a, 1, "default", none);
}

Value listMethod(const List& items, const std::string& name, const CallArgs& a) {
  static const Value missing;
  const Value& x = argument(a, 0, "value", missing);
  int64_t count = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i] != x) continue;
    if (name == "index") return Value::integer(int64_t(i));
    ++count;
  }
  if (name == "index") throw Error(x.repr() + " is not in list");
  return Value::integer(count);
}

const std::set<std::string> kStringMethods = {"startswith", "endswith", "strip", "lstrip", "rstrip", "split",
                                              "upper", "lower", "title", "capitalize", "replace", "find", "count",
                                              "join", "splitlines", "isdigit", "isspace", "isalpha", "islower",
                                              "isupper"};
const std::set<std::string> kDictMethods = {"items", "keys", "values", "get"};
const std::set<std::string> kListMethods = {"index", "count"};
const std::set<std::string> kMutators = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                                         "update", "setdefault", "popitem", "add", "discard"};

}  // namespace

Value boundMethod(const Value& object, const std::string& name) {
  const std::string qualified = object.typeName() + "." + name;
  if (object.isString() && kStringMethods.count(name))
    return Value::function(qualified, [s = object.asString(), name](const CallArgs& a) { return stringMethod(s, name, a); });
  if (object.kind() == Value::Kind::Dict && kDictMethods.count(name))
    return Value::function(qualified, [object, name](const CallArgs& a) { return dictMethod(object, name, a); });
  if (object.isList() && kListMethods.count(name))
    return Value::function(qualified, [object, name](const CallArgs& a) { return listMethod(object.asList(), name, a); });
  if ((object.isList() || object.kind() == Value::Kind::Dict) && kMutators.count(name))
    return Value::function(qualified, [object, name](const CallArgs&) -> Value {
      throw Error("access to attribute '" + name + "' of '" + object.typeName() +
                  "' object is unsafe (templates may not modify values)");
    });
  return Value();
}

}  // namespace lwb::jinja
