#pragma once
// Typed reads of one JSON request field. Every failure is an ApiError (400) whose
// message names the field, the value found and what is allowed; null counts as absent
// (clients send "field": null for "not set").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/chat_template.h"
#include "server/api_error.h"

namespace lwb::server {

const nlohmann::json* field(const nlohmann::json& object, const char* name);
std::string describe(const nlohmann::json& value);  // "\"abc\"", "an array", "1.5e+300", ...
std::string formatNumber(double v);

std::optional<bool> optBool(const nlohmann::json& object, const char* name, const std::string& display = {});
std::optional<int> optInt(const nlohmann::json& object, const char* name, int64_t lo, int64_t hi);
std::optional<int64_t> optInt64(const nlohmann::json& object, const char* name);
// lowOpen: the lower bound itself is not allowed.
std::optional<double> optNumber(const nlohmann::json& object, const char* name, double lo, double hi,
                                bool lowOpen = false);
std::optional<float> optFloat(const nlohmann::json& object, const char* name, double lo, double hi,
                              bool lowOpen = false);
std::vector<int> intList(const nlohmann::json& value, const std::string& name, int64_t lo, int64_t hi,
                         bool allowEmpty = false);
std::vector<std::string> stopStrings(const nlohmann::json& object);  // "stop": string or array
ChatMessage parseMessage(const nlohmann::json& message, size_t index);

}  // namespace lwb::server
