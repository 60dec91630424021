#include "engine/model/jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "engine/common/error.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

const Value* Dict::find(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

void Dict::set(const std::string& key, Value value) {
  for (auto& [k, v] : entries)
    if (k == key) {
      v = std::move(value);
      return;
    }
  entries.emplace_back(key, std::move(value));
}

const Value* CallArgs::keywordArg(const std::string& name) const {
  for (const auto& [k, v] : keyword)
    if (k == name) return &v;
  return nullptr;
}

Value Value::undefined(std::string hint) {
  Value v;
  v.s_ = std::move(hint);
  return v;
}

Value Value::none() {
  Value v;
  v.kind_ = Kind::None;
  return v;
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.b_ = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.i_ = i;
  return v;
}

Value Value::number(double d) {
  Value v;
  v.kind_ = Kind::Float;
  v.d_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.s_ = std::move(s);
  return v;
}

Value Value::list(List items) {
  Value v;
  v.kind_ = Kind::List;
  v.list_ = std::make_shared<List>(std::move(items));
  return v;
}

Value Value::tuple(List items) {
  Value v = list(std::move(items));
  v.b_ = true;
  return v;
}

Value Value::dict(Dict d) {
  Value v;
  v.kind_ = Kind::Dict;
  v.dict_ = std::make_shared<Dict>(std::move(d));
  return v;
}

Value Value::namespaceOf(Dict d) {
  Value v = dict(std::move(d));
  v.kind_ = Kind::Namespace;
  return v;
}

Value Value::function(std::string name, Function f) {
  Value v;
  v.kind_ = Kind::Function;
  v.s_ = std::move(name);
  v.fn_ = std::make_shared<Function>(std::move(f));
  return v;
}

namespace {

template <class Json>
Value convertJson(const Json& j) {
  if (j.is_null()) return Value::none();
  if (j.is_boolean()) return Value::boolean(j.template get<bool>());
  if (j.is_number_integer()) return Value::integer(j.template get<int64_t>());
  if (j.is_number()) return Value::number(j.template get<double>());
  if (j.is_string()) return Value::string(j.template get<std::string>());
  if (j.is_array()) {
    List items;
    for (const auto& e : j) items.push_back(convertJson(e));
    return Value::list(std::move(items));
  }
  Dict d;
  for (auto it = j.begin(); it != j.end(); ++it) d.entries.emplace_back(it.key(), convertJson(it.value()));
  return Value::dict(std::move(d));
}

}  // namespace

Value Value::fromJson(const nlohmann::json& j) { return convertJson(j); }
Value Value::fromJson(const nlohmann::ordered_json& j) { return convertJson(j); }

int64_t Value::asInt() const {
  if (kind_ == Kind::Bool) return b_ ? 1 : 0;
  if (kind_ == Kind::Float) {
    if (!(d_ > -9.2e18 && d_ < 9.2e18)) throw Error("float " + formatFloat(d_) + " does not fit a 64-bit integer");
    return int64_t(d_);
  }
  return i_;
}

double Value::asDouble() const {
  if (kind_ == Kind::Bool) return b_ ? 1 : 0;
  if (kind_ == Kind::Int) return double(i_);
  return d_;
}

bool Value::truthy() const {
  switch (kind_) {
    case Kind::Undefined:
    case Kind::None: return false;
    case Kind::Bool: return b_;
    case Kind::Int: return i_ != 0;
    case Kind::Float: return d_ != 0;
    case Kind::String: return !s_.empty();
    case Kind::List: return !list_->empty();
    case Kind::Dict: return !dict_->entries.empty();
    case Kind::Namespace:
    case Kind::Function: return true;
  }
  return false;
}

std::string formatFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  // Shortest round-trip digits in scientific form, then laid out as Python's repr does:
  // positional for exponents in [-4, 16), scientific otherwise.
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, end);
  const size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  const int exp = std::stoi(sci.substr(e + 1));
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits.push_back(c);
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    const int point = exp + 1;  // digits before the decimal point
    if (point <= 0) {
      out += "0." + std::string(size_t(-point), '0') + digits;
    } else if (size_t(point) >= digits.size()) {
      out += digits + std::string(size_t(point) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char ebuf[16];
  snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return out + ebuf;
}

std::string Value::str() const {
  switch (kind_) {
    case Kind::Undefined: return "";
    case Kind::String: return s_;
    default: return repr();
  }
}

std::string Value::repr() const {
  switch (kind_) {
    case Kind::Undefined: return "";
    case Kind::None: return "None";
    case Kind::Bool: return b_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Float: return formatFloat(d_);
    case Kind::String: return pyReprString(s_);
    case Kind::List: {
      std::string out = b_ ? "(" : "[";
      for (size_t i = 0; i < list_->size(); ++i) out += (i ? ", " : "") + (*list_)[i].repr();
      if (b_ && list_->size() == 1) out += ",";
      return out + (b_ ? ")" : "]");
    }
    case Kind::Dict: {
      std::string out = "{";
      for (size_t i = 0; i < dict_->entries.size(); ++i)
        out += (i ? ", " : "") + pyReprString(dict_->entries[i].first) + ": " + dict_->entries[i].second.repr();
      return out + "}";
    }
    case Kind::Namespace: return "<Namespace>";
    case Kind::Function: return "<function " + s_ + ">";
  }
  return "";
}

std::string Value::typeName() const {
  switch (kind_) {
    case Kind::Undefined: return "Undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Namespace: return "Namespace";
    case Kind::Function: return "function";
  }
  return "object";
}

List Value::iterate() const {
  switch (kind_) {
    case Kind::Undefined: return {};
    case Kind::List: return *list_;
    case Kind::Dict: {
      List keys;
      for (const auto& e : dict_->entries) keys.push_back(Value::string(e.first));
      return keys;
    }
    case Kind::String: {
      List chars;
      for (char32_t c : decodeUtf8(s_)) chars.push_back(Value::string(encodeUtf8(std::u32string(1, c))));
      return chars;
    }
    default: throw Error("'" + typeName() + "' object is not iterable");
  }
}

bool operator==(const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.kind() == Value::Kind::Float || b.kind() == Value::Kind::Float) return a.asDouble() == b.asDouble();
    return a.asInt() == b.asInt();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None: return true;
    case Value::Kind::String: return a.asString() == b.asString();
    case Value::Kind::List: return a.isTuple() == b.isTuple() && a.asList() == b.asList();
    case Value::Kind::Dict: {
      const Dict &x = a.asDict(), &y = b.asDict();
      if (x.entries.size() != y.entries.size()) return false;
      for (const auto& [k, v] : x.entries) {
        const Value* o = y.find(k);
        if (!o || *o != v) return false;
      }
      return true;
    }
    default: return &a.asDict() == &b.asDict();
  }
}

int compareValues(const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) {
    const double x = a.asDouble(), y = b.asDouble();
    if (a.kind() != Value::Kind::Float && b.kind() != Value::Kind::Float)
      return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.isString() && b.isString()) {
    const int c = a.asString().compare(b.asString());  // UTF-8 byte order is code point order
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.isList() && b.isList()) {
    const List &x = a.asList(), &y = b.asList();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i)
      if (x[i] != y[i]) return compareValues(x[i], y[i]);
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  throw Error("'<' not supported between instances of '" + a.typeName() + "' and '" + b.typeName() + "'");
}

}  // namespace lwb::jinja
