// Remote mode on a prefill/decode pair (ui/remote/remote_pair_window.h) against two of
// our own `serve` instances on loopback ports: each side connects to its own endpoint
// and shows that server's status, configuration and gauges; the decode server going
// away is reported on its side only, and the prefill side keeps running. Then a real
// pair: a kv_producer and a kv_consumer server behind the proxy (tests/common/
// pd_harness.h); a request through the proxy shows on both sides, the prompt's prefill
// on the producer's counters and the generated tokens on the consumer's.
#include <QtTest>

#include <QTableWidget>

#include "common/bundled_model.h"
#include "common/pd_harness.h"
#include "engine/engine_loop.h"
#include "server/api_server.h"
#include "ui/remote/remote_metrics_chart.h"
#include "ui/remote/remote_pair_window.h"
#include "ui/remote/remote_session.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

constexpr int kTimeoutMs = 30000;

struct Instance {
  std::unique_ptr<EngineLoop> loop;
  std::unique_ptr<server::ApiServer> server;
  int port = 0;

  explicit Instance(int numBlocks) {
    EngineConfig c = test::cpuTestConfig();
    c.numGpuBlocksOverride = numBlocks;  // tells the two servers apart in their configuration
    loop = std::make_unique<EngineLoop>(test::bundledModel(), c);
    server::ServerOptions o;
    o.port = 0;
    o.servedModelName = "austen";
    server = std::make_unique<server::ApiServer>(*loop, o);
    port = server->start();
  }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port); }
};

bool tableHas(const QTableWidget* t, const QString& key, const QString& value) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 1) && t->item(r, 0)->text() == key && t->item(r, 1)->text() == value) return true;
  return false;
}

}  // namespace

class TestUiRemotePair : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY2(test::bundledModel(), test::kBundledModelMissing); }

  void watchesBothEndpointsSideBySide() {
    Instance prefill(256), decode(320);
    RemotePairWindow w({prefill.url(), "", "", 0.1}, {decode.url(), "", "", 0.1});
    w.show();
    QVERIFY(w.title(RemotePairWindow::Prefill).contains(prefill.url()));
    QVERIFY(w.title(RemotePairWindow::Decode).contains(decode.url()));
    RemoteWindow* p = w.side(RemotePairWindow::Prefill);
    RemoteWindow* d = w.side(RemotePairWindow::Decode);
    QTRY_VERIFY_WITH_TIMEOUT(p->statusText().contains(prefill.url()) && p->statusText().contains("| connected"),
                             kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(d->statusText().contains(decode.url()) && d->statusText().contains("| connected"),
                             kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(tableHas(p->configTable(), "num_gpu_blocks", "256"), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(tableHas(d->configTable(), "num_gpu_blocks", "320"), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(p->chart()->numSamples() >= 2 && d->chart()->numSamples() >= 2, kTimeoutMs);

    decode.server->stop();
    QTRY_VERIFY_WITH_TIMEOUT(d->statusText().contains("disconnected"), kTimeoutMs);
    QVERIFY2(!p->statusText().contains("disconnected"), qPrintable(p->statusText()));
    const int before = p->chart()->numSamples();
    QTRY_VERIFY_WITH_TIMEOUT(p->chart()->numSamples() > before, kTimeoutMs);
  }

  void watchesAProducerConsumerPair() {
    test::PdHarness pair;
    pair.start();
    RemotePairWindow w({QString::fromStdString(pair.prefill->address()), "", "", 0.1},
                       {QString::fromStdString(pair.decode->address()), "", "", 0.1});
    w.show();
    // The last counters each side scraped.
    remote::RemoteServerState seen[2];
    for (int side : {0, 1})
      connect(w.side(side == 0 ? RemotePairWindow::Prefill : RemotePairWindow::Decode)->session(),
              &RemoteSession::scraped, this, [&seen, side](double, const remote::RemoteServerState& s) { seen[side] = s; });
    QTRY_VERIFY_WITH_TIMEOUT(seen[0].promptTokens.has_value() && seen[1].generationTokens.has_value(), kTimeoutMs);
    const double decodeTokensBefore = *seen[1].generationTokens;

    const auto r = pair.post(pair.proxy->address(), "/v1/completions",
                             {{"prompt", test::longPrompt()}, {"max_tokens", 6}, {"temperature", 0}, {"ignore_eos", true}});
    QVERIFY(r);
    QVERIFY2(r->status == 200, r->body.c_str());
    // The producer prefilled the prompt (max_tokens 1: one generated token); the consumer
    // generated the answer's tokens and computed only the prompt's last, partial block.
    QTRY_VERIFY_WITH_TIMEOUT(seen[0].promptTokens.value_or(0) >= 16, kTimeoutMs);
    QTRY_VERIFY2_WITH_TIMEOUT(seen[1].generationTokens.value_or(0) >= decodeTokensBefore + 6,
                              qPrintable(QStringLiteral("decode: %1 generated tokens (%2 before), %3 prompt; prefill: %4 generated, %5 prompt")
                                             .arg(seen[1].generationTokens.value_or(-1)).arg(decodeTokensBefore)
                                             .arg(seen[1].promptTokens.value_or(-1)).arg(seen[0].generationTokens.value_or(-1))
                                             .arg(seen[0].promptTokens.value_or(-1))),
                              5000);
    QVERIFY(seen[0].generationTokens.value_or(0) <= 1);
    QVERIFY(pair.waitIdle());
  }
};

QTEST_MAIN(TestUiRemotePair)
#include "tst_ui_remote_pair.moc"
