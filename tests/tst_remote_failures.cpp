// The remote bench's failure cases over loopback HTTP, each reported per request and in
// the report, in bounded time: a refused connection, HTTP 500 with malformed /metrics, a
// stalled stream, the server stopped mid-run; and a run stopped by its front-end
// (RemoteBenchHooks::cancel), as the window's Stop button does.
#include <QtTest>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <thread>

#include "common/remote_fixtures.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "remote/remote_bench.h"
#include "remote/remote_report.h"
#include "server/api_server.h"

using namespace lwb;
using namespace lwb::remote;
using namespace lwb::test;
using nlohmann::json;

namespace {

void verifyAllFailed(const RemoteBenchRun& run, int n, const std::string& mustMention) {
  QCOMPARE(run.report.numRequests, n);
  QCOMPARE(run.report.completed, 0);
  QCOMPARE(run.report.numFailed, n);
  for (const auto& r : run.report.requests) {
    QVERIFY2(r.timeline.error.find(mustMention) != std::string::npos, r.timeline.error.c_str());
    QVERIFY(r.timeline.finishReason == FinishReason::Error || r.timeline.finishReason == FinishReason::Abort);
  }
  const json j = remoteBenchJson(run);
  QCOMPARE(j["failed"].get<int>(), n);
  QVERIFY(j["requests"][0]["error"].get<std::string>().find(mustMention) != std::string::npos);
}

}  // namespace

class TestRemoteFailures : public QObject {
  Q_OBJECT

  LoopbackServer srv_;
  const std::string& url_ = srv_.url;

 private slots:
  void initTestCase() { QVERIFY2(bundledModel(), kBundledModelMissing); }
  void init() { srv_.start(bundledModel()); }
  void cleanup() { srv_.stop(); }

  void refusedConnection() {
    RemoteBenchOptions o = optionsFor("http://127.0.0.1:" + std::to_string(closedPort()));
    o.warmUp = false;
    const RemoteBenchRun run = runRemoteBenchmark(o, remoteWorkload(3, 1000.0, 4));
    verifyAllFailed(run, 3, "cannot connect");
    QCOMPARE(run.server.kind, ServerKind::Unknown);
    QVERIFY(run.server.numScrapeErrors >= 1);
    const json j = remoteBenchJson(run);
    QVERIFY(j["num_preemptions"].is_null() && j["max_kv_cache_usage"].is_null() && j["prefix_cache_hits"].is_null());
    o.warmUp = true;  // with the warm-up, as the CLI runs: one clear error, no run
    QVERIFY(throwsError([&] { runRemoteBenchmark(o, remoteWorkload(3, 1000.0, 4)); }));
  }

  void serverErrorsAndBadMetrics() {
    FakeServer fake;
    fake.http.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.status = 500;
      res.set_content(R"({"error":{"message":"out of GPU memory","type":"InternalServerError","code":500}})",
                      "application/json");
    });
    fake.http.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("vllm:num_requests_running 1\nvllm:kv_cache_usage_perc{engine=\"0\" 0.5\n", "text/plain");
    });
    fake.start();
    RemoteBenchOptions o = optionsFor(fake.url());
    o.warmUp = false;
    const RemoteBenchRun run = runRemoteBenchmark(o, remoteWorkload(4, 1000.0, 4));
    verifyAllFailed(run, 4, "HTTP 500: out of GPU memory");
    QVERIFY(run.server.numScrapeErrors >= 2);
    QVERIFY2(run.server.lastScrapeError.find("/metrics line 2:") != std::string::npos, run.server.lastScrapeError.c_str());
    QVERIFY(!run.server.after);
  }

  void stalledStream() {
    FakeServer fake;
    fake.http.Post("/v1/completions", [&fake](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [&fake](size_t offset, httplib::DataSink& sink) {
        if (offset == 0) {
          const std::string first = "data: {\"choices\":[{\"index\":0,\"text\":\" Hello\"}]}\n\n";
          return sink.write(first.data(), first.size());
        }
        for (int i = 0; i < 250 && !fake.stopping; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return false;  // then hang up
      });
    });
    fake.start();
    RemoteBenchOptions o = optionsFor(fake.url(), 0.5);
    o.warmUp = false;
    const auto t0 = std::chrono::steady_clock::now();
    const RemoteBenchRun run = runRemoteBenchmark(o, remoteWorkload(3, 1000.0, 8));
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // bounded by the read timeout, not a hang
    verifyAllFailed(run, 3, "stalled stream");
    for (const auto& r : run.report.requests) QVERIFY(r.timeline.ttft().has_value());  // the first chunk did come
  }

  void serverStoppedMidRun() {
    RemoteBenchOptions o = optionsFor(url_, 5);
    o.warmUp = false;
    RemoteBenchRun run;
    std::thread bench([&] { run = runRemoteBenchmark(o, remoteWorkload(8, 4.0, 200)); });
    for (int i = 0; i < 1000 && srv_.server->numOpenRequests() == 0; ++i) QThread::msleep(10);
    QThread::msleep(300);
    srv_.server->stop();
    bench.join();
    QCOMPARE(run.report.numRequests, 8);
    QVERIFY(run.report.numFailed >= 1);
    QCOMPARE(run.report.completed + run.report.numFailed, 8);
    for (const auto& r : run.report.requests)
      if (r.timeline.finishReason != FinishReason::Length) QVERIFY2(!r.timeline.error.empty(), "a failure without a reason");
    QCOMPARE(remoteBenchJson(run)["failed"].get<int>(), run.report.numFailed);
  }


  // Stop, as the window's button: nothing more is sent, the streams in flight end as
  // aborted ("canceled"), and the requests never sent are left out of the report.
  void stoppedByTheClient() {
    RemoteBenchOptions o = optionsFor(url_);
    o.warmUp = false;
    std::atomic<bool> cancel{false};
    std::atomic<int> numSent{0}, numFinished{0};
    RemoteBenchHooks hooks;
    hooks.onSent = [&](int, double) { ++numSent; };
    hooks.onFinished = [&](int, const BenchRequestRecord&) { ++numFinished; };
    hooks.cancel = &cancel;
    RemoteBenchRun run;
    std::thread bench([&] { run = runRemoteBenchmark(o, remoteWorkload(20, 2.0, 200), {}, hooks); });
    for (int i = 0; i < 1000 && numSent < 2; ++i) QThread::msleep(10);
    cancel = true;
    bench.join();
    QVERIFY2(run.report.numRequests >= 2 && run.report.numRequests < 20, qPrintable(QString::number(run.report.numRequests)));
    QCOMPARE(run.report.numRequests, numSent.load());
    QCOMPARE(numFinished.load(), numSent.load());
    int numAborted = 0;
    for (const auto& r : run.report.requests)
      if (r.timeline.finishReason == FinishReason::Abort) {
        ++numAborted;
        QCOMPARE(r.timeline.error, std::string("canceled"));
      }
    QVERIFY(numAborted >= 1);  // 200 tokens take seconds here; the stop came within a few hundred ms
  }
};

QTEST_GUILESS_MAIN(TestRemoteFailures)
#include "tst_remote_failures.moc"
