// CPU executor benchmark: prefill and decode throughput of the default model (f32 and a
// bf16 copy), of a random bf16 model larger than the CPU caches, and of a random bf16
// model with Qwen2.5-0.5B's shape (biases, 151,936-token tied vocabulary), against a
// measured memory-bandwidth bound; the default and the large model also quantized at
// load to Q8_0 and Q4_K. Never part of the test suite.
//   bench_cpu [--threads N] [--quick] [--model DIR] [--only austen|engine|large|qwen]
//             [--batches 8,32] [--steps N]   (decode batches of the f32/bf16 runs; steps per batch,
//                                             more for a profile)
//             [--runs TEXT]                  (only the runs whose heading contains TEXT, e.g. "11m bf16")
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/model.h"
#include "engine_step_bench.h"

using namespace lwb;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds of the whole process: on a shared machine wall time overstates the cost,
// so each line also reports the rate per CPU-second × threads ("if the cores were ours").
double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// A Model whose weights live in buffers this struct owns (no files).
struct OwnedModel {
  Model model;
  std::deque<TensorView> views;
  std::deque<std::vector<uint8_t>> buffers;
};

uint64_t nextRandom(uint64_t& s) {  // xorshift64*: fast enough for 10^9 weights
  s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
  return s * 2685821657736338717ull;
}

const TensorView* addTensor(OwnedModel& m, const std::string& name, DType dtype, std::vector<int64_t> shape,
                            uint64_t& rng, float scale, float offset, const TensorView* copyFrom = nullptr) {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  std::vector<uint8_t>& buf = m.buffers.emplace_back(n * dtypeSize(dtype));
  for (size_t i = 0; i < n; ++i) {
    float v = offset + scale * (float(nextRandom(rng) >> 40) / float(1 << 24) * 2.0f - 1.0f);
    if (copyFrom) std::memcpy(&v, static_cast<const float*>(copyFrom->data) + i, 4);  // f32 source
    if (dtype == DType::F32) std::memcpy(&buf[4 * i], &v, 4);
    else {
      const uint16_t h = dtype == DType::BF16 ? floatToBf16(v) : floatToF16(v);
      std::memcpy(&buf[2 * i], &h, 2);
    }
  }
  return &m.views.emplace_back(TensorView{name, dtype, std::move(shape), buf.data(), "(memory)"});
}

// Random weights of `cfg`, or a `dtype` copy of `source`'s f32 weights when given.
std::shared_ptr<const Model> makeModel(const ModelConfig& cfg, DType dtype, const Model* source = nullptr) {
  auto owned = std::make_shared<OwnedModel>();
  Model& m = owned->model;
  m.config = cfg;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  const int64_t h = cfg.hiddenSize, inter = cfg.intermediateSize, qs = cfg.qSize(), kvs = cfg.kvSize();
  auto add = [&](const std::string& name, std::vector<int64_t> shape, bool norm, const TensorView* src) {
    return addTensor(*owned, name, norm ? DType::F32 : dtype, std::move(shape), rng, norm ? 0.0f : 0.05f,
                     norm ? 1.0f : 0.0f, src && src->dtype == DType::F32 ? src : nullptr);
  };
  const LlamaWeights* s = source ? &source->llama : nullptr;
  m.llama.embedTokens = add("embed", {cfg.vocabSize, h}, false, s ? s->embedTokens : nullptr);
  for (int l = 0; l < cfg.numHiddenLayers; ++l) {
    const LlamaLayerWeights* sl = s ? &s->layers[size_t(l)] : nullptr;
    LlamaLayerWeights w;
    w.inputNorm = add("in_norm", {h}, true, sl ? sl->inputNorm : nullptr);
    w.q = add("q", {qs, h}, false, sl ? sl->q : nullptr);
    w.k = add("k", {kvs, h}, false, sl ? sl->k : nullptr);
    w.v = add("v", {kvs, h}, false, sl ? sl->v : nullptr);
    w.o = add("o", {h, qs}, false, sl ? sl->o : nullptr);
    if (cfg.qkvBias) {
      w.qBias = add("q_bias", {qs}, false, nullptr);
      w.kBias = add("k_bias", {kvs}, false, nullptr);
      w.vBias = add("v_bias", {kvs}, false, nullptr);
    }
    if (cfg.qkNorm) {
      w.qNorm = add("q_norm", {cfg.headDim}, true, nullptr);
      w.kNorm = add("k_norm", {cfg.headDim}, true, nullptr);
    }
    w.postAttnNorm = add("post_norm", {h}, true, sl ? sl->postAttnNorm : nullptr);
    w.gate = add("gate", {inter, h}, false, sl ? sl->gate : nullptr);
    w.up = add("up", {inter, h}, false, sl ? sl->up : nullptr);
    w.down = add("down", {h, inter}, false, sl ? sl->down : nullptr);
    m.llama.layers.push_back(w);
  }
  m.llama.finalNorm = add("norm", {h}, true, s ? s->finalNorm : nullptr);
  m.llama.lmHead = cfg.tieWordEmbeddings ? m.llama.embedTokens : add("lm_head", {cfg.vocabSize, h}, false, s ? s->lmHead : nullptr);
  return std::shared_ptr<const Model>(owned, &owned->model);
}

ModelConfig llamaConfig(int hidden, int layers, int heads, int kvHeads, int inter, int vocab, bool tied) {
  ModelConfig c;
  c.architecture = "LlamaForCausalLM";
  c.hiddenSize = hidden, c.numHiddenLayers = layers, c.numAttentionHeads = heads, c.numKeyValueHeads = kvHeads;
  c.headDim = hidden / heads, c.intermediateSize = inter, c.vocabSize = vocab, c.tieWordEmbeddings = tied;
  c.maxPositionEmbeddings = 4096, c.rmsNormEps = 1e-5f;
  return c;
}

// Qwen2.5-0.5B-Instruct's config.json: q/k/v biases, tied 151,936-token vocabulary.
ModelConfig qwen25HalfBConfig(int layers) {
  ModelConfig c = llamaConfig(896, layers, 14, 2, 4864, 151936, true);
  c.architecture = "Qwen2ForCausalLM";
  c.qkvBias = true;
  c.ropeTheta = 1e6f, c.rmsNormEps = 1e-6f;
  return c;
}

// Bytes of the matrices one decode step streams (every Linear and lm_head).
double matrixBytes(const Model& m) {
  double bytes = 0;
  auto add = [&](const TensorView* t) { bytes += double(t->shape[0]) * double(t->shape[1]) * double(dtypeSize(t->dtype)); };
  for (const LlamaLayerWeights& w : m.llama.layers)
    for (const TensorView* t : {w.q, w.k, w.v, w.o, w.gate, w.up, w.down}) add(t);
  add(m.llama.lmHead);
  return bytes;
}

double matrixParams(const Model& m) {
  double n = 0;
  for (const LlamaLayerWeights& w : m.llama.layers)
    for (const TensorView* t : {w.q, w.k, w.v, w.o, w.gate, w.up, w.down}) n += double(t->shape[0]) * double(t->shape[1]);
  return n;  // lm_head excluded: prefill computes logits for the last row only
}

// Reads p[0, n) as 8 streams in lockstep, a cache line of each per step (as a decode
// GEMV reads 8 weight panels): one stream per task leaves the prefetchers idle part of the time.
uint64_t readStreams(const uint64_t* p, size_t n) {
  constexpr int kStreams = 8, kLine = 8;
  const size_t part = n / kStreams / kLine * kLine;
  uint64_t acc[kStreams][kLine] = {};
  for (size_t i = 0; i < part; i += kLine)
    for (int s = 0; s < kStreams; ++s)
      for (int k = 0; k < kLine; ++k) acc[s][k] += p[size_t(s) * part + i + size_t(k)];
  uint64_t sum = 0;
  for (const auto& a : acc)
    for (uint64_t v : a) sum += v;
  return sum;
}

// Multi-threaded streaming read of 1 GiB (512 MiB with --quick), best of 5 → GB/s.
double measureBandwidth(int threads, bool quick) {
  const size_t n = (quick ? (size_t(512) << 20) : (size_t(1) << 30)) / sizeof(uint64_t);
  std::vector<uint64_t> buf(n);
  for (size_t i = 0; i < n; ++i) buf[i] = i;
  ThreadPool pool(threads);
  const int tasks = 64;
  std::vector<uint64_t> sums(static_cast<size_t>(tasks));
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
    pool.parallelFor(tasks, [&](int t, int) { sums[size_t(t)] = readStreams(buf.data() + n / size_t(tasks) * size_t(t), n / size_t(tasks)); });
    best = std::max(best, double(n / size_t(tasks) * size_t(tasks) * sizeof(uint64_t)) / secondsSince(t0) / 1e9);
  }
  uint64_t check = 0;
  for (uint64_t v : sums) check += v;
  if (check == 42) std::printf(" ");  // keeps the reads observable
  return best;
}

struct Seqs {
  ForwardBatch batch;  // the next step's batch
  std::vector<int> lengths;
};

// B sequences with their own blocks; prefilled to `context` tokens, one forward each.
Seqs prefillSequences(Executor& ex, int B, int context, int vocab) {
  Seqs s;
  const int blocksEach = ex.numKvBlocks() / B;
  for (int b = 0; b < B; ++b) {
    SeqSlice slice{b, 0, context, 0, {}, true};
    for (int i = 0; i < blocksEach; ++i) slice.blockTable.push_back(b * blocksEach + i);
    ForwardBatch one{std::vector<int32_t>(size_t(context)), {slice}};
    for (int i = 0; i < context; ++i) one.tokenIds[size_t(i)] = (b * 131 + i * 17) % vocab;
    ForwardResult r;
    ex.forward(one, r);
    slice.firstRow = b, slice.numTokens = 1, slice.numCachedTokens = context;
    s.batch.seqs.push_back(slice);
    s.batch.tokenIds.push_back((b * 7 + 3) % vocab);
  }
  return s;
}

// Set once from the command line, before any run.
std::vector<int> gDecodeBatches = {1, 8, 16, 32, 64};
int gDecodeSteps = 0;  // 0: 32 (8 with --quick)
std::string gRunFilter;  // empty: every run

bool wanted(const std::string& label) { return label.find(gRunFilter) != std::string::npos; }

// "8,32" → {8, 32}; throws on anything but positive integers.
std::vector<int> parseBatches(const std::string& list) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const int b = std::atoi(list.substr(pos, comma - pos).c_str());
    check(b > 0, "bench_cpu: --batches expects positive integers separated by commas, found \"" + list + "\"");
    out.push_back(b);
    pos = comma + 1;
  }
  return out;
}

void benchModel(const std::string& label, std::shared_ptr<const Model> model, int threads, double bandwidth, bool quick,
                const std::vector<int>& decodeBatches = gDecodeBatches, GgmlType quantization = GgmlType::F32) {
  if (!wanted(label)) return;
  const ModelConfig& c = model->config;
  auto ex = createCpuExecutor(model, threads, quantization);
  const DeviceInfo info = ex->deviceInfo();
  std::printf("\n== %s, weights %s (%.1f MiB): %.1fM params, %s\n", label.c_str(), info.weightType.c_str(),
              double(info.weightBytes) / (1 << 20), c.numParameters() / 1e6, info.name.c_str());
  // --- prefill ---
  const int prompt = quick ? 128 : 512;
  ex->allocateKvCache(prompt / 16 + 2, 16);
  ForwardBatch pre{std::vector<int32_t>(size_t(prompt)), {{0, 0, prompt, 0, {}, true}}};
  for (int i = 0; i < prompt / 16 + 2; ++i) pre.seqs[0].blockTable.push_back(i);
  for (int i = 0; i < prompt; ++i) pre.tokenIds[size_t(i)] = (i * 31 + 7) % c.vocabSize;
  ForwardResult res;
  const int numThreads = threads > 0 ? threads : ThreadPool::availableCores();
  double best = 1e30, bestCpu = 1e30;
  for (int rep = 0; rep < (quick ? 2 : 3); ++rep) {
    const auto t0 = Clock::now();
    const double c0 = processCpuSeconds();
    ex->forward(pre, res);
    best = std::min(best, secondsSince(t0));
    bestCpu = std::min(bestCpu, (processCpuSeconds() - c0) / numThreads);
  }
  const double flops = 2.0 * matrixParams(*model) * prompt + 2.0 * double(c.vocabSize) * c.hiddenSize;
  const double prefillGflops = flops / best / 1e9, prefillGflopsCpu = flops / bestCpu / 1e9;
  std::printf("prefill %4d tokens: %9.1f tok/s  %7.1f GFLOP/s   [per CPU time: %9.1f tok/s  %7.1f GFLOP/s]\n", prompt,
              prompt / best, prefillGflops, prompt / bestCpu, prefillGflopsCpu);
  // --- decode ---
  const int context = quick ? 32 : 128, steps = gDecodeSteps > 0 ? gDecodeSteps : quick ? 8 : 32;
  // What one decode step streams: the weights as the executor holds them (quantized or
  // packed; the file's bytes otherwise).
  const double wBytes = info.weightBytes ? double(info.weightBytes) : matrixBytes(*model);
  for (int B : decodeBatches) {
    const int blocksEach = (context + 1 + steps + 15) / 16;  // prefill, warm-up step, timed steps
    ex->allocateKvCache(B * blocksEach, 16);
    Seqs s = prefillSequences(*ex, B, context, c.vocabSize);
    ex->forward(s.batch, res);  // warm-up step
    for (SeqSlice& sl : s.batch.seqs) sl.numCachedTokens++;
    const auto t0 = Clock::now();
    const double c0 = processCpuSeconds();
    for (int st = 0; st < steps; ++st) {
      ex->forward(s.batch, res);
      for (SeqSlice& sl : s.batch.seqs) sl.numCachedTokens++;
    }
    const double t = secondsSince(t0) / steps, tCpu = (processCpuSeconds() - c0) / numThreads / steps;
    const double kvBytes = double(B) * (context + steps / 2.0) * c.numHiddenLayers * 2.0 * c.kvSize() * 4.0;
    const double gbs = (wBytes + kvBytes) / t / 1e9;
    const double stepFlops = 2.0 * (matrixParams(*model) + double(c.vocabSize) * c.hiddenSize) * B;
    const double gflops = stepFlops / t / 1e9, gflopsCpu = stepFlops / tCpu / 1e9;
    std::printf("decode batch %2d:    %9.1f tok/s  %7.1f GFLOP/s = %3.0f%% of prefill's  %6.1f GB/s = %3.0f%% of %.1f GB/s"
                "   [per CPU time: %9.1f tok/s  %7.1f GFLOP/s = %3.0f%%]\n",
                B, B / t, gflops, 100.0 * gflops / prefillGflops, gbs, 100.0 * gbs / bandwidth, bandwidth, B / tCpu,
                gflopsCpu, 100.0 * gflopsCpu / prefillGflopsCpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  bool quick = false;
  std::string dir, only, batches;  // the default model's folder (default: the source tree's)
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) dir = argv[++i];
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (std::strcmp(argv[i], "--batches") == 0 && i + 1 < argc) batches = argv[++i];
    else if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) gDecodeSteps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) gRunFilter = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_cpu [--threads N] [--quick] [--model DIR] [--only austen|engine|large|qwen]"
                           " [--batches 8,32] [--steps N] [--runs TEXT]\n");
      return 2;
    }
  }
  try {
    if (!batches.empty()) gDecodeBatches = parseBatches(batches);
    const int n = threads > 0 ? threads : ThreadPool::availableCores();
    const double bw = only == "engine" ? 0.0 : measureBandwidth(n, quick);
    if (bw > 0) std::printf("memory bandwidth (%d threads, streaming read): %.1f GB/s\n", n, bw);
    if (only.empty() || only == "austen" || only == "engine") {
      if (dir.empty()) dir = (std::filesystem::path(__FILE__).parent_path().parent_path() / "resources/models/austen-chat-11m").string();
      std::shared_ptr<const Model> small;
      if (std::filesystem::exists(dir + "/model.safetensors")) {
        small = loadModel(dir);
      } else {
        std::printf("\n(note: %s not found; using a random model of its shape)\n", dir.c_str());
        small = makeModel(llamaConfig(384, 6, 6, 2, 1024, 4096, true), DType::F32);
      }
      if (wanted("engine step")) bench::benchEngineStep("austen-chat-11m f32", small, threads, quick);
      if (only == "engine") return 0;
      benchModel("austen-chat-11m f32", small, threads, bw, quick);
      benchModel("austen-chat-11m bf16", makeModel(small->config, DType::BF16, small.get()), threads, bw, quick);
      for (GgmlType q : {GgmlType::Q8_0, GgmlType::Q4_K})
        benchModel("austen-chat-11m --quantization " + ggmlTypeName(q), small, threads, bw, quick, {1, 8, 32}, q);
    }
    if (only.empty() || only == "large") {
      const ModelConfig big = llamaConfig(1024, quick ? 8 : 24, 16, 4, 4096, 32000, false);
      auto large = makeModel(big, DType::BF16);
      benchModel("random large model bf16", large, threads, bw, quick);
      for (GgmlType q : {GgmlType::Q8_0, GgmlType::Q4_K})
        benchModel("random large model --quantization " + ggmlTypeName(q), large, threads, bw, quick, {1, 8, 32}, q);
    }
    if (only.empty() || only == "qwen")  // batch 1: a chat (larger batches: the large model above)
      benchModel("random Qwen2.5-0.5B shape bf16", makeModel(qwen25HalfBConfig(quick ? 8 : 24), DType::BF16), threads,
                 bw, quick, {1});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
