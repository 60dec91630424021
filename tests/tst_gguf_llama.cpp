// The Llama reading of GGUF metadata (hyper-parameters, defaults, errors naming the key
// or architecture), Llama 3's rope_freqs tensor, and the undoing of the converter's q/k
// row permutation.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <set>
#include <numeric>

#include "common/executor_driver.h"
#include "common/gguf_export.h"
#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

using Metadata = std::vector<std::pair<std::string, GgufValue>>;

Metadata llamaMetadata() {
  return {{"general.architecture", ggufString("llama")},
          {"llama.context_length", ggufUint32(2048)},
          {"llama.embedding_length", ggufUint32(384)},
          {"llama.feed_forward_length", ggufUint32(1024)},
          {"llama.block_count", ggufUint32(6)},
          {"llama.attention.head_count", ggufUint32(6)},
          {"llama.attention.head_count_kv", ggufUint32(2)},
          {"llama.attention.layer_norm_rms_epsilon", ggufFloat32(1e-5f)},
          {"llama.rope.freq_base", ggufFloat32(500000.f)},
          {"llama.rope.dimension_count", ggufUint32(64)},
          {"tokenizer.ggml.tokens", ggufArray(GgufValueType::String, {ggufString("<unk>"), ggufString("<s>"), ggufString("</s>")})},
          {"tokenizer.ggml.bos_token_id", ggufUint32(1)},
          {"tokenizer.ggml.eos_token_id", ggufUint32(2)}};
}

// The file's error message, or "" when it reads.
QString configError(const QTemporaryDir& tmp, const Metadata& m, ModelConfig* out = nullptr,
                    const std::vector<GgufTensorData>& tensors = {}) {
  const std::string path = tmp.filePath("m.gguf").toStdString();
  writeGguf(path, m, tensors);
  try {
    const ModelConfig c = ggufModelConfig(*GgufFile::open(path));
    if (out) *out = c;
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

Metadata with(Metadata m, const std::string& key, const GgufValue* value) {
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->first == key) {
      if (value) it->second = *value;
      else m.erase(it);
      return m;
    }
  if (value) m.push_back({key, *value});
  return m;
}

GgufTensorData ropeFreqs(std::vector<float> factors, GgmlType type = GgmlType::F32) {
  GgufTensorData t{"rope_freqs.weight", type, {int64_t(factors.size())}, {}};
  t.bytes.resize(factors.size() * 4);
  std::memcpy(t.bytes.data(), factors.data(), t.bytes.size());
  return t;
}

}  // namespace

class TestGgufLlama : public QObject {
  Q_OBJECT

 private slots:
  void readsTheHyperParameters() {
    QTemporaryDir tmp;
    ModelConfig c;
    QCOMPARE(configError(tmp, llamaMetadata(), &c), QString());
    QCOMPARE(c.hiddenSize, 384);
    QCOMPARE(c.intermediateSize, 1024);
    QCOMPARE(c.numHiddenLayers, 6);
    QCOMPARE(c.numAttentionHeads, 6);
    QCOMPARE(c.numKeyValueHeads, 2);
    QCOMPARE(c.headDim, 64);
    QCOMPARE(c.maxPositionEmbeddings, 2048);
    QCOMPARE(c.rmsNormEps, 1e-5f);
    QCOMPARE(c.ropeTheta, 500000.f);
    QCOMPARE(c.vocabSize, 3);  // from the token list when llama.vocab_size is absent
    QVERIFY(c.tieWordEmbeddings);  // no output.weight tensor
    QCOMPARE(c.eosTokenIds, std::vector<int>{2});
    QCOMPARE(configError(tmp, with(llamaMetadata(), "llama.attention.head_count_kv", nullptr), &c), QString());
    QCOMPARE(c.numKeyValueHeads, 6);  // absent: as many as the query heads
  }

  void errorsNameTheKeyOrArchitecture() {
    QTemporaryDir tmp;
    const GgufValue gemma = ggufString("gemma2"), zero = ggufUint32(0), partial = ggufUint32(32), text = ggufString("x");
    const QString archError = configError(tmp, with(llamaMetadata(), "general.architecture", &gemma));
    QVERIFY2(archError.contains("'gemma2' is not supported (supported: llama, qwen2, qwen3)"), qPrintable(archError));
    QVERIFY(configError(tmp, with(llamaMetadata(), "llama.block_count", nullptr)).contains("missing metadata key llama.block_count"));
    QVERIFY(configError(tmp, with(llamaMetadata(), "llama.embedding_length", &zero)).contains("llama.embedding_length = 0"));
    QVERIFY(configError(tmp, with(llamaMetadata(), "llama.rope.dimension_count", &partial)).contains("partial RoPE"));
    QVERIFY(configError(tmp, with(llamaMetadata(), "llama.context_length", &text)).contains("llama.context_length: expected an integer"));
    const GgufValue five = ggufUint32(5);
    QVERIFY(configError(tmp, with(llamaMetadata(), "llama.attention.head_count_kv", &five)).contains("not a multiple"));
  }

  // rope_freqs.weight divides the inverse frequencies pair by pair; a tensor of the wrong
  // size, type or values is named in the error.
  void ropeFreqsScaleTheFrequencies() {
    QTemporaryDir tmp;
    ModelConfig plain, scaled;
    QCOMPARE(configError(tmp, llamaMetadata(), &plain), QString());
    std::vector<float> factors(32, 1.0f);
    factors[30] = 8.0f, factors[31] = 2.5f;
    QCOMPARE(configError(tmp, llamaMetadata(), &scaled, {ropeFreqs(factors)}), QString());
    QCOMPARE(scaled.ropeScaling.freqFactors, factors);
    const std::vector<float> a = ropeInvFreq(plain), b = ropeInvFreq(scaled);
    for (int i = 0; i < 30; ++i) QVERIFY(b[size_t(i)] == a[size_t(i)]);  // exact (QCOMPARE is fuzzy near 0)
    QVERIFY(b[30] == float(double(a[30]) / 8.0));
    QVERIFY(b[31] < a[31] && b[31] > a[31] / 2.6f);
    const QString size = configError(tmp, llamaMetadata(), nullptr, {ropeFreqs(std::vector<float>(16, 1.0f))});
    QVERIFY2(size.contains("tensor rope_freqs.weight: expected 32 elements (head dim 64 / 2), found 16"), qPrintable(size));
    factors[3] = 0.0f;
    const QString zero = configError(tmp, llamaMetadata(), nullptr, {ropeFreqs(factors)});
    QVERIFY2(zero.contains("rope_freqs.weight: element 3 = 0.000000: expected a positive number"), qPrintable(zero));
    GgufTensorData f16 = ropeFreqs(std::vector<float>(16, 1.0f), GgmlType::F16);
    f16.dims = {32};
    QVERIFY(configError(tmp, llamaMetadata(), nullptr, {f16}).contains("rope_freqs.weight: expected type F32, found F16"));
  }

  // A Llama 3.1-style model (rope_scaling llama3) as a folder and as the GGUF the
  // converter would write (the scaling baked into rope_freqs): the same inverse
  // frequencies within one float rounding (the file stores the divisors in F32) and the
  // same greedy tokens, on positions well past original_max_position_embeddings.
  void llama3ScalingFromRopeFreqsMatchesTheFolder() {
    QTemporaryDir tmp;
    RandomModelSpec spec;  // head dim 16: pairs 0 (short wavelength), 1 (smoothed), 2-7 (long)
    spec.maxPositionEmbeddings = 512;
    spec.scale = 0.15f;
    spec.ropeScaling.type = RopeScaling::Type::Llama3;
    spec.ropeScaling.factor = 8.0f;
    spec.ropeScaling.lowFreqFactor = 1.0f;
    spec.ropeScaling.highFreqFactor = 4.0f;
    spec.ropeScaling.originalMaxPositionEmbeddings = 32;
    const std::string dir = writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec);
    const auto hf = loadModel(dir), gguf = loadModel(test::writeGgufFromFolder(dir, tmp.filePath("m.gguf").toStdString()));
    QVERIFY(gguf->config.ropeScaling.type == RopeScaling::Type::None);
    QCOMPARE(gguf->config.ropeScaling.freqFactors.size(), size_t(8));
    const std::vector<float> a = ropeInvFreq(hf->config), b = ropeInvFreq(gguf->config);
    for (size_t i = 0; i < a.size(); ++i) QVERIFY2(std::fabs(a[i] - b[i]) <= 2.4e-7f * a[i], qPrintable(QString::number(i)));
    QVERIFY(b[7] == a[7]);  // factor 8: exact
    std::vector<int> prompt;
    for (int i = 0; i < 40; ++i) prompt.push_back((i * 37 + 11) % 300);
    const std::vector<int> want = test::greedyIds(*createCpuExecutor(hf, 2), prompt, 40);
    QCOMPARE(test::greedyIds(*createCpuExecutor(gguf, 2), prompt, 40), want);
    QVERIFY(std::set<int>(want.begin(), want.end()).size() > 3);  // not one token repeated
  }

  // The converter's permutation, written as it is specified (HF row (h, s, i) → GGUF row
  // (h, i, s)), then undone: every row back in place, for quantized-size rows too.
  void unpermuteUndoesTheConverter() {
    const int heads = 3, d = 8;
    const size_t rowBytes = 34;
    std::vector<uint8_t> hf(size_t(heads * d) * rowBytes);
    std::iota(hf.begin(), hf.end(), uint8_t(0));
    std::vector<uint8_t> gguf(hf.size()), back(hf.size());
    for (int h = 0; h < heads; ++h)
      for (int s = 0; s < 2; ++s)
        for (int i = 0; i < d / 2; ++i)
          std::memcpy(&gguf[size_t(h * d + 2 * i + s) * rowBytes], &hf[size_t(h * d + s * d / 2 + i) * rowBytes], rowBytes);
    QVERIFY(gguf != hf);
    unpermuteHeadRows(gguf.data(), back.data(), heads, d, rowBytes);
    QVERIFY(back == hf);
    // d = 4, one byte rows: GGUF [a0 b0 a1 b1] is HF [a0 a1 b0 b1].
    const uint8_t in[4] = {10, 20, 11, 21};
    uint8_t out[4];
    unpermuteHeadRows(in, out, 1, 4, 1);
    QCOMPARE(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{10, 11, 20, 21}));
  }
};

QTEST_GUILESS_MAIN(TestGgufLlama)
#include "tst_gguf_llama.moc"
