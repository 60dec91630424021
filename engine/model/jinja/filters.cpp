// jinja2's built-in filters that chat templates use, plus Hugging Face's tojson.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "engine/common/error.h"
#include "engine/model/jinja/builtins.h"
#include "engine/model/jinja/filters_internal.h"
#include "engine/model/jinja/text.h"

namespace lwb::jinja {

namespace {

const Value kNone = Value::none();
const Value kFalse = Value::boolean(false);
const Value kMissing;

std::string text(const Value& v) { return v.str(); }

Value tojson(const Value& v, const CallArgs& a) {
  const Value& indent = argument(a, 0, "indent", kNone);
  if (!indent.isNone() && indent.kind() != Value::Kind::Int) throw Error("tojson: indent must be an integer");
  if (a.keywordArg("separators") && !a.keywordArg("separators")->isNone()) throw Error("tojson: separators= is not supported");
  return Value::string(dumpJson(v, indent.isNone() ? -1 : int(std::clamp<int64_t>(indent.asInt(), 0, 64)),
                                argument(a, 1, "ensure_ascii", kFalse).truthy(), argument(a, 3, "sort_keys", kFalse).truthy()));
}

Value length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined: return Value::integer(0);
    case Value::Kind::String: return Value::integer(int64_t(decodeUtf8(v.asString()).size()));
    case Value::Kind::List: return Value::integer(int64_t(v.asList().size()));
    case Value::Kind::Dict: return Value::integer(int64_t(v.asDict().entries.size()));
    default: throw Error("length: object of type '" + v.typeName() + "' has no len()");
  }
}

Value join(const Value& v, const CallArgs& a) {
  const Value& sep = argument(a, 0, "d", Value::string(""));
  const Value& attribute = argument(a, 1, "attribute", kNone);
  std::string out;
  const List items = v.iterate();
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i ? sep.str() : "") + (attribute.isNone() ? items[i] : attributeOf(items[i], attribute)).str();
  }
  return Value::string(out);
}

Value firstOrLast(const Value& v, bool first) {
  const List items = v.iterate();
  if (items.empty()) return Value::undefined(std::string("no ") + (first ? "first" : "last") + " item, sequence was empty");
  return first ? items.front() : items.back();
}

Value toInt(const Value& v, const CallArgs& a) {
  const Value fallback = argument(a, 0, "default", Value::integer(0));
  if (v.kind() == Value::Kind::Float) {
    if (!std::isfinite(v.asDouble()) || std::fabs(v.asDouble()) > 9.2e18) return fallback;
    return Value::integer(int64_t(v.asDouble()));
  }
  if (v.isNumber()) return Value::integer(v.asInt());
  if (!v.isString()) return fallback;
  const std::string s = pyStrip(v.asString(), std::nullopt, true, true);
  int64_t i = 0;
  const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  if (const auto [end, ec] = std::from_chars(first, s.data() + s.size(), i); ec == std::errc() && end == s.data() + s.size())
    return Value::integer(i);
  double d = 0;  // jinja2 falls back to int(float(value))
  if (parseDouble(s, &d) && std::isfinite(d) && std::fabs(d) < 9.2e18) return Value::integer(int64_t(d));
  return fallback;
}

Value toFloat(const Value& v, const CallArgs& a) {
  const Value fallback = argument(a, 0, "default", Value::number(0));
  if (v.isNumber()) return Value::number(v.asDouble());
  if (!v.isString()) return fallback;
  double d = 0;
  if (parseDouble(pyStrip(v.asString(), std::nullopt, true, true), &d)) return Value::number(d);
  return fallback;
}

Value roundValue(const Value& v, const CallArgs& a) {
  if (!v.isNumber()) throw Error("round: expected a number, got " + v.typeName());
  const int64_t precision = argument(a, 0, "precision", Value::integer(0)).asInt();
  const std::string method = argument(a, 1, "method", Value::string("common")).str();
  if (v.kind() != Value::Kind::Float && method == "common") return Value::integer(v.asInt());
  const double scale = std::pow(10.0, double(std::clamp<int64_t>(precision, -300, 300)));
  const double x = v.asDouble() * scale;
  const double r = method == "ceil" ? std::ceil(x) : method == "floor" ? std::floor(x) : std::nearbyint(x);
  if (method != "common" && method != "ceil" && method != "floor") throw Error("round: method must be common, ceil or floor");
  return Value::number(r / scale);
}

std::string escapeHtml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

Value indent(const Value& v, const CallArgs& a) {
  const Value& width = argument(a, 0, "width", Value::integer(4));
  const std::string pad = width.isString() ? width.asString() : std::string(size_t(std::clamp<int64_t>(width.asInt(), 0, 256)), ' ');
  const bool first = argument(a, 1, "first", kFalse).truthy(), blank = argument(a, 2, "blank", kFalse).truthy();
  std::vector<std::string> lines = pySplit(text(v), std::string("\n"), -1);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\n";
    if ((i > 0 || first) && (blank || !pyStrip(lines[i], std::nullopt, true, true).empty())) out += pad;
    out += lines[i];
  }
  return Value::string(out);
}

Value center(const Value& v, const CallArgs& a) {
  const std::u32string s = decodeUtf8(text(v));
  const int64_t width = std::min<int64_t>(argument(a, 0, "width", Value::integer(80)).asInt(), 1 << 16);
  if (int64_t(s.size()) >= width) return Value::string(text(v));
  const size_t total = size_t(width) - s.size();
  const size_t left = total / 2 + (total & size_t(width) & 1);  // Python's str.center rounding
  return Value::string(std::string(left, ' ') + text(v) + std::string(total - left, ' '));
}

Value batch(const Value& v, const CallArgs& a) {
  const int64_t size = argument(a, 0, "linecount", Value::integer(1)).asInt();
  if (size <= 0) throw Error("batch: linecount must be positive");
  const Value& fill = argument(a, 1, "fill_with", kNone);
  List out, row;
  for (const Value& item : v.iterate()) {
    row.push_back(item);
    if (int64_t(row.size()) == size) out.push_back(Value::list(row)), row.clear();
  }
  if (!row.empty()) {
    while (!fill.isNone() && int64_t(row.size()) < size) row.push_back(fill);
    out.push_back(Value::list(row));
  }
  return Value::list(out);
}

Value wordcount(const Value& v) {
  int64_t n = 0;
  bool inWord = false;
  for (char32_t c : decodeUtf8(text(v))) {
    const bool word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    if (word && !inWord) ++n;
    inWord = word;
  }
  return Value::integer(n);
}

using FilterFn = Value (*)(const Value&, const CallArgs&);

const std::map<std::string, FilterFn>& filterTable() {
  static const std::map<std::string, FilterFn> table = {
      {"trim", [](const Value& v, const CallArgs& a) {
         const Value& chars = argument(a, 0, "chars", kNone);
         return Value::string(pyStrip(text(v), chars.isNone() ? std::nullopt : std::optional(chars.str()), true, true));
       }},
      {"tojson", tojson},
      {"length", [](const Value& v, const CallArgs&) { return length(v); }},
      {"count", [](const Value& v, const CallArgs&) { return length(v); }},
      {"join", join},
      {"default", defaultValue},
      {"d", defaultValue},
      {"first", [](const Value& v, const CallArgs&) { return firstOrLast(v, true); }},
      {"last", [](const Value& v, const CallArgs&) { return firstOrLast(v, false); }},
      {"selectattr", [](const Value& v, const CallArgs& a) { return selectItems(v, a, true, true); }},
      {"rejectattr", [](const Value& v, const CallArgs& a) { return selectItems(v, a, true, false); }},
      {"select", [](const Value& v, const CallArgs& a) { return selectItems(v, a, false, true); }},
      {"reject", [](const Value& v, const CallArgs& a) { return selectItems(v, a, false, false); }},
      {"map", mapItems},
      {"items", [](const Value& v, const CallArgs&) {
         if (v.isUndefined()) return Value::list({});
         if (!v.isMapping()) throw Error("items: expected a mapping, got " + v.typeName());
         return boundMethod(v, "items").asFunction()(CallArgs{});
       }},
      {"upper", [](const Value& v, const CallArgs&) { return Value::string(pyUpper(text(v))); }},
      {"lower", [](const Value& v, const CallArgs&) { return Value::string(pyLower(text(v))); }},
      {"title", [](const Value& v, const CallArgs&) { return Value::string(pyTitle(text(v))); }},
      {"capitalize", [](const Value& v, const CallArgs&) { return Value::string(pyCapitalize(text(v))); }},
      {"replace", [](const Value& v, const CallArgs& a) {
         const Value& count = argument(a, 2, "count", kNone);
         return Value::string(pyReplace(text(v), argument(a, 0, "old", kMissing).str(), argument(a, 1, "new", kMissing).str(),
                                        count.isNone() ? -1 : count.asInt()));
       }},
      {"string", [](const Value& v, const CallArgs&) { return Value::string(text(v)); }},
      {"safe", [](const Value& v, const CallArgs&) { return Value::string(text(v)); }},
      {"escape", [](const Value& v, const CallArgs&) { return Value::string(escapeHtml(text(v))); }},
      {"e", [](const Value& v, const CallArgs&) { return Value::string(escapeHtml(text(v))); }},
      {"int", toInt},
      {"float", toFloat},
      {"list", [](const Value& v, const CallArgs&) { return Value::list(v.iterate()); }},
      {"unique", uniqueItems},
      {"reverse", [](const Value& v, const CallArgs&) {
         if (v.isString()) {
           std::u32string u = decodeUtf8(v.asString());
           std::reverse(u.begin(), u.end());
           return Value::string(encodeUtf8(u));
         }
         List items = v.iterate();
         std::reverse(items.begin(), items.end());
         return Value::list(items);
       }},
      {"sort", sortItems},
      {"dictsort", dictSort},
      {"sum", sumItems},
      {"min", [](const Value& v, const CallArgs& a) { return minMax(v, a, true); }},
      {"max", [](const Value& v, const CallArgs& a) { return minMax(v, a, false); }},
      {"attr", [](const Value& v, const CallArgs& a) { return getAttribute(v, stringArgument(a, 0, "name", "attr")); }},
      {"round", roundValue},
      {"abs", [](const Value& v, const CallArgs&) {
         if (v.kind() == Value::Kind::Float) return Value::number(std::fabs(v.asDouble()));
         if (!v.isNumber()) throw Error("abs: bad operand type '" + v.typeName() + "'");
         if (v.asInt() == INT64_MIN) throw Error("abs: integer overflow");
         return Value::integer(std::llabs(v.asInt()));
       }},
      {"format", [](const Value& v, const CallArgs& a) { return Value::string(percentFormat(text(v), Value::list(a.positional))); }},
      {"indent", indent},
      {"center", center},
      {"wordcount", [](const Value& v, const CallArgs&) { return wordcount(v); }},
      {"batch", batch},
  };
  return table;
}

}  // namespace

Value applyFilter(const std::string& name, const Value& subject, const CallArgs& args) {
  const auto& table = filterTable();
  const auto it = table.find(name);
  if (it == table.end()) throw Error("unsupported filter '" + name + "'");
  return it->second(subject, args);
}

}  // namespace lwb::jinja
