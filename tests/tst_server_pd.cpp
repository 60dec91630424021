// P/D disaggregation across processes (server/kv_connector_tcp.h, server/pd_proxy.h): a
// prefill serve (kv_producer), a decode serve (kv_consumer) and the proxy on loopback.
// Greedy answers through the proxy equal one colocated engine's, token for token; the
// decode instance found the prompt's full blocks in its prefix cache (pulled, not
// recomputed) and recorded the transfer; every pool and hold returns to idle. The frame
// codec's round trip and its errors.
#include <QtTest>

#include "common/pd_harness.h"
#include "server/kv_connector_tcp.h"
#include "server/kv_transfer_frame.h"
#include "wire/prometheus_text.h"

using namespace lwb;
using namespace lwb::test;

class TestServerPd : public QObject {
  Q_OBJECT
  PdHarness h_;
  ServerHarness colocated_;  // its engineGreedy() is the reference

  QString errorOf(const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return QString::fromUtf8(e.what());
    }
    return {};
  }

 private slots:
  void initTestCase() {
    QVERIFY2(h_.model, kBundledModelMissing);
    h_.start();
  }

  void greedyCompletionEqualsColocated() {
    auto events = h_.decodeLoop->subscribe();
    const json body = {{"model", "austen"}, {"prompt", longPrompt()}, {"max_tokens", 12}, {"temperature", 0}};
    const auto r = h_.post(h_.proxy->address(), "/v1/completions", body);
    QVERIFY(r);
    QVERIFY2(r->status == 200, r->body.c_str());
    const json j = lwb::parseJson(r->body);
    const std::vector<int> prompt = h_.model->encodePrompt(longPrompt());
    QCOMPARE(j["choices"][0]["text"].get<std::string>(), colocated_.engineGreedy(prompt, 12));

    // The decode instance's record: the pulled blocks were a prefix-cache hit.
    std::optional<RequestTimeline> t;
    for (int i = 0; i < 100 && !t; ++i)
      for (EngineEvent& e : events->waitAndDrain(std::chrono::milliseconds(50)))
        if (auto* f = std::get_if<RequestFinishedEvent>(&e)) t = f->timeline;
    QVERIFY(t.has_value());
    const int bs = h_.decodeLoop->config().blockSize;
    const int numFull = int(prompt.size() - 1) / bs;
    QVERIFY(numFull >= 3);
    QCOMPARE(t->numCachedPromptTokens, numFull * bs);
    QVERIFY(t->kvTransferBytes > 0);
    QVERIFY(t->kvTransferTime.has_value());
    QVERIFY(*t->ttft() >= *t->kvTransferTime);
    QVERIFY(h_.waitIdle());

    // Both sides' counters on /metrics.
    const auto dm = PdHarness::clientOf(h_.decode->address()).Get("/metrics");
    QVERIFY(dm && dm->status == 200);
    const remote::PromText decodeMetrics = remote::parsePrometheusText(dm->body);
    QCOMPARE(decodeMetrics.sum("lwb:kv_transfers_total").value_or(0), 1.0);
    QCOMPARE(decodeMetrics.sum("lwb:kv_transfer_bytes_total").value_or(0), double(t->kvTransferBytes));
    const auto pm = PdHarness::clientOf(h_.prefill->address()).Get("/metrics");
    QVERIFY(pm && pm->status == 200);
    const remote::PromText prefillMetrics = remote::parsePrometheusText(pm->body);
    QCOMPARE(prefillMetrics.sum("lwb:kv_transfers_held").value_or(-1), 0.0);
    QVERIFY(prefillMetrics.has("lwb:kv_transfer_dropped_connections_total"));
  }

  void greedyChatStreamEqualsColocated() {
    const std::vector<ChatMessage> messages = {{"user", longPrompt()}};
    const json body = {{"model", "austen"}, {"messages", {{{"role", "user"}, {"content", longPrompt()}}}},
                       {"max_tokens", 10}, {"temperature", 0}, {"stream", true}};
    const auto r = h_.post(h_.proxy->address(), "/v1/chat/completions", body);
    QVERIFY(r);
    QCOMPARE(r->status, 200);
    const Sse sse = parseSse(r->body);
    QVERIFY(sse.wellFormed && sse.done);
    QCOMPARE(streamedText(sse), colocated_.engineGreedy(h_.model->encodeChat(messages, true), 10));
    QCOMPARE(finishReasonOf(sse), std::string("length"));
    QVERIFY(h_.waitIdle());
  }

  void shortPromptNeedsNoTransfer() {  // no full block: nothing to pull
    const json body = {{"prompt", "Emma"}, {"max_tokens", 4}, {"temperature", 0}};
    const auto r = h_.post(h_.proxy->address(), "/v1/completions", body);
    QVERIFY(r && r->status == 200);
    QCOMPARE(lwb::parseJson(r->body)["choices"][0]["text"].get<std::string>(),
             colocated_.engineGreedy(h_.model->encodePrompt("Emma"), 4));
    QVERIFY(h_.waitIdle());
  }

  void proxyForwardsModelsHealthAndErrors() {
    auto c = PdHarness::clientOf(h_.proxy->address());
    auto health = c.Get("/health");
    QVERIFY(health && health->status == 200);
    auto models = c.Get("/v1/models");
    QVERIFY(models && models->status == 200);
    QCOMPARE(lwb::parseJson(models->body)["data"][0]["id"].get<std::string>(), std::string("austen"));
    // The prefill instance's 400 comes through as it was.
    verifyError(h_.post(h_.proxy->address(), "/v1/completions", {{"prompt", "x"}, {"temperature", -1}}), 400,
                "temperature");
    verifyError(h_.post(h_.proxy->address(), "/v1/completions", {{"prompt", "x"}, {"model", "nope"}}), 404, "nope");
  }

  void rolesAreChecked() {
    // A plain request to the consumer asking for a remote decode: it is no producer.
    verifyError(h_.post(h_.decode->address(), "/v1/completions",
                        {{"prompt", "x"}, {"kv_transfer_params", {{"do_remote_decode", true}}}}),
                400, "not a kv_producer");
    verifyError(h_.post(h_.prefill->address(), "/v1/completions",
                        {{"prompt", "x"}, {"kv_transfer_params", {{"do_remote_prefill", true}}}}),
                400, "not a kv_consumer");
    verifyError(h_.post(h_.decode->address(), "/v1/completions",
                        {{"prompt", "x"}, {"kv_transfer_params", {{"do_remote_prefill", true}, {"remote_port", "x"}}}}),
                400, "remote_port");
    QVERIFY(h_.waitIdle());
  }

  void kvTransferConfigTcpKeys() {
    const KvTransferConfig c = parseKvTransferConfig(
        R"({"kv_connector": "TcpConnector", "kv_role": "kv_consumer", "kv_ip": "127.0.0.1", "kv_port": 14579})");
    QVERIFY(c.tcp());
    QCOMPARE(c.kvPort, 14579);
    QCOMPARE(parseKvTransferConfig(c.toJson()), c);
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "TcpConnector", "kv_role": "kv_both"})"); })
                .contains("kv_role \"kv_both\" with TcpConnector"));
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "TcpConnector", "kv_role": "kv_producer", "kv_port": 70000})"); })
                .contains("kv_port is 70000"));
    QVERIFY(errorOf([] { parseKvTransferConfig(R"({"kv_connector": "TcpConnector", "kv_role": "kv_producer", "kv_ip": 1})"); })
                .contains("kv_ip is 1"));
  }

  void frameRoundTripAndErrors() {
    server::KvFrame f{server::KvFrameType::Blocks, 42, 8, 16, {1, 2}, std::string(16, 'x')};
    const std::string bytes = server::encodeKvFrame(f);
    QCOMPARE(bytes.size(), server::kKvFrameHeaderBytes + 16 + 2 * 8 + 16);
    const server::KvFrameHeader head = server::decodeKvFrameHeader(bytes.data());
    const server::KvFrame back = server::decodeKvFrameBody(head, bytes.substr(server::kKvFrameHeaderBytes));
    QCOMPARE(back.requestId, uint64_t(42));
    QCOMPARE(back.hashes, f.hashes);
    QCOMPARE(back.data, f.data);
    std::string bad = bytes;
    bad[0] = 'X';
    QVERIFY(errorOf([&] { server::decodeKvFrameHeader(bad.data()); }).contains("bad magic"));
    bad = bytes;
    bad[4] = 9;
    QVERIFY(errorOf([&] { server::decodeKvFrameHeader(bad.data()); }).contains("version 9"));
    const std::string body47 = bytes.substr(server::kKvFrameHeaderBytes, 47);
    QVERIFY(errorOf([&] { server::decodeKvFrameBody(head, body47); }).contains("header says 48"));
    server::KvFrameHeader shorter = head;
    shorter.length = 47;
    QVERIFY(errorOf([&] { server::decodeKvFrameBody(shorter, body47); }).contains("length 47; expected 48"));
    // The chain hashes leave the prompt's last token out, as an admission's lookup does.
    QCOMPARE(server::promptBlockHashes(std::vector<int>(32, 7), 16).size(), size_t(1));
    QCOMPARE(server::promptBlockHashes(std::vector<int>(33, 7), 16).size(), size_t(2));
  }

  void cleanupTestCase() { h_.stop(); }
};

QTEST_GUILESS_MAIN(TestServerPd)
#include "tst_server_pd.moc"
