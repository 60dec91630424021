// `llm-workbench generate` end to end: arguments, errors, JSON shape, golden greedy tokens.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "engine/common/json.h"

using lwb::test::runWorkbench;
using nlohmann::json;

namespace {

json loadGolden() {
  const std::string path = LWB_TEST_DATA_DIR "/golden_austen_chat_11m.json";
  if (!std::filesystem::exists(path)) return nullptr;
  json j = lwb::readJsonFile(path);
  return j.contains("cases") ? j["cases"] : j["prompts"];
}

QStringList idsArg(const std::vector<int>& ids) {
  QStringList parts;
  for (int id : ids) parts << QString::number(id);
  return {"--prompt-token-ids", parts.join(',')};
}

int countLines(const QByteArray& s) { return int(s.trimmed().split('\n').size()); }

}  // namespace

class TestGenerateCli : public QObject {
  Q_OBJECT
  QString model_;

 private slots:
  void initTestCase() { model_ = lwb::test::defaultModelInBuildTree(); }

  void versionAndHelp() {
    auto v = runWorkbench({"--version"});
    QCOMPARE(v.exitCode, 0);
    QVERIFY(v.out.startsWith("llm-workbench "));
    auto h = runWorkbench({"generate", "--help"});
    QCOMPARE(h.exitCode, 0);
    QVERIFY(h.out.contains("--prompt-token-ids"));
    QVERIFY(h.out.contains("--repetition-penalty"));
  }

  void badArgumentsGiveOneLineAndExit2_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("not a number") << QStringList{"generate", "--prompt", "x", "--max-tokens", "abc"} << "--max-tokens";
    QTest::newRow("zero tokens") << QStringList{"generate", "--prompt", "x", "--max-tokens", "0"} << "--max-tokens";
    QTest::newRow("negative temperature") << QStringList{"generate", "--prompt", "x", "--temperature", "-1"}
                                          << "--temperature";
    QTest::newRow("top-p out of range") << QStringList{"generate", "--prompt", "x", "--top-p", "1.5"} << "--top-p";
    QTest::newRow("unknown flag") << QStringList{"generate", "--prompt", "x", "--frobnicate"} << "--frobnicate";
    QTest::newRow("both prompts") << QStringList{"generate", "--prompt", "x", "--prompt-token-ids", "1"} << "--prompt";
    QTest::newRow("no prompt") << QStringList{"generate"} << "--prompt";
    QTest::newRow("bad ids") << QStringList{"generate", "--prompt-token-ids", "1,x"} << "--prompt-token-ids";
    QTest::newRow("missing value") << QStringList{"generate", "--prompt"} << "--prompt";
    QTest::newRow("negative min-tokens") << QStringList{"generate", "--prompt", "x", "--min-tokens", "-1"}
                                         << "--min-tokens";
    QTest::newRow("min-tokens above max-tokens")
        << QStringList{"generate", "--prompt", "x", "--max-tokens", "3", "--min-tokens", "5"} << "min_tokens";
  }
  void badArgumentsGiveOneLineAndExit2() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    auto r = runWorkbench(args);
    QVERIFY(!r.crashed);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(countLines(r.err), 1);
    QVERIFY2(r.err.contains(mentions.toUtf8()), r.err.constData());
  }

  void missingModelFolderIsAClearError() {
    auto r = runWorkbench({"generate", "--model", "/nonexistent/model-dir", "--prompt", "hi"});
    QVERIFY(!r.crashed);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("/nonexistent/model-dir"), r.err.constData());
  }

  void jsonIsOneObjectWithTheDocumentedKeys() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    auto r = runWorkbench({"generate", "--prompt", "It is a truth universally acknowledged", "--max-tokens", "5",
                           "--temperature", "0", "--ignore-eos", "--logprobs", "3", "--json"});
    QCOMPARE(r.exitCode, 0);
    json j = lwb::parseJson(r.out.constData());  // throws (fails the test) on anything else
    for (const char* key : {"model", "prompt_token_ids", "output_token_ids", "text", "finish_reason", "logprobs",
                            "metrics"})
      QVERIFY2(j.contains(key), key);
    QVERIFY(QDir::isAbsolutePath(QString::fromStdString(j["model"].get<std::string>())));
    QCOMPARE(j["prompt_token_ids"][0].get<int>(), 1);  // BOS added to text prompts
    QCOMPARE(j["output_token_ids"].size(), size_t(5));
    QCOMPARE(j["finish_reason"].get<std::string>(), std::string("length"));
    QCOMPARE(j["logprobs"].size(), size_t(5));
    QCOMPARE(j["logprobs"][0].size(), size_t(3));
    for (const char* key : {"ttft_ms", "tpot_ms", "e2e_ms", "prompt_tokens", "output_tokens"})
      QVERIFY2(j["metrics"].contains(key), key);
    QCOMPARE(j["metrics"]["output_tokens"].get<int>(), 5);
  }

  void greedyTokensMatchTheGoldenData() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    json cases = loadGolden();
    if (cases.is_null()) QSKIP("tests/data/golden_austen_chat_11m.json is missing");
    for (const json& c : cases) {
      auto prompt = c["prompt_token_ids"].get<std::vector<int>>();
      auto expected = c["greedy_token_ids"].get<std::vector<int>>();
      auto r = runWorkbench(QStringList{"generate"} + idsArg(prompt) +
                            QStringList{"--max-tokens", QString::number(expected.size()), "--temperature", "0",
                                        "--ignore-eos", "--logprobs", "5", "--json"});
      QCOMPARE(r.exitCode, 0);
      json j = lwb::parseJson(r.out.constData());
      QCOMPARE(j["prompt_token_ids"].get<std::vector<int>>(), prompt);  // fed exactly, no BOS added
      QCOMPARE(j["output_token_ids"].get<std::vector<int>>(), expected);
      if (c.contains("greedy_top_logprobs")) {
        const json& want = c["greedy_top_logprobs"][0];
        const json& got = j["logprobs"][0];
        QCOMPARE(got[0][0].get<int>(), want[0][0].get<int>());
        QVERIFY(std::fabs(got[0][1].get<double>() - want[0][1].get<double>()) < 2e-3);
      }
    }
  }

  void promptOfMaxModelLenIsRejected() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    std::vector<int> ids(1024, 100);
    auto r = runWorkbench(QStringList{"generate"} + idsArg(ids) + QStringList{"--max-tokens", "1"});
    QVERIFY(!r.crashed);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("max_model_len"), r.err.constData());
  }

  void sameSeedSameAnswer() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    const QStringList args{"generate", "--chat", "--prompt", "How are you today?", "--temperature", "0.8",
                           "--seed", "42", "--max-tokens", "24", "--json"};
    auto a = runWorkbench(args), b = runWorkbench(args);
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(lwb::parseJson(a.out.constData())["output_token_ids"], lwb::parseJson(b.out.constData())["output_token_ids"]);
  }

  void textModeStreamsToStdout() {
    if (model_.isEmpty()) QSKIP("the default model is not in the build tree yet");
    auto r = runWorkbench({"generate", "--prompt", "Mr. Darcy", "--max-tokens", "8", "--temperature", "0"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.out.trimmed().isEmpty());
    QVERIFY(r.err.contains("TTFT"));
  }
};

QTEST_GUILESS_MAIN(TestGenerateCli)
#include "tst_generate_cli.moc"
