// The fuzz_gguf seeds include whole small models (fuzz/seeds/fuzz_gguf/model-*.gguf), so
// the fuzzer's mutations reach the model config and tokenizer readers, not only the
// header parser. Each must load end to end here; and every truncation and many byte
// flips of them take the fuzzer's path (config, tokenizer, weight binding) to a model or
// an lwb::Error, never a crash. LWB_WRITE_FUZZ_SEEDS=DIR writes the seeds anew into DIR
// (how the committed ones were made).
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <iterator>
#include <random>

#include "common/gguf_export.h"
#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/model/gguf.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/gguf_tokenizer.h"
#include "engine/model/llama_weights.h"
#include "engine/model/model.h"
#include "engine/model/safetensors.h"
#include "engine/model/tokenizer_files.h"

using namespace lwb;

namespace {

const char* const kSeeds[] = {"model-llama.gguf", "model-qwen2.gguf"};

QString seedDir() {
  const QString dir = qEnvironmentVariable("LWB_WRITE_FUZZ_SEEDS");
  return dir.isEmpty() ? QStringLiteral(LWB_SOURCE_DIR "/fuzz/seeds/fuzz_gguf") : dir;
}

// A tiny model (the in-process SentencePiece tokenizer, one layer, Q8_0 matrices).
void writeSeed(const QString& dstPath, const std::string& architecture) {
  QTemporaryDir tmp;
  RandomModelSpec spec;
  spec.architecture = architecture;
  spec.hiddenSize = 32;
  spec.intermediateSize = 64;
  spec.numAttentionHeads = 2;
  spec.numKeyValueHeads = 1;
  spec.numHiddenLayers = 1;
  spec.vocabSize = tinyTokenizerVocabSize();
  const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec);
  test::writeGgufFromFolder(dir, dstPath.toStdString(), [](const std::string&, int) { return GgmlType::Q8_0; });
}

std::vector<uint8_t> readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The fuzzer's path (fuzz/fuzz_gguf.cpp) on one buffer: true when it all loaded.
bool loadsEndToEnd(const std::vector<uint8_t>& bytes) {
  try {
    auto file = GgufFile::fromMemory(bytes.data(), bytes.size(), "seed.gguf");
    const TokenizerFiles tf = ggufTokenizerFiles(*file);
    (void)tf.tokenizer->decode(tf.encodePrompt("Hello, world!"));
    const ModelConfig config = ggufModelConfig(*file);
    const bool unpermute = ggufPermutesQk(*file);
    const auto store = WeightStore::fromGguf(std::move(file), config, unpermute);
    (void)LlamaWeights::bind(*store, config);
    return true;
  } catch (const Error& e) {
    if (!QString(e.what()).contains("seed.gguf")) qWarning("an error that does not name the file: %s", e.what());
    return false;
  }
}

}  // namespace

class TestGgufFuzzSeeds : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (qEnvironmentVariableIsEmpty("LWB_WRITE_FUZZ_SEEDS")) return;
    QDir().mkpath(seedDir());
    writeSeed(seedDir() + "/model-llama.gguf", "LlamaForCausalLM");
    writeSeed(seedDir() + "/model-qwen2.gguf", "Qwen2ForCausalLM");
  }

  void seedModelsLoad() {
    for (const char* name : kSeeds) {
      const QString path = seedDir() + "/" + name;
      const auto model = loadModel(path.toStdString());
      QCOMPARE(model->config.numHiddenLayers, 1);
      QVERIFY(!model->tokenizer->encode("Hello").empty());
      QVERIFY2(loadsEndToEnd(readAll(path)), name);
      QVERIFY2(readAll(path).size() <= 65536, "fuzz.sh runs with -max_len=65536");
    }
  }

  // A deterministic taste of the fuzzer, in every CI run: truncations and byte flips.
  void damagedSeedsGiveErrorsNotCrashes() {
    std::mt19937 rng(7);
    for (const char* name : kSeeds) {
      const std::vector<uint8_t> bytes = readAll(seedDir() + "/" + name);
      QVERIFY(!bytes.empty());
      int loaded = 0;
      // A cut file never loads (the last 64 bytes may be the final padding only).
      for (size_t n = 0; n + 64 < bytes.size(); n += 61) loaded += loadsEndToEnd({bytes.begin(), bytes.begin() + long(n)});
      QCOMPARE(loaded, 0);
      const size_t head = bytes.size() / 2;  // header, metadata, tensor infos and some data
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<uint8_t> damaged = bytes;
        for (int k = 0; k < 4; ++k) damaged[rng() % head] = uint8_t(rng());
        loadsEndToEnd(damaged);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestGgufFuzzSeeds)
#include "tst_gguf_fuzz_seeds.moc"
