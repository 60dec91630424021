// The CPU executor end to end: logits vs the double-precision reference on random
// models of unusual shapes and every weight dtype, bit-exact batch invariance (alone vs
// mixed batch vs chunked prefill vs thread counts vs block sizes and shuffled tables),
// rejected batches, device info, and the default model's golden data.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "common/random_model.h"
#include "common/reference_llama.h"
#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/cpu_isa.h"
#include "engine/model/model.h"
#include "common/executor_driver.h"

using namespace lwb;
using lwb::test::runSchedule;
using lwb::test::Schedule;
using lwb::test::Seq;
using lwb::test::sliceFor;

namespace {

// A Model with config and weights only (no tokenizer): what an executor needs.
std::shared_ptr<const Model> openWeights(const std::string& dir) {
  auto m = std::make_shared<Model>();
  m->dir = dir;
  m->config = loadModelConfig(dir + "/config.json");
  m->weights = WeightStore::openFolder(dir);
  m->llama = LlamaWeights::bind(*m->weights, m->config);
  return m;
}

std::shared_ptr<const Model> randomModel(const QTemporaryDir& tmp, const RandomModelSpec& spec) {
  return openWeights(writeRandomLlamaModel(tmp.filePath("model").toStdString(), spec));
}

std::vector<int> randomTokens(int n, int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<size_t>(n));
  for (int& id : ids) id = int(rng() % unsigned(vocab));
  return ids;
}

// Block tables: each request gets `blocksEach` distinct blocks, shuffled over the pool.
void assignBlocks(std::vector<Seq>& seqs, int blocksEach, int numBlocks, unsigned seed) {
  std::vector<int32_t> ids(static_cast<size_t>(numBlocks));
  for (int i = 0; i < numBlocks; ++i) ids[size_t(i)] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937(seed));
  for (size_t i = 0; i < seqs.size(); ++i) {
    const auto first = ids.begin() + std::ptrdiff_t(i) * blocksEach;
    seqs[i].blocks.assign(first, first + blocksEach);
  }
}

struct IsaScope {  // LWB_CPU_ISA for executors created in this scope
  explicit IsaScope(const char* name) { setenv("LWB_CPU_ISA", name, 1); }
  ~IsaScope() { unsetenv("LWB_CPU_ISA"); }
};

const char* isaEnvName(Isa isa) {
  switch (isa) {
    case Isa::Avx512Bf16: return "avx512bf16";
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Scalar: break;
  }
  return "scalar";
}

RandomModelSpec invarianceSpec() {
  RandomModelSpec spec;
  spec.hiddenSize = 80;
  spec.numAttentionHeads = 8;
  spec.numKeyValueHeads = 2;
  spec.intermediateSize = 136;
  spec.numHiddenLayers = 2;
  spec.vocabSize = 300;
  spec.attentionDType = spec.mlpDType = DType::BF16;
  spec.seed = 99;
  return spec;
}

}  // namespace

class TestCpuExecutor : public QObject {
  Q_OBJECT

 private slots:
  void logitsMatchReference_data();
  void logitsMatchReference();
  void batchInvariance_data();
  void batchInvariance();
  void invalidBatchesAreRejectedWithoutTouchingTheCache();
  void reservedBuffersAndReusedResultsChangeNothing();
  void deviceInfoAndBudget();
  void goldenDefaultModel();
};

void TestCpuExecutor::logitsMatchReference_data() {
  QTest::addColumn<int>("hidden");
  QTest::addColumn<int>("heads");
  QTest::addColumn<int>("kvHeads");
  QTest::addColumn<int>("headDim");
  QTest::addColumn<int>("inter");
  QTest::addColumn<bool>("tied");
  QTest::addColumn<int>("dtype");
  QTest::addColumn<QString>("arch");
  const QString llama = "LlamaForCausalLM", qwen2 = "Qwen2ForCausalLM", qwen3 = "Qwen3ForCausalLM";
  QTest::newRow("gqa4:1 f32 untied") << 64 << 8 << 2 << 0 << 96 << false << int(DType::F32) << llama;
  QTest::newRow("mha bf16 tied") << 48 << 4 << 4 << 0 << 100 << true << int(DType::BF16) << llama;
  QTest::newRow("hidden72 headDim24 f16") << 72 << 3 << 1 << 24 << 77 << false << int(DType::F16) << llama;
  QTest::newRow("headDim18 != hidden/heads bf16 tied") << 40 << 4 << 2 << 18 << 64 << true << int(DType::BF16) << llama;
  QTest::newRow("single head f16 tied") << 34 << 1 << 1 << 0 << 50 << true << int(DType::F16) << llama;
  QTest::newRow("qwen2 biases gqa7:1 bf16 tied") << 56 << 7 << 1 << 0 << 88 << true << int(DType::BF16) << qwen2;
  QTest::newRow("qwen2 biases f32 untied") << 64 << 4 << 2 << 0 << 96 << false << int(DType::F32) << qwen2;
  QTest::newRow("qwen3 qk-norm headDim32 != 48/4 bf16 tied") << 48 << 4 << 2 << 32 << 80 << true << int(DType::BF16) << qwen3;
  QTest::newRow("qwen3 qk-norm f16 untied") << 64 << 8 << 4 << 0 << 72 << false << int(DType::F16) << qwen3;
}

// Prefill 13 tokens, then decode 7 one by one: every logits row vs the reference.
void TestCpuExecutor::logitsMatchReference() {
  QFETCH(int, hidden);
  QFETCH(int, heads);
  QFETCH(int, kvHeads);
  QFETCH(int, headDim);
  QFETCH(int, inter);
  QFETCH(bool, tied);
  QFETCH(int, dtype);
  QFETCH(QString, arch);
  RandomModelSpec spec;
  spec.architecture = arch.toStdString();
  spec.hiddenSize = hidden;
  spec.numAttentionHeads = heads;
  spec.numKeyValueHeads = kvHeads;
  spec.headDim = headDim;
  spec.intermediateSize = inter;
  spec.tieWordEmbeddings = tied;
  spec.vocabSize = 257;
  spec.embeddingDType = spec.attentionDType = spec.mlpDType = spec.normDType = spec.lmHeadDType = DType(dtype);
  spec.scale = 0.2f;
  QTemporaryDir tmp;
  auto model = randomModel(tmp, spec);
  const std::vector<int> tokens = randomTokens(20, spec.vocabSize, 7);
  const std::vector<double> ref = referenceLogits(*model, tokens);
  const int vocab = spec.vocabSize;
  double maxRef = 0;
  for (double v : ref) maxRef = std::max(maxRef, std::fabs(v));
  for (Isa isa : supportedIsas()) {
    IsaScope scope(isaEnvName(isa));
    auto ex = createCpuExecutor(model, 2);
    ex->allocateKvCache(8, 4);
    std::vector<Seq> seqs{{1, tokens, {5, 2, 7, 0, 3, 1}, 0}};
    Schedule schedule{{13}};
    for (int i = 0; i < 7; ++i) schedule.push_back({1});
    const auto got = runSchedule(*ex, seqs, schedule, {13})[0];
    QCOMPARE(int(got.size()), 8 * vocab);
    double maxErr = 0;
    for (int row = 0; row < 8; ++row)
      for (int v = 0; v < vocab; ++v)
        maxErr = std::max(maxErr, std::fabs(double(got[size_t(row * vocab + v)]) - ref[size_t((12 + row) * vocab + v)]));
    // Weights are exact in every dtype; only f32 activations and accumulation differ. At
    // AVX-512 BF16 a bf16 model's GEMMs round their inputs to bf16 (2^-9 relative), which
    // the layers carry into the logits: measured up to 0.7 % of the largest logit.
    const double tolerance = isa == Isa::Avx512Bf16 && DType(dtype) == DType::BF16 ? 1e-2 : 2e-4;
    QVERIFY2(maxErr <= tolerance * std::max(1.0, maxRef),
             qPrintable(QString("%1: max |logit error| %2 (max |logit| %3)").arg(isaName(isa)).arg(maxErr).arg(maxRef)));
  }
}

void TestCpuExecutor::batchInvariance_data() {
  QTest::addColumn<int>("isa");
  QTest::addColumn<QString>("arch");
  for (Isa isa : supportedIsas())
    for (const char* arch : {"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"})
      QTest::newRow(qPrintable(QString("%1 %2").arg(isaName(isa), arch))) << int(isa) << QString(arch);
}

// Request 0 (31-token prompt, 4 decodes) alone in one chunk is the baseline; every other
// way of running it must give bit-identical logits.
void TestCpuExecutor::batchInvariance() {
  QFETCH(int, isa);
  QFETCH(QString, arch);
  IsaScope scope(isaEnvName(Isa(isa)));
  QTemporaryDir tmp;
  RandomModelSpec spec = invarianceSpec();
  spec.architecture = arch.toStdString();
  auto model = randomModel(tmp, spec);
  const int prompt = 31, decodes = 4;
  std::vector<Seq> seqs{{10, randomTokens(prompt + decodes, spec.vocabSize, 1), {}, 0},
                        {11, randomTokens(60, spec.vocabSize, 2), {}, 0},
                        {12, randomTokens(60, spec.vocabSize, 3), {}, 0}};
  auto run = [&](int threads, int blockSize, const Schedule& schedule) {
    auto ex = createCpuExecutor(model, threads);
    const int blocksEach = (64 + blockSize - 1) / blockSize;
    ex->allocateKvCache(3 * blocksEach + 5, blockSize);
    std::vector<Seq> s = seqs;
    assignBlocks(s, blocksEach, 3 * blocksEach + 5, unsigned(blockSize * 7 + threads));
    return runSchedule(*ex, s, schedule, {prompt, 1, 1})[0];
  };
  Schedule alone{{prompt, 0, 0}};
  for (int i = 0; i < decodes; ++i) alone.push_back({1, 0, 0});
  const std::vector<float> baseline = run(1, 16, alone);
  QCOMPARE(int(baseline.size()), (decodes + 1) * spec.vocabSize);

  // Chunked prefill of request 0 while request 1 decodes and request 2 prefills.
  auto mixed = [&](int chunk) {
    Schedule s{{0, 5, 0}};  // request 1 prefills 5 tokens first, then decodes
    for (int done = 0; done < prompt; done += chunk) s.push_back({std::min(chunk, prompt - done), 1, 3});
    for (int i = 0; i < decodes; ++i) s.push_back({1, 1, i % 2 ? 0 : 2});
    return s;
  };
  struct Variant {
    const char* name;
    int threads, blockSize;
    Schedule schedule;
  };
  const std::vector<Variant> variants{
      {"alone, 2 threads", 2, 16, alone},          {"alone, 3 threads", 3, 16, alone},
      {"alone, block size 1", 2, 1, alone},        {"alone, block size 32", 3, 32, alone},
      {"chunks of 7, mixed", 2, 16, mixed(7)},     {"chunks of 16, mixed", 1, 16, mixed(16)},
      {"chunks of 33, mixed", 3, 32, mixed(33)},   {"chunks of 7, block size 1", 3, 1, mixed(7)},
  };
  for (const Variant& v : variants) {
    const std::vector<float> got = run(v.threads, v.blockSize, v.schedule);
    QVERIFY2(got.size() == baseline.size(), v.name);
    QVERIFY2(std::memcmp(got.data(), baseline.data(), got.size() * sizeof(float)) == 0,
             qPrintable(QString("%1: logits differ from the request run alone").arg(v.name)));
  }
}

void TestCpuExecutor::invalidBatchesAreRejectedWithoutTouchingTheCache() {
  QTemporaryDir tmp;
  RandomModelSpec spec = invarianceSpec();
  spec.maxPositionEmbeddings = 64;
  auto model = randomModel(tmp, spec);
  auto ex = createCpuExecutor(model, 2);
  ForwardResult res;
  const ForwardBatch early{{1, 2}, {{1, 0, 2, 0, {0}, true}}};
  QVERIFY_THROWS_EXCEPTION(Error, ex->forward(early, res));  // no cache yet
  ex->allocateKvCache(16, 4);

  Seq a{1, randomTokens(12, spec.vocabSize, 4), {3, 9, 1, 12}, 0};
  const std::vector<float> clean = runSchedule(*ex, {a}, {{8}, {1}, {1}}, {8})[0];
  runSchedule(*ex, {a}, {{8}}, {8});  // a's first 8 tokens are in the cache again

  struct Bad {
    const char* name;
    ForwardBatch batch;
    const char* expect;
  };
  auto batchOf = [&](SeqSlice s, std::vector<int32_t> ids) { return ForwardBatch{std::move(ids), {std::move(s)}}; };
  const std::vector<Bad> bad{
      {"block id out of range", batchOf({1, 0, 1, 8, {3, 9, 16}, true}, {5}), "outside [0, 16)"},
      {"negative block id", batchOf({1, 0, 1, 8, {3, 9, -1}, true}, {5}), "block -1"},
      {"block table too short", batchOf({1, 0, 1, 8, {3, 9}, true}, {5}), "block table"},
      {"position past max", batchOf({1, 0, 1, 64, std::vector<int32_t>(17, 1), true}, {5}), "max_position_embeddings"},
      {"token id past vocab", batchOf({1, 0, 1, 8, {3, 9, 1}, true}, {spec.vocabSize}), "vocabulary"},
      {"negative token id", batchOf({1, 0, 1, 8, {3, 9, 1}, true}, {-1}), "vocabulary"},
      {"rows not covered", batchOf({1, 0, 1, 8, {3, 9, 1}, true}, {5, 6}), "slices cover"},
      {"slice past rows", batchOf({1, 0, 2, 8, {3, 9, 1}, true}, {5}), "run past"},
      {"gap between slices", ForwardBatch{{5, 6}, {{1, 0, 1, 8, {3, 9, 1}, true}, {2, 2, 1, 0, {0}, true}}}, "firstRow"},
      {"empty slice", batchOf({1, 0, 0, 8, {3, 9, 1}, true}, {}), "numTokens"},
  };
  for (const Bad& b : bad) {
    // Each bad batch also carries a valid slice of request 1 that would overwrite
    // positions 8.. with other tokens if the executor ran anything before validating.
    ForwardBatch batch = b.batch;
    for (SeqSlice& s : batch.seqs) s.firstRow += 3;
    batch.tokenIds.insert(batch.tokenIds.begin(), {7, 7, 7});
    batch.seqs.insert(batch.seqs.begin(), SeqSlice{1, 0, 3, 8, a.blocks, true});
    try {
      ex->forward(batch, res);
      QFAIL(qPrintable(QString("%1: accepted").arg(b.name)));
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(b.expect), qPrintable(QString("%1: %2").arg(b.name, e.what())));
    }
  }
  Seq resumed = a;
  resumed.numComputed = 8;
  const std::vector<float> after = runSchedule(*ex, {resumed}, {{1}, {1}}, {9})[0];
  QCOMPARE(after.size(), size_t(2 * spec.vocabSize));
  QVERIFY(std::memcmp(after.data(), clean.data() + spec.vocabSize, after.size() * sizeof(float)) == 0);
}

// setBatchLimits sizes the buffers and fills RoPE's table while loading (a fresh executor
// grows both in its steps), and the engine hands the same
// ForwardResult to every step (its logits are not cleared first): neither may change a bit.
void TestCpuExecutor::reservedBuffersAndReusedResultsChangeNothing() {
  QTemporaryDir tmp;
  const RandomModelSpec spec = invarianceSpec();
  auto model = randomModel(tmp, spec);
  const ForwardBatch prefill{{3, 1, 4, 1, 5, 9, 2, 6, 5}, {{1, 0, 9, 0, {2, 0}, true}}};
  const ForwardBatch decode{{3}, {{1, 0, 1, 9, {2, 0}, true}}};
  auto fresh = createCpuExecutor(model, 2);
  fresh->allocateKvCache(4, 8);
  ForwardResult wantPrefill, wantDecode;
  fresh->forward(prefill, wantPrefill);
  fresh->forward(decode, wantDecode);

  auto reserved = createCpuExecutor(model, 2);
  QVERIFY(!reserved->setBatchLimits({64, 4, 32}));  // the KV pool is not released
  reserved->allocateKvCache(4, 8);
  ForwardResult reused;
  reused.logits.assign(3 * size_t(spec.vocabSize), std::nanf(""));  // a larger earlier step's logits
  for (const auto& [batch, want] : {std::pair{&prefill, &wantPrefill}, {&decode, &wantDecode}}) {
    reserved->forward(*batch, reused);
    QCOMPARE(reused.logits.size(), want->logits.size());
    QVERIFY(std::memcmp(reused.logits.data(), want->logits.data(), want->logits.size() * sizeof(float)) == 0);
  }
}

void TestCpuExecutor::deviceInfoAndBudget() {
  QTemporaryDir tmp;
  const RandomModelSpec spec = invarianceSpec();
  auto model = randomModel(tmp, spec);
  auto ex = createCpuExecutor(model, 3);
  const DeviceInfo info = ex->deviceInfo();
  QCOMPARE(info.backend, std::string("cpu"));
  QVERIFY2(info.name.find("(3 threads, ") != std::string::npos, info.name.c_str());
  QVERIFY(info.name.find(isaName(detectIsa())) != std::string::npos);
  QVERIFY(info.totalMemory > 0 && info.freeMemory > 0 && info.freeMemory <= info.totalMemory);
  const size_t kvSize = size_t(spec.numKeyValueHeads) * size_t(spec.hiddenSize / spec.numAttentionHeads);
  QCOMPARE(ex->kvBytesPerBlock(16), size_t(spec.numHiddenLayers) * 2 * 16 * kvSize * sizeof(float));
  QVERIFY(ex->defaultKvBudgetBytes() > 0 && ex->defaultKvBudgetBytes() < info.freeMemory);
  ex->allocateKvCache(10, 8);
  QCOMPARE(ex->numKvBlocks(), 10);
  QCOMPARE(ex->kvBlockSize(), 8);
  QVERIFY_THROWS_EXCEPTION(Error, ex->allocateKvCache(0, 16));
}

namespace {

std::vector<double> logSoftmax(const float* logits, int n) {
  double maxv = logits[0];
  for (int i = 1; i < n; ++i) maxv = std::max(maxv, double(logits[i]));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i]) - maxv);
  std::vector<double> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out[size_t(i)] = double(logits[i]) - maxv - std::log(sum);
  return out;
}

// Greedy decoding through the executor: the prompt in one chunk, then one token a step.
// Returns the tokens and the log-softmax of every step's logits.
std::pair<std::vector<int>, std::vector<std::vector<double>>> greedy(Executor& ex, const std::vector<int>& prompt,
                                                                     int numNew) {
  const int blockSize = ex.kvBlockSize();
  Seq s{1, prompt, {}, 0};
  for (int b = 0; b * blockSize < int(prompt.size()) + numNew; ++b) s.blocks.push_back(b);
  std::vector<int> outTokens;
  std::vector<std::vector<double>> logprobs;
  int feed = int(prompt.size());
  for (int step = 0; step < numNew; ++step) {
    ForwardBatch batch{std::vector<int32_t>(s.tokens.begin() + s.numComputed, s.tokens.end()),
                       {sliceFor(s, 0, feed, true)}};
    ForwardResult res;
    ex.forward(batch, res);
    logprobs.push_back(logSoftmax(res.row(0), res.vocabSize));
    const int next = int(std::max_element(res.row(0), res.row(0) + res.vocabSize) - res.row(0));
    outTokens.push_back(next);
    s.numComputed += feed;
    s.tokens.push_back(next);
    feed = 1;
  }
  return {outTokens, logprobs};
}

}  // namespace

// Greedy tokens and top logprobs of the trained default model (f32) vs the golden data
// written by the training script with PyTorch.
void TestCpuExecutor::goldenDefaultModel() {
  const std::string dir = LWB_SOURCE_DIR "/resources/models/austen-chat-11m";
  if (!std::filesystem::exists(dir + "/model.safetensors")) QSKIP("resources/models/austen-chat-11m is not there yet");
  const std::string golden = LWB_TEST_DATA_DIR "/golden_austen_chat_11m.json";
  if (!std::filesystem::exists(golden)) QSKIP("tests/data/golden_austen_chat_11m.json is not there yet");
  const nlohmann::json j = lwb::readJsonFile(golden);
  const nlohmann::json cases = j.contains("cases") ? j["cases"] : j.value("prompts", nlohmann::json());
  if (!cases.is_array() || cases.empty()) QSKIP("golden file has no 'cases'/'prompts' array");
  auto model = openWeights(dir);
  auto ex = createCpuExecutor(model, 2);
  ex->allocateKvCache(256, 16);
  for (const nlohmann::json& c : cases) {
    const auto prompt = c.at("prompt_token_ids").get<std::vector<int>>();
    const auto expected = c.at("greedy_token_ids").get<std::vector<int>>();
    const auto [tokens, logprobs] = greedy(*ex, prompt, int(expected.size()));
    QCOMPARE(tokens, expected);
    if (!c.contains("greedy_top_logprobs")) continue;
    // greedy_top_logprobs[step] = [[token id, logprob], ...] (top 5)
    const nlohmann::json& top = c["greedy_top_logprobs"];
    for (size_t step = 0; step < top.size() && step < logprobs.size(); ++step)
      for (const nlohmann::json& pair : top[step]) {
        const int id = pair[0].get<int>();
        const double want = pair[1].get<double>();
        QVERIFY2(std::fabs(logprobs[step][size_t(id)] - want) < 2e-3,
                 qPrintable(QString("step %1 token %2: logprob %3, golden %4").arg(step).arg(id)
                                .arg(logprobs[step][size_t(id)]).arg(want)));
      }
  }
}

QTEST_GUILESS_MAIN(TestCpuExecutor)
#include "tst_cpu_executor.moc"
