// GGUF files end to end on the CPU executor, measured the way llama.cpp's llama-bench
// measures them (-p 512 -n 128): prefill of a 512-token prompt, and batch-1 decode from a
// short context (or from --context N cached tokens, as `generate` decodes after its
// prompt), with the GB/s it reads (weights, and the KV cache of the positions so far)
// against a measured streaming-read bandwidth.
// Run it alternately with llama-bench on the same files (the machine is shared;
// bench/README.md). Never part of the test suite.
//   bench_gguf [--threads N] [--decode-steps N] [--context N] [--kv-cache-dtype T]
//              [--no-prefill] FILE.gguf...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/config/knobs.h"
#include "engine/exec/executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/model.h"

using namespace lwb;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds of the whole process: on a shared machine, wall time also counts the slices
// other processes took; the pool's threads all run (or spin) during a forward pass, so
// this over the thread count approximates the wall time of an idle machine.
double processSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Streaming read of 1 GiB over the pool's threads, best of 5 → GB/s.
double measureBandwidth(int threads) {
  const size_t n = (size_t(1) << 30) / sizeof(uint64_t);
  std::vector<uint64_t> buf(n, 1);
  ThreadPool pool(threads);
  const int tasks = 64;
  std::vector<uint64_t> sums(size_t(tasks), 0);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = Clock::now();
    pool.parallelFor(tasks, [&](int t, int) {
      uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      const uint64_t* p = buf.data() + n / size_t(tasks) * size_t(t);
      for (size_t i = 0; i < n / size_t(tasks); i += 4) s0 += p[i], s1 += p[i + 1], s2 += p[i + 2], s3 += p[i + 3];
      sums[size_t(t)] += s0 + s1 + s2 + s3;
    });
    best = std::max(best, double(n * sizeof(uint64_t)) / secondsSince(t0) / 1e9);
  }
  if (sums[0] == 42) std::printf(" ");  // keeps the reads observable
  return best;
}

ForwardBatch promptBatch(int numTokens, int numCached, int vocab, int numBlocks) {
  ForwardBatch b{std::vector<int32_t>(size_t(numTokens)), {{0, 0, numTokens, numCached, {}, true}}};
  for (int i = 0; i < numBlocks; ++i) b.seqs[0].blockTable.push_back(i);
  for (int i = 0; i < numTokens; ++i) b.tokenIds[size_t(i)] = (i * 31 + 7) % vocab;
  return b;
}

struct Options {
  int threads = 2, decodeSteps = 64, context = 16;
  bool prefill = true;
  std::string kvCacheDtype = "auto";
};

void benchFile(const std::string& path, const Options& o, double bandwidth) {
  const int threads = o.threads, decodeSteps = o.decodeSteps, context = o.context;
  const bool prefill = o.prefill;
  auto model = loadModel(path);
  ExecutorOptions opts;  // as generate makes it: kv_cache_dtype auto is bf16 for quantized weights
  opts.backend = "cpu";
  opts.numThreads = threads;
  opts.kvCacheDtype = o.kvCacheDtype;
  auto ex = createExecutor(model, opts);
  const DeviceInfo info = ex->deviceInfo();
  const int vocab = model->config.vocabSize, prompt = std::max(512, context);
  std::printf("\n== %s: %s, %.1f MiB of weights, %.1fM params\n", path.c_str(), info.weightType.c_str(),
              double(info.weightBytes) / (1 << 20), model->config.numParameters() / 1e6);
  const int numBlocks = (prompt + decodeSteps + 64) / 16;
  ex->allocateKvCache(numBlocks, 16);
  ForwardResult res;
  double best = 1e30;
  const ForwardBatch pre = promptBatch(prompt, 0, vocab, numBlocks);
  double bestCpu = 1e30;
  for (int rep = 0; prefill && rep < 3; ++rep) {
    const auto t0 = Clock::now();
    const double cpu0 = processSeconds();
    ex->forward(pre, res);
    best = std::min(best, secondsSince(t0));
    bestCpu = std::min(bestCpu, (processSeconds() - cpu0) / threads);
  }
  if (prefill)
    std::printf("prefill %d:        %8.1f tok/s   [per CPU time: %.1f tok/s]\n", prompt, prompt / best, prompt / bestCpu);
  ex->forward(promptBatch(context, 0, vocab, numBlocks), res);
  ForwardBatch step = promptBatch(1, context, vocab, numBlocks);
  ex->forward(step, res);  // warm-up
  const auto t0 = Clock::now();
  const double cpu0 = processSeconds();
  for (int s = 0; s < decodeSteps; ++s) {
    step.seqs[0].numCachedTokens++;
    step.tokenIds[0] = int(std::max_element(res.logits.begin(), res.logits.end()) - res.logits.begin());
    ex->forward(step, res);
  }
  const double t = secondsSince(t0) / decodeSteps, gbs = double(info.weightBytes) / t / 1e9;
  // Each step also reads the cache of every position so far, on average context + 2 +
  // (steps - 1) / 2 of them (the first timed step reads context + 2).
  const double kvTokens = context + 2 + (decodeSteps - 1) / 2.0;
  const double kvGbs = double(ex->kvBytesPerBlock(16)) / 16 * kvTokens / t / 1e9;
  const double cpuT = (processSeconds() - cpu0) / threads / decodeSteps;
  std::printf("decode batch 1 from %d: %5.1f tok/s   weights %.2f + KV %.2f GB/s = %.0f%% of %.1f GB/s   [per CPU time: %.1f "
              "tok/s]\n",
              context, 1 / t, gbs, kvGbs, 100 * (gbs + kvGbs) / bandwidth, bandwidth, 1 / cpuT);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> files;
  const std::string kvFlag = "--" + findKnob(knob::kKvCacheDtype)->flag;  // the knob table's flag
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (std::strcmp(argv[i], "--threads") == 0 && value) o.threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--decode-steps") == 0 && value) o.decodeSteps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--context") == 0 && value) o.context = std::atoi(argv[++i]);
    else if (argv[i] == kvFlag && value) o.kvCacheDtype = argv[++i];
    else if (std::strcmp(argv[i], "--no-prefill") == 0) o.prefill = false;
    else if (argv[i][0] != '-') files.push_back(argv[i]);
    else files.clear(), i = argc;
  }
  if (files.empty() || o.threads < 1 || o.decodeSteps < 1 || o.context < 1) {
    std::fprintf(stderr, "usage: bench_gguf [--threads N] [--decode-steps N] [--context N] [%s T] [--no-prefill] FILE.gguf...\n",
                 kvFlag.c_str());
    return 2;
  }
  try {
    const double bw = measureBandwidth(o.threads);
    std::printf("memory bandwidth (%d threads, streaming read): %.1f GB/s\n", o.threads, bw);
    for (const std::string& f : files) benchFile(f, o, bw);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gguf: %s\n", e.what());
    return 1;
  }
}
