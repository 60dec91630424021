// Bad model folders through the command line (issue "Reliability"): every corruption
// gives exit code 1, one readable line naming the file (and tensor or field), no crash.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/random_model.h"
#include "engine/common/json.h"

namespace fs = std::filesystem;
using lwb::test::runWorkbench;

namespace {

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void writeFile(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

void editConfig(const fs::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = lwb::readJsonFile(dir / "config.json");
  edit(j);
  writeFile(dir / "config.json", j.dump());
}

}  // namespace

class TestBadModelsCli : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  int next_ = 0;

  // A fresh, valid random model folder.
  fs::path freshModel() {
    // Not "m" + std::to_string(...): with the tests' precompiled header GCC 12 warns about
    // that operator+ (a false -Wstringop-overflow, like its -Wrestrict one, bug 105329).
    const fs::path dir = fs::path(tmp_.path().toStdString()) / "m" += std::to_string(next_++);
    lwb::RandomModelSpec spec;
    spec.vocabSize = lwb::tinyTokenizerVocabSize();
    lwb::writeRandomLlamaModel(dir.string(), spec);
    return dir;
  }

  void expectCleanFailure(const fs::path& dir, const QStringList& mentions) {
    auto r = runWorkbench({"generate", "--model", QString::fromStdString(dir.string()), "--prompt", "hello",
                           "--max-tokens", "2"});
    QVERIFY2(!r.crashed, r.err.constData());
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err.trimmed().count('\n'), 0);  // one line
    for (const QString& m : mentions) QVERIFY2(r.err.contains(m.toUtf8()), r.err.constData());
  }

 private slots:
  void aValidFolderWorks() {
    auto r = runWorkbench({"generate", "--model", QString::fromStdString(freshModel().string()), "--prompt", "hello",
                           "--max-tokens", "2", "--ignore-eos", "--json"});
    QCOMPARE(r.exitCode, 0);
  }

  void truncatedSafetensors() {
    const fs::path dir = freshModel();
    const std::string bytes = readFile(dir / "model.safetensors");
    writeFile(dir / "model.safetensors", bytes.substr(0, bytes.size() / 2));
    expectCleanFailure(dir, {"model.safetensors"});
  }

  void headerLiesAboutItsLength() {
    const fs::path dir = freshModel();
    std::string bytes = readFile(dir / "model.safetensors");
    const uint64_t huge = uint64_t(bytes.size()) * 4;
    std::memcpy(bytes.data(), &huge, 8);
    writeFile(dir / "model.safetensors", bytes);
    expectCleanFailure(dir, {"model.safetensors"});
  }

  void headerLiesAboutAShape() {
    const fs::path dir = freshModel();
    std::string bytes = readFile(dir / "model.safetensors");
    const size_t pos = bytes.find("\"shape\":[");
    QVERIFY(pos != std::string::npos);
    bytes[pos + 9] = bytes[pos + 9] == '9' ? '8' : '9';  // first dimension changes, byte count no longer fits
    writeFile(dir / "model.safetensors", bytes);
    expectCleanFailure(dir, {"model.safetensors"});
  }

  void missingTensor() {
    const fs::path dir = freshModel();
    editConfig(dir, [](nlohmann::json& j) { j["num_hidden_layers"] = j["num_hidden_layers"].get<int>() + 1; });
    expectCleanFailure(dir, {"model.layers.2."});
  }

  void unsupportedArchitecture() {
    const fs::path dir = freshModel();
    editConfig(dir, [](nlohmann::json& j) { j["architectures"] = {"GPT2LMHeadModel"}; });
    expectCleanFailure(dir, {"config.json", "GPT2LMHeadModel"});
  }

  void invalidJson() {
    const fs::path dir = freshModel();
    writeFile(dir / "config.json", "{\"hidden_size\": 64,");
    expectCleanFailure(dir, {"config.json"});
  }

  void missingTokenizer() {
    const fs::path dir = freshModel();
    fs::remove(dir / "tokenizer.model");
    expectCleanFailure(dir, {"tokenizer.model"});
  }

  void corruptTokenizer() {
    const fs::path dir = freshModel();
    writeFile(dir / "tokenizer.model", std::string(300, '\x7f'));
    expectCleanFailure(dir, {"tokenizer.model"});
  }

  void vocabularySmallerThanTheTokenizer() {
    const fs::path dir = freshModel();
    editConfig(dir, [](nlohmann::json& j) { j["vocab_size"] = 100; });
    expectCleanFailure(dir, {"vocab_size"});
  }
};

QTEST_GUILESS_MAIN(TestBadModelsCli)
#include "tst_bad_models_cli.moc"
