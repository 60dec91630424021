// Python's json.dumps, which Hugging Face's tojson filter calls (not jinja2's own tojson,
// which escapes HTML characters): separators (', ', ': ') without indent, (',', ': ') with.
#include <algorithm>
#include <cmath>

#include "engine/common/error.h"
#include "engine/model/jinja/text.h"
#include "engine/model/jinja/value.h"

namespace lwb::jinja {

namespace {

struct JsonWriter {
  int indent;
  bool ensureAscii, sortKeys;
  std::string out;

  void hex4(unsigned v) {
    char buf[16];
    snprintf(buf, sizeof buf, "\\u%04x", v);
    out += buf;
  }

  void string(const std::string& s) {
    out.push_back('"');
    for (char32_t c : decodeUtf8(s)) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) hex4(c);
          else if (!ensureAscii || c < 0x80) appendUtf8(out, c);
          else if (c < 0x10000) hex4(c);
          else hex4(0xD800 + ((c - 0x10000) >> 10)), hex4(0xDC00 + ((c - 0x10000) & 0x3FF));
      }
    }
    out.push_back('"');
  }

  void newline(int level) {
    if (indent < 0) return;
    out.push_back('\n');
    out.append(size_t(indent * level), ' ');
  }

  void number(double d) {
    if (std::isnan(d)) out += "NaN";
    else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
    else out += formatFloat(d);
  }

  void value(const Value& v, int level) {
    switch (v.kind()) {
      case Value::Kind::None: out += "null"; return;
      case Value::Kind::Bool: out += v.asBool() ? "true" : "false"; return;
      case Value::Kind::Int: out += std::to_string(v.asInt()); return;
      case Value::Kind::Float: number(v.asDouble()); return;
      case Value::Kind::String: string(v.asString()); return;
      case Value::Kind::List: list(v.asList(), level); return;
      case Value::Kind::Dict: dict(v.asDict(), level); return;
      default: throw Error("tojson: object of type " + v.typeName() + " is not JSON serializable");
    }
  }

  void list(const List& items, int level) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    out.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += indent < 0 ? ", " : ",";
      newline(level + 1);
      value(items[i], level + 1);
    }
    newline(level);
    out.push_back(']');
  }

  void dict(const Dict& d, int level) {
    if (d.entries.empty()) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<std::string, Value>*> entries;
    for (const auto& e : d.entries) entries.push_back(&e);
    if (sortKeys)
      std::stable_sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->first < b->first; });
    out.push_back('{');
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i) out += indent < 0 ? ", " : ",";
      newline(level + 1);
      string(entries[i]->first);
      out += ": ";
      value(entries[i]->second, level + 1);
    }
    newline(level);
    out.push_back('}');
  }
};

}  // namespace

std::string dumpJson(const Value& v, int indent, bool ensureAscii, bool sortKeys) {
  JsonWriter w{indent, ensureAscii, sortKeys, {}};
  w.value(v, 0);
  return std::move(w.out);
}

}  // namespace lwb::jinja
