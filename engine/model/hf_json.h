#pragma once
// Typed field access for tokenizer.json: every failure is an lwb::Error naming the file,
// the field path and what was expected.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "engine/common/error.h"
#include "engine/model/hf_regex.h"

namespace lwb::hf {

inline const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& where) {
  check(j.is_object(), where + ": expected a JSON object, found " + std::string(j.type_name()));
  const auto it = j.find(key);
  check(it != j.end(), where + ": field '" + key + "' is missing");
  return *it;
}

inline std::string stringField(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  check(v.is_string(), where + ": field '" + key + "' is " + v.dump().substr(0, 80) + ", expected a string");
  return v.get<std::string>();
}

inline const nlohmann::json& arrayField(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  check(v.is_array(), where + ": field '" + key + "' is " + std::string(v.type_name()) + ", expected an array");
  return v;
}

// An optional boolean (absent or null → fallback).
inline bool boolField(const nlohmann::json& j, const char* key, const std::string& where, bool fallback) {
  check(j.is_object(), where + ": expected a JSON object, found " + std::string(j.type_name()));
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  check(it->is_boolean(), where + ": field '" + key + "' is " + it->dump().substr(0, 80) + ", expected true or false");
  return it->get<bool>();
}

// An id: a non-negative integer below 2^31. `where` is the text naming it, or a function
// that builds that text only on failure (for loops over a whole vocabulary, where building
// each entry's text cost more than reading it).
template <typename Where>
inline int idValue(const nlohmann::json& v, const Where& where) {
  check(v.is_number_unsigned() && v.get<unsigned long long>() < (1ull << 31), [&] {
    std::string at;
    if constexpr (std::is_invocable_v<const Where&>) at = where();
    else at = where;
    return at + " is " + v.dump().substr(0, 80) + ", expected a token id (a non-negative integer)";
  });
  return int(v.get<unsigned long long>());
}

// "pattern": {"String": "..."} or {"Regex": "..."}.
inline std::unique_ptr<Regex> patternField(const nlohmann::json& j, const std::string& where) {
  const nlohmann::json& p = field(j, "pattern", where);
  check(p.is_object(), where + ": field 'pattern' is " + p.dump().substr(0, 80) + ", expected {\"String\"|\"Regex\": ...}");
  for (const char* kind : {"String", "Regex"})
    if (p.contains(kind)) return std::make_unique<Regex>(stringField(p, kind, where + ".pattern"), kind[0] == 'S',
                                                         where + ".pattern");
  throw Error(where + ": field 'pattern' is " + p.dump().substr(0, 80) + ", expected {\"String\"|\"Regex\": ...}");
}

}  // namespace lwb::hf
