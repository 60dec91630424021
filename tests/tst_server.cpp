// The HTTP API over real loopback HTTP on an ephemeral port, against the bundled model:
// every endpoint whole and streamed, greedy answers equal to the engine's own, 64
// concurrent streams, a client hanging up mid-stream, every error status with OpenAI's
// error object, API keys, and /metrics as Prometheus text whose counters match the engine.
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <sstream>
#include <thread>

#include "common/cli_runner.h"
#include "engine/engine.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "server/api_server.h"

using namespace lwb;
using nlohmann::json;

namespace {

// One Prometheus sample line: name{label="value",...} number (a plain string: moc trips
// over raw string literals).
const char* const kSampleLine =
    "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"(\\\\.|[^\"\\\\])*\",?)*\\})? (\\S+)$";

EngineConfig testConfig() {
  EngineConfig c;
  c.executor.backend = "cpu";
  c.executor.numThreads = 1;
  return c;
}

struct Sse {
  std::vector<json> chunks;
  bool done = false;        // "data: [DONE]" came last
  bool wellFormed = true;   // every event was "data: ..." with valid JSON
};

Sse parseSse(const std::string& body) {
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
    json j = json::parse(data, nullptr, false);
    if (j.is_discarded()) out.wellFormed = false;
    else out.chunks.push_back(std::move(j));
  }
  return out;
}

// Text of a streamed answer: completion "text" or chat "delta.content", in order.
std::string streamedText(const Sse& sse) {
  std::string text;
  for (const json& c : sse.chunks)
    for (const json& choice : c.value("choices", json::array())) {
      if (choice.contains("text")) text += choice["text"].get<std::string>();
      if (choice.contains("delta") && choice["delta"].contains("content"))
        text += choice["delta"]["content"].get<std::string>();
    }
  return text;
}

std::string finishReasonOf(const Sse& sse) {
  std::string reason;
  for (const json& c : sse.chunks)
    for (const json& choice : c.value("choices", json::array()))
      if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
        reason = choice["finish_reason"].get<std::string>();
  return reason;
}

}  // namespace

class TestServer : public QObject {
  Q_OBJECT

  std::shared_ptr<const Model> model_;
  std::unique_ptr<EngineLoop> loop_;
  std::unique_ptr<server::ApiServer> server_;
  int port_ = 0;

  void startServer(const std::string& apiKey = {}) {
    server_.reset();
    loop_ = std::make_unique<EngineLoop>(model_, testConfig());
    server::ServerOptions o;
    o.port = 0;
    o.apiKey = apiKey;
    o.servedModelName = "austen";
    o.maxBodyBytes = 1 << 20;
    server_ = std::make_unique<server::ApiServer>(*loop_, o);
    port_ = server_->start();
    QVERIFY(port_ > 0);
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(120, 0);
    c.set_connection_timeout(10, 0);
    return c;
  }

  httplib::Result post(const std::string& path, const json& body, const httplib::Headers& headers = {}) const {
    return client().Post(path.c_str(), headers, body.dump(), "application/json");
  }

  // What the engine itself answers (greedy), as `generate` does: ids → text.
  std::string engineGreedy(const std::vector<int>& prompt, int maxTokens) const {
    Engine engine(model_, testConfig());
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

  static void verifyError(const httplib::Result& r, int status, const std::string& mustMention) {
    QVERIFY(r);
    QCOMPARE(r->status, status);
    const json j = json::parse(r->body, nullptr, false);
    QVERIFY2(!j.is_discarded() && j.contains("error"), r->body.c_str());
    for (const char* key : {"message", "type", "param", "code"}) QVERIFY2(j["error"].contains(key), r->body.c_str());
    QCOMPARE(j["error"]["code"].get<int>(), status);
    QVERIFY2(j["error"]["message"].get<std::string>().find(mustMention) != std::string::npos, r->body.c_str());
  }

  // Waits (bounded) until the engine holds no request and no KV block.
  bool waitIdle() const {
    for (int i = 0; i < 3000; ++i) {
      auto s = loop_->snapshot();
      size_t owned = 0;
      for (const KvBlockInfo& b : s->kvBlocks) owned += b.kind == KvBlockInfo::Kind::Owned;
      if (s->numRunning == 0 && s->numWaiting == 0 && owned == 0 && server_->numOpenRequests() == 0) return true;
      QThread::msleep(10);
    }
    return false;
  }

 private slots:
  void initTestCase() {
    const QString dir = test::defaultModelInBuildTree();
    QVERIFY2(!dir.isEmpty(), "the bundled model is missing from the build tree");
    model_ = loadModel(dir.toStdString());
  }
  void init() { startServer(); }
  void cleanup() {
    server_.reset();
    loop_.reset();
  }

  void infoRoutes() {
    auto c = client();
    auto health = c.Get("/health");
    QVERIFY(health);
    QCOMPARE(health->status, 200);
    auto version = c.Get("/version");
    QCOMPARE(json::parse(version->body)["version"].get<std::string>(), std::string(LWB_VERSION));
    auto models = c.Get("/v1/models");
    QCOMPARE(models->status, 200);
    const json m = json::parse(models->body);
    QCOMPARE(m["object"].get<std::string>(), std::string("list"));
    QCOMPARE(m["data"][0]["id"].get<std::string>(), std::string("austen"));
    QCOMPARE(m["data"][0]["object"].get<std::string>(), std::string("model"));
    QVERIFY(m["data"][0]["max_model_len"].get<int>() > 0);
  }

  void tokenizeRoundTrip() {
    const std::string text = "It is a truth universally acknowledged";
    auto r = post("/tokenize", {{"model", "austen"}, {"prompt", text}});
    QCOMPARE(r->status, 200);
    const json t = json::parse(r->body);
    QCOMPARE(t["tokens"].get<std::vector<int>>(), model_->encodePrompt(text));
    QCOMPARE(t["count"].get<size_t>(), t["tokens"].size());
    auto d = post("/detokenize", {{"tokens", t["tokens"]}});
    QCOMPARE(d->status, 200);
    QCOMPARE(json::parse(d->body)["prompt"].get<std::string>(), model_->tokenizer->decode(t["tokens"]));
    auto chat = post("/tokenize", {{"messages", {{{"role", "user"}, {"content", "Hello"}}}}});
    QCOMPARE(json::parse(chat->body)["tokens"].get<std::vector<int>>(),
             model_->encodeChat({{"user", "Hello"}}, true));
  }

  void completionWholeEqualsEngine() {
    const std::string prompt = "Mr. Darcy said";
    auto r = post("/v1/completions", {{"model", "austen"}, {"prompt", prompt}, {"max_tokens", 24}, {"temperature", 0}});
    QCOMPARE(r->status, 200);
    const json j = json::parse(r->body);
    QCOMPARE(j["object"].get<std::string>(), std::string("text_completion"));
    QVERIFY(j["id"].get<std::string>().rfind("cmpl-", 0) == 0);
    const std::string expected = engineGreedy(model_->encodePrompt(prompt), 24);
    QCOMPARE(j["choices"][0]["text"].get<std::string>(), expected);
    const json& usage = j["usage"];
    QCOMPARE(usage["prompt_tokens"].get<size_t>(), model_->encodePrompt(prompt).size());
    QCOMPARE(usage["total_tokens"].get<int>(), usage["prompt_tokens"].get<int>() + usage["completion_tokens"].get<int>());
    QVERIFY(usage["prompt_tokens_details"].contains("cached_tokens"));
    // Token ids as the prompt give the same answer.
    auto ids = post("/v1/completions", {{"prompt", model_->encodePrompt(prompt)}, {"max_tokens", 24}, {"temperature", 0}});
    QCOMPARE(json::parse(ids->body)["choices"][0]["text"].get<std::string>(), expected);
  }

  void completionStreamed() {
    const std::string prompt = "Elizabeth walked";
    const json body = {{"prompt", prompt}, {"max_tokens", 20}, {"temperature", 0}, {"stream", true},
                       {"stream_options", {{"include_usage", true}}}, {"logprobs", 2}};
    auto r = post("/v1/completions", body);
    QCOMPARE(r->status, 200);
    QVERIFY(r->get_header_value("Content-Type").find("text/event-stream") == 0);
    const Sse sse = parseSse(r->body);
    QVERIFY(sse.wellFormed);
    QVERIFY(sse.done);
    QCOMPARE(streamedText(sse), engineGreedy(model_->encodePrompt(prompt), 20));
    QVERIFY(!finishReasonOf(sse).empty());
    const json& last = sse.chunks.back();  // the usage chunk: no choices
    QVERIFY(last["choices"].empty());
    QVERIFY(last["usage"]["completion_tokens"].get<int>() >= 1 && last["usage"]["completion_tokens"].get<int>() <= 20);
    QVERIFY(sse.chunks.front()["choices"][0]["logprobs"]["tokens"].size() >= 1);
  }

  void chatWholeAndStreamed() {
    const json messages = {{{"role", "system"}, {"content", "You answer briefly."}},
                           {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Who is Emma?"}}}}}};
    auto whole = post("/v1/chat/completions", {{"messages", messages}, {"max_tokens", 16}, {"temperature", 0}});
    QCOMPARE(whole->status, 200);
    const json w = json::parse(whole->body);
    QCOMPARE(w["object"].get<std::string>(), std::string("chat.completion"));
    QCOMPARE(w["choices"][0]["message"]["role"].get<std::string>(), std::string("assistant"));
    const std::string text = w["choices"][0]["message"]["content"].get<std::string>();
    const auto promptIds = model_->encodeChat({{"system", "You answer briefly."}, {"user", "Who is Emma?"}}, true);
    QCOMPARE(text, engineGreedy(promptIds, 16));

    auto streamed = post("/v1/chat/completions", {{"messages", messages}, {"max_tokens", 16}, {"temperature", 0},
                                                  {"stream", true}, {"stream_options", {{"include_usage", true}}}});
    const Sse sse = parseSse(streamed->body);
    QVERIFY(sse.wellFormed && sse.done);
    QCOMPARE(sse.chunks.front()["object"].get<std::string>(), std::string("chat.completion.chunk"));
    QCOMPARE(sse.chunks.front()["choices"][0]["delta"]["role"].get<std::string>(), std::string("assistant"));
    QCOMPARE(streamedText(sse), text);
    QVERIFY(!finishReasonOf(sse).empty());
    // The second identical prompt finds its full blocks in the prefix cache.
    const json usage = sse.chunks.back()["usage"];
    QVERIFY2(usage["prompt_tokens_details"]["cached_tokens"].get<int>() > 0, usage.dump().c_str());
  }

  void concurrentStreams() {
    constexpr int kClients = 64;
    std::vector<std::string> prompts, answers(kClients), expected(kClients);
    std::vector<int> finished(kClients, 0);
    std::vector<std::string> problems(kClients);
    for (int i = 0; i < kClients; ++i) prompts.push_back("Chapter " + std::to_string(i + 1) + ". Mrs. Bennet");
    std::vector<std::thread> threads;
    for (int i = 0; i < kClients; ++i)
      threads.emplace_back([&, i] {
        auto r = post("/v1/completions", {{"prompt", prompts[i]}, {"max_tokens", 12}, {"temperature", 0},
                                          {"stream", true}});
        if (!r || r->status != 200) {
          problems[i] = r ? "status " + std::to_string(r->status) + ": " + r->body : httplib::to_string(r.error());
          return;
        }
        const Sse sse = parseSse(r->body);
        if (!sse.done) problems[i] = "no [DONE] in: " + r->body;
        finished[i] = sse.wellFormed && sse.done && !finishReasonOf(sse).empty();
        answers[i] = streamedText(sse);
      });
    for (auto& t : threads) t.join();
    for (int i = 0; i < kClients; ++i)
      if (!problems[i].empty()) qWarning("client %d: %s", i, problems[i].c_str());
    for (int i = 0; i < kClients; ++i) {
      QVERIFY2(finished[i], qPrintable(QString("client %1 did not finish cleanly: %2").arg(i).arg(problems[i].c_str())));
      QCOMPARE(answers[i], engineGreedy(model_->encodePrompt(prompts[i]), 12));
    }
    QVERIFY(waitIdle());
  }

  void hangUpMidStreamAborts() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string body =
        json{{"prompt", "The ball at Netherfield"}, {"max_tokens", 400}, {"ignore_eos", true}, {"stream", true}}.dump();
    const std::string req = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    QCOMPARE(::send(fd, req.data(), req.size(), 0), ssize_t(req.size()));
    std::string got;
    char buf[4096];
    while (std::count(got.begin(), got.end(), '\n') < 12) {  // headers and a few events
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      QVERIFY(n > 0);
      got.append(buf, size_t(n));
    }
    ::close(fd);
    QVERIFY2(waitIdle(), "the aborted request still holds KV blocks");
    auto metrics = client().Get("/metrics");
    QVERIFY(metrics->body.find("vllm:request_success_total{model_name=\"austen\",engine=\"0\",finished_reason=\"abort\"} 1") !=
            std::string::npos);
  }

  void errors() {
    auto c = client();
    verifyError(c.Post("/v1/completions", "{not json", "application/json"), 400, "not valid JSON");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"temperature", -1}}), 400, "temperature: -1");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"top_p", 1.5}}), 400, "(0, 1]");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 0}}), 400, "max_tokens");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"n", 2}}), 400, "n: 2");
    verifyError(post("/v1/completions", {{"prompt", 5}}), 400, "prompt");
    verifyError(post("/v1/completions", {{"max_tokens", 3}}), 400, "prompt: required");
    verifyError(post("/v1/chat/completions", {{"messages", {{{"role", "robot"}, {"content", "x"}}}}}), 400,
                "messages[0].role");
    verifyError(post("/v1/completions", {{"prompt", {1, 2, 99999999}}}), 400, "vocabulary");
    verifyError(post("/v1/chat/completions", {{"messages", {{{"role", "user"}, {"content", "x"}}}},
                                              {"chat_template_kwargs", 5}}), 400, "chat_template_kwargs");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"model", "gpt-4"}}), 404, "gpt-4");
    verifyError(c.Get("/v1/nothing"), 404, "/v1/nothing");
    verifyError(c.Post("/v1/completions", std::string(2 << 20, ' '), "application/json"), 413, "exceeds");
    std::string longPrompt;
    for (int i = 0; i < 3000; ++i) longPrompt += " Darcy";
    verifyError(post("/v1/completions", {{"prompt", longPrompt}}), 400, "max_model_len");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 1 << 30}}), 400, "max_model_len");
    QVERIFY(waitIdle());
  }

  void apiKey() {
    startServer("s3cret");
    verifyError(post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 2}}), 401, "API key");
    verifyError(client().Get("/v1/models", {{"Authorization", "Bearer wrong"}}), 401, "API key");
    QCOMPARE(client().Get("/v1/models", {{"Authorization", "Bearer s3cret"}})->status, 200);
    QCOMPARE(post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 2}}, {{"Authorization", "Bearer s3cret"}})->status,
             200);
    QCOMPARE(client().Get("/health")->status, 200);  // not under /v1
  }

  void metricsMatchEngine() {
    int generated = 0, prompted = 0;
    for (int i = 0; i < 5; ++i) {
      auto r = post("/v1/completions", {{"prompt", "Pride " + std::to_string(i)}, {"max_tokens", 7 + i},
                                        {"ignore_eos", true}, {"temperature", 0}});
      QCOMPARE(r->status, 200);
      const json u = json::parse(r->body)["usage"];
      generated += u["completion_tokens"].get<int>();
      prompted += u["prompt_tokens"].get<int>();
    }
    QVERIFY(waitIdle());
    QThread::msleep(300);  // the dispatcher has seen every finish
    const std::string text = client().Get("/metrics")->body;
    const std::regex sample(kSampleLine);
    std::map<std::string, double> values;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
      std::smatch m;
      QVERIFY2(std::regex_match(line, m, sample), line.c_str());
      values[line.substr(0, line.rfind(' '))] = std::stod(m[5].str());
    }
    const std::string labels = "{model_name=\"austen\",engine=\"0\"}";
    auto snap = loop_->snapshot();
    QCOMPARE(values["vllm:generation_tokens_total" + labels], double(generated));
    QCOMPARE(values["vllm:generation_tokens_total" + labels], double(snap->totalGeneratedTokens));
    QCOMPARE(values["vllm:prompt_tokens_total" + labels], double(prompted));
    QCOMPARE(values["vllm:prefix_cache_queries_total" + labels], double(snap->totalPrefixQueryTokens));
    QCOMPARE(values["vllm:prefix_cache_hits_total" + labels], double(snap->totalPrefixHitTokens));
    QCOMPARE(values["vllm:num_preemptions_total" + labels], double(snap->totalPreemptions));
    QCOMPARE(values["vllm:request_success_total{model_name=\"austen\",engine=\"0\",finished_reason=\"length\"}"], 5.0);
    QCOMPARE(values["vllm:time_to_first_token_seconds_count" + labels], 5.0);
    QCOMPARE(values["vllm:e2e_request_latency_seconds_bucket{model_name=\"austen\",engine=\"0\",le=\"+Inf\"}"], 5.0);
    QCOMPARE(values["vllm:inter_token_latency_seconds_count" + labels], double(generated - 5));
    QCOMPARE(values["vllm:num_requests_running" + labels], 0.0);
    QVERIFY(values.count("vllm:iteration_tokens_total_bucket{model_name=\"austen\",engine=\"0\",le=\"16384\"}"));
    QVERIFY(values.count("vllm:time_to_first_token_seconds_bucket{model_name=\"austen\",engine=\"0\",le=\"2560\"}"));
    // vLLM's boundaries: request latencies up to 7680 s, token counts 1-2-5 up to max_model_len.
    QVERIFY(values.count("vllm:e2e_request_latency_seconds_bucket{model_name=\"austen\",engine=\"0\",le=\"7680\"}"));
    QVERIFY(values.count("vllm:inter_token_latency_seconds_bucket{model_name=\"austen\",engine=\"0\",le=\"80\"}"));
    const int maxLen = snap->maxModelLen;
    int top125 = 1;
    for (int v = 1; v <= maxLen; v *= 10)
      for (int m : {1, 2, 5})
        if (m * v <= maxLen) top125 = m * v;
    QVERIFY(values.count("vllm:request_prompt_tokens_bucket{model_name=\"austen\",engine=\"0\",le=\"" +
                         std::to_string(top125) + "\"}"));
  }
};

QTEST_GUILESS_MAIN(TestServer)
#include "tst_server.moc"
