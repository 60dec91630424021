// Python's operators and jinja2's attribute/item access on interpreter values.
#include <cmath>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

namespace {

constexpr size_t kMaxResultSize = size_t(1) << 24;  // bytes (strings) or items (lists) one operation may build

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  if (a.isUndefined()) throw Error(a.hint());
  if (b.isUndefined()) throw Error(b.hint());
  throw Error("unsupported operand type(s) for " + op + ": '" + a.typeName() + "' and '" + b.typeName() + "'");
}

// Python's integers do not overflow; ours are 64-bit and say so instead of wrapping.
template <class Op>
int64_t checked(Op op, int64_t x, int64_t y) {
  int64_t r = 0;
  if (op(x, y, &r)) throw Error("integer overflow (the interpreter's integers are 64-bit)");
  return r;
}

bool add(int64_t x, int64_t y, int64_t* r) { return __builtin_add_overflow(x, y, r); }
bool sub(int64_t x, int64_t y, int64_t* r) { return __builtin_sub_overflow(x, y, r); }
bool mul(int64_t x, int64_t y, int64_t* r) { return __builtin_mul_overflow(x, y, r); }

Value intOp(const std::string& op, int64_t x, int64_t y) {
  if (op == "+") return Value::integer(checked(add, x, y));
  if (op == "-") return Value::integer(checked(sub, x, y));
  if (op == "*") return Value::integer(checked(mul, x, y));
  if (op == "/") {
    if (y == 0) throw Error("division by zero");
    return Value::number(double(x) / double(y));
  }
  if (op == "//" || op == "%") {
    if (y == 0) throw Error(op == "%" ? "modulo by zero" : "integer division by zero");
    if (x == INT64_MIN && y == -1) throw Error("integer overflow (the interpreter's integers are 64-bit)");
    int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) --q, m += y;  // Python floors
    return Value::integer(op == "//" ? q : m);
  }
  // "**"
  if (y < 0) return Value::number(std::pow(double(x), double(y)));
  int64_t result = 1, base = x;  // by squaring: y may be huge when x is 0 or ±1
  for (int64_t e = y; e > 0; e >>= 1) {
    if (e & 1) result = checked(mul, result, base);
    if (e > 1) base = checked(mul, base, base);
  }
  return Value::integer(result);
}

Value floatOp(const std::string& op, double x, double y) {
  if (op == "+") return Value::number(x + y);
  if (op == "-") return Value::number(x - y);
  if (op == "*") return Value::number(x * y);
  if (op == "**") return Value::number(std::pow(x, y));
  if (y == 0) throw Error("float division by zero");
  if (op == "/") return Value::number(x / y);
  const double q = std::floor(x / y);
  if (op == "//") return Value::number(q);
  double m = std::fmod(x, y);
  if (m != 0 && ((m < 0) != (y < 0))) m += y;
  return Value::number(m);
}

Value repeat(const Value& seq, int64_t n) {
  const size_t unit = seq.isString() ? seq.asString().size() : seq.asList().size();
  const size_t limit = seq.isString() ? kMaxResultSize : kMaxResultSize / 16;  // a Value is ~100 bytes
  if (n > 0 && unit > 0 && size_t(n) > limit / unit) throw Error("repetition result too large");
  if (seq.isString()) {
    std::string out;
    for (int64_t i = 0; i < n; ++i) out += seq.asString();
    return Value::string(out);
  }
  List out;
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), seq.asList().begin(), seq.asList().end());
  return Value::list(out);
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::Undefined: return false;
    case Value::Kind::String:
      if (!item.isString()) throw Error("'in <string>' requires a string as left operand, not " + item.typeName());
      return container.asString().find(item.asString()) != std::string::npos;
    case Value::Kind::List:
      for (const Value& v : container.asList())
        if (v == item) return true;
      return false;
    case Value::Kind::Dict: return item.isString() && container.asDict().find(item.asString());
    default: throw Error("argument of type '" + container.typeName() + "' is not iterable");
  }
}

bool isInt(const Value& v) { return v.kind() == Value::Kind::Int || v.kind() == Value::Kind::Bool; }

}  // namespace

Value binaryOp(const std::string& op, const Value& a, const Value& b) {
  if (op == "~") return Value::string(a.str() + b.str());
  if (op == "==") return Value::boolean(a == b);
  if (op == "!=") return Value::boolean(a != b);
  if (op == "in") return Value::boolean(contains(b, a));
  if (op == "not in") return Value::boolean(!contains(b, a));
  if (op == "<" || op == "<=" || op == ">" || op == ">=") {
    if (a.isUndefined() || b.isUndefined()) unsupported(op, a, b);
    const int c = compareValues(a, b);
    return Value::boolean(op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0);
  }
  if (a.isNumber() && b.isNumber()) {
    if (isInt(a) && isInt(b)) return intOp(op, a.asInt(), b.asInt());
    return floatOp(op, a.asDouble(), b.asDouble());
  }
  if (op == "+" && a.isString() && b.isString()) {
    if (a.asString().size() + b.asString().size() > kMaxResultSize) throw Error("string result too large");
    return Value::string(a.asString() + b.asString());
  }
  if (op == "+" && a.isList() && b.isList()) {
    List out = a.asList();
    out.insert(out.end(), b.asList().begin(), b.asList().end());
    return Value::list(out);
  }
  if (op == "*" && (a.isString() || a.isList()) && isInt(b)) return repeat(a, b.asInt());
  if (op == "*" && isInt(a) && (b.isString() || b.isList())) return repeat(b, a.asInt());
  if (op == "%" && a.isString()) return Value::string(percentFormat(a.asString(), b));
  unsupported(op, a, b);
}

Value getAttribute(const Value& object, const std::string& name) {
  if (object.isUndefined()) throw Error(object.hint());
  if (!name.empty() && name[0] == '_') return Value::undefined("access to attribute '" + name + "' is unsafe");
  if (object.kind() == Value::Kind::Namespace || object.kind() == Value::Kind::Dict) {
    if (object.kind() == Value::Kind::Dict) {
      Value method = boundMethod(object, name);
      if (!method.isUndefined()) return method;
    }
    if (const Value* v = object.asDict().find(name)) return *v;
  } else {
    Value method = boundMethod(object, name);
    if (!method.isUndefined()) return method;
  }
  const std::string type = object.isNone() ? "None" : object.typeName() + " object";
  return Value::undefined("'" + type + "' has no attribute '" + name + "'");
}

Value getItem(const Value& object, const Value& key) {
  if (object.isUndefined()) throw Error(object.hint());
  if (object.kind() == Value::Kind::Dict && key.isString())
    if (const Value* v = object.asDict().find(key.asString())) return *v;
  if ((object.isList() || object.isString()) && isInt(key)) {
    const int64_t n = object.isList() ? int64_t(object.asList().size()) : int64_t(decodeUtf8(object.asString()).size());
    int64_t i = key.asInt();
    if (i < 0) i += n;
    if (i >= 0 && i < n) {
      if (object.isList()) return object.asList()[size_t(i)];
      return Value::string(encodeUtf8(std::u32string(1, decodeUtf8(object.asString())[size_t(i)])));
    }
    return Value::undefined("'" + object.typeName() + " object' has no element " + std::to_string(key.asInt()));
  }
  if (key.isString()) return getAttribute(object, key.asString());
  return Value::undefined("'" + object.typeName() + " object' has no element " + key.repr());
}

namespace {

int64_t sliceBound(const Value& v, const char* what) {
  if (!isInt(v)) throw Error(std::string("slice ") + what + " must be an integer or none, got " + v.typeName());
  return v.asInt();
}

}  // namespace

Value getSlice(const Value& object, const Value& start, const Value& stop, const Value& step) {
  if (object.isUndefined()) throw Error(object.hint());
  if (!object.isList() && !object.isString()) throw Error("'" + object.typeName() + "' object is not subscriptable");
  const std::u32string chars = object.isString() ? decodeUtf8(object.asString()) : std::u32string();
  const int64_t n = object.isList() ? int64_t(object.asList().size()) : int64_t(chars.size());
  const auto given = [](const Value& v) { return !v.isUndefined() && !v.isNone(); };
  const int64_t st = given(step) ? sliceBound(step, "step") : 1;
  if (st == 0) throw Error("slice step cannot be zero");
  auto adjust = [&](const Value& v, int64_t dflt, const char* what) {
    if (!given(v)) return dflt;
    int64_t i = sliceBound(v, what);
    if (i < 0) i = std::max<int64_t>(i + n, st < 0 ? -1 : 0);
    else if (i >= n) i = st < 0 ? n - 1 : n;
    return i;
  };
  const int64_t b = adjust(start, st < 0 ? n - 1 : 0, "start"), e = adjust(stop, st < 0 ? -1 : n, "stop");
  List items;
  std::u32string text;
  for (int64_t i = b; st > 0 ? i < e : i > e; i += st) {
    if (object.isList()) items.push_back(object.asList()[size_t(i)]);
    else text.push_back(chars[size_t(i)]);
  }
  return object.isList() ? Value::list(items) : Value::string(encodeUtf8(text));
}

}  // namespace lwb::jinja
