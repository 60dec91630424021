// The CUDA executor against the CPU executor: logits of random GQA models in every
// weight dtype (head dims 32 to 128, 80 included; Qwen2 biases and Qwen3 q/k norms)
// through a schedule with chunked prefill, a shared prefix (cached blocks), long decodes
// (split-K attention) and rows that need no logits; decode batches padded up to a
// CUDA-graph bucket (3, 5, 17 sequences), graphs on and off; invalid batches; the same
// bits for the same shapes. Skips with the loader's reason where there is no CUDA
// device; tools/device-check.sh counts a skip as a failure. Greedy runs and the CPU
// fallback: tst_cuda_engine.
#include <QtTest>

#include <algorithm>
#include <random>

#include "common/cuda_compare.h"
#include "common/executor_driver.h"
#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/model/model.h"

using namespace lwb;
using namespace lwb::test;

class TestCudaExecutor : public QObject {
  Q_OBJECT

 private slots:
  void logitsMatchCpu_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<int>("headDim");
    QTest::addColumn<bool>("tied");
    QTest::addColumn<QString>("architecture");
    const QString llama = "LlamaForCausalLM";
    QTest::newRow("bf16 gqa 4:2 d32") << int(DType::BF16) << 128 << 4 << 2 << 32 << false << llama;
    QTest::newRow("f32 gqa 8:1 d64 tied") << int(DType::F32) << 256 << 8 << 1 << 64 << true << llama;
    QTest::newRow("f16 mha 3:3 d64") << int(DType::F16) << 192 << 3 << 3 << 64 << false << llama;
    QTest::newRow("bf16 gqa 8:2 d128") << int(DType::BF16) << 256 << 8 << 2 << 128 << false << llama;
    QTest::newRow("bf16 gqa 8:2 d80 tied") << int(DType::BF16) << 256 << 8 << 2 << 80 << true << llama;
    QTest::newRow("f16 gqa 4:1 d40") << int(DType::F16) << 128 << 4 << 1 << 40 << false << llama;
    // Qwen2.5-0.5B's head layout (14:2, d64, tied) with q/k/v biases; Qwen3's explicit
    // head_dim 128 (heads × head_dim ≠ hidden) with per-head q/k RMSNorm.
    QTest::newRow("qwen2 bf16 14:2 d64 tied") << int(DType::BF16) << 224 << 14 << 2 << 64 << true
                                              << QString("Qwen2ForCausalLM");
    QTest::newRow("qwen3 bf16 8:4 d128 tied") << int(DType::BF16) << 256 << 8 << 4 << 128 << true
                                              << QString("Qwen3ForCausalLM");
    QTest::newRow("qwen3 f16 4:2 d64") << int(DType::F16) << 128 << 4 << 2 << 64 << false << QString("Qwen3ForCausalLM");
  }

  void logitsMatchCpu() {
    QFETCH(int, dtype);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, kvHeads);
    QFETCH(int, headDim);
    QFETCH(bool, tied);
    QFETCH(QString, architecture);
    RandomModelSpec spec;
    spec.architecture = architecture.toStdString();
    spec.hiddenSize = hidden;
    spec.numAttentionHeads = heads;
    spec.numKeyValueHeads = kvHeads;
    spec.headDim = headDim;
    spec.intermediateSize = 2 * hidden + 8;
    spec.numHiddenLayers = 2;
    spec.vocabSize = 512;  // at least the tiny tokenizer's 400 pieces
    spec.maxPositionEmbeddings = 1024;
    spec.tieWordEmbeddings = tied;
    spec.embeddingDType = spec.attentionDType = spec.mlpDType = spec.normDType = spec.lmHeadDType = DType(dtype);
    QTemporaryDir tmp;
    const auto model = randomModel(tmp, spec);
    REQUIRE_CUDA(cuda, model);
    auto cpu = createCpuExecutor(model, 0);
    // A: 70-token prompt in chunks 16/54, then decodes past 600 (split attention).
    // B: shares A's first 64 tokens through the same 4 blocks (a prefix hit), then its own.
    // C: prompt of 1 token, decodes in the same steps.
    std::vector<Seq> seqs(3);
    for (int i = 0; i < 3; ++i) seqs[size_t(i)].id = i;
    seqs[0].tokens = randomTokens(640, spec.vocabSize, 1);
    seqs[1].tokens = seqs[0].tokens;
    const std::vector<int> tail = randomTokens(100, spec.vocabSize, 2);
    std::copy(tail.begin(), tail.end(), seqs[1].tokens.begin() + 64);
    seqs[2].tokens = randomTokens(40, spec.vocabSize, 3);
    for (int b = 0; b < 40; ++b) seqs[0].blocks.push_back(b);
    seqs[1].blocks = {0, 1, 2, 3, 60, 59, 58, 57, 56, 55, 54};
    seqs[2].blocks = {70, 71, 72};
    Schedule schedule = {{16, 0, 0}, {54, 0, 1}};
    schedule.push_back({1, 0, 1});
    for (int i = 0; i < 30; ++i) schedule.push_back({1, 0, 1});
    std::vector<Seq> run = seqs;
    run[1].numComputed = 64;  // prefix hit: computed by A
    schedule.push_back({1, 20, 1});
    for (int i = 71 + 31 + 1; i < 639; ++i) schedule.push_back({1, i < 71 + 31 + 40 ? 1 : 0, 0});
    const std::vector<int> logitsFrom = {70, 65, 1};
    for (auto* ex : {cpu.get(), cuda.get()}) ex->allocateKvCache(80, 16);
    const auto expect = runSchedule(*cpu, run, schedule, logitsFrom);
    const auto got = runSchedule(*cuda, run, schedule, logitsFrom);
    for (size_t r = 0; r < expect.size(); ++r) compareLogits(expect[r], got[r], spec.vocabSize, 0.03);
  }

  void invalidBatchThrows() {
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.headDim = 32;
    const auto model = randomModel(tmp, spec);
    REQUIRE_CUDA(cuda, model);
    cuda->allocateKvCache(4, 16);
    ForwardBatch batch;
    batch.tokenIds = {1, 2};
    batch.seqs.push_back({7, 0, 2, 0, {9}, true});  // block 9 of 4
    ForwardResult out;
    QVERIFY_THROWS_EXCEPTION(Error, cuda->forward(batch, out));
    batch.seqs[0].blockTable = {0};
    batch.tokenIds = {1, spec.vocabSize};  // token out of range
    QVERIFY_THROWS_EXCEPTION(Error, cuda->forward(batch, out));
    batch.tokenIds = {1, 2};
    cuda->forward(batch, out);
    QCOMPARE(out.numRows, 1);
    QCOMPARE(out.vocabSize, spec.vocabSize);
    const DeviceInfo info = cuda->deviceInfo();
    QCOMPARE(info.backend, std::string("cuda"));
    QVERIFY(!info.name.empty() && info.totalMemory > 0);
    QVERIFY(cuda->kvBytesPerBlock(16) > 0);
  }

  // Decode-only batches of 3, 5 and 17 sequences run in CUDA-graph buckets of 4, 8 and
  // 32 rows: the padded rows must change nothing. Logits of every row against the CPU,
  // with graphs (first step eager + capture, then replays) and without.
  void paddedDecodeBatchesMatchCpu_data() {
    QTest::addColumn<int>("numSeqs");
    QTest::addColumn<bool>("graphs");
    for (int n : {3, 5, 17})
      for (bool g : {true, false}) QTest::addRow("%d seqs, graphs %s", n, g ? "on" : "off") << n << g;
  }

  void paddedDecodeBatchesMatchCpu() {
    QFETCH(int, numSeqs);
    QFETCH(bool, graphs);
    RandomModelSpec spec;
    spec.hiddenSize = 128;
    spec.numAttentionHeads = 4;
    spec.numKeyValueHeads = 2;
    spec.headDim = 32;
    spec.intermediateSize = 256;
    spec.numHiddenLayers = 2;
    spec.vocabSize = 512;
    spec.attentionDType = spec.mlpDType = spec.embeddingDType = spec.lmHeadDType = DType::BF16;
    QTemporaryDir tmp;
    const auto model = randomModel(tmp, spec);
    const QByteArray saved = qgetenv("LWB_CUDA_GRAPHS");
    qputenv("LWB_CUDA_GRAPHS", graphs ? "1" : "0");  // read when the executor is created
    std::string skipReason;
    auto cuda = cudaFor(model, &skipReason);
    if (saved.isNull()) qunsetenv("LWB_CUDA_GRAPHS");
    else qputenv("LWB_CUDA_GRAPHS", saved);
    if (!cuda) QSKIP(skipReason.c_str());
    auto cpu = createCpuExecutor(model, 0);
    // Prompts of 9..17 tokens in one mixed step, then 6 decode-only steps of all of them.
    std::vector<Seq> seqs(static_cast<size_t>(numSeqs));
    std::vector<int> logitsFrom;
    Schedule schedule(7, std::vector<int>(size_t(numSeqs), 1));
    for (int i = 0; i < numSeqs; ++i) {
      Seq& s = seqs[size_t(i)];
      s.id = i;
      s.tokens = randomTokens(24, spec.vocabSize, 100 + unsigned(i));
      s.blocks = {2 * i + 1, 2 * i};
      schedule[0][size_t(i)] = 9 + i % 9;
      logitsFrom.push_back(9 + i % 9);
    }
    for (auto* ex : {cpu.get(), cuda.get()}) ex->allocateKvCache(2 * numSeqs, 16);
    const auto expect = runSchedule(*cpu, seqs, schedule, logitsFrom);
    const auto got = runSchedule(*cuda, seqs, schedule, logitsFrom);
    for (size_t r = 0; r < expect.size(); ++r) {
      QCOMPARE(got[r].size(), size_t(7 * spec.vocabSize));
      compareLogits(expect[r], got[r], spec.vocabSize, 0.03);
    }
  }

  // What the README promises about batch invariance on CUDA: the same batches give the
  // same bits run to run (cuBLAS is deterministic for a fixed problem), and a row's
  // logits do not depend on the other rows when the GEMM row count is the same (here:
  // a neighbour with other tokens, same shapes). Across row counts they may differ.
  void sameShapesGiveSameBits() {
    RandomModelSpec spec;
    spec.hiddenSize = 128;
    spec.headDim = 32;
    spec.intermediateSize = 256;
    spec.attentionDType = spec.mlpDType = spec.embeddingDType = spec.lmHeadDType = DType::BF16;
    QTemporaryDir tmp;
    const auto model = randomModel(tmp, spec);
    REQUIRE_CUDA(first, model);
    auto second = cudaFor(model, &skipReason);
    QVERIFY(second);
    std::vector<Seq> a(2), b(2);
    for (int i = 0; i < 2; ++i) {
      a[size_t(i)] = Seq{i, randomTokens(40, spec.vocabSize, 50 + unsigned(i)), {2 * i, 2 * i + 1, 4 + i}, 0};
      b[size_t(i)] = a[size_t(i)];
    }
    b[1].tokens = randomTokens(40, spec.vocabSize, 99);  // another neighbour, same lengths
    Schedule schedule = {{20, 20}, {10, 10}};
    for (int i = 0; i < 6; ++i) schedule.push_back({1, 1});
    for (auto* ex : {first.get(), second.get()}) ex->allocateKvCache(8, 16);
    const auto runA = runSchedule(*first, a, schedule, {20, 20});
    const auto runA2 = runSchedule(*second, a, schedule, {20, 20});
    const auto runB = runSchedule(*second, b, schedule, {20, 20});
    QVERIFY(runA[0] == runA2[0] && runA[1] == runA2[1]);  // run to run
    QVERIFY(runA[0] == runB[0]);                          // the neighbour's tokens do not matter
  }
};

QTEST_GUILESS_MAIN(TestCudaExecutor)
#include "tst_cuda_executor.moc"
