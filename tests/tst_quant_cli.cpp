// --quantization on the command line: generate runs the default model quantized, bench
// records the knob in its JSON, bad values are one-line usage errors.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "engine/common/json.h"

using lwb::test::runWorkbench;
using nlohmann::json;

class TestQuantCli : public QObject {
  Q_OBJECT
  QString model_;

 private slots:
  void initTestCase() { model_ = lwb::test::defaultModelInBuildTree(); }

  void badValuesAreUsageErrors() {
    auto r = runWorkbench({"generate", "--prompt", "x", "--quantization", "awq"});
    QVERIFY(!r.crashed);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--quantization") && r.err.contains("awq"), r.err.constData());
    auto b = runWorkbench({"bench", "--num-prompts", "1", "--request-rate", "inf", "--input-len", "8", "--output-len",
                           "2", "--quantization", "int3"});
    QCOMPARE(b.exitCode, 2);
    QVERIFY2(b.err.contains("--quantization"), b.err.constData());
  }

  void generateRunsQuantized_data() {
    QTest::addColumn<QString>("type");
    QTest::newRow("q8_0") << "q8_0";
    QTest::newRow("q4_k") << "q4_k";
  }
  void generateRunsQuantized() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    QFETCH(QString, type);
    const QStringList args{"generate", "--prompt", "It is a truth universally acknowledged", "--max-tokens", "8",
                           "--temperature", "0", "--ignore-eos", "--backend", "cpu", "--threads", "2",
                           "--quantization", type, "--json"};
    auto a = runWorkbench(args), b = runWorkbench(args);
    QCOMPARE(a.exitCode, 0);
    const json ja = lwb::parseJson(a.out.constData());
    QCOMPARE(ja["output_token_ids"].size(), size_t(8));
    QCOMPARE(ja["output_token_ids"], lwb::parseJson(b.out.constData())["output_token_ids"]);
  }

  void benchRecordsTheKnob() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    QTemporaryDir tmp;
    const QString out = tmp.filePath("b.json");
    auto r = runWorkbench({"bench", "--num-prompts", "3", "--request-rate", "inf", "--input-len", "16", "--output-len",
                           "4", "--backend", "cpu", "--threads", "2", "--quantization", "q8_0", "--quiet", "--json", out});
    QCOMPARE(r.exitCode, 0);
    const json j = lwb::readJsonFile(out.toStdString());
    QCOMPARE(j["completed"].get<int>(), 3);
    QCOMPARE(j["config"]["quantization"].get<std::string>(), std::string("q8_0"));
  }
};

QTEST_GUILESS_MAIN(TestQuantCli)
#include "tst_quant_cli.moc"
