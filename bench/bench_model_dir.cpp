// Prefill and batch-1 decode of a model folder on the CPU executor, in llama-bench's
// terms (pp<P>: one forward of P prompt tokens; tg<G>: G single-token steps from an
// empty cache), so the same weights can be timed against llama.cpp's llama-bench on a
// GGUF converted from the same folder; decode is also put against a measured streaming
// read bandwidth. Never part of the test suite.
//   bench_model_dir --model DIR [--threads N] [--prompt P] [--gen G] [--reps R]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/model.h"

using namespace lwb;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string dir;
  int threads = 2, prompt = 512, gen = 128, reps = 3;
};

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds of the whole process: on a shared machine wall time overstates the cost.
double processCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Streaming read of 1 GiB by `threads` threads, 8 interleaved streams each, best of 5.
double streamingReadGBs(int threads) {
  const size_t n = (size_t(1) << 30) / sizeof(uint64_t), tasks = 64, part = n / tasks;
  std::vector<uint64_t> buf(n, 1);
  std::vector<uint64_t> sums(tasks);
  ThreadPool pool(threads);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
    pool.parallelFor(int(tasks), [&](int t, int) {
      const uint64_t* p = buf.data() + part * size_t(t);
      const size_t stream = part / 8;
      uint64_t acc[8] = {};
      for (size_t i = 0; i < stream; ++i)
        for (int s = 0; s < 8; ++s) acc[s] += p[size_t(s) * stream + i];
      sums[size_t(t)] = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
    });
    best = std::max(best, double(part * tasks * sizeof(uint64_t)) / seconds(t0) / 1e9);
  }
  uint64_t check = 0;
  for (uint64_t v : sums) check += v;
  if (check == 7) std::printf(" ");  // keeps the reads observable
  return best;
}

// Bytes one decode step reads: every matrix of every layer and lm_head.
double decodeWeightBytes(const Model& m) {
  double bytes = 0;
  auto add = [&](const TensorView* t) { bytes += double(t->numBytes()); };
  for (const LlamaLayerWeights& w : m.llama.layers)
    for (const TensorView* t : {w.q, w.k, w.v, w.o, w.gate, w.up, w.down}) add(t);
  add(m.llama.lmHead);
  return bytes;
}

struct Rate {
  double wall = 0, cpu = 0;  // tokens per second; per CPU-second × threads
};

// One forward of `tokens` prompt tokens into an empty cache.
Rate prefill(Executor& ex, int tokens, int vocab, int threads) {
  ForwardBatch batch{std::vector<int32_t>(size_t(tokens)), {{0, 0, tokens, 0, {}, true}}};
  for (int b = 0; b < ex.numKvBlocks(); ++b) batch.seqs[0].blockTable.push_back(b);
  for (int i = 0; i < tokens; ++i) batch.tokenIds[size_t(i)] = (i * 7919 + 13) % vocab;
  ForwardResult out;
  const auto t0 = Clock::now();
  const double c0 = processCpuSeconds();
  ex.forward(batch, out);
  return {tokens / seconds(t0), tokens / ((processCpuSeconds() - c0) / threads)};
}

// `steps` single-token forwards from an empty cache, each token the previous argmax.
Rate decode(Executor& ex, int steps, int threads) {
  SeqSlice slice{0, 0, 1, 0, {}, true};
  for (int b = 0; b < ex.numKvBlocks(); ++b) slice.blockTable.push_back(b);
  ForwardBatch batch{{1}, {slice}};
  ForwardResult out;
  const auto t0 = Clock::now();
  const double c0 = processCpuSeconds();
  for (int s = 0; s < steps; ++s) {
    ex.forward(batch, out);
    batch.tokenIds[0] = int32_t(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
    batch.seqs[0].numCachedTokens++;
  }
  return {steps / seconds(t0), steps / ((processCpuSeconds() - c0) / threads)};
}

void report(const char* what, const std::vector<Rate>& rates) {
  double mean = 0, best = 0, bestCpu = 0;
  for (const Rate& r : rates) mean += r.wall / double(rates.size()), best = std::max(best, r.wall), bestCpu = std::max(bestCpu, r.cpu);
  std::printf("%-8s %8.2f tok/s mean, %8.2f best   [per CPU time: %8.2f tok/s]\n", what, mean, best, bestCpu);
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (a == "--model") o.dir = argv[i + 1];
    else if (a == "--threads" && v > 0) o.threads = v;
    else if (a == "--prompt" && v > 0) o.prompt = v;
    else if (a == "--gen" && v > 0) o.gen = v;
    else if (a == "--reps" && v > 0) o.reps = v;
    else return false;
  }
  return !o.dir.empty() && argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: bench_model_dir --model DIR [--threads N] [--prompt P] [--gen G] [--reps R]\n");
    return 2;
  }
  try {
    const std::shared_ptr<const Model> model = loadModel(o.dir);
    const ModelConfig& c = model->config;
    auto ex = createCpuExecutor(model, o.threads);
    const DeviceInfo info = ex->deviceInfo();
    const double wBytes = decodeWeightBytes(*model);
    std::printf("%s: %s, %.1fM params, decode reads %.0f MB of weights; %s, %d threads\n", o.dir.c_str(),
                c.architecture.c_str(), c.numParameters() / 1e6, wBytes / 1e6, info.name.c_str(), o.threads);
    ex->allocateKvCache((std::max(o.prompt, o.gen) + 15) / 16 + 1, 16);
    prefill(*ex, 16, c.vocabSize, o.threads);  // warm-up (first touch of the mapped weights)
    std::vector<Rate> pp, tg;
    for (int r = 0; r < o.reps; ++r) {  // alternating, like llama-bench's repetitions
      pp.push_back(prefill(*ex, o.prompt, c.vocabSize, o.threads));
      tg.push_back(decode(*ex, o.gen, o.threads));
    }
    report(("pp" + std::to_string(o.prompt)).c_str(), pp);
    report(("tg" + std::to_string(o.gen)).c_str(), tg);
    double bestTg = 0;
    for (const Rate& r : tg) bestTg = std::max(bestTg, r.wall);
    const double bw = streamingReadGBs(o.threads);
    std::printf("decode streams %.1f GB/s of weights at its best = %.0f%% of the measured %.1f GB/s (streaming read, %d threads)\n",
                bestTg * wBytes / 1e9, 100.0 * bestTg * wBytes / 1e9 / bw, bw, o.threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_model_dir: %s\n", e.what());
    return 1;
  }
  return 0;
}
