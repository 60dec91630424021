// The two-process recipe of docs/pd.md with the built program: a decode `serve`
// (kv_consumer) and the proxy start first, the prefill `serve` (kv_producer) last; the
// proxy's /health turns 200, a greedy completion through it equals the engine's own, and
// all three exit 0 on SIGTERM. `serve --pd 1:1` (the pair in one process) answers the
// same way. Bad command lines are refused with exit code 2.
#include <QtTest>

#include <signal.h>

#include <memory>

#include "common/cli_runner.h"
#include "common/server_harness.h"
#include "engine/config/knobs.h"
#include "server/kv_transfer_frame.h"

using namespace lwb;
using namespace lwb::test;

namespace {

int freePort() {
  int port = 0;
  server::closeSocket(server::listenTcp("127.0.0.1", 0, &port));
  return port;
}

QString kvConfig(const char* role, int kvPort) {
  return QStringLiteral(R"({"kv_connector": "TcpConnector", "kv_role": "%1", "kv_ip": "127.0.0.1", "kv_port": %2})")
      .arg(QString::fromLatin1(role))
      .arg(kvPort);
}

// Polls /health until it answers 200 (a process starting on a loaded machine), at most 60 s.
bool healthyWithin60s(httplib::Client& c) {
  for (int i = 0; i < 600; ++i, QThread::msleep(100)) {
    const auto r = c.Get("/health");
    if (r && r->status == 200) return true;
  }
  return false;
}

}  // namespace

class TestServerPdCli : public QObject {
  Q_OBJECT
  ServerHarness colocated_;  // its engineGreedy() is the reference

  static std::unique_ptr<QProcess> launch(const QStringList& args) {
    auto p = std::make_unique<QProcess>();
    p->setProcessChannelMode(QProcess::MergedChannels);
    p->start(workbenchExecutable(), args);
    p->waitForStarted(10000);
    return p;
  }

  static bool stopped(QProcess& p) {
    ::kill(pid_t(p.processId()), SIGTERM);
    return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  }

 private slots:
  void recipeRunsInAnyStartOrder() {
    QVERIFY2(colocated_.model, kBundledModelMissing);
    const QString flag = "--" + QString::fromStdString(findKnob(knob::kKvTransferConfig)->flag);
    const int kvPort = freePort(), prefillPort = freePort(), decodePort = freePort(), proxyPort = freePort();
    auto decode = launch({"serve", "--port", QString::number(decodePort), "--served-model-name", "austen", flag,
                          kvConfig("kv_consumer", kvPort)});
    auto proxy = launch({"proxy", "--prefill", QStringLiteral("http://127.0.0.1:%1").arg(prefillPort), "--decode",
                         QStringLiteral("http://127.0.0.1:%1").arg(decodePort), "--port", QString::number(proxyPort)});
    auto prefill = launch({"serve", "--port", QString::number(prefillPort), "--served-model-name", "austen", flag,
                           kvConfig("kv_producer", kvPort)});
    httplib::Client c("127.0.0.1", proxyPort);
    c.set_read_timeout(120, 0);
    const bool ready = healthyWithin60s(c);
    QVERIFY2(ready, prefill->readAll().constData());
    const std::string prompt = "It is a truth universally acknowledged, that a single man in possession of a good "
                               "fortune, must be in want of a wife.";
    const auto r = c.Post("/v1/completions", json{{"prompt", prompt}, {"max_tokens", 8}, {"temperature", 0}}.dump(),
                          "application/json");
    QVERIFY(r);
    QVERIFY2(r->status == 200, r->body.c_str());
    QCOMPARE(lwb::parseJson(r->body)["choices"][0]["text"].get<std::string>(),
             colocated_.engineGreedy(colocated_.model->encodePrompt(prompt), 8));
    QVERIFY(stopped(*proxy));
    QVERIFY(stopped(*prefill));
    QVERIFY(stopped(*decode));
    const QByteArray log = prefill->readAll();
    QVERIFY2(log.contains("kv_producer"), log.constData());
  }

  // serve --pd 1:1: the in-process pair behind the API answers as the colocated engine does.
  void servesFromAnInProcessPair() {
    QVERIFY2(colocated_.model, kBundledModelMissing);
    const int port = freePort();
    auto pair = launch({"serve", "--pd", "1:1", "--port", QString::number(port)});
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    const bool ready = healthyWithin60s(c);
    QVERIFY2(ready, pair->readAll().constData());
    const std::string prompt = "She was the youngest of the two daughters of a most affectionate, indulgent father.";
    const auto r = c.Post("/v1/completions", json{{"prompt", prompt}, {"max_tokens", 8}, {"temperature", 0}}.dump(),
                          "application/json");
    QVERIFY(r);
    QVERIFY2(r->status == 200, r->body.c_str());
    QCOMPARE(lwb::parseJson(r->body)["choices"][0]["text"].get<std::string>(),
             colocated_.engineGreedy(colocated_.model->encodePrompt(prompt), 8));
    QVERIFY(stopped(*pair));
    const QByteArray log = pair->readAll();
    QVERIFY2(log.contains("prefill/decode pair"), log.constData());
  }

  void badCommandLinesAreRefused() {
    const CliResult noDecode = runWorkbench({"proxy", "--prefill", "http://127.0.0.1:1"});
    QCOMPARE(noDecode.exitCode, 2);
    QVERIFY2(noDecode.err.contains("--decode"), noDecode.err.constData());
    const CliResult badUrl = runWorkbench({"proxy", "--prefill", "ftp://x", "--decode", "http://127.0.0.1:1"});
    QCOMPARE(badUrl.exitCode, 2);
    QVERIFY2(badUrl.err.contains("ftp://x"), badUrl.err.constData());
    const QString flag = "--" + QString::fromStdString(findKnob(knob::kKvTransferConfig)->flag);
    const CliResult inProcess = runWorkbench({"serve", flag, R"({"kv_connector": "PdInProcessConnector"})"});
    QCOMPARE(inProcess.exitCode, 2);
    QVERIFY2(inProcess.err.contains("TcpConnector"), inProcess.err.constData());
    const CliResult both = runWorkbench({"serve", flag, R"({"kv_connector": "TcpConnector", "kv_role": "kv_both"})"});
    QCOMPARE(both.exitCode, 2);
    QVERIFY2(both.err.contains("kv_role"), both.err.constData());
    const CliResult zero = runWorkbench({"serve", "--pd", "0:1"});
    QCOMPARE(zero.exitCode, 2);
    QVERIFY2(zero.err.contains("--pd 0:1"), zero.err.constData());
    const CliResult pdAndTcp =
        runWorkbench({"serve", "--pd", "1:1", flag, R"({"kv_connector": "TcpConnector", "kv_role": "kv_producer"})"});
    QCOMPARE(pdAndTcp.exitCode, 2);
    QVERIFY2(pdAndTcp.err.contains("in-process pair"), pdAndTcp.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestServerPdCli)
#include "tst_server_pd_cli.moc"
