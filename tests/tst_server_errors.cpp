// The HTTP API when things go wrong, and what it counts: every error status with
// OpenAI's error object, API keys, a client hanging up mid-stream (aborted, blocks
// freed), and /metrics as Prometheus text whose counters match the engine.
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "common/server_harness.h"
#include "engine/common/json.h"
#include "engine/kv/prefix_miss.h"

using namespace lwb;
using namespace lwb::test;

class TestServerErrors : public QObject {
  Q_OBJECT
  ServerHarness h_;

 private slots:
  void initTestCase() { QVERIFY2(h_.model, kBundledModelMissing); }
  void init() { h_.start(); }
  void cleanup() { h_.stop(); }

  void hangUpMidStreamAborts() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(h_.port));
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
    QVERIFY2(h_.waitIdle(), "the aborted request still holds KV blocks");
    auto metrics = h_.client().Get("/metrics");
    QVERIFY(metrics->body.find("vllm:request_success_total{model_name=\"austen\",engine=\"0\",finished_reason=\"abort\"} 1") !=
            std::string::npos);
  }

  void errors() {
    auto c = h_.client();
    verifyError(c.Post("/v1/completions", "{not json", "application/json"), 400, "not valid JSON");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"temperature", -1}}), 400, "temperature: -1");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"top_p", 1.5}}), 400, "(0, 1]");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 0}}), 400, "max_tokens");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"n", 2}}), 400, "n: 2");
    verifyError(h_.post("/v1/completions", {{"prompt", 5}}), 400, "prompt");
    verifyError(h_.post("/v1/completions", {{"max_tokens", 3}}), 400, "prompt: required");
    verifyError(h_.post("/v1/chat/completions", {{"messages", {{{"role", "robot"}, {"content", "x"}}}}}), 400,
                "messages[0].role");
    verifyError(h_.post("/v1/completions", {{"prompt", {1, 2, 99999999}}}), 400, "vocabulary");
    verifyError(h_.post("/v1/chat/completions", {{"messages", {{{"role", "user"}, {"content", "x"}}}},
                                              {"chat_template_kwargs", 5}}), 400, "chat_template_kwargs");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"model", "gpt-4"}}), 404, "gpt-4");
    verifyError(c.Get("/v1/nothing"), 404, "/v1/nothing");
    verifyError(c.Post("/v1/completions", std::string(2 << 20, ' '), "application/json"), 413, "exceeds");
    std::string longPrompt;
    for (int i = 0; i < 3000; ++i) longPrompt += " Darcy";
    verifyError(h_.post("/v1/completions", {{"prompt", longPrompt}}), 400, "max_model_len");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 1 << 30}}), 400, "max_model_len");
    QVERIFY(h_.waitIdle());
  }

  void apiKey() {
    h_.start("s3cret");
    verifyError(h_.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 2}}), 401, "API key");
    verifyError(h_.client().Get("/v1/models", {{"Authorization", "Bearer wrong"}}), 401, "API key");
    QCOMPARE(h_.client().Get("/v1/models", {{"Authorization", "Bearer s3cret"}})->status, 200);
    QCOMPARE(h_.post("/v1/completions", {{"prompt", "a"}, {"max_tokens", 2}}, {{"Authorization", "Bearer s3cret"}})->status,
             200);
    QCOMPARE(h_.client().Get("/health")->status, 200);  // not under /v1
  }

  void metricsMatchEngine() {
    int generated = 0, prompted = 0;
    std::map<std::string, int> missed;  // summed over the answers' usage
    for (int i = 0; i < 5; ++i) {
      auto r = h_.post("/v1/completions", {{"prompt", "Pride " + std::to_string(i)}, {"max_tokens", 7 + i},
                                        {"ignore_eos", true}, {"temperature", 0}});
      QCOMPARE(r->status, 200);
      const json u = lwb::parseJson(r->body)["usage"];
      generated += u["completion_tokens"].get<int>();
      prompted += u["prompt_tokens"].get<int>();
      // Every prompt token is cached or missed for one reason.
      int sum = u["prompt_tokens_details"]["cached_tokens"].get<int>();
      for (const auto& [reason, n] : u["prompt_tokens_details"]["missed_by_reason"].items()) {
        missed[reason] += n.get<int>();
        sum += n.get<int>();
      }
      QCOMPARE(sum, u["prompt_tokens"].get<int>());
    }
    QVERIFY(h_.waitIdle());
    QThread::msleep(300);  // the dispatcher has seen every finish
    const std::string text = h_.client().Get("/metrics")->body;
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
    auto snap = h_.loop->snapshot();
    QCOMPARE(values["vllm:generation_tokens_total" + labels], double(generated));
    QCOMPARE(values["vllm:generation_tokens_total" + labels], double(snap->totals.generatedTokens));
    QCOMPARE(values["vllm:prompt_tokens_total" + labels], double(prompted));
    QCOMPARE(values["vllm:prefix_cache_queries_total" + labels], double(snap->totals.prefixQueryTokens));
    QCOMPARE(values["vllm:prefix_cache_hits_total" + labels], double(snap->totals.prefixHitTokens));
    QCOMPARE(values["vllm:num_preemptions_total" + labels], double(snap->totals.preemptions));
    for (int i = 0; i < lwb::kNumPrefixMissReasons; ++i) {  // our counter agrees with the answers' usage
      const std::string reason(lwb::prefixMissReasonName(lwb::prefixMissReasonAt(i)));
      const std::string key = "lwb:prefix_cache_missed_tokens_total{model_name=\"austen\",engine=\"0\",reason=\"" +
                              reason + "\"}";
      QVERIFY2(values.count(key), key.c_str());
      QCOMPARE(values[key], double(missed[reason]));
    }
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
    // Bounds as vLLM prints them: the shortest text of the double, 0.1, not 0.10000000000000001.
    QVERIFY(values.count("vllm:time_to_first_token_seconds_bucket{model_name=\"austen\",engine=\"0\",le=\"0.1\"}"));
    const int maxLen = snap->maxModelLen;
    int top125 = 1;
    for (int v = 1; v <= maxLen; v *= 10)
      for (int m : {1, 2, 5})
        if (m * v <= maxLen) top125 = m * v;
    QVERIFY(values.count("vllm:request_prompt_tokens_bucket{model_name=\"austen\",engine=\"0\",le=\"" +
                         std::to_string(top125) + "\"}"));
  }
};

QTEST_GUILESS_MAIN(TestServerErrors)
#include "tst_server_errors.moc"
