// The official OpenAI client for Node (npm `openai`, pinned in tools/install-deps.sh and
// fetched into ${LWB_CACHE_DIR:-~/.cache/llm-workbench}/npm/openai) streams a chat and
// completes a prompt against the server, unmodified, with an API key. Fails (does not
// skip) when Node or the package is missing: CI installs both.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "common/server_harness.h"
#include "engine/common/json.h"

using namespace lwb;
using namespace lwb::test;

class TestServerOpenai : public QObject {
  Q_OBJECT
  ServerHarness h_;

 private slots:
  void officialClientStreamsAndCompletes() {
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    QVERIFY2(!node.isEmpty(), "Node.js (node) is not installed; run tools/install-deps.sh");
    QVERIFY2(QFileInfo::exists(openaiNodeModulesDir() + "/openai/package.json"),
             qPrintable("the openai npm package is missing from " + openaiNodeModulesDir() + "; run tools/install-deps.sh"));
    QVERIFY2(h_.model, kBundledModelMissing);
    h_.start("sdk-key");
    const server::ApiServer& api = *h_.server;

    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LWB_OPENAI_NODE_MODULES"), openaiNodeModulesDir());
    proc.setProcessEnvironment(env);
    proc.start(node, {QStringLiteral(LWB_TEST_DATA_DIR "/openai_client.cjs"), QString::fromStdString(api.address()),
                      QStringLiteral("sdk-key")});
    QVERIFY(proc.waitForFinished(180000));
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 0, err.constData());
    const json out = lwb::parseJsonOrDiscarded(proc.readAllStandardOutput().toStdString());
    QVERIFY2(!out.is_discarded(), err.constData());

    QCOMPARE(out["models"][0].get<std::string>(), api.modelName());
    QCOMPARE(out["role"].get<std::string>(), std::string("assistant"));
    QVERIFY(out["finishReason"].is_string());
    QCOMPARE(out["chatText"].get<std::string>(), h_.engineGreedy(h_.model->encodeChat({{"user", "Who is Emma?"}}, true), 16));
    QCOMPARE(out["usage"]["completion_tokens"].get<int>() + out["usage"]["prompt_tokens"].get<int>(),
             out["usage"]["total_tokens"].get<int>());
    QCOMPARE(out["completionText"].get<std::string>(), h_.engineGreedy(h_.model->encodePrompt("Mr. Darcy said"), 8));
  }
};

QTEST_GUILESS_MAIN(TestServerOpenai)
#include "tst_server_openai.moc"
