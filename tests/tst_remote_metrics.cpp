// The remote mode's readers on their own: Prometheus text (fixtures written from vLLM's,
// SGLang's and llama.cpp's documented names), server kind detection, malformed input
// (an error naming the line, never a crash), histogram quantiles and the SSE parser fed
// in arbitrary pieces. llama.cpp's /props and /slots fixtures (llamacpp_*.json) are the
// response examples of its server README with values changed; vLLM's configuration is
// the labels of vllm:cache_config_info.
#include <QtTest>

#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "wire/prometheus_text.h"
#include "remote/remote_metrics.h"
#include "remote/server_config.h"
#include "wire/sse_parser.h"
#include "server/server_metrics.h"

using namespace lwb;
using namespace lwb::remote;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(LWB_TEST_DATA_DIR) + "/remote_metrics/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json jsonFixture(const std::string& name) { return lwb::parseJson(fixture(name)); }

template <class F>
QString errorOf(F f) {
  try {
    f();
  } catch (const lwb::Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestRemoteMetrics : public QObject {
  Q_OBJECT

 private slots:
  void vllmFixture() {
    const PromText m = parsePrometheusText(fixture("vllm.txt"), "vllm.txt");
    QVERIFY(!m.samples.empty());
    const RemoteServerState s = readServerState(m);
    QCOMPARE(s.kind, ServerKind::Vllm);
    QCOMPARE(*s.numRunning, 5.0);  // two engines add up
    QCOMPARE(*s.numWaiting, 4.0);
    QCOMPARE(*s.kvCacheUsage, 0.375);  // the fullest engine
    QCOMPARE(*s.prefixCacheQueries, 20000.0);
    QCOMPARE(*s.prefixCacheHits, 8000.0);
    QCOMPARE(*s.numPreemptions, 7.0);
    QCOMPARE(*s.numRequestsFinished, 100.0);
    QCOMPARE(*s.specAcceptedTokens, 210.0);
    QCOMPARE(*s.numIterations, 100.0);
    QVERIFY(s.ttft && s.itl && !s.e2e);
    QCOMPARE(s.ttft->count, 100.0);
    QCOMPARE(s.ttft->upperBounds.size(), size_t(4));
    QVERIFY(std::isinf(s.ttft->upperBounds.back()));
    QCOMPARE(s.ttft->sum, 2.25);
    QCOMPARE(m.types.at("vllm:time_to_first_token_seconds"), std::string("histogram"));
    QCOMPARE(m.sum("vllm:request_success_total", {{"finished_reason", "length"}}).value(), 9.0);
    const auto info = m.labelSets("vllm:cache_config_info");
    QCOMPARE(info.size(), size_t(1));
    QCOMPARE(info[0].at("block_size"), std::string("16"));
  }

  void vllmCacheConfig() {
    RemoteServerConfig c;
    addCacheConfigInfo(parsePrometheusText(fixture("vllm.txt")), c);
    QCOMPARE(c.find("block_size")->value, std::string("16"));
    QCOMPARE(c.find("num_gpu_blocks")->value, std::string("27971"));
    QCOMPARE(c.find("enable_prefix_caching")->source, std::string("vllm:cache_config_info"));
    QVERIFY(!c.find("engine"));  // identifies the series, not a setting
    RemoteServerConfig none;
    addCacheConfigInfo(parsePrometheusText(fixture("sglang.txt")), none);
    QVERIFY(none.entries.empty());
    // Our server's series carries kv_cache_dtype in force as cache_dtype, as vLLM's does.
    EngineSnapshot snap;
    snap.config.executor.kvCacheDtype = "bfloat16";
    RemoteServerConfig own;
    addCacheConfigInfo(parsePrometheusText(server::ServerMetrics(64).render(snap, "m")), own);
    QCOMPARE(own.find("cache_dtype")->value, std::string("bfloat16"));
  }

  void llamaCppProps() {
    RemoteServerConfig c;
    addLlamaCppProps(jsonFixture("llamacpp_props.json"), c);
    QCOMPARE(c.find("total_slots")->value, std::string("2"));
    QCOMPARE(c.find("n_ctx")->value, std::string("2048"));
    QCOMPARE(c.find("model_path")->value, std::string("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"));
    QCOMPARE(c.find("default top_k")->value, std::string("40"));
    QCOMPARE(c.find("chat_template")->value, std::string("set"));
    QCOMPARE(c.toJson()["sources"]["n_ctx"].get<std::string>(), std::string("/props"));
    auto broken = jsonFixture("llamacpp_props.json");
    broken["default_generation_settings"].erase("n_ctx");
    QVERIFY(errorOf([&] { addLlamaCppProps(broken, c); }).contains("default_generation_settings: no \"n_ctx\""));
    broken["total_slots"] = "two";
    QVERIFY(errorOf([&] { addLlamaCppProps(broken, c); }).contains("\"total_slots\": expected an integer"));
    QVERIFY(errorOf([&] { addLlamaCppProps(nlohmann::json::array(), c); }).contains("expected an object"));
  }

  void llamaCppSlots() {
    const auto parsed = readLlamaCppSlots(jsonFixture("llamacpp_slots.json"));
    QCOMPARE(parsed.size(), size_t(2));
    QVERIFY(parsed[0].isProcessing && !parsed[1].isProcessing);
    QCOMPARE(parsed[0].idTask.value(), int64_t(7));
    QVERIFY(!parsed[1].idTask);  // -1: no task
    QCOMPARE(parsed[0].nDecoded.value(), int64_t(37));
    QCOMPARE(parsed[0].nCtx, 2048);
    // Older builds say "state" (0 idle, 1 processing) instead of is_processing.
    auto old = jsonFixture("llamacpp_slots.json");
    for (auto& s : old) {
      s["state"] = s["is_processing"].get<bool>() ? 1 : 0;
      s.erase("is_processing");
    }
    QVERIFY(readLlamaCppSlots(old)[0].isProcessing);
    old[1].erase("state");
    QVERIFY(errorOf([&] { readLlamaCppSlots(old); }).contains("/slots[1]"));
    QVERIFY(errorOf([] { readLlamaCppSlots(nlohmann::json::object()); }).contains("expected an array"));
    QVERIFY(errorOf([] { readLlamaCppSlots(nlohmann::json::array({{{"id", 0}}})); }).contains("no \"n_ctx\""));
  }

  void sglangFixture() {
    const RemoteServerState s = readServerState(parsePrometheusText(fixture("sglang.txt")));
    QCOMPARE(s.kind, ServerKind::Sglang);
    QCOMPARE(*s.numRunning, 162.0);
    QCOMPARE(*s.numWaiting, 2826.0);
    QCOMPARE(*s.kvCacheUsage, 0.28);
    QVERIFY(qFuzzyCompare(*s.prefixCacheHitRate, 0.007507552643049313));
    QCOMPARE(*s.promptTokens, 8128902.0);
    QCOMPARE(*s.prefixCacheHits, 2e6);
    QCOMPARE(*s.prefixCacheQueries, 8128902.0);
    QVERIFY(!s.numPreemptions);  // SGLang does not export a preemption counter
    QCOMPARE(s.ttft->count, 11008.0);
  }

  void llamaCppFixture() {
    const RemoteServerState s = readServerState(parsePrometheusText(fixture("llamacpp.txt")));
    QCOMPARE(s.kind, ServerKind::LlamaCpp);
    QCOMPARE(*s.numRunning, 2.0);
    QCOMPARE(*s.numWaiting, 1.0);
    QCOMPARE(*s.generationTokens, 7801.0);
    QCOMPARE(*s.numIterations, 7460.0);
    QVERIFY(!s.kvCacheUsage);  // current builds no longer export kv_cache_usage_ratio
    QVERIFY(!s.prefixCacheHits && !s.numPreemptions && !s.ttft);
    QCOMPARE(serverKindName(s.kind), std::string("llama.cpp"));
  }

  void unknownServer() {
    const PromText m = parsePrometheusText("# a comment\nprocess_cpu_seconds_total 12.5 1700000000000\n\n");
    QCOMPARE(detectServerKind(m), ServerKind::Unknown);
    QCOMPARE(m.sum("process_cpu_seconds_total").value(), 12.5);
    QVERIFY(!readServerState(m).numRunning);
  }

  void specialValuesAndEscapes() {
    const PromText m = parsePrometheusText(
        "a{x=\"q\\\"uote\\\\ \\n\",} NaN\r\nb +Inf\nc -Inf\nd{ } 1e-3\n");
    QCOMPARE(m.samples.size(), size_t(4));
    QCOMPARE(m.samples[0].labels.at("x"), std::string("q\"uote\\ \n"));
    QVERIFY(std::isnan(m.samples[0].value));
    QVERIFY(std::isinf(m.samples[1].value) && m.samples[1].value > 0);
    QCOMPARE(m.samples[3].value, 0.001);
  }

  void malformed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not a number") << "ok 1\nvllm:x{a=\"b\"} twelve\n" << "line 2: 'twelve' is not a number";
    QTest::newRow("missing value") << "vllm:x{a=\"b\"}\n" << "line 1: missing sample value";
    QTest::newRow("unterminated value") << "\n\nvllm:x{a=\"b} 1\n" << "line 3: unterminated label value";
    QTest::newRow("bad escape") << "x{a=\"\\t\"} 1\n" << "line 1: unknown escape";
    QTest::newRow("no comma") << "x{a=\"1\" b=\"2\"} 1\n" << "line 1: expected ',' or '}'";
    QTest::newRow("digit name") << "1x 1\n" << "line 1: expected a metric or label name";
    QTest::newRow("colon in label") << "x{a:b=\"1\"} 1\n" << "line 1: expected '='";
    QTest::newRow("twice") << "x{a=\"1\",a=\"2\"} 1\n" << "line 1: label 'a' given twice";
    QTest::newRow("type") << "# TYPE x bucket\n" << "line 1: unknown type 'bucket'";
    QTest::newRow("timestamp") << "x 1 soon\n" << "line 1: 'soon' is not a timestamp";
    QTest::newRow("trailing") << "x 1 17 18\n" << "line 1: unexpected text after the timestamp";
    QTest::newRow("binary") << QString::fromLatin1("x\x01 1\n") << "line 1: '\x01' is not a number";
  }
  void malformed() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    try {
      parsePrometheusText(text.toStdString(), "fixture");
      QFAIL("accepted malformed text");
    } catch (const Error& e) {
      const QString message = QString::fromStdString(e.what());
      QVERIFY2(message.startsWith("fixture " + expected.left(expected.indexOf(':'))), qPrintable(message));
      QVERIFY2(message.contains(expected), qPrintable(message));
    }
  }

  // Random bytes never crash the parser: it either parses or names a line.
  void randomBytes() {
    std::mt19937 rng(7);
    const std::string alphabet = "ab:_{}=\",\\ \n#01.e+-InfNa\t";
    for (int round = 0; round < 2000; ++round) {
      std::string text;
      const int n = static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
      try {
        parsePrometheusText(text);
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(" line ") != std::string::npos, e.what());
      }
    }
  }

  void quantile() {
    PromHistogram h;
    h.upperBounds = {0.1, 0.2, 0.4, std::numeric_limits<double>::infinity()};
    h.cumulativeCounts = {0, 50, 100, 100};
    QCOMPARE(histogramQuantile(h, 0.5).value(), 0.2);
    QCOMPARE(histogramQuantile(h, 0.25).value(), 0.15);
    QCOMPARE(histogramQuantile(h, 0.75).value(), 0.3);
    h.cumulativeCounts = {0, 0, 0, 0};
    QVERIFY(!histogramQuantile(h, 0.5));
  }

  void ssePieces() {
    const std::string stream =
        ": keep-alive\r\n\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata: line1\ndata: line2\n\ndata:[DONE]\n\n";
    for (size_t piece : {size_t(1), size_t(3), size_t(7), stream.size()}) {
      std::vector<std::string> got;
      SseParser p([&](const std::string& d) {
        got.push_back(d);
        return true;
      });
      for (size_t i = 0; i < stream.size(); i += piece) QVERIFY(p.feed(stream.data() + i, std::min(piece, stream.size() - i)));
      QCOMPARE(got, (std::vector<std::string>{"{\"a\":1}", "line1\nline2", "[DONE]"}));
      QVERIFY(!p.hasPartialEvent());
    }
    SseParser cut([](const std::string&) { return false; });
    QVERIFY(!cut.feed("data: x\n\n", 9));  // the callback's stop is passed on
    SseParser partial([](const std::string&) { return true; });
    QVERIFY(partial.feed("data: {\"a\"", 10));
    QVERIFY(partial.hasPartialEvent());
  }
};

QTEST_GUILESS_MAIN(TestRemoteMetrics)
#include "tst_remote_metrics.moc"
