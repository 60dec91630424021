// The kv_cache_dtype knob end to end: the bundled model with a bf16 or FP8 (e4m3, e5m2)
// KV cache generates greedily, its logits stay close to the f32 cache's on the same
// tokens, a bf16 block takes half the bytes and an FP8 one a quarter, so the engine gets
// 2x / 4x the blocks from the same kv_cache_memory_bytes, auto is float32 on the CPU
// for float weights and bfloat16 for quantized ones, and bad values and the CUDA backend's refusal name the knob, the value and what is
// accepted.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "common/bundled_model.h"
#include "common/engine_fixture.h"
#include "common/executor_driver.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/executor.h"

using namespace lwb;

namespace {

// The error text of fn(), or "" when it did not throw lwb::Error.
template <typename Fn>
QString errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

EngineConfig withKv(const std::string& dtype) {
  EngineConfig c = test::knobs(256, true, false);
  c.kvCacheMemoryBytes = int64_t(6) << 20;
  c.executor.kvCacheDtype = dtype;
  return c;
}

std::vector<int> promptTokens(int n, int vocab) {
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back((i * 7919 + 13) % vocab);
  return ids;
}

}  // namespace

class TestKvCacheDtype : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY2(test::bundledModel() != nullptr, test::kBundledModelMissing); }
  void blocksTakeFewerBytes();
  void engineGetsMoreBlocks_data();
  void engineGetsMoreBlocks();
  void logitsStayCloseToF32_data();
  void logitsStayCloseToF32();
  void engineGeneratesGreedily_data();
  void engineGeneratesGreedily();
  void autoIsFloat32OnTheCpu();
  void autoIsBf16ForQuantizedWeights();
  void badValueNamesTheKnobAndChoices();
  void cudaRefusesWhatItCannotStore();
};

void TestKvCacheDtype::blocksTakeFewerBytes() {
  auto f32 = createCpuExecutor(test::bundledModel(), 1, GgmlType::F32, DType::F32);
  const ModelConfig& c = test::bundledModel()->config;
  QCOMPARE(f32->kvBytesPerBlock(16), size_t(c.numHiddenLayers) * 2 * 16 * size_t(c.kvSize()) * 4);
  for (const auto& each : {std::pair{DType::BF16, 2}, {DType::F8E4M3, 4}, {DType::F8E5M2, 4}}) {
    auto ex = createCpuExecutor(test::bundledModel(), 1, GgmlType::F32, each.first);
    QCOMPARE(ex->kvBytesPerBlock(16) * size_t(each.second), f32->kvBytesPerBlock(16));
  }
  QVERIFY_THROWS_EXCEPTION(Error, createCpuExecutor(test::bundledModel(), 1, GgmlType::F32, DType::F16));
}

void TestKvCacheDtype::engineGetsMoreBlocks_data() {
  QTest::addColumn<QString>("dtype");
  QTest::addColumn<int>("factor");
  QTest::newRow("bfloat16") << "bfloat16" << 2;
  QTest::newRow("fp8") << "fp8" << 4;
  QTest::newRow("fp8_e5m2") << "fp8_e5m2" << 4;
}

// Same kv_cache_memory_bytes: 2x (bf16) or 4x (FP8) the blocks, and the KV map (one
// entry per block) and the step records' block counts add up to it.
void TestKvCacheDtype::engineGetsMoreBlocks() {
  QFETCH(QString, dtype);
  QFETCH(int, factor);
  Engine f32(test::bundledModel(), withKv("float32"));
  Engine small(test::bundledModel(), withKv(dtype.toStdString()));
  QVERIFY(f32.numKvBlocks() > 0);
  QCOMPARE(small.numKvBlocks(), factor * f32.numKvBlocks());
  QCOMPARE(int(small.kvBlocks().size()), small.numKvBlocks());
  small.addRequest(test::greedy(promptTokens(40, test::bundledModel()->config.vocabSize), 4));
  const StepOutput out = small.step();
  QVERIFY2(out.error.empty(), out.error.c_str());
  const StepRecord& rec = small.steps().back();
  QCOMPARE(rec.numBlocksUsed + rec.numBlocksCachedFree + rec.numBlocksFree, small.numKvBlocks());
}

void TestKvCacheDtype::logitsStayCloseToF32_data() {
  QTest::addColumn<int>("type");
  QTest::addColumn<double>("bound");
  // Measured worst (AVX-512, AVX2 and scalar alike): bf16 0.07 %, fp8_e4m3 1.1 %, fp8_e5m2
  // 3.2 % (3 and 2 mantissa bits: ~2x and ~4x bf16's 2^-9 relative error per element,
  // times the mixing of the layers).
  QTest::newRow("bfloat16") << int(DType::BF16) << 0.005;
  QTest::newRow("fp8_e4m3") << int(DType::F8E4M3) << 0.03;
  QTest::newRow("fp8_e5m2") << int(DType::F8E5M2) << 0.08;
}

// Teacher-forced on the f32 cache's greedy continuation: prefill of 100 tokens, then 12
// decode steps. Each logits row of the smaller cache is within `bound` of that row's
// logit range of the f32 one, and the argmax agrees except at near-ties.
void TestKvCacheDtype::logitsStayCloseToF32() {
  QFETCH(int, type);
  QFETCH(double, bound);
  const auto model = test::bundledModel();
  const int vocab = model->config.vocabSize, steps = 12;
  auto f32 = createCpuExecutor(model, 2, GgmlType::F32, DType::F32);
  auto bf16 = createCpuExecutor(model, 2, GgmlType::F32, DType(type));
  std::vector<int> tokens = promptTokens(100, vocab);
  const int promptLen = int(tokens.size());
  const std::vector<int> cont = test::greedyIds(*f32, tokens, steps);
  tokens.insert(tokens.end(), cont.begin(), cont.end());
  test::Seq seq;
  seq.tokens = tokens;
  for (int b = 0; b < 8; ++b) seq.blocks.push_back(7 - b);
  test::Schedule schedule{{promptLen}};
  for (int s = 0; s < steps; ++s) schedule.push_back({1});
  double worst = 0;
  std::vector<std::vector<float>> rows[2];
  for (int which = 0; which < 2; ++which) {
    Executor& ex = which == 0 ? *f32 : *bf16;
    ex.allocateKvCache(8, 16);
    rows[which] = test::runSchedule(ex, {seq}, schedule, {promptLen});
  }
  const std::vector<float>& a = rows[0][0];
  const std::vector<float>& b = rows[1][0];
  QCOMPARE(a.size(), size_t(steps + 1) * size_t(vocab));
  QCOMPARE(b.size(), a.size());
  for (int r = 0; r <= steps; ++r) {
    const float* x = a.data() + size_t(r) * size_t(vocab);
    const float* y = b.data() + size_t(r) * size_t(vocab);
    const auto [lo, hi] = std::minmax_element(x, x + vocab);
    double diff = 0;
    for (int i = 0; i < vocab; ++i) diff = std::max(diff, double(std::fabs(x[i] - y[i])));
    const double rel = diff / double(*hi - *lo);
    worst = std::max(worst, rel);
    QVERIFY2(rel < bound, qPrintable(QString("step %1: max |logit diff| %2 of range %3").arg(r).arg(diff).arg(*hi - *lo)));
    std::vector<float> sorted(x, x + vocab);
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<float>());
    if (sorted[0] - sorted[1] > 2 * diff) QCOMPARE(std::max_element(y, y + vocab) - y, hi - x);
  }
  qInfo("%s KV vs f32 KV: worst max |logit diff| / logit range over %d rows: %.4f %%",
        std::string(dtypeName(DType(type))).c_str(), steps + 1, 100 * worst);
}

void TestKvCacheDtype::engineGeneratesGreedily_data() {
  QTest::addColumn<QString>("dtype");
  for (const char* d : {"bfloat16", "fp8_e4m3", "fp8_e5m2"}) QTest::newRow(d) << d;
}

// Through the engine (scheduler, block pool, chunked prefill): requests finish with
// their max_tokens, with bf16 and FP8 as with f32.
void TestKvCacheDtype::engineGeneratesGreedily() {
  QFETCH(QString, dtype);
  const int vocab = test::bundledModel()->config.vocabSize;
  const std::vector<std::vector<int>> prompts{promptTokens(30, vocab), promptTokens(300, vocab), promptTokens(5, vocab)};
  const test::RunResult bf16 = test::runAll(test::bundledModel(), withKv(dtype.toStdString()), prompts);
  QCOMPARE(int(bf16.tokens.size()), 3);
  for (const auto& [id, toks] : bf16.tokens) {
    QCOMPARE(int(toks.size()), test::kMaxTokens);
    QCOMPARE(int(bf16.reasons.at(id)), int(FinishReason::Length));
  }
  QCOMPARE(bf16.numOwnedAtEnd, 0);
}

// auto keeps today's cache: f32 bytes per block, and the same logits bit for bit as an
// executor made before the knob existed (float32 explicitly).
void TestKvCacheDtype::autoIsFloat32OnTheCpu() {
  QCOMPARE(cpuKvCacheType("auto"), DType::F32);
  QCOMPARE(cpuKvCacheType("float32"), DType::F32);
  QCOMPARE(cpuKvCacheType("bfloat16"), DType::BF16);
  QCOMPARE(cpuKvCacheType("fp8"), DType::F8E4M3);  // vLLM's fp8 is e4m3
  QCOMPARE(cpuKvCacheType("fp8_e4m3"), DType::F8E4M3);
  QCOMPARE(cpuKvCacheType("fp8_e5m2"), DType::F8E5M2);
  QCOMPARE(EngineConfig{}.executor.kvCacheDtype, std::string("auto"));
  ExecutorOptions opts;
  opts.backend = "cpu";
  opts.numThreads = 1;
  auto viaAuto = createExecutor(test::bundledModel(), opts);
  auto plain = createCpuExecutor(test::bundledModel(), 1);
  QCOMPARE(viaAuto->kvBytesPerBlock(16), plain->kvBytesPerBlock(16));
  const std::vector<int> prompt = promptTokens(20, test::bundledModel()->config.vocabSize);
  QCOMPARE(test::greedyIds(*viaAuto, prompt, 5), test::greedyIds(*plain, prompt, 5));
}

// Quantized weights (here quantized at load; a GGUF file's blocks count the same) have no
// float dtype for auto to follow: their cache is bf16, as llama.cpp's is 16-bit, and an
// explicit float32 still gets f32.
void TestKvCacheDtype::autoIsBf16ForQuantizedWeights() {
  QCOMPARE(cpuKvCacheType("auto", true), DType::BF16);
  QCOMPARE(cpuKvCacheType("float32", true), DType::F32);
  QCOMPARE(cpuKvCacheType("fp8", true), DType::F8E4M3);
  ExecutorOptions opts;
  opts.backend = "cpu";
  opts.numThreads = 1;
  opts.quantization = "q8_0";
  const auto bf16 = createCpuExecutor(test::bundledModel(), 1, GgmlType::Q8_0, DType::BF16);
  QCOMPARE(createExecutor(test::bundledModel(), opts)->kvBytesPerBlock(16), bf16->kvBytesPerBlock(16));
  opts.kvCacheDtype = "float32";
  const auto f32 = createCpuExecutor(test::bundledModel(), 1, GgmlType::Q8_0, DType::F32);
  QCOMPARE(createExecutor(test::bundledModel(), opts)->kvBytesPerBlock(16), f32->kvBytesPerBlock(16));
  QVERIFY(f32->kvBytesPerBlock(16) == 2 * bf16->kvBytesPerBlock(16));
}

void TestKvCacheDtype::badValueNamesTheKnobAndChoices() {
  EngineConfig c;
  c.executor.kvCacheDtype = "fp8_e4m3fnuz";  // AMD's variant: not one of ours
  const QString validate = errorOf([&] { c.validate(); });
  QVERIFY2(validate.contains("kv_cache_dtype") && validate.contains("'fp8_e4m3fnuz'") &&
               validate.contains("one of auto, float32, bfloat16, fp8, fp8_e4m3, fp8_e5m2"),
           qPrintable(validate));
  const QString create = errorOf([&] { createExecutor(test::bundledModel(), c.executor); });
  QVERIFY2(create.contains("kv_cache_dtype") && create.contains("auto, float32, bfloat16, fp8"), qPrintable(create));
  QCOMPARE(findKnobByFlag("kv-cache-dtype"), findKnob(knob::kKvCacheDtype));
  QCOMPARE(findKnob(knob::kKvCacheDtype)->apply, KnobApply::RebuildExecutor);
}

// The CUDA backend keeps its cache in its activation dtype (bf16, or f16 for all-F16
// weights): auto always works, bfloat16 only with bf16 activations; the rest is refused
// before any weight is uploaded, naming the knob, the value and the backend.
void TestKvCacheDtype::cudaRefusesWhatItCannotStore() {
  checkCudaKvCacheDtype("auto", false);
  checkCudaKvCacheDtype("auto", true);
  checkCudaKvCacheDtype("bfloat16", false);
  for (const auto& each : {std::pair{"float32", false}, {"float32", true}, {"bfloat16", true}, {"fp8", false},
                           {"fp8_e5m2", true}}) {
    const char* value = each.first;  // named copies: clang 14 lambdas cannot capture bindings
    const bool f16 = each.second;
    const QString e = errorOf([&] { checkCudaKvCacheDtype(value, f16); });
    QVERIFY2(e.contains(QString("kv_cache_dtype ") + value) && e.contains("CUDA backend") &&
                 e.contains(f16 ? "in f16" : "in bf16") && e.contains("use auto"),
             qPrintable(QString(value) + ": " + e));
  }
  QVERIFY(errorOf([] { checkCudaKvCacheDtype("int8", false); }).contains("one of auto, float32, bfloat16, fp8"));
}

QTEST_GUILESS_MAIN(TestKvCacheDtype)
#include "tst_kv_cache_dtype.moc"
