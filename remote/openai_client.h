#pragma once
// A client of an OpenAI-compatible server (vLLM, SGLang, llama.cpp's server,
// `llm-workbench serve`) on cpp-httplib: the model list, /metrics, and streamed
// completions timed chunk by chunk on the client's steady clock. One client per thread
// (httplib::Client serves one request at a time).
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
class Client;
}

namespace lwb::remote {

// "http://host:8000", "http://host:8000/" or "http://host:8000/v1" (a trailing /v1 is the
// API root, not part of the server's base path).
struct Endpoint {
  std::string schemeHostPort;  // "http://host:8000"
  std::string basePath;        // "" or "/proxy/prefix" (no trailing slash)
  std::string url() const { return schemeHostPort + basePath; }
};
// Throws lwb::Error naming the URL when it is not http(s)://host[:port][/path].
Endpoint parseEndpoint(const std::string& url);

struct ClientOptions {
  std::string url;
  std::string apiKey;                // "" = no Authorization header
  double connectTimeoutSeconds = 5;
  double readTimeoutSeconds = 60;    // longest silence inside a response (a stalled stream)
};

// One streamed completion as the client saw it. Times are seconds on the caller's clock.
struct StreamResult {
  double sendTime = 0;
  std::vector<double> chunkTimes;    // arrival of each chunk that carried text
  std::string text;
  std::string finishReason;          // as the server spelled it; "" when none came
  std::optional<int> promptTokens, completionTokens, cachedTokens;  // from "usage"
  int httpStatus = 0;                // 0 when no response came
  bool sawDone = false;              // "data: [DONE]" arrived
  double endTime = 0;
  std::string error;                 // "" = a complete stream
};

class OpenAiClient {
 public:
  using Clock = std::function<double()>;
  explicit OpenAiClient(const ClientOptions& options);  // throws lwb::Error for a bad URL
  ~OpenAiClient();
  OpenAiClient(const OpenAiClient&) = delete;
  OpenAiClient& operator=(const OpenAiClient&) = delete;

  const Endpoint& endpoint() const { return endpoint_; }
  // Ids from GET /v1/models, in the server's order. Throws lwb::Error naming the URL.
  std::vector<std::string> listModels();
  // GET /metrics; nullopt with *why set when the server does not export it or is down.
  std::optional<std::string> fetchMetrics(std::string* why);
  // GET `path` (below the base path) as JSON: llama.cpp's /props and /slots. nullopt with
  // *why set when it is down, answers other than 200 or sends something not JSON.
  std::optional<nlohmann::json> getJson(const std::string& path, std::string* why);
  // POST /v1/completions with `body` (stream is forced on, usage asked for). Never
  // throws: failures are in StreamResult::error. Setting *cancel ends the stream
  // (error "canceled").
  StreamResult streamCompletion(nlohmann::json body, const Clock& now, const std::atomic<bool>* cancel = nullptr);
  // POST /v1/chat/completions with `body` ("messages": the server applies its own chat
  // template), streamed; `onText` gets each chunk's text as it arrives. Setting *cancel
  // ends the stream (error "canceled"). Never throws.
  using TextCallback = std::function<void(const std::string& text)>;
  StreamResult streamChat(nlohmann::json body, const Clock& now, const TextCallback& onText = {},
                          const std::atomic<bool>* cancel = nullptr);

 private:
  StreamResult stream(const std::string& route, nlohmann::json body, const Clock& now, const TextCallback& onText,
                      const std::atomic<bool>* cancel);
  std::string describe(int error) const;
  ClientOptions options_;
  Endpoint endpoint_;
  std::unique_ptr<httplib::Client> http_;
};

}  // namespace lwb::remote
