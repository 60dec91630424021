// The remote window's views of the server's inside (RemoteServerViews), offscreen:
// against `llm-workbench serve`'s server library on a loopback port, the batch and
// prefix charts get points from the differences of its scraped counters, the drawn
// block map holds exactly the server's hashed blocks after a run (from its KV events)
// and the read-only knobs show its block_size etc.; against fixture /metrics texts of
// SGLang and llama.cpp, the charts draw what those export and say what they do not.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QSpinBox>
#include <QtTest>

#include <fstream>
#include <sstream>

#include "common/remote_fixtures.h"
#include "engine/common/json.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"
#include "wire/kv_event_codec.h"
#include "remote/remote_block_layout.h"
#include "remote/server_knobs.h"
#include "server/api_server.h"
#include "server/kv_event_publisher.h"
#include "ui/remote/remote_counters_chart.h"
#include "ui/remote/remote_knobs_panel.h"
#include "ui/remote/remote_server_views.h"
#include "ui/remote/remote_window.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

constexpr int kTimeoutMs = 60000;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(LWB_TEST_DATA_DIR) + "/remote_metrics/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture's text with one sample's value replaced: a later scrape of the same server.
std::string withValue(std::string text, const std::string& sampleStart, const std::string& value) {
  const size_t at = text.find("\n" + sampleStart);
  if (at == std::string::npos) throw std::runtime_error("the fixture has no sample " + sampleStart);
  const size_t end = std::min(text.find('\n', at + 1), text.size());
  const size_t space = text.rfind(' ', end);
  return text.replace(space + 1, end - space - 1, value);
}

// For a human to look at (tst_ui_window does the same for the local window).
void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png", "PNG"));
}

remote::RemoteServerState stateOf(const std::string& text) {
  return remote::readServerState(remote::parsePrometheusText(text));
}

}  // namespace

class TestUiRemoteViews : public QObject {
  Q_OBJECT
  test::LoopbackServer srv_;
  std::unique_ptr<server::KvEventPublisher> publisher_;

  QString url() const { return QString::fromStdString(srv_.url); }

  std::map<std::string, int> serverBlockTable() const {
    std::map<std::string, int> t;
    for (const KvBlockInfo& b : srv_.loop->snapshot()->kvBlocks)
      if (b.hasHash) ++t[remote::blockHashText(b.hash)];
    return t;
  }

 private slots:
  void initTestCase() {
    QVERIFY2(test::bundledModel(), test::kBundledModelMissing);
    srv_.start(test::bundledModel());
    server::KvEventsConfig kc;  // as `serve --kv-events-config` builds it
    kc.enableKvCacheEvents = true;
    kc.publisher = "zmq";
    kc.endpoint = "tcp://127.0.0.1:*";
    kc.replayEndpoint = "tcp://127.0.0.1:*";
    publisher_ = std::make_unique<server::KvEventPublisher>(*srv_.loop, kc);
    publisher_->start();
  }
  void cleanupTestCase() {
    publisher_.reset();
    srv_.stop();
  }

  // Two chats, the second continuing the first (its prompt starts with the first's):
  // tokens per step, a prefix hit and preemptions (none) come from counter deltas; the
  // block map holds the server's hashed blocks; the knobs show its cache config.
  void viewsFollowTheServer() {
    RemoteOptions o{url(), "", "", 0.1};
    o.kvEventsEndpoint = QString::fromStdString(publisher_->endpoint());
    o.kvEventsReplayEndpoint = QString::fromStdString(publisher_->replayEndpoint());
    RemoteWindow w(o);
    w.show();
    RemoteServerViews* views = w.serverViews();
    QVERIFY(views);
    QTRY_VERIFY_WITH_TIMEOUT(w.statusText().contains("| connected"), kTimeoutMs);
    w.sendChat("Tell me, at some length and with care, what Emma Woodhouse thinks of Mr. Knightley, "
               "of Harriet Smith, of Frank Churchill and of the whole village of Highbury.");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().count("[TTFT") == 1, kTimeoutMs);
    w.sendChat("And what does Mr. Knightley think of her?");
    QTRY_VERIFY_WITH_TIMEOUT(w.transcript().count("[TTFT") == 2, kTimeoutMs);

    RemoteCountersChart* chart = views->counters();
    QTRY_VERIFY_WITH_TIMEOUT(chart->numTokensPerIterationPoints() > 0, kTimeoutMs);
    QVERIFY(*chart->lastTokensPerIteration() >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(chart->numPreemptionPoints() > 0, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(chart->lastHitRate().value_or(0) > 0, kTimeoutMs);  // the second prompt's head
    QVERIFY2(chart->notExportedText().isEmpty(), qPrintable(chart->notExportedText()));

    RemoteKvPanel* kv = views->kvPanel();
    const int numPool = int(srv_.loop->snapshot()->kvBlocks.size());
    auto numHashed = [&] {
      int n = 0;
      for (const auto& [hash, copies] : serverBlockTable()) n += copies;
      return n;
    };
    QTRY_VERIFY_WITH_TIMEOUT(numHashed() > 0 && kv->map()->numStoredCells() == numHashed(), kTimeoutMs);
    QCOMPARE(kv->map()->numBlocks(), numPool);
    QVERIFY2(kv->caption().contains(QStringLiteral("of %1 in its pool").arg(numPool)), qPrintable(kv->caption()));
    QVERIFY(kv->map()->describeBlock(0).contains("hash: "));
    QVERIFY(kv->map()->describeBlock(0).contains("not in the events"));
    QVERIFY(kv->map()->describeBlock(numPool - 1).contains("not reported as stored"));

    RemoteKnobsPanel* knobs = views->knobs();
    QTRY_VERIFY_WITH_TIMEOUT(knobs->isKnown("block_size"), kTimeoutMs);
    auto* blockSize = qobject_cast<QComboBox*>(knobs->field("block_size"));
    QVERIFY(blockSize);
    QCOMPARE(blockSize->currentText(), QString::number(srv_.loop->config().blockSize));
    QVERIFY(!blockSize->isEnabled());
    QVERIFY(knobs->valueText("block_size").contains("vllm:cache_config_info"));
    auto* caching = qobject_cast<QCheckBox*>(knobs->field("enable_prefix_caching"));
    QVERIFY(caching && !caching->isEnabled());
    QCOMPARE(caching->isChecked(), srv_.loop->config().enablePrefixCaching);
    QVERIFY(knobs->isKnown("gpu_memory_utilization"));
    QVERIFY(!knobs->isKnown("max_num_seqs"));  // not in vLLM's cache config
    QVERIFY(knobs->valueText("max_num_seqs").startsWith("unknown"));
    QVERIFY(knobs->field("max_num_seqs")->isHidden());
    QVERIFY(knobs->noteText().contains("start-up flags"));
    w.resize(1600, 1000);
    saveShot(&w, "remote_window");
    for (QWidget* view : {static_cast<QWidget*>(chart), static_cast<QWidget*>(kv), static_cast<QWidget*>(knobs)}) {
      view->resize(700, 600);
      saveShot(view, "remote_" + QString(view->metaObject()->className()).section("::", -1));
    }
  }

  // SGLang: prompt and cached tokens counters give the hit rate; no step or preemption
  // counters, and the view says so.
  void sglangFixture() {
    const std::string first = fixture("sglang.txt");
    const std::string later = withValue(
        withValue(first, "sglang:prompt_tokens_total", "8129902"), "sglang:cached_tokens_total", "2000250");
    RemoteCountersChart chart;
    chart.addState(1, stateOf(first));
    chart.addState(2, stateOf(later));
    QCOMPARE(chart.numHitRatePoints(), 1);
    QVERIFY(qAbs(*chart.lastHitRate() - 25.0) < 1e-6);  // 250 of 1000 new prompt tokens
    QCOMPARE(chart.numTokensPerIterationPoints(), 0);
    QCOMPARE(chart.numPreemptionPoints(), 0);
    const QString text = chart.notExportedText();
    QVERIFY2(text.contains("SGLang does not export tokens per engine step"), qPrintable(text));
    QVERIFY(text.contains("SGLang does not export preemptions"));
    QVERIFY(!text.contains("prefix"));
  }

  // llama.cpp: tokens per llama_decode() call from its counters; no prefix cache or
  // preemption figures, and the view says so.
  void llamaCppFixture() {
    const std::string first = fixture("llamacpp.txt");
    const std::string later =
        withValue(withValue(withValue(first, "llamacpp:n_decode_total", "7470"), "llamacpp:prompt_tokens_total", "33165"),
                  "llamacpp:tokens_predicted_total", "7811");
    RemoteCountersChart chart;
    chart.addState(1, stateOf(first));
    QCOMPARE(chart.numTokensPerIterationPoints(), 0);  // the first scrape is the baseline
    chart.addState(2, stateOf(later));
    QCOMPARE(chart.numTokensPerIterationPoints(), 1);
    QVERIFY(qAbs(*chart.lastTokensPerIteration() - 11.0) < 1e-9);  // (100 + 10) tokens / 10 calls
    QCOMPARE(chart.numHitRatePoints(), 0);
    QCOMPARE(chart.numPreemptionPoints(), 0);
    chart.resize(700, 500);
    saveShot(&chart, "remote_counters_llamacpp");
    const QString text = chart.notExportedText();
    QVERIFY2(text.contains("llama.cpp does not export the prefix-cache hit rate"), qPrintable(text));
    QVERIFY(text.contains("llama.cpp does not export preemptions"));
    QVERIFY(!text.contains("tokens per engine step"));
  }

  // A server restart (counters fall back) starts a new baseline instead of a negative point.
  void restartIsNotANegativeDelta() {
    const std::string first = fixture("vllm.txt");
    RemoteCountersChart chart;
    chart.addState(1, stateOf(first));
    chart.addState(2, stateOf(first));
    const int points = chart.numPreemptionPoints();
    QCOMPARE(points, 1);  // exported, none in the interval: a real zero
    chart.addState(3, stateOf(withValue(first, "vllm:num_preemptions_total", "0")));
    QCOMPARE(chart.numPreemptionPoints(), points);
    QVERIFY(chart.notExportedText().isEmpty());
  }

  // The drawing groups blocks by prefix tree, depth first: a shared head, then each
  // continuation; a block whose parent is gone heads a tree of its own; copies repeat.
  void layoutGroupsPrefixTrees() {
    remote::RemoteBlockMap map;
    auto stored = [&](std::vector<std::string> hashes, std::optional<std::string> parent) {
      remote::RemoteKvEvent e;
      e.kind = remote::RemoteKvEvent::Kind::BlockStored;
      e.blockHashes = std::move(hashes);
      e.parentBlockHash = std::move(parent);
      e.blockSize = 2;
      e.tokenIds.assign(e.blockHashes.size() * 2, 7);
      map.apply(e);
    };
    stored({"h1", "h2"}, std::nullopt);  // a system prompt and one continuation
    stored({"h3"}, "h1");                // a second continuation of the same head
    stored({"z9"}, "gone");              // its parent was evicted before we joined
    stored({"h3"}, "h1");                // a second copy of h3
    const auto cells = remote::layoutRemoteBlocks(map);
    QCOMPARE(int(cells.size()), map.numBlocks());
    QStringList order;
    for (const auto& c : cells) order << QStringLiteral("%1/%2/%3").arg(QString::fromStdString(c.hash)).arg(c.tree).arg(c.depth);
    QCOMPARE(order.join(' '), QStringLiteral("h1/0/0 h2/0/1 h3/0/1 h3/0/1 z9/1/0"));
  }

  // llama.cpp's /props fill max_num_seqs (total_slots) and max_model_len (n_ctx); a value
  // that does not fit the knob is named, not shown.
  void knobsFromLlamaCppProps() {
    remote::RemoteServerConfig c;
    remote::addLlamaCppProps(lwb::parseJson(fixture("llamacpp_props.json")), c);
    RemoteKnobsPanel panel;
    panel.showServerConfig(c);
    QVERIFY(panel.isKnown("max_num_seqs"));
    QCOMPARE(qobject_cast<QSpinBox*>(panel.field("max_num_seqs"))->value(), 2);
    QCOMPARE(qobject_cast<QSpinBox*>(panel.field("max_model_len"))->value(), 2048);
    QVERIFY(panel.valueText("max_model_len").contains("/props n_ctx"));
    QVERIFY(!panel.isKnown("block_size"));
    c.entries.push_back({"block_size", "seventeen", "vllm:cache_config_info"});
    const remote::ServerKnobs k = remote::knobsFromServerConfig(c);
    QVERIFY(!k.known.count("block_size"));
    QCOMPARE(int(k.problems.size()), 1);
    QVERIFY2(k.problems[0].find("seventeen") != std::string::npos, k.problems[0].c_str());
  }
};

QTEST_MAIN(TestUiRemoteViews)
#include "tst_ui_remote_views.moc"
