// The CUDA executor against the CPU executor: logits of random GQA models in every
// weight dtype (head dims 32 to 128, 80 included; Qwen2 biases and Qwen3 q/k norms) through a schedule with chunked
// prefill, a shared prefix (cached blocks), long decodes (split-K attention) and rows
// that need no logits; decode batches padded up to a CUDA-graph bucket (3, 5, 17
// sequences), graphs on and off; the default model's greedy tokens; and whole Engine
// runs (chunked prefill, prefix hits, preemption). Greedy tokens follow the near-tie
// rule of engine/exec/cuda/testing/greedy_match.h. A model shape the kernels do not
// handle is refused as unsupported (no device needed to check the CPU fallback). Skips
// with the loader's reason where there is no CUDA device; tools/device-check.sh counts
// a skip as a failure.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cuda_loader.h"
#include "engine/model/model.h"
#include "common/executor_driver.h"
#include "engine/exec/cuda/testing/greedy_match.h"

using namespace lwb;
using lwb::test::runSchedule;
using lwb::test::Schedule;
using lwb::test::Seq;

namespace {

// A CUDA executor for `model`, or the reason there is none.
std::unique_ptr<Executor> cudaFor(std::shared_ptr<const Model> model, std::string* reason) {
  return tryCreateCudaExecutor(std::move(model), ExecutorOptions{}, reason);
}

#define REQUIRE_CUDA(ex, model)                 \
  std::string skipReason;                       \
  auto ex = cudaFor(model, &skipReason);        \
  if (!ex) QSKIP(skipReason.c_str())

std::vector<int> randomTokens(int n, int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<size_t>(n));
  for (int& id : ids) id = int(rng() % unsigned(vocab));
  return ids;
}

// |cuda - cpu| small against the logits' scale, and the same argmax where the CPU's
// winner is clear.
void compareLogits(const std::vector<float>& cpu, const std::vector<float>& cuda, int vocab, double relTol) {
  QCOMPARE(cuda.size(), cpu.size());
  double scale = 0, maxDiff = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    QVERIFY2(std::isfinite(cuda[i]), "non-finite CUDA logit");
    scale = std::max(scale, double(std::fabs(cpu[i])));
    maxDiff = std::max(maxDiff, double(std::fabs(cpu[i] - cuda[i])));
  }
  QVERIFY2(maxDiff <= relTol * std::max(scale, 1.0),
           qPrintable(QString("max |cuda - cpu| %1 at logit scale %2").arg(maxDiff).arg(scale)));
  for (size_t row = 0; row < cpu.size() / size_t(vocab); ++row) {
    const float* c = cpu.data() + row * size_t(vocab);
    const float* g = cuda.data() + row * size_t(vocab);
    std::vector<float> sorted(c, c + vocab);
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<float>());
    if (sorted[0] - sorted[1] < 4 * maxDiff) continue;  // near-tie: either may win
    QCOMPARE(int(std::max_element(g, g + vocab) - g), int(std::max_element(c, c + vocab) - c));
  }
}

std::shared_ptr<const Model> randomModel(const QTemporaryDir& tmp, const RandomModelSpec& spec) {
  return loadModel(writeRandomLlamaModel(tmp.filePath("model").toStdString(), spec));
}

struct TopTwo {
  std::vector<int> tokens;
  std::vector<float> margins;  // logprob of the winner minus the runner-up, per token
};

// Greedy Engine run; per request, its tokens and the top-2 margins.
std::map<RequestId, TopTwo> runEngine(std::shared_ptr<const Model> model, const std::string& backend,
                                      const std::vector<std::vector<int>>& prompts) {
  EngineConfig config;
  config.executor.backend = backend;
  config.maxNumBatchedTokens = 48;  // prompts of 60-100 tokens: chunked prefill
  config.maxNumSeqs = 8;
  config.blockSize = 16;
  config.numGpuBlocksOverride = 24;  // too few for everyone: preemption
  Engine engine(model, config);
  std::map<RequestId, TopTwo> out;
  std::vector<RequestId> ids;
  for (const std::vector<int>& p : prompts) {
    RequestInput in;
    in.promptTokenIds = p;
    in.sampling.temperature = 0;
    in.sampling.maxTokens = 24;
    in.sampling.ignoreEos = true;
    in.sampling.logprobs = 2;
    ids.push_back(engine.addRequest(in));
  }
  for (int guard = 0; engine.hasUnfinishedRequests() && guard < 10000; ++guard) {
    const StepOutput step = engine.step();
    for (const TokenDelta& d : step.deltas) {
      TopTwo& t = out[d.id];
      t.tokens.insert(t.tokens.end(), d.newTokenIds.begin(), d.newTokenIds.end());
      for (const auto& lp : d.newLogprobs)
        t.margins.push_back(lp.size() >= 2 ? lp[0].second - lp[1].second : INFINITY);
    }
  }
  return out;
}

}  // namespace

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

  void defaultModelGreedyMatchesCpu() {
    std::shared_ptr<const Model> model;
    try {
      model = loadModel(defaultModelDir());
    } catch (const Error& e) {
      QSKIP(qPrintable(QString("default model absent: %1").arg(e.what())));
    }
    REQUIRE_CUDA(cuda, model);
    auto cpu = createCpuExecutor(model, 0);
    const std::vector<int> prompt = model->encodePrompt("It is a truth universally acknowledged, that");
    std::vector<int> tokens[2];
    std::vector<float> logits[2], margins[2];
    Executor* exs[2] = {cpu.get(), cuda.get()};
    for (int e = 0; e < 2; ++e) {
      exs[e]->allocateKvCache(8, 16);
      Seq s{0, prompt, {0, 1, 2, 3, 4, 5, 6, 7}, 0};
      int chunk = int(prompt.size());
      for (int step = 0; step < 32; ++step) {
        ForwardBatch batch;
        batch.seqs.push_back({1, 0, chunk, s.numComputed, s.blocks, true});
        batch.tokenIds.assign(s.tokens.end() - chunk, s.tokens.end());
        ForwardResult out;
        exs[e]->forward(batch, out);
        s.numComputed += chunk;
        const int next = int(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
        if (step == 0) logits[e] = out.logits;
        margins[e].push_back(devcheck::topTwoMargin(out.logits.data(), out.logits.size()));
        tokens[e].push_back(next);
        s.tokens.push_back(next);
        chunk = 1;
      }
    }
    compareLogits(logits[0], logits[1], model->config.vocabSize, 0.03);
    const devcheck::GreedyMatch m = devcheck::compareGreedy(tokens[0], margins[0], tokens[1]);
    QVERIFY2(m.ok, m.message.c_str());
    QVERIFY(m.compared >= 8);  // a tie in the first few tokens would make this vacuous
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

  // A head_dim the kernels do not take is "unsupported", not a failure: auto falls back
  // to the CPU and says why (when a device and the plugin exist; else it falls back for
  // the lack of those, which the notice also says).
  void unsupportedShapeFallsBackToCpu() {
    RandomModelSpec spec;
    spec.hiddenSize = 84;
    spec.numAttentionHeads = 2;
    spec.numKeyValueHeads = 2;
    spec.headDim = 42;  // even (RoPE) but not a multiple of 8
    spec.intermediateSize = 128;
    spec.vocabSize = 400;
    QTemporaryDir tmp;
    const auto model = randomModel(tmp, spec);
    std::string reason;
    QVERIFY(cudaFor(model, &reason) == nullptr);
    QVERIFY(!reason.empty());
    std::string notice;
    ExecutorOptions options;
    options.backend = "auto";
    auto ex = createExecutor(model, options, &notice);
    QCOMPARE(ex->deviceInfo().backend, std::string("cpu"));
    QVERIFY2(notice.find(reason) != std::string::npos, notice.c_str());
    std::string probeReason;
    if (lwb::cudaplugin::openUsablePlugin(0, &probeReason))  // a device: the shape is the reason
      QVERIFY2(reason.find("head_dim 42") != std::string::npos, reason.c_str());
    options.backend = "cuda";
    QVERIFY_THROWS_EXCEPTION(Error, createExecutor(model, options));
  }

  void engineRunsMatchCpu() {
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.hiddenSize = 128;
    spec.headDim = 32;
    spec.numAttentionHeads = 4;
    spec.numKeyValueHeads = 2;
    spec.intermediateSize = 256;
    spec.vocabSize = 400;
    spec.attentionDType = spec.mlpDType = spec.embeddingDType = spec.lmHeadDType = DType::BF16;
    spec.scale = 0.2f;
    const auto model = randomModel(tmp, spec);
    {
      REQUIRE_CUDA(probe, model);  // skips without a device
    }
    const std::vector<int> shared = randomTokens(40, spec.vocabSize, 5);  // a common system prompt
    std::vector<std::vector<int>> prompts;
    for (int i = 0; i < 6; ++i) {
      std::vector<int> p = shared;
      const std::vector<int> own = randomTokens(20 + 10 * i, spec.vocabSize, 10 + unsigned(i));
      p.insert(p.end(), own.begin(), own.end());
      prompts.push_back(p);
    }
    const auto cpu = runEngine(model, "cpu", prompts);
    const auto cuda = runEngine(model, "cuda", prompts);
    QCOMPARE(cuda.size(), cpu.size());
    int compared = 0;
    for (const auto& [id, expect] : cpu) {
      const TopTwo& got = cuda.at(id);
      QCOMPARE(got.tokens.size(), expect.tokens.size());
      const devcheck::GreedyMatch m = devcheck::compareGreedy(expect.tokens, expect.margins, got.tokens);
      QVERIFY2(m.ok, qPrintable(QString("request %1: %2").arg(id).arg(m.message.c_str())));
      compared += int(m.compared);
    }
    QVERIFY(compared > 6 * 12);  // most tokens were actually compared
  }
};

QTEST_GUILESS_MAIN(TestCudaExecutor)
#include "tst_cuda_executor.moc"
