#pragma once
// What the HTTP API tests (tst_server, tst_server_errors, tst_server_openai) share: a
// server on an ephemeral loopback port in front of an EngineLoop with the bundled model,
// a client, the engine's own greedy answer to compare with, server-sent events parsed,
// OpenAI's error object checked. Header-only: only the tests that link lwb_server
// include it.
#include <QtTest>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/bundled_model.h"
#include "engine/common/json.h"
#include "engine/engine.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "server/api_server.h"

namespace lwb::test {

// Where tools/install-deps.sh puts the pinned `openai` npm package (the official client
// the OpenAI-compatibility tests run unmodified).
inline QString openaiNodeModulesDir() {
  QString cache = qEnvironmentVariable("LWB_CACHE_DIR");
  if (cache.isEmpty()) cache = QDir::homePath() + "/.cache/llm-workbench";
  return cache + "/npm/openai/node_modules";
}

using nlohmann::json;

// One Prometheus sample line: name{label="value",...} number (a plain string: moc trips
// over raw string literals).
inline const char* const kSampleLine =
    "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"(\\\\.|[^\"\\\\])*\",?)*\\})? (\\S+)$";

struct Sse {
  std::vector<json> chunks;
  bool done = false;        // "data: [DONE]" came last
  bool wellFormed = true;   // every event was "data: ..." with valid JSON
};

inline Sse parseSse(const std::string& body) {
  Sse out;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) {
      out.wellFormed = false;
      break;
    }
    const std::string event = body.substr(pos, end - pos);
    pos = end + 2;
    if (event.rfind("data: ", 0) != 0 || out.done) out.wellFormed = false;
    const std::string data = event.substr(std::min<size_t>(6, event.size()));
    if (data == "[DONE]") {
      out.done = true;
      continue;
    }
    json j = lwb::parseJsonOrDiscarded(data);
    if (j.is_discarded()) out.wellFormed = false;
    else out.chunks.push_back(std::move(j));
  }
  return out;
}

// Text of a streamed answer: completion "text" or chat "delta.content", in order.
inline std::string streamedText(const Sse& sse) {
  std::string text;
  for (const json& c : sse.chunks)
    for (const json& choice : c.value("choices", json::array())) {
      if (choice.contains("text")) text += choice["text"].get<std::string>();
      if (choice.contains("delta") && choice["delta"].contains("content"))
        text += choice["delta"]["content"].get<std::string>();
    }
  return text;
}

inline std::string finishReasonOf(const Sse& sse) {
  std::string reason;
  for (const json& c : sse.chunks)
    for (const json& choice : c.value("choices", json::array()))
      if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
        reason = choice["finish_reason"].get<std::string>();
  return reason;
}

inline void verifyError(const httplib::Result& r, int status, const std::string& mustMention) {
  QVERIFY(r);
  QCOMPARE(r->status, status);
  const json j = lwb::parseJsonOrDiscarded(r->body);
  QVERIFY2(!j.is_discarded() && j.contains("error"), r->body.c_str());
  for (const char* key : {"message", "type", "param", "code"}) QVERIFY2(j["error"].contains(key), r->body.c_str());
  QCOMPARE(j["error"]["code"].get<int>(), status);
  QVERIFY2(j["error"]["message"].get<std::string>().find(mustMention) != std::string::npos, r->body.c_str());
}

struct ServerHarness {
  std::shared_ptr<const Model> model = bundledModel();
  std::unique_ptr<EngineLoop> loop;
  std::unique_ptr<server::ApiServer> server;
  int port = 0;

  void start(const std::string& apiKey = {}) {
    server.reset();
    loop = std::make_unique<EngineLoop>(model, cpuTestConfig());
    server::ServerOptions o;
    o.port = 0;
    o.apiKey = apiKey;
    o.servedModelName = "austen";
    o.maxBodyBytes = 1 << 20;
    server = std::make_unique<server::ApiServer>(*loop, o);
    port = server->start();
    QVERIFY(port > 0);
  }

  void stop() {
    server.reset();
    loop.reset();
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    c.set_connection_timeout(10, 0);
    return c;
  }

  httplib::Result post(const std::string& path, const json& body, const httplib::Headers& headers = {}) const {
    return client().Post(path.c_str(), headers, body.dump(), "application/json");
  }

  // What the engine itself answers (greedy), as `generate` does: ids → text.
  std::string engineGreedy(const std::vector<int>& prompt, int maxTokens,
                           const EngineConfig& config = cpuTestConfig()) const {
    Engine engine(model, config);
    RequestInput in;
    in.promptTokenIds = prompt;
    in.sampling.temperature = 0;
    in.sampling.maxTokens = maxTokens;
    const RequestId id = engine.addRequest(in);
    std::string text;
    while (engine.hasUnfinishedRequests())
      for (const TokenDelta& d : engine.step().deltas)
        if (d.id == id) text += d.newText;
    return text;
  }

  // Waits (bounded) until the engine holds no request and no KV block.
  bool waitIdle() const {
    for (int i = 0; i < 3000; ++i) {
      auto s = loop->snapshot();
      size_t owned = 0;
      for (const KvBlockInfo& b : s->kvBlocks) owned += b.kind == KvBlockInfo::Kind::Owned;
      if (s->numRunning == 0 && s->numWaiting == 0 && owned == 0 && server->numOpenRequests() == 0) return true;
      QThread::msleep(10);
    }
    return false;
  }
};

}  // namespace lwb::test
