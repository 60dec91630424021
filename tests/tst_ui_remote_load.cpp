// The remote window's load generator and run views against `llm-workbench serve`'s
// server library on a loopback port: a bounded load run (8 requests, short outputs)
// fills the requests table, the latency chart and the request timeline from the
// client's records; those agree with the server's own (each client TTFT / e2e brackets
// the server's, so sorted they never fall below it; the server's histograms count the
// same requests); the run saves with `bench --endpoint`'s JSON keys and opens in the
// Runs view; Stop cancels a run; no start without a server.
#include <QDockWidget>
#include <QtTest>

#include <algorithm>
#include <fstream>

#include "common/remote_fixtures.h"
#include "engine/bench/bench_report.h"
#include "engine/common/json.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "server/api_server.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/requests_table_model.h"
#include "ui/panels/latency_panel.h"
#include "ui/panels/requests_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/panels/workload_form.h"
#include "ui/remote/remote_load.h"
#include "ui/remote/remote_load_panel.h"
#include "ui/remote/remote_run_views.h"
#include "ui/remote/remote_window.h"

using namespace lwb;
using namespace lwb::ui;
using nlohmann::json;

namespace {

constexpr int kTimeoutMs = 60000;
constexpr int kNumRequests = 8;
constexpr int kOutputLen = 6;

WorkloadOptions smallWorkload(int numPrompts, double rate, int outputLen) {
  WorkloadOptions w;
  w.numPrompts = numPrompts;
  w.requestRate = rate;
  w.inputLen = 24;
  w.rangeRatio = 0;
  w.outputLen = outputLen;
  w.sharedPrefixLen = 16;
  w.numPrefixGroups = 1;
  w.ignoreEos = true;
  w.seed = 7;
  return w;
}

// For a human to look at (as tst_ui_window's): into $LWB_TEST_ARTIFACTS.
void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png", "PNG"));
}

QString cell(const RequestsTableModel* m, int row, int column) {
  return m->data(m->index(row, column), Qt::DisplayRole).toString();
}

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The finished requests the server's own engine recorded with `numOutputTokens` tokens
// (the load's; the runner's warm-up asks for 2).
std::vector<RequestTimeline> serverTimelines(EventSubscriber& events, int numOutputTokens) {
  std::vector<RequestTimeline> out;
  for (const EngineEvent& e : events.drain())
    if (const auto* f = std::get_if<RequestFinishedEvent>(&e); f && f->timeline.numOutputTokens == numOutputTokens)
      out.push_back(f->timeline);
  return out;
}

}  // namespace

class TestUiRemoteLoad : public QObject {
  Q_OBJECT
  test::LoopbackServer srv_;
  QString url_;

 private slots:
  void initTestCase() {
    QVERIFY2(test::bundledModel(), test::kBundledModelMissing);
    srv_.start(test::bundledModel());
    url_ = QString::fromStdString(srv_.url);
  }
  void cleanupTestCase() { srv_.stop(); }

  void loadRunFeedsTheViewsAndSaves() {
    const auto events = srv_.loop->subscribe();
    RemoteWindow w({url_, "", "", 0.2});
    w.show();
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("| connected"), kTimeoutMs);
    RemoteRunViews* v = w.runViews();
    v->loadPanel()->form()->setOptions(smallWorkload(kNumRequests, 20.0, kOutputLen));
    QVERIFY2(v->loadPanel()->start(), qPrintable(v->loadPanel()->statusText()));
    QTRY_VERIFY_WITH_TIMEOUT(!v->load()->running(), kTimeoutMs);
    QVERIFY2(v->load()->error().isEmpty(), qPrintable(v->load()->error()));
    QVERIFY2(v->loadPanel()->statusText().contains("8 of 8"), qPrintable(v->loadPanel()->statusText()));

    // Requests table: one finished row per request, as the client saw it.
    const RequestsTableModel* m = v->requests()->model();
    QCOMPARE(m->rowCount(), kNumRequests);
    for (int r = 0; r < kNumRequests; ++r) {
      QCOMPARE(cell(m, r, RequestsTableModel::State), QString("finished"));
      QCOMPARE(cell(m, r, RequestsTableModel::OutputTokens), QString::number(kOutputLen));
      QCOMPARE(cell(m, r, RequestsTableModel::Finish), QString("length"));
      QCOMPARE(cell(m, r, RequestsTableModel::Tag), QString("load"));
      QVERIFY(!cell(m, r, RequestsTableModel::Ttft).isEmpty() && !cell(m, r, RequestsTableModel::E2e).isEmpty());
    }
    QCOMPARE(v->latency()->chart()->numTtftPoints(), kNumRequests);
    QCOMPARE(v->latency()->timeline()->numRows(), kNumRequests);
    for (const char* dock : {"dock.remote.requests", "dock.remote.latency", "dock.remote.timeline"}) {
      w.findChild<QDockWidget*>(dock)->raise();
      QApplication::processEvents();
      saveShot(&w, QString("remote-load-") + (dock + 12));
    }

    // Against the server's own records. The client sends before the server stamps
    // arrival and reads each token after the server stamps it, so per request client
    // TTFT ≥ server TTFT and client e2e ≥ server e2e; requests cannot be paired from
    // outside, but sorted the k-th client value is then ≥ the k-th server value.
    const RunData& run = v->load()->run();
    std::vector<double> clientTtft, clientE2e, serverTtft, serverE2e;
    for (const auto& t : run.requests) {
      clientTtft.push_back(*t.ttft());
      clientE2e.push_back(*t.e2e());
    }
    std::vector<RequestTimeline> own;
    const auto collect = [&] {
      for (auto& t : serverTimelines(*events, kOutputLen)) own.push_back(std::move(t));
      return int(own.size());
    };
    QTRY_VERIFY_WITH_TIMEOUT(collect() >= kNumRequests, kTimeoutMs);
    for (const auto& t : own) {
      serverTtft.push_back(*t.ttft());
      serverE2e.push_back(*t.e2e());
    }
    QCOMPARE(int(own.size()), kNumRequests);
    clientTtft = sorted(clientTtft), clientE2e = sorted(clientE2e);
    serverTtft = sorted(serverTtft), serverE2e = sorted(serverE2e);
    for (int k = 0; k < kNumRequests; ++k) {
      QVERIFY2(clientTtft[k] >= serverTtft[k], qPrintable(QString("TTFT #%1: %2 < %3").arg(k).arg(clientTtft[k]).arg(serverTtft[k])));
      QVERIFY2(clientE2e[k] >= serverE2e[k], qPrintable(QString("e2e #%1: %2 < %3").arg(k).arg(clientE2e[k]).arg(serverE2e[k])));
    }
    qInfo("median TTFT client %.4f s / server %.4f s; e2e %.4f / %.4f", clientTtft[kNumRequests / 2],
          serverTtft[kNumRequests / 2], clientE2e[kNumRequests / 2], serverE2e[kNumRequests / 2]);
    // The server's scraped histograms counted exactly the run's requests.
    const remote::ServerObservation& obs = v->load()->lastRun()->server;
    QVERIFY(obs.before && obs.after && obs.after->ttft && obs.after->e2e);
    QCOMPARE(obs.after->e2e->count - (obs.before->e2e ? obs.before->e2e->count : 0.0), double(kNumRequests));
    QCOMPARE(obs.after->ttft->count - (obs.before->ttft ? obs.before->ttft->count : 0.0), double(kNumRequests));

    // Saved with bench --endpoint's keys; it opens in the Runs view beside this session.
    const QString path = QDir::temp().filePath("tst_ui_remote_load_run.json");
    QCOMPARE(v->saveRun(path), QString());
    const json saved = lwb::readJsonFile(path.toStdString());
    const json local = benchReportJson(BenchReport{});  // the local bench's keys
    for (const auto& [key, value] : local.items()) QVERIFY2(saved.contains(key), key.c_str());
    QVERIFY(saved.contains("server"));
    QCOMPARE(saved["completed"].get<int>(), kNumRequests);
    QCOMPARE(saved["config"]["endpoint"].get<std::string>(), url_.toStdString());
    QCOMPARE(saved["config"]["num_prompts"].get<int>(), kNumRequests);
    QCOMPARE(v->runs()->openRun(1, path), QString());
    const RunData& opened = v->runs()->run(1);
    QCOMPARE(int(opened.requests.size()), kNumRequests);
    QCOMPARE(summarizeRun(opened).completed, kNumRequests);
    QVERIFY(opened.hasWorkload && opened.workload.numPrompts == kNumRequests);
    const auto savedTtft = sorted(ttftSamplesMs(opened)), liveTtft = sorted(ttftSamplesMs(run));
    for (int k = 0; k < kNumRequests; ++k) QVERIFY(std::abs(savedTtft[k] - liveTtft[k]) < 1e-6);
    QCOMPARE(itlSamplesMs(opened).size(), itlSamplesMs(run).size());
    v->runs()->refresh();
    QCOMPARE(v->runs()->run(0).requests.size(), run.requests.size());  // A: this session

    const QString csv = QDir::temp().filePath("tst_ui_remote_load.csv");
    QCOMPARE(v->exportRun(csv, "csv"), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), kNumRequests + 1);
  }

  // Stop sends nothing more and cancels the streams in flight; a window closed during a
  // run lets go of it at once (its threads end on their own).
  void stopCancelsTheRun() {
    RemoteWindow w({url_, "", "", 0.2});
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("| connected"), kTimeoutMs);
    RemoteRunViews* v = w.runViews();
    v->loadPanel()->form()->setOptions(smallWorkload(20, 2.0, 200));
    QVERIFY(v->loadPanel()->start());
    QTRY_VERIFY_WITH_TIMEOUT(v->load()->numSent() >= 1, kTimeoutMs);
    v->load()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!v->load()->running(), kTimeoutMs);
    const int n = v->requests()->model()->rowCount();
    QVERIFY2(n >= 1 && n < 20, qPrintable(QString::number(n)));
    QCOMPARE(cell(v->requests()->model(), 0, RequestsTableModel::Finish), QString("abort"));
    QCOMPARE(v->load()->lastRun()->report.numRequests, n);

    auto closing = std::make_unique<RemoteWindow>(RemoteOptions{url_, "", "", 0.2});
    QTRY_VERIFY_WITH_TIMEOUT(closing->statusText().contains("| connected"), kTimeoutMs);
    closing->runViews()->loadPanel()->form()->setOptions(smallWorkload(4, 2.0, 100));
    QVERIFY(closing->runViews()->loadPanel()->start());
    closing.reset();  // returns without waiting for the server
    QTRY_VERIFY_WITH_TIMEOUT(RemoteLoad::numRunThreads() == 0, kTimeoutMs);  // and the run ends by itself
  }

  void noStartWithoutAServer() {
    RemoteWindow w({"http://127.0.0.1:1", "", "", 0.1});
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("disconnected"), kTimeoutMs);
    QVERIFY(!w.runViews()->loadPanel()->start());
    QVERIFY2(w.runViews()->loadPanel()->statusText().contains("not known"), qPrintable(w.runViews()->loadPanel()->statusText()));
    QVERIFY(w.runViews()->saveRun(QDir::temp().filePath("never.json")).contains("No load run"));
  }
};

QTEST_MAIN(TestUiRemoteLoad)
#include "tst_ui_remote_load.moc"
