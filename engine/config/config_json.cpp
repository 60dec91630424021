#include "engine/config/config_json.h"

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/config/knobs.h"

namespace lwb {

namespace {

nlohmann::json toJson(const Knob& k, const KnobValue& v) {
  if (k.kind == KnobKind::Json) {  // an object, null when off
    const std::string& text = std::get<std::string>(v);
    return text.empty() ? nlohmann::json() : parseJson(text);
  }
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

KnobValue fromJson(const Knob& k, const nlohmann::json& j) {
  const std::string bad = std::string(k.name) + ": expected " + k.expectation() + ", found " + j.dump();
  switch (k.kind) {
    case KnobKind::Bool:
      check(j.is_boolean(), bad);
      return j.get<bool>();
    case KnobKind::Int:
      check(j.is_number_integer(), bad);
      return j.get<int64_t>();
    case KnobKind::Real:
      check(j.is_number(), bad);
      return j.get<double>();
    case KnobKind::Choice:
    case KnobKind::Text:
      check(j.is_string(), bad);
      return j.get<std::string>();
    case KnobKind::Json:  // the knob's setter checks the fields
      check(j.is_null() || j.is_object(), bad);
      return j.is_null() ? std::string() : j.dump();
  }
  throw Error(bad);
}

}  // namespace

nlohmann::json configToJson(const EngineConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const Knob& k : knobTable()) j[std::string(k.name)] = toJson(k, k.get(c));
  return j;
}

EngineConfig configFromJson(const nlohmann::json& j, const EngineConfig& base) {
  check(j.is_object(), "engine config: expected a JSON object of knobs, found " + std::string(j.type_name()));
  EngineConfig c = base;
  for (const Knob& k : knobTable()) {
    auto it = j.find(std::string(k.name));
    if (it != j.end()) k.set(c, fromJson(k, *it));
  }
  return c;
}

}  // namespace lwb
