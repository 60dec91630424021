// The window in remote mode against `llm-workbench serve`'s server library on a
// loopback port: status bar (kind, model, address), the server's configuration
// read-only, its gauges over time, a streamed chat; then the failure cases — the
// server stopped (reported, then reconnected when it is back), a refused connection,
// HTTP 500 and a stalled stream from a misbehaving server, a malformed URL.
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include <httplib.h>

#include <atomic>
#include <map>
#include <thread>

#include "common/bundled_model.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "wire/kv_event_codec.h"
#include "server/api_server.h"
#include "server/kv_event_publisher.h"
#include "ui/remote/remote_load.h"
#include "ui/remote/remote_load_panel.h"
#include "ui/remote/remote_metrics_chart.h"
#include "ui/remote/remote_run_views.h"
#include "ui/remote/remote_window.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

constexpr int kTimeoutMs = 30000;

bool tableHas(const QTableWidget* t, const QString& key, const QString& value) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0)->text() == key && t->item(r, 1)->text() == value) return true;
  return false;
}

// Answers chats with HTTP 500, or with one chunk and then silence (bounded: it stops
// when the test ends).
struct BadServer {
  httplib::Server http;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> stall{false};
  int port = 0;

  BadServer() {
    http.Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"object":"list","data":[{"id":"bad","object":"model"}]})", "application/json");
    });
    http.Post("/v1/chat/completions", [this](const httplib::Request&, httplib::Response& res) {
      if (!stall) {
        res.status = 500;
        return res.set_content(R"({"error":{"message":"out of memory","type":"InternalServerError"}})",
                               "application/json");
      }
      res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink& sink) {
        const std::string first = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
        sink.write(first.data(), first.size());
        for (int i = 0; i < 500 && !stopping; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return false;
      });
    });
    port = http.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { http.listen_after_bind(); });
    for (int i = 0; i < 500 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~BadServer() {
    stopping = true;
    http.stop();
    if (thread.joinable()) thread.join();
  }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port); }
};

}  // namespace

class TestUiRemote : public QObject {
  Q_OBJECT
  std::unique_ptr<EngineLoop> loop_;
  std::unique_ptr<server::ApiServer> server_;
  int port_ = 0;

  void startServer(int port) {
    server::ServerOptions o;
    o.port = port;
    o.servedModelName = "austen";
    server_ = std::make_unique<server::ApiServer>(*loop_, o);
    port_ = server_->start();
  }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }

 private slots:
  void initTestCase() {
    QVERIFY2(test::bundledModel(), test::kBundledModelMissing);
    loop_ = std::make_unique<EngineLoop>(test::bundledModel(), test::cpuTestConfig());
    startServer(0);
  }
  void cleanupTestCase() {
    server_.reset();
    loop_.reset();
  }

  void connectsChatsAndReconnects() {
    RemoteWindow w({url(), "", "", 0.1});
    w.show();
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("vllm · model austen · " + url()), kTimeoutMs);
    QVERIFY2(w.statusText().contains("| connected"), qPrintable(w.statusText()));
    QTRY_VERIFY_WITH_TIMEOUT(tableHas(w.configTable(), "block_size", "16"), kTimeoutMs);
    QVERIFY(tableHas(w.configTable(), "num_gpu_blocks", QString::number(loop_->snapshot()->kvBlocks.size())));
    QTRY_VERIFY_WITH_TIMEOUT(w.chart()->numSamples() >= 2, kTimeoutMs);
    QVERIFY2(w.notExportedText().contains("every gauge"), qPrintable(w.notExportedText()));

    w.sendChat("Who is Emma?");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[TTFT"), kTimeoutMs);
    const QString answer = w.transcript().section("Assistant: ", 1).section("\n[TTFT", 0, 0);
    QVERIFY2(!answer.trimmed().isEmpty(), qPrintable(w.transcript()));
    QVERIFY(w.transcript().contains("finish "));

    // The server goes away: reported in the status bar, a chat fails with the reason.
    server_->stop();
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("disconnected"), kTimeoutMs);
    w.sendChat("Are you there?");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[error:"), kTimeoutMs);
    // It comes back on the same port: the session reconnects by itself.
    const int port = port_;
    startServer(port);
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("reconnected"), kTimeoutMs);
    w.sendChat("And now?");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().count("[TTFT") == 2, kTimeoutMs);
  }

  // With the server's KV-event address the window rebuilds its block map from the
  // events: after a chat it holds exactly the server's cached blocks.
  void kvEventsFeedTheBlockMap() {
    server::KvEventsConfig kc;
    kc.enableKvCacheEvents = true;
    kc.publisher = "zmq";
    kc.endpoint = "tcp://127.0.0.1:*";
    kc.replayEndpoint = "tcp://127.0.0.1:*";
    server::KvEventPublisher publisher(*loop_, kc);
    publisher.start();
    RemoteOptions o{url(), "", "", 0.1};
    o.kvEventsEndpoint = QString::fromStdString(publisher.endpoint());
    o.kvEventsReplayEndpoint = QString::fromStdString(publisher.replayEndpoint());
    RemoteWindow w(o);
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("| connected"), kTimeoutMs);
    w.sendChat("Tell me about Mr. Knightley and Harriet, at length.");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[TTFT"), kTimeoutMs);
    auto serverTable = [&] {
      std::map<std::string, int> t;
      for (const KvBlockInfo& b : loop_->snapshot()->kvBlocks)
        if (b.hasHash) ++t[remote::blockHashText(b.hash)];
      return t;
    };
    auto eventTable = [&] {
      std::map<std::string, int> t;
      const remote::RemoteBlockMap map = w.kvEvents()->blockMap();  // a copy: it outlives the loop
      for (const auto& [hash, block] : map.blocks()) t[hash] = block.numCopies;
      return t;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!serverTable().empty() && eventTable() == serverTable(), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        w.kvEventsText().contains(QStringLiteral("%1 cached blocks").arg(w.kvEvents()->stats().numBlocks)), kTimeoutMs);
    QCOMPARE(w.kvEvents()->stats().numMalformed, int64_t(0));

    // A load run then has each request's missed prompt tokens explained by the events.
    RemoteLoadOptions lo;
    lo.workload.numPrompts = 4;
    lo.workload.inputLen = 40;
    lo.workload.outputLen = 2;
    lo.workload.sharedPrefixLen = 16;
    lo.workload.ignoreEos = true;
    RemoteLoad* load = w.runViews()->load();
    QVERIFY2(load->start(lo), qPrintable(load->error()));
    QTRY_VERIFY_WITH_TIMEOUT(!load->running(), kTimeoutMs);
    QVERIFY(load->lastRun() && load->lastRun()->prefixMissExplained);
    QCOMPARE(load->lastRun()->numPrefixUnexplained, 0);
    for (const BenchRequestRecord& r : load->lastRun()->report.requests) {
      QVERIFY(r.timeline.prefixMiss.accounted);
      QVERIFY(r.timeline.numCachedPromptTokens + r.timeline.prefixMiss.numMissed() <= r.timeline.numPromptTokens);
    }
    QVERIFY2(w.runViews()->loadPanel()->statusText().contains("reconstructed from the server's KV events"),
             qPrintable(w.runViews()->loadPanel()->statusText()));
  }

  void refusedConnection() {
    RemoteWindow w({"http://127.0.0.1:1", "", "", 0.1});
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("disconnected: cannot connect"), kTimeoutMs);
    w.sendChat("hello?");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[error: cannot connect"), kTimeoutMs);
  }

  void serverErrorAndStalledStream() {
    BadServer bad;
    RemoteOptions o{bad.url(), "", "", 0.1};
    o.readTimeoutSeconds = 1;
    RemoteWindow w(o);
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("model bad"), kTimeoutMs);
    QVERIFY2(w.statusText().contains("/metrics"), qPrintable(w.statusText()));  // it has none
    w.sendChat("hi");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[error: HTTP 500: out of memory]"), kTimeoutMs);
    bad.stall = true;
    w.sendChat("hi again");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().contains("[error: stalled stream"), kTimeoutMs);
    QVERIFY(w.transcript().contains("Assistant: Hel"));  // what did arrive is shown
  }

  void malformedUrl() {
    RemoteWindow w({"localhost:8000", "", "", 0.1});
    QVERIFY2(w.statusText().contains("expected http://host"), qPrintable(w.statusText()));
    QVERIFY(!w.session());
  }
};

QTEST_MAIN(TestUiRemote)
#include "tst_ui_remote.moc"
