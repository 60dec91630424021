#include "remote/openai_client.h"

#include <httplib.h>

#include <cmath>
#include <regex>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "wire/sse_parser.h"

namespace lwb::remote {
namespace {

using nlohmann::json;

void setTimeout(double seconds, const std::function<void(time_t, time_t)>& set) {
  const double whole = std::floor(seconds);
  set(static_cast<time_t>(whole), static_cast<time_t>((seconds - whole) * 1e6));
}

// The "error" object servers answer with (OpenAI's shape), else the start of the body.
std::string errorMessage(const std::string& body) {
  const json j = parseJsonOrDiscarded(body);
  if (j.is_object() && j.contains("error")) {
    const json& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return body.substr(0, 200);
}

// Reads one stream's events into a StreamResult.
struct ChunkReader {
  StreamResult& r;
  const OpenAiClient::Clock& now;
  const OpenAiClient::TextCallback& onText;

  bool onData(const std::string& data) {
    if (r.sawDone) return true;  // nothing may follow [DONE]; ignore rather than guess
    if (data == "[DONE]") {
      r.sawDone = true;
      return true;
    }
    const json j = parseJsonOrDiscarded(data);
    if (!j.is_object()) return fail("malformed stream chunk (not a JSON object): " + data.substr(0, 120));
    if (j.contains("error")) return fail("server error in stream: " + errorMessage(data));
    readChoices(j);
    if (j.contains("usage") && j["usage"].is_object()) readUsage(j["usage"]);
    return true;
  }

  void readChoices(const json& j) {
    if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) return;
    const json& c = j["choices"][0];
    const json* text = c.contains("text") ? &c["text"] : nullptr;
    if (!text && c.contains("delta") && c["delta"].is_object() && c["delta"].contains("content"))
      text = &c["delta"]["content"];
    if (text && text->is_string() && !text->get_ref<const std::string&>().empty()) {
      r.chunkTimes.push_back(now());
      r.text += text->get<std::string>();
      if (onText) onText(text->get<std::string>());
    }
    if (c.contains("finish_reason") && c["finish_reason"].is_string()) r.finishReason = c["finish_reason"];
  }

  void readUsage(const json& u) {
    auto number = [&](const json& o, const char* key) -> std::optional<int> {
      if (o.contains(key) && o[key].is_number_integer()) return o[key].get<int>();
      return std::nullopt;
    };
    r.promptTokens = number(u, "prompt_tokens");
    r.completionTokens = number(u, "completion_tokens");
    if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
      r.cachedTokens = number(u["prompt_tokens_details"], "cached_tokens");
  }

  bool fail(const std::string& message) {
    if (r.error.empty()) r.error = message;
    return false;
  }
};

}  // namespace

Endpoint parseEndpoint(const std::string& url) {
  static const std::regex pattern(R"(^(https?://[A-Za-z0-9.\-]+|https?://\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^?#\s]*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, pattern))
    throw Error("--endpoint '" + url + "': expected http://host[:port][/path] (or https://)");
  Endpoint e;
  e.schemeHostPort = m[1].str() + m[2].str();
  std::string path = m[3].str();
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0) path.resize(path.size() - 3);
  e.basePath = path;
  return e;
}

OpenAiClient::OpenAiClient(const ClientOptions& options) : options_(options), endpoint_(parseEndpoint(options.url)) {
  http_ = std::make_unique<httplib::Client>(endpoint_.schemeHostPort);
  setTimeout(options.connectTimeoutSeconds, [&](time_t s, time_t us) { http_->set_connection_timeout(s, us); });
  setTimeout(options.readTimeoutSeconds, [&](time_t s, time_t us) { http_->set_read_timeout(s, us); });
  setTimeout(options.readTimeoutSeconds, [&](time_t s, time_t us) { http_->set_write_timeout(s, us); });
  if (!options.apiKey.empty()) http_->set_bearer_token_auth(options.apiKey);
  http_->set_keep_alive(true);
}

OpenAiClient::~OpenAiClient() = default;

std::string OpenAiClient::describe(int error) const {
  const auto e = static_cast<httplib::Error>(error);
  const std::string where = endpoint_.url();
  switch (e) {
    case httplib::Error::Connection: return "cannot connect to " + where + " (connection refused or host unreachable)";
    case httplib::Error::ConnectionTimeout: return "connecting to " + where + " timed out";
    case httplib::Error::Read: return "reading from " + where + " failed (connection closed or no data in time)";
    case httplib::Error::Write: return "sending to " + where + " failed (connection closed)";
    default: return "request to " + where + " failed: " + httplib::to_string(e);
  }
}

std::vector<std::string> OpenAiClient::listModels() {
  auto res = http_->Get((endpoint_.basePath + "/v1/models").c_str());
  if (!res) throw Error(describe(static_cast<int>(res.error())));
  if (res->status != 200)
    throw Error("GET " + endpoint_.url() + "/v1/models: HTTP " + std::to_string(res->status) + ": " + errorMessage(res->body));
  const json j = parseJsonOrDiscarded(res->body);
  std::vector<std::string> ids;
  if (j.is_object() && j.contains("data") && j["data"].is_array())
    for (const json& m : j["data"])
      if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"]);
  if (ids.empty()) throw Error("GET " + endpoint_.url() + "/v1/models: no model ids in the answer");
  return ids;
}

std::optional<std::string> OpenAiClient::fetchMetrics(std::string* why) {
  auto res = http_->Get((endpoint_.basePath + "/metrics").c_str());
  if (!res) {
    if (why) *why = describe(static_cast<int>(res.error()));
    return std::nullopt;
  }
  if (res->status != 200) {
    if (why) *why = "GET " + endpoint_.url() + "/metrics: HTTP " + std::to_string(res->status);
    return std::nullopt;
  }
  return res->body;
}

std::optional<json> OpenAiClient::getJson(const std::string& path, std::string* why) {
  const std::string url = endpoint_.url() + path;
  auto res = http_->Get((endpoint_.basePath + path).c_str());
  if (!res) {
    if (why) *why = describe(static_cast<int>(res.error()));
    return std::nullopt;
  }
  if (res->status != 200) {
    if (why) *why = "GET " + url + ": HTTP " + std::to_string(res->status);
    return std::nullopt;
  }
  try {
    return parseJson(res->body);
  } catch (const json::exception& e) {
    if (why) *why = "GET " + url + ": not JSON (" + e.what() + ")";
    return std::nullopt;
  }
}

StreamResult OpenAiClient::streamCompletion(json body, const Clock& now, const std::atomic<bool>* cancel) {
  return stream("/v1/completions", std::move(body), now, {}, cancel);
}

StreamResult OpenAiClient::streamChat(json body, const Clock& now, const TextCallback& onText,
                                      const std::atomic<bool>* cancel) {
  return stream("/v1/chat/completions", std::move(body), now, onText, cancel);
}

StreamResult OpenAiClient::stream(const std::string& route, json body, const Clock& now, const TextCallback& onText,
                                  const std::atomic<bool>* cancel) {
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  StreamResult r;
  ChunkReader reader{r, now, onText};
  SseParser sse([&](const std::string& data) { return reader.onData(data); });
  std::string errorBody;
  double lastByte = 0;

  httplib::Request req;
  req.method = "POST";
  req.path = endpoint_.basePath + route;
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
  req.body = body.dump();
  req.response_handler = [&](const httplib::Response& res) {
    r.httpStatus = res.status;
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    lastByte = now();
    if (cancel && *cancel) {
      r.error = "canceled";
      return false;
    }
    if (r.httpStatus != 200) {
      if (errorBody.size() < 65536) errorBody.append(data, n);
      return true;
    }
    return sse.feed(data, n);
  };
  r.sendTime = now();
  lastByte = r.sendTime;
  auto res = http_->send(req);
  r.endTime = now();
  if (!r.error.empty()) return r;  // the reader's own complaint says more than "canceled"
  if (r.httpStatus != 0 && r.httpStatus != 200) {
    r.error = "HTTP " + std::to_string(r.httpStatus) + ": " + errorMessage(errorBody);
  } else if (!res) {
    const bool stalled = r.endTime - lastByte >= options_.readTimeoutSeconds * 0.9;
    r.error = stalled ? "stalled stream: no data from " + endpoint_.url() + " for " +
                            std::to_string(static_cast<int>(std::lround(options_.readTimeoutSeconds))) + " s"
                      : describe(static_cast<int>(res.error()));
  } else if (!r.sawDone) {
    r.error = "the stream ended without data: [DONE]";
  }
  return r;
}

}  // namespace lwb::remote
