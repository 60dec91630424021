// The remote bench end to end over loopback HTTP: `llm-workbench serve`'s server library
// started in-process on an ephemeral port, driven by the remote load runner. The
// client-side TTFT / ITL / E2E agree with the server's own histograms (within their
// buckets) and the counts equal the server's counters; the server's configuration as
// each kind reports it; `bench --endpoint` from the command line. The failure cases are
// in tst_remote_failures.
#include <QTemporaryDir>
#include <QtTest>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/cli_runner.h"
#include "common/remote_fixtures.h"
#include "engine/common/json.h"
#include "engine/engine_loop.h"
#include "engine/metrics/stats.h"
#include "engine/model/model.h"
#include "remote/remote_bench.h"
#include "remote/remote_report.h"
#include "remote/server_config.h"
#include "server/api_server.h"

using namespace lwb;
using namespace lwb::remote;
using namespace lwb::test;
using nlohmann::json;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(LWB_TEST_DATA_DIR) / "remote_metrics" / name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// llama.cpp's server as its README documents it: /metrics, /props, and /slots unless
// started without --slots (then 501, as llama.cpp answers).
void serveLlamaCpp(FakeServer& f, bool slotsEnabled, const std::string& props) {
  f.http.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(fixture("llamacpp.txt"), "text/plain");
  });
  f.http.Get("/props", [props](const httplib::Request&, httplib::Response& res) {
    res.set_content(props, "application/json");
  });
  f.http.Get("/slots", [slotsEnabled](const httplib::Request&, httplib::Response& res) {
    if (slotsEnabled) return res.set_content(fixture("llamacpp_slots.json"), "application/json");
    res.status = 501;
    res.set_content(R"({"error":{"code":501,"message":"This server does not support slots endpoint."}})",
                    "application/json");
  });
}

// Bucket index holding v (the +Inf bucket is the last).
int bucketOf(const std::vector<double>& bounds, double v) {
  for (size_t i = 0; i < bounds.size(); ++i)
    if (v <= bounds[i]) return static_cast<int>(i);
  return static_cast<int>(bounds.size()) - 1;
}

// The run's own part of a server histogram: after − before, bucket by bucket.
PromHistogram runPart(const std::optional<PromHistogram>& before, const std::optional<PromHistogram>& after) {
  PromHistogram h = after.value();
  if (!before) return h;
  for (size_t i = 0; i < h.cumulativeCounts.size(); ++i) h.cumulativeCounts[i] -= before->cumulativeCounts.at(i);
  h.count -= before->count;
  h.sum -= before->sum;
  return h;
}

int medianBucket(const PromHistogram& h) {
  for (size_t i = 0; i < h.cumulativeCounts.size(); ++i)
    if (h.cumulativeCounts[i] >= 0.5 * h.count) return static_cast<int>(i);
  return -1;
}

}  // namespace

class TestRemote : public QObject {
  Q_OBJECT

  LoopbackServer srv_;
  const std::string& url_ = srv_.url;

 private slots:
  void initTestCase() { QVERIFY2(bundledModel(), kBundledModelMissing); }
  void init() { srv_.start(bundledModel()); }
  void cleanup() { srv_.stop(); }

  void modelsAndEndpoint() {
    OpenAiClient c({url_ + "/v1/"});
    QCOMPARE(c.listModels(), std::vector<std::string>{"austen"});
    QCOMPARE(c.endpoint().url(), url_);
    QVERIFY(throwsError([] { parseEndpoint("ftp://x"); }));
    QVERIFY(throwsError([] { parseEndpoint("http://host:8000?x=1"); }));
    QCOMPARE(parseEndpoint("https://h.example/proxy/v1").basePath, std::string("/proxy"));
  }

  // The client's numbers against the server's own histograms and counters.
  void agreesWithServerMetrics() {
    // All at once with long prompts: the server's queueing puts most TTFTs in the wide
    // buckets (0.1, 0.25, 0.5 s), where the client's own overhead (connect, threads on a
    // busy CI machine: a few to tens of ms) cannot move a median by more than one.
    // A read timeout that covers the whole run: the server serves a few streams at a time
    // and the others wait in silence, which under ASan on a small CI machine outlasts the
    // default of 30 s. This test is about the figures.
    const auto w = remoteWorkload(16, std::numeric_limits<double>::infinity(), 12, 16, 200);
    const RemoteBenchRun run = runRemoteBenchmark(optionsFor(url_, 300), w);
    const BenchReport& r = run.report;
    QCOMPARE(r.completed, 16);
    QCOMPARE(r.numFailed, 0);
    QCOMPARE(r.totalOutputTokens, int64_t(16 * 12));
    const ServerObservation& s = run.server;
    QCOMPARE(s.kind, ServerKind::Vllm);
    QVERIFY(s.before && s.after);
    const ServerFigures f = serverFigures(s);
    QCOMPARE(f.generationTokens.value(), double(r.totalOutputTokens));
    QCOMPARE(f.promptTokens.value(), double(r.totalInputTokens));
    QCOMPARE(f.numRequestsFinished.value(), double(r.completed));
    QVERIFY(f.prefixCacheHits.value() > 0);  // 16-token shared prefix: the server says it hit
    QCOMPARE(f.numPreemptions.value(), 0.0);
    QVERIFY(f.numSteps.value() > 0);

    std::vector<double> ttft, e2e, gaps;
    int64_t tokenGaps = 0;
    for (const auto& req : r.requests) {
      ttft.push_back(*req.timeline.ttft());
      e2e.push_back(*req.timeline.e2e());
      for (double g : req.timeline.itls()) gaps.push_back(g);
      tokenGaps += req.timeline.numOutputTokens - 1;
    }
    const PromHistogram sTtft = runPart(s.before->ttft, s.after->ttft);
    const PromHistogram sE2e = runPart(s.before->e2e, s.after->e2e);
    const PromHistogram sItl = runPart(s.before->itl, s.after->itl);
    QCOMPARE(sTtft.count, 16.0);
    QCOMPARE(sE2e.count, 16.0);
    QCOMPARE(sItl.count, double(tokenGaps));            // the server counts every token gap
    QVERIFY(double(gaps.size()) <= sItl.count);          // the client one per chunk
    // The client sends before the server stamps arrival and reads after it stamps the
    // first token, so its TTFT is never below the server's: bucket by bucket at most
    // as many client samples fall below each bound.
    for (size_t i = 0; i < sTtft.upperBounds.size(); ++i) {
      const auto below = std::count_if(ttft.begin(), ttft.end(), [&](double v) { return v <= sTtft.upperBounds[i]; });
      QVERIFY2(double(below) <= sTtft.cumulativeCounts[i], qPrintable(QString("le=%1").arg(sTtft.upperBounds[i])));
    }
    qInfo("TTFT median client %.4f s, server bucket le=%g (%.4f s by interpolation); e2e %.4f / %.4f; ITL %.4f / %.4f",
          percentile(ttft, 50), sTtft.upperBounds[medianBucket(sTtft)], histogramQuantile(sTtft, 0.5).value(),
          percentile(e2e, 50), histogramQuantile(sE2e, 0.5).value(), percentile(gaps, 50),
          histogramQuantile(sItl, 0.5).value());
    // Medians agree within one bucket.
    QVERIFY(std::abs(bucketOf(sTtft.upperBounds, percentile(ttft, 50)) - medianBucket(sTtft)) <= 1);
    QVERIFY(std::abs(bucketOf(sE2e.upperBounds, percentile(e2e, 50)) - medianBucket(sE2e)) <= 1);
    QVERIFY(std::abs(bucketOf(sItl.upperBounds, percentile(gaps, 50)) - medianBucket(sItl)) <= 1);

    const json j = remoteBenchJson(run);
    QCOMPARE(j["completed"].get<int>(), 16);
    QCOMPARE(j["num_preemptions"].get<double>(), 0.0);
    QVERIFY(j["prefix_cache_hit_rate"].get<double>() > 0);
    QVERIFY(j["server"]["metrics_scrapes"].get<int>() >= 2);
    QVERIFY(j["server"]["not_exported"].empty());
    const json local = benchReportJson(BenchReport{});
    for (const auto& [key, value] : local.items()) QVERIFY2(j.contains(key), key.c_str());  // the local bench's keys
  }

  // The server's start-up flags as it reports them: our server's vllm:cache_config_info,
  // a llama.cpp server's /props; its /slots per scrape where enabled, a note where not.
  void serverConfiguration() {
    OpenAiClient own({url_});
    const RemoteServerConfig c = fetchServerConfig(own);
    QVERIFY(c.notes.empty());
    QCOMPARE(c.find("block_size")->value, std::string("16"));
    QCOMPARE(c.find("num_gpu_blocks")->value, std::to_string(srv_.loop->snapshot()->kvBlocks.size()));
    QCOMPARE(c.find("enable_prefix_caching")->value, std::string("True"));
    QCOMPARE(c.find("gpu_memory_utilization")->value, std::string("0.9"));  // as vLLM prints it

    FakeServer llama;
    serveLlamaCpp(llama, true, fixture("llamacpp_props.json"));
    llama.start();
    OpenAiClient client({llama.url()});
    const RemoteServerConfig lc = fetchServerConfig(client);
    QCOMPARE(lc.find("total_slots")->value, std::string("2"));
    QCOMPARE(lc.find("n_ctx")->value, std::string("2048"));
    MetricsScraper scraper({llama.url()}, 1.0, [] { return 0.0; });
    scraper.scrapeOnce();
    ServerObservation obs = scraper.observation();
    QCOMPARE(obs.kind, ServerKind::LlamaCpp);
    QCOMPARE(obs.series.at(0).numSlotsProcessing.value(), 1.0);
    QVERIFY(obs.slotsError.empty());

    FakeServer bare;
    serveLlamaCpp(bare, false, "<html>not json</html>");
    bare.start();
    OpenAiClient bareClient({bare.url()});
    const RemoteServerConfig bc = fetchServerConfig(bareClient);
    QVERIFY(bc.entries.empty());
    QCOMPARE(bc.notes.size(), size_t(1));
    QVERIFY2(bc.notes[0].find("/props: not JSON") != std::string::npos, bc.notes[0].c_str());
    MetricsScraper bareScraper({bare.url()}, 1.0, [] { return 0.0; });
    bareScraper.scrapeOnce();
    bareScraper.scrapeOnce();
    obs = bareScraper.observation();
    QVERIFY2(obs.slotsError.find("HTTP 501") != std::string::npos, obs.slotsError.c_str());
    QVERIFY(!obs.series.at(1).numSlotsProcessing);
    QCOMPARE(obs.numScrapeErrors, 0);  // /metrics itself was fine
  }

  void cli() {
    const QString url = QString::fromStdString(url_);
    const QString jsonPath = QDir::temp().filePath("tst_remote_bench.json");
    auto ok = test::runWorkbench({"bench", "--endpoint", url, "--num-prompts", "4", "--input-len", "16", "--output-len",
                                  "6", "--ignore-eos", "--quiet", "--json", jsonPath});
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    QVERIFY(ok.out.contains("Server /metrics (vllm)"));
    QFile f(jsonPath);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const json j = lwb::parseJson(f.readAll().toStdString());
    QCOMPARE(j["completed"].get<int>(), 4);
    QCOMPARE(j["total_output_tokens"].get<int>(), 24);
    QCOMPARE(j["config"]["model"].get<std::string>(), std::string("austen"));
    QCOMPARE(j["server"]["config"]["entries"]["block_size"].get<std::string>(), std::string("16"));

    auto refused = test::runWorkbench({"bench", "--endpoint", QString("http://127.0.0.1:%1").arg(closedPort())});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("cannot connect"), refused.err.constData());
    auto knob = test::runWorkbench({"bench", "--endpoint", url, "--max-num-seqs", "4"});
    QCOMPARE(knob.exitCode, 2);
    QVERIFY2(knob.err.contains("--max-num-seqs: not a remote bench option"), knob.err.constData());
    // --tokenizer reads tokenizer.json folders too (the loader of model folders): a broken
    // one is named, not refused as "SentencePiece only".
    QTemporaryDir tokDir;
    QFile tokFile(tokDir.filePath("tokenizer.json"));
    QVERIFY(tokFile.open(QIODevice::WriteOnly));
    tokFile.write(R"({"model": {"type": "WordPiece"}})");
    tokFile.close();
    auto badTok = test::runWorkbench({"bench", "--endpoint", url, "--tokenizer", tokDir.path()});
    QCOMPARE(badTok.exitCode, 2);
    QVERIFY2(badTok.err.contains("--tokenizer: ") && badTok.err.contains("tokenizer.json"), badTok.err.constData());
    auto badUrl = test::runWorkbench({"bench", "--endpoint", "localhost:8000"});
    QCOMPARE(badUrl.exitCode, 1);
    QVERIFY2(badUrl.err.contains("expected http://host"), badUrl.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestRemote)
#include "tst_remote.moc"
