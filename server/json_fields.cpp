#include "server/json_fields.h"

#include <cmath>
#include <cstdio>

namespace lwb::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxStopStrings = 64;
constexpr size_t kMaxShown = 40;  // characters of a bad string value quoted back

std::string range(double lo, double hi, bool lowOpen) {
  const bool hasHi = std::isfinite(hi);
  if (!hasHi) return std::string(lowOpen ? "> " : ">= ") + formatNumber(lo);
  return std::string(lowOpen ? "(" : "[") + formatNumber(lo) + ", " + formatNumber(hi) + "]";
}

}  // namespace

const json* field(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string formatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      return s.size() <= kMaxShown ? json(s).dump(-1, ' ', false, json::error_handler_t::replace)
                                   : "a string of " + std::to_string(s.size()) + " bytes";
    }
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return formatNumber(v.get<double>());
    default: return v.dump();
  }
}

std::optional<bool> optBool(const json& object, const char* name, const std::string& display) {
  const json* v = field(object, name);
  if (!v) return std::nullopt;
  if (!v->is_boolean())
    throw badRequest((display.empty() ? name : display) + ": expected true or false, found " + describe(*v), name);
  return v->get<bool>();
}

std::optional<int64_t> optInt64(const json& object, const char* name) {
  const json* v = field(object, name);
  if (!v) return std::nullopt;
  if (!v->is_number_integer())
    throw badRequest(std::string(name) + ": expected an integer, found " + describe(*v), name);
  return v->is_number_unsigned() ? int64_t(v->get<uint64_t>() & 0x7fffffffffffffffULL) : v->get<int64_t>();
}

std::optional<int> optInt(const json& object, const char* name, int64_t lo, int64_t hi) {
  const json* v = field(object, name);
  if (!v) return std::nullopt;
  const bool integral = v->is_number_integer() ||
                        (v->is_number_float() && std::isfinite(v->get<double>()) &&
                         v->get<double>() == std::floor(v->get<double>()));
  const std::string allowed = std::to_string(lo) + ".." + std::to_string(hi);
  if (!integral) throw badRequest(std::string(name) + ": expected an integer in " + allowed + ", found " + describe(*v), name);
  const double d = v->is_number_unsigned() ? double(v->get<uint64_t>()) : v->get<double>();
  if (d < double(lo) || d > double(hi))
    throw badRequest(std::string(name) + ": " + v->dump() + " is out of range; expected " + allowed, name);
  return int(d);
}

std::optional<double> optNumber(const json& object, const char* name, double lo, double hi, bool lowOpen) {
  const json* v = field(object, name);
  if (!v) return std::nullopt;
  if (!v->is_number())
    throw badRequest(std::string(name) + ": expected a number in " + range(lo, hi, lowOpen) + ", found " + describe(*v),
                     name);
  const double d = v->get<double>();
  const bool ok = std::isfinite(d) && (lowOpen ? d > lo : d >= lo) && d <= hi;
  if (!ok)
    throw badRequest(std::string(name) + ": " + formatNumber(d) + " is out of range; expected " +
                         range(lo, hi, lowOpen), name);
  return d;
}

std::optional<float> optFloat(const json& object, const char* name, double lo, double hi, bool lowOpen) {
  auto d = optNumber(object, name, lo, std::min(hi, 1e30), lowOpen);
  if (!d) return std::nullopt;
  return float(*d);
}

std::vector<int> intList(const json& value, const std::string& name, int64_t lo, int64_t hi, bool allowEmpty) {
  if (!value.is_array() || (value.empty() && !allowEmpty))
    throw badRequest(name + ": expected " + (allowEmpty ? "an" : "a non-empty") + " array of integers, found " +
                         describe(value), name);
  std::vector<int> out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const json& e = value[i];
    const bool ok = e.is_number_integer() && !(e.is_number_unsigned() && e.get<uint64_t>() > uint64_t(hi)) &&
                    e.get<int64_t>() >= lo && e.get<int64_t>() <= hi;
    if (!ok)
      throw badRequest(name + "[" + std::to_string(i) + "]: " + describe(e) + " is not allowed; expected an integer in " +
                           std::to_string(lo) + ".." + std::to_string(hi), name);
    out.push_back(int(e.get<int64_t>()));
  }
  return out;
}

std::vector<std::string> stopStrings(const json& object) {
  const json* v = field(object, "stop");
  if (!v) return {};
  std::vector<std::string> out;
  auto add = [&out](const json& s) {
    if (!s.is_string() || s.get_ref<const std::string&>().empty())
      throw badRequest("stop: expected non-empty strings, found " + describe(s), "stop");
    out.push_back(s.get<std::string>());
  };
  if (v->is_string()) add(*v);
  else if (v->is_array() && v->size() <= kMaxStopStrings)
    for (const json& s : *v) add(s);
  else
    throw badRequest("stop: expected a string or an array of at most " + std::to_string(kMaxStopStrings) +
                         " strings, found " + describe(*v), "stop");
  return out;
}

// content: a string, or an array of {"type": "text", "text": ...} parts (joined).
ChatMessage parseMessage(const json& m, size_t index) {
  const std::string at = "messages[" + std::to_string(index) + "]";
  if (!m.is_object()) throw badRequest(at + ": expected an object {role, content}, found " + describe(m), "messages");
  const json* role = field(m, "role");
  if (!role || !role->is_string() ||
      (*role != "system" && *role != "user" && *role != "assistant" && *role != "developer"))
    throw badRequest(at + ".role: expected \"system\", \"user\" or \"assistant\", found " +
                         (role ? describe(*role) : std::string("nothing")), "messages");
  ChatMessage out{*role == "developer" ? "system" : role->get<std::string>(), {}};
  const json* content = field(m, "content");
  if (content && content->is_string()) {
    out.content = content->get<std::string>();
    return out;
  }
  if (!content || !content->is_array())
    throw badRequest(at + ".content: expected a string or an array of text parts", "messages");
  for (const json& part : *content) {
    const json* text = part.is_object() ? field(part, "text") : nullptr;
    const json* type = part.is_object() ? field(part, "type") : nullptr;
    if (!type || *type != "text" || !text || !text->is_string())
      throw badRequest(at + ".content: only {\"type\": \"text\", \"text\": ...} parts are supported", "messages");
    out.content += text->get<std::string>();
  }
  return out;
}

}  // namespace lwb::server
