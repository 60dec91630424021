#pragma once
// What a remote server says about its own configuration, read-only (they are its
// start-up flags; the workbench cannot change them): vLLM's vllm:cache_config_info
// labels on /metrics, llama.cpp's GET /props. And llama.cpp's GET /slots (enabled with
// --slots), the per-slot state that server exports instead of vLLM's gauges. Formats
// from the servers' documentation; bad JSON shapes are lwb::Error naming the field.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remote/openai_client.h"
#include "wire/prometheus_text.h"

namespace lwb::remote {

struct ServerConfigEntry {
  std::string key;     // the server's own name: "block_size", "n_ctx", "total_slots"
  std::string value;   // as the server wrote it
  std::string source;  // "vllm:cache_config_info", "/props"
};

struct RemoteServerConfig {
  std::vector<ServerConfigEntry> entries;
  std::vector<std::string> notes;  // what could not be read and why ("GET .../props: HTTP 404")
  const ServerConfigEntry* find(const std::string& key) const;
  nlohmann::json toJson() const;   // {"entries": {key: value}, "sources": {...}, "notes": [...]}
};

// vLLM's vllm:cache_config_info{block_size="16",...} 1: one entry per label ("engine"
// and "model_name" identify the series, not the configuration). No-op without it.
void addCacheConfigInfo(const PromText& metrics, RemoteServerConfig& config);
// llama.cpp's /props: total_slots, model_path, build_info, n_ctx and the default
// sampling params of default_generation_settings, whether a chat template is set.
void addLlamaCppProps(const nlohmann::json& props, RemoteServerConfig& config);

struct LlamaCppSlot {
  int id = 0;
  int nCtx = 0;
  bool isProcessing = false;
  std::optional<int64_t> idTask;  // the task it serves (-1 in the JSON: none)
  std::optional<int64_t> nDecoded, nRemain;
};
std::vector<LlamaCppSlot> readLlamaCppSlots(const nlohmann::json& slots);

// /metrics (vLLM's labels) and, unless the server is vLLM or SGLang, /props. A missing
// or unreadable source becomes a note, never an exception.
RemoteServerConfig fetchServerConfig(OpenAiClient& client);

}  // namespace lwb::remote
