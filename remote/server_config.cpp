#include "remote/server_config.h"

#include "engine/common/error.h"
#include "remote/remote_metrics.h"

namespace lwb::remote {

using nlohmann::json;

namespace {

// A scalar as text: strings unquoted, numbers and booleans as JSON writes them.
std::string scalarText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

const json& member(const json& obj, const std::string& key, const std::string& where) {
  check(obj.is_object(), where + ": expected an object, found " + std::string(obj.type_name()));
  auto it = obj.find(key);
  check(it != obj.end(), where + ": no \"" + key + "\"");
  return *it;
}

int64_t integer(const json& obj, const std::string& key, const std::string& where) {
  const json& v = member(obj, key, where);
  check(v.is_number_integer(), where + " \"" + key + "\": expected an integer, found " + v.dump());
  return v.get<int64_t>();
}

std::optional<int64_t> optionalInteger(const json& obj, const std::string& key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? std::optional(it->get<int64_t>()) : std::nullopt;
}

// llama.cpp's slot: is_processing in current builds, state (0 idle, 1 busy) in older ones.
bool isProcessing(const json& slot, const std::string& where) {
  if (auto it = slot.find("is_processing"); it != slot.end()) {
    check(it->is_boolean(), where + " \"is_processing\": expected true or false, found " + it->dump());
    return it->get<bool>();
  }
  return integer(slot, "state", where + " (neither is_processing nor state)") != 0;
}

}  // namespace

const ServerConfigEntry* RemoteServerConfig::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

json RemoteServerConfig::toJson() const {
  json values = json::object(), sources = json::object();
  for (const auto& e : entries) {
    values[e.key] = e.value;
    sources[e.key] = e.source;
  }
  return {{"entries", values}, {"sources", sources}, {"notes", notes}};
}

void addCacheConfigInfo(const PromText& metrics, RemoteServerConfig& config) {
  const std::vector<Labels> sets = metrics.labelSets("vllm:cache_config_info");
  if (sets.empty()) return;
  for (const auto& [key, value] : sets.front())
    if (key != "engine" && key != "model_name") config.entries.push_back({key, value, "vllm:cache_config_info"});
}

void addLlamaCppProps(const json& props, RemoteServerConfig& config) {
  const std::string where = "/props";
  check(props.is_object(), where + ": expected an object, found " + std::string(props.type_name()));
  auto add = [&](const std::string& key, const json& v) { config.entries.push_back({key, scalarText(v), where}); };
  add("total_slots", integer(props, "total_slots", where));
  for (const char* key : {"model_path", "build_info"})
    if (auto it = props.find(key); it != props.end() && it->is_string()) add(key, *it);
  if (auto it = props.find("chat_template"); it != props.end())
    add("chat_template", json(it->is_string() && !it->get<std::string>().empty() ? "set" : "none"));
  const json& defaults = member(props, "default_generation_settings", where);
  add("n_ctx", integer(defaults, "n_ctx", where + " default_generation_settings"));
  if (auto it = defaults.find("params"); it != defaults.end() && it->is_object())
    for (const char* key : {"n_predict", "temperature", "top_k", "top_p", "min_p", "repeat_penalty", "samplers"})
      if (auto p = it->find(key); p != it->end()) add(std::string("default ") + key, *p);
}

std::vector<LlamaCppSlot> readLlamaCppSlots(const json& slots) {
  check(slots.is_array(), "/slots: expected an array of slots, found " + std::string(slots.type_name()));
  std::vector<LlamaCppSlot> out;
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string where = "/slots[" + std::to_string(i) + "]";
    const json& s = slots[i];
    LlamaCppSlot slot;
    slot.id = int(integer(s, "id", where));
    slot.nCtx = int(integer(s, "n_ctx", where));
    slot.isProcessing = isProcessing(s, where);
    if (auto t = optionalInteger(s, "id_task"); t && *t >= 0) slot.idTask = t;
    if (auto next = s.find("next_token"); next != s.end() && next->is_object()) {
      slot.nDecoded = optionalInteger(*next, "n_decoded");
      slot.nRemain = optionalInteger(*next, "n_remain");
    }
    out.push_back(slot);
  }
  return out;
}

RemoteServerConfig fetchServerConfig(OpenAiClient& client) {
  RemoteServerConfig config;
  ServerKind kind = ServerKind::Unknown;
  std::string why;
  if (auto text = client.fetchMetrics(&why)) {
    try {
      const PromText metrics = parsePrometheusText(*text, client.endpoint().url() + "/metrics");
      kind = detectServerKind(metrics);
      addCacheConfigInfo(metrics, config);
    } catch (const Error& e) {
      config.notes.push_back(e.what());
    }
  } else {
    config.notes.push_back(why);
  }
  if (kind == ServerKind::Vllm || kind == ServerKind::Sglang) return config;
  if (auto props = client.getJson("/props", &why)) {
    try {
      addLlamaCppProps(*props, config);
    } catch (const Error& e) {
      config.notes.push_back(client.endpoint().url() + e.what());
    }
  } else {
    config.notes.push_back(why);
  }
  return config;
}

}  // namespace lwb::remote
