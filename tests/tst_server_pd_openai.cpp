// The official OpenAI client for Node (npm `openai`, as tst_server_openai runs it) against
// the P/D proxy in front of a prefill and a decode serve: it lists the models, streams a
// chat and completes a prompt as from one ordinary server, and the greedy answers equal
// one colocated engine's. Fails (does not skip) when Node or the package is missing.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "common/pd_harness.h"
#include "engine/common/json.h"

using namespace lwb;
using namespace lwb::test;

class TestServerPdOpenai : public QObject {
  Q_OBJECT
  PdHarness h_;
  ServerHarness colocated_;  // its engineGreedy() is the reference

 private slots:
  void officialClientThroughTheProxy() {
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    QVERIFY2(!node.isEmpty(), "Node.js (node) is not installed; run tools/install-deps.sh");
    QVERIFY2(QFileInfo::exists(openaiNodeModulesDir() + "/openai/package.json"),
             qPrintable("the openai npm package is missing from " + openaiNodeModulesDir() + "; run tools/install-deps.sh"));
    QVERIFY2(h_.model, kBundledModelMissing);
    h_.start();

    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LWB_OPENAI_NODE_MODULES"), openaiNodeModulesDir());
    proc.setProcessEnvironment(env);
    proc.start(node, {QStringLiteral(LWB_TEST_DATA_DIR "/openai_client.cjs"), QString::fromStdString(h_.proxy->address()),
                      QStringLiteral("sdk-key")});
    QVERIFY(proc.waitForFinished(180000));
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 0, err.constData());
    const json out = lwb::parseJsonOrDiscarded(proc.readAllStandardOutput().toStdString());
    QVERIFY2(!out.is_discarded(), err.constData());

    QCOMPARE(out["models"][0].get<std::string>(), std::string("austen"));
    QCOMPARE(out["role"].get<std::string>(), std::string("assistant"));
    QVERIFY(out["finishReason"].is_string());
    QCOMPARE(out["chatText"].get<std::string>(),
             colocated_.engineGreedy(h_.model->encodeChat({{"user", "Who is Emma?"}}, true), 16));
    QCOMPARE(out["usage"]["completion_tokens"].get<int>() + out["usage"]["prompt_tokens"].get<int>(),
             out["usage"]["total_tokens"].get<int>());
    QCOMPARE(out["completionText"].get<std::string>(),
             colocated_.engineGreedy(h_.model->encodePrompt("Mr. Darcy said"), 8));
    QVERIFY(h_.waitIdle());
    h_.stop();
  }
};

QTEST_GUILESS_MAIN(TestServerPdOpenai)
#include "tst_server_pd_openai.moc"
