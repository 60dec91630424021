// CPU executor benchmark: prefill and decode throughput of the default model (f32 and a
// bf16 copy), of a random bf16 model larger than the CPU caches, and of a random bf16
// model with Qwen2.5-0.5B's shape (biases, 151,936-token tied vocabulary); the default and
// the large model also quantized at load to Q8_0 and Q4_K, the bf16 default model also with
// kv_cache_dtype=bfloat16. Each decode batch is set against
// its roofline bound (prefill's rate, or the streaming bandwidth × FLOPs per byte read when
// the step's bytes do not fit in the L3) and its serial bound (the GEMMs, then attention
// waiting for the KV cache's bytes; bench_models.h). Never part of the test suite.
//   bench_cpu [--threads N] [--quick] [--model DIR] [--only austen|engine|large|qwen]
//             [--batches 8,32] [--steps N]   (decode batches of the f32/bf16 runs; steps per batch,
//                                             more for a profile)
//             [--runs TEXT]                  (only the runs whose heading contains TEXT, e.g. "11m bf16")
//             [--rounds N]                   (prefill + decode rounds per batch, medians over them;
//                                             default 5, 3 with --quick)
//             [--repeat N]                   (the timed decode steps N times over the same positions
//                                             per round, for a profile of the benchmark's own context
//                                             lengths: with --rounds 1)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/metrics/stats.h"
#include "engine/model/model.h"
#include "bench_models.h"
#include "engine_step_bench.h"

using namespace lwb;
using namespace lwb::bench;

namespace {

struct Seqs {
  ForwardBatch batch;  // the next step's batch
  std::vector<int> lengths;
};

// B sequences with blocksEach blocks of their own from firstBlock on; prefilled to
// `context` tokens, one forward each.
Seqs prefillSequences(Executor& ex, int B, int context, int vocab, int firstBlock, int blocksEach) {
  Seqs s;
  for (int b = 0; b < B; ++b) {
    SeqSlice slice{b, 0, context, 0, {}, true};
    for (int i = 0; i < blocksEach; ++i) slice.blockTable.push_back(firstBlock + b * blocksEach + i);
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
int gRounds = 0;       // 0: 5 (3 with --quick)
int gRepeat = 1;        // passes over the timed steps (rewound to the same positions)
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
                const std::vector<int>& decodeBatches = gDecodeBatches, GgmlType quantization = GgmlType::F32,
                DType kvType = DType::F32) {
  if (!wanted(label)) return;
  const ModelConfig& c = model->config;
  auto ex = createCpuExecutor(model, threads, quantization, kvType);
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
  // Each rate also per CPU second × threads (timeIt's cpu): on a shared machine wall time
  // overstates the cost, the CPU time says what the kernels do when the cores are ours.
  double best = 1e30, bestCpu = 1e30;
  for (int rep = 0; rep < (quick ? 2 : 3); ++rep) {
    const StepTime pt = timeIt(numThreads, [&] { ex->forward(pre, res); });
    best = std::min(best, pt.wall);
    bestCpu = std::min(bestCpu, pt.cpu);
  }
  const double flops = 2.0 * matrixParams(*model) * prompt + 2.0 * double(c.vocabSize) * c.hiddenSize;
  const double prefillGflops = flops / best / 1e9, prefillGflopsCpu = flops / bestCpu / 1e9;
  std::printf("prefill %4d tokens, best of %d: %9.1f tok/s  %7.1f GFLOP/s   [per CPU time: %9.1f tok/s  %7.1f GFLOP/s]\n", prompt, quick ? 2 : 3,
              prompt / best, prefillGflops, prompt / bestCpu, prefillGflopsCpu);
  // --- decode ---
  // Each batch runs in rounds: the prompt's prefill again, then the timed decode steps
  // (rewound to the same positions). A round's ratio compares two measurements taken
  // back to back, so a shared machine's changing load moves both; the line gives the
  // medians over the rounds (rates, ratios, and the prefill alongside).
  const int context = quick ? 32 : 128, steps = gDecodeSteps > 0 ? gDecodeSteps : quick ? 8 : 32;
  const int rounds = gRounds > 0 ? gRounds : quick ? 3 : 5;
  // What one decode step streams: the weights as the executor holds them (quantized or
  // packed; the file's bytes otherwise).
  const double wBytes = info.weightBytes ? double(info.weightBytes) : matrixBytes(*model);
  const auto median = [](std::vector<double> v) { return percentile(std::move(v), 50); };
  for (int B : decodeBatches) {
    const int prefillBlocks = prompt / 16 + 2, blocksEach = (context + 1 + steps + 15) / 16;  // prefill, warm-up, timed steps
    ex->allocateKvCache(prefillBlocks + B * blocksEach, 16);
    Seqs s = prefillSequences(*ex, B, context, c.vocabSize, prefillBlocks, blocksEach);
    ex->forward(s.batch, res);  // warm-up step
    const double stepFlops = 2.0 * (matrixParams(*model) + double(c.vocabSize) * c.hiddenSize) * B;
    std::vector<double> t, tCpu, preRate, preRateCpu, ratio, ratioCpu;  // seconds per step; prefill GFLOP/s; decode / prefill
    for (int round = 0; round < rounds; ++round) {
      const StepTime pt = timeIt(numThreads, [&] { ex->forward(pre, res); });
      preRate.push_back(flops / pt.wall / 1e9);
      preRateCpu.push_back(flops / pt.cpu / 1e9);
      const StepTime dt = timeIt(numThreads, [&] {
        for (int pass = 0; pass < gRepeat; ++pass) {
          for (SeqSlice& sl : s.batch.seqs) sl.numCachedTokens = context + 1;
          for (int st = 0; st < steps; ++st) {
            ex->forward(s.batch, res);
            for (SeqSlice& sl : s.batch.seqs) sl.numCachedTokens++;
          }
        }
      });
      const int timed = steps * gRepeat;
      t.push_back(dt.wall / timed);
      tCpu.push_back(dt.cpu / timed);
      ratio.push_back(stepFlops / t.back() / 1e9 / preRate.back());
      ratioCpu.push_back(stepFlops / tCpu.back() / 1e9 / preRateCpu.back());
    }
    const double tm = median(t), tmCpu = median(tCpu), preM = median(preRate), preMCpu = median(preRateCpu);
    const double kvBytes = double(B) * (context + steps / 2.0) * double(ex->kvBytesPerBlock(1));  // K and V read
    const double gbs = (wBytes + kvBytes) / tm / 1e9;
    const double gflops = stepFlops / tm / 1e9, gflopsCpu = stepFlops / tmCpu / 1e9;
    const DecodeBound bound = decodeBound(preM, stepFlops, wBytes + kvBytes, bandwidth);
    const DecodeBound boundCpu = decodeBound(preMCpu, stepFlops, wBytes + kvBytes, bandwidth);
    // The ratio to the bound, per round as well when the bound is prefill's rate.
    const double ofBound = bound.memory ? gflops / bound.gflops : median(ratio);
    const double ofBoundCpu = boundCpu.memory ? gflopsCpu / boundCpu.gflops : median(ratioCpu);
    const double serial = serialBoundGflops(preM, stepFlops, wBytes, kvBytes, bandwidth);
    std::printf("decode batch %2d:    %9.1f tok/s  %7.1f GFLOP/s = %3.0f%% of prefill's %.1f = %3.0f%% of the bound %6.1f (%s)"
                " = %3.0f%% of the serial bound %6.1f  %6.1f GB/s = %3.0f%% of %.1f GB/s"
                "   [per CPU time: %9.1f tok/s  %7.1f GFLOP/s = %3.0f%% of %.1f = %3.0f%% of %.1f]\n",
                B, B / tm, gflops, 100.0 * median(ratio), preM, 100.0 * ofBound, bound.gflops, bound.memory ? "memory" : "compute",
                100.0 * gflops / serial, serial, gbs, 100.0 * gbs / bandwidth, bandwidth, B / tmCpu, gflopsCpu,
                100.0 * median(ratioCpu), preMCpu, 100.0 * ofBoundCpu, boundCpu.gflops);
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
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) gRepeat = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) gRounds = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench_cpu [--threads N] [--quick] [--model DIR] [--only austen|engine|large|qwen]"
                           " [--batches 8,32] [--steps N] [--runs TEXT] [--rounds N] [--repeat N]\n");
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
      if (wanted("engine decode")) {
        bench::benchEngineDecode("austen-chat-11m f32 (engine decode)", small, threads, quick, {1, 8, 32, 64});
        bench::benchEngineDecode("austen-chat-11m bf16 (engine decode)", makeModel(small->config, DType::BF16, small.get()),
                                 threads, quick, {8, 32}, "bfloat16");
      }
      if (only == "engine") return 0;
      benchModel("austen-chat-11m f32", small, threads, bw, quick);
      const auto smallBf16 = makeModel(small->config, DType::BF16, small.get());
      benchModel("austen-chat-11m bf16", smallBf16, threads, bw, quick);
      // kv_cache_dtype=bfloat16 / fp8: half / a quarter of the attention bytes of a decode step.
      benchModel("austen-chat-11m bf16, kv bfloat16", smallBf16, threads, bw, quick, gDecodeBatches, GgmlType::F32,
                 DType::BF16);
      benchModel("austen-chat-11m f32, kv fp8", small, threads, bw, quick, gDecodeBatches, GgmlType::F32, DType::F8E4M3);
      benchModel("austen-chat-11m bf16, kv fp8", smallBf16, threads, bw, quick, gDecodeBatches, GgmlType::F32,
                 DType::F8E4M3);
      for (GgmlType q : {GgmlType::Q8_0, GgmlType::Q4_K})
        benchModel("austen-chat-11m --quantization " + ggmlTypeName(q), small, threads, bw, quick, {1, 8, 32}, q);
    }
    if (only.empty() || only == "large") {
      const ModelConfig big = llamaConfig(1024, quick ? 8 : 24, 16, 4, 4096, 32000, false);
      auto large = makeModel(big, DType::BF16);
      benchModel("random large model bf16", large, threads, bw, quick);
      benchModel("random large model bf16, kv bfloat16", large, threads, bw, quick, gDecodeBatches, GgmlType::F32,
                 DType::BF16);
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
