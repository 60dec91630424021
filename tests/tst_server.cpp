// The HTTP API over real loopback HTTP on an ephemeral port, against the bundled model:
// every endpoint whole and streamed, greedy answers equal to the engine's own, 64
// concurrent streams. Errors, API keys, hang-ups and /metrics: tst_server_errors.
#include <QtTest>

#include <string>
#include <thread>
#include <vector>

#include "common/server_harness.h"
#include "engine/common/json.h"

using namespace lwb;
using namespace lwb::test;

class TestServer : public QObject {
  Q_OBJECT
  ServerHarness h_;

 private slots:
  void initTestCase() { QVERIFY2(h_.model, kBundledModelMissing); }
  void init() { h_.start(); }
  void cleanup() { h_.stop(); }

  void infoRoutes() {
    auto c = h_.client();
    auto health = c.Get("/health");
    QVERIFY(health);
    QCOMPARE(health->status, 200);
    auto version = c.Get("/version");
    QCOMPARE(lwb::parseJson(version->body)["version"].get<std::string>(), std::string(LWB_VERSION));
    auto models = c.Get("/v1/models");
    QCOMPARE(models->status, 200);
    const json m = lwb::parseJson(models->body);
    QCOMPARE(m["object"].get<std::string>(), std::string("list"));
    QCOMPARE(m["data"][0]["id"].get<std::string>(), std::string("austen"));
    QCOMPARE(m["data"][0]["object"].get<std::string>(), std::string("model"));
    QVERIFY(m["data"][0]["max_model_len"].get<int>() > 0);
  }

  void tokenizeRoundTrip() {
    const std::string text = "It is a truth universally acknowledged";
    auto r = h_.post("/tokenize", {{"model", "austen"}, {"prompt", text}});
    QCOMPARE(r->status, 200);
    const json t = lwb::parseJson(r->body);
    QCOMPARE(t["tokens"].get<std::vector<int>>(), h_.model->encodePrompt(text));
    QCOMPARE(t["count"].get<size_t>(), t["tokens"].size());
    auto d = h_.post("/detokenize", {{"tokens", t["tokens"]}});
    QCOMPARE(d->status, 200);
    QCOMPARE(lwb::parseJson(d->body)["prompt"].get<std::string>(), h_.model->tokenizer->decode(t["tokens"]));
    auto chat = h_.post("/tokenize", {{"messages", {{{"role", "user"}, {"content", "Hello"}}}}});
    QCOMPARE(lwb::parseJson(chat->body)["tokens"].get<std::vector<int>>(),
             h_.model->encodeChat({{"user", "Hello"}}, true));
  }

  void completionWholeEqualsEngine() {
    const std::string prompt = "Mr. Darcy said";
    auto r = h_.post("/v1/completions", {{"model", "austen"}, {"prompt", prompt}, {"max_tokens", 24}, {"temperature", 0}});
    QCOMPARE(r->status, 200);
    const json j = lwb::parseJson(r->body);
    QCOMPARE(j["object"].get<std::string>(), std::string("text_completion"));
    QVERIFY(j["id"].get<std::string>().rfind("cmpl-", 0) == 0);
    const std::string expected = h_.engineGreedy(h_.model->encodePrompt(prompt), 24);
    QCOMPARE(j["choices"][0]["text"].get<std::string>(), expected);
    const json& usage = j["usage"];
    QCOMPARE(usage["prompt_tokens"].get<size_t>(), h_.model->encodePrompt(prompt).size());
    QCOMPARE(usage["total_tokens"].get<int>(), usage["prompt_tokens"].get<int>() + usage["completion_tokens"].get<int>());
    QVERIFY(usage["prompt_tokens_details"].contains("cached_tokens"));
    // Token ids as the prompt give the same answer.
    auto ids = h_.post("/v1/completions", {{"prompt", h_.model->encodePrompt(prompt)}, {"max_tokens", 24}, {"temperature", 0}});
    QCOMPARE(lwb::parseJson(ids->body)["choices"][0]["text"].get<std::string>(), expected);
  }

  void completionStreamed() {
    const std::string prompt = "Elizabeth walked";
    const json body = {{"prompt", prompt}, {"max_tokens", 20}, {"temperature", 0}, {"stream", true},
                       {"stream_options", {{"include_usage", true}}}, {"logprobs", 2}};
    auto r = h_.post("/v1/completions", body);
    QCOMPARE(r->status, 200);
    QVERIFY(r->get_header_value("Content-Type").find("text/event-stream") == 0);
    const Sse sse = parseSse(r->body);
    QVERIFY(sse.wellFormed);
    QVERIFY(sse.done);
    QCOMPARE(streamedText(sse), h_.engineGreedy(h_.model->encodePrompt(prompt), 20));
    QVERIFY(!finishReasonOf(sse).empty());
    const json& last = sse.chunks.back();  // the usage chunk: no choices
    QVERIFY(last["choices"].empty());
    QVERIFY(last["usage"]["completion_tokens"].get<int>() >= 1 && last["usage"]["completion_tokens"].get<int>() <= 20);
    QVERIFY(sse.chunks.front()["choices"][0]["logprobs"]["tokens"].size() >= 1);
  }

  void chatWholeAndStreamed() {
    const json messages = {{{"role", "system"}, {"content", "You answer briefly."}},
                           {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Who is Emma?"}}}}}};
    auto whole = h_.post("/v1/chat/completions", {{"messages", messages}, {"max_tokens", 16}, {"temperature", 0}});
    QCOMPARE(whole->status, 200);
    const json w = lwb::parseJson(whole->body);
    QCOMPARE(w["object"].get<std::string>(), std::string("chat.completion"));
    QCOMPARE(w["choices"][0]["message"]["role"].get<std::string>(), std::string("assistant"));
    const std::string text = w["choices"][0]["message"]["content"].get<std::string>();
    const auto promptIds = h_.model->encodeChat({{"system", "You answer briefly."}, {"user", "Who is Emma?"}}, true);
    QCOMPARE(text, h_.engineGreedy(promptIds, 16));

    auto streamed = h_.post("/v1/chat/completions", {{"messages", messages}, {"max_tokens", 16}, {"temperature", 0},
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
        auto r = h_.post("/v1/completions", {{"prompt", prompts[i]}, {"max_tokens", 12}, {"temperature", 0},
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
      QCOMPARE(answers[i], h_.engineGreedy(h_.model->encodePrompt(prompts[i]), 12));
    }
    QVERIFY(h_.waitIdle());
  }
};

QTEST_GUILESS_MAIN(TestServer)
#include "tst_server.moc"
