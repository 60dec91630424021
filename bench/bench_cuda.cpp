// CUDA backend check and benchmark (no Qt): each kernel against its CPU reference (the
// cases of tst_cuda_kernels), the CUDA executor against the float64 reference for several
// model shapes, then throughput of a random 1.1B-parameter Llama (TinyLlama's shape) in
// bf16 against the card's measured ceilings. Prints ONE table (and, with --rows, each
// row as a `ROW|check|result|bound|ratio|target|status` line for tools/device-check.sh);
// exits non-zero when a kernel or parity check fails (performance never fails it:
// benchmarks do not gate).
//
// Built two ways: in the project (links lwb_engine; adds the default model, CPU
// executor vs CUDA) and standalone by tools/device-check.sh where the project's other
// dependencies are missing (LWB_BENCH_STANDALONE: plugin + headers only).
//   bench_cuda [--kernels] [--parity] [--bench] [--rows]   (no section named: all three)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/exec/cuda/testing/greedy_match.h"
#include "engine/exec/cuda/testing/executor_parity.h"
#include "engine/exec/cuda/testing/host_llama.h"
#include "engine/exec/cuda/testing/kernel_parity.h"
#include "engine/exec/executor.h"
#ifndef LWB_BENCH_STANDALONE
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cuda_loader.h"
#include "engine/model/model.h"
#endif

namespace {

using lwb::ForwardBatch;
using lwb::ForwardResult;
using lwb::SeqSlice;
using Clock = std::chrono::steady_clock;
using namespace lwb::devcheck;  // Seq, addChunk, create, the parity runs

// ---- the table -------------------------------------------------------------------
struct Row {
  std::string check, result, bound, ratio, target, status;
};
std::vector<Row> table;
bool parityFailed = false;
bool printRows = false;

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void printTable() {
  std::printf("\n%-34s %-30s %-22s %-8s %-8s %s\n", "check", "result", "bound", "ratio", "target", "status");
  std::printf("%s\n", std::string(112, '-').c_str());
  for (const Row& r : table)
    std::printf("%-34s %-30s %-22s %-8s %-8s %s\n", r.check.c_str(), r.result.c_str(), r.bound.c_str(),
                r.ratio.c_str(), r.target.c_str(), r.status.c_str());
  if (printRows)
    for (const Row& r : table)
      std::printf("ROW|%s|%s|%s|%s|%s|%s\n", r.check.c_str(), r.result.c_str(), r.bound.c_str(), r.ratio.c_str(),
                  r.target.c_str(), r.status.c_str());
  std::fflush(stdout);
}

// ---- kernels: the Qt-free twin of tst_cuda_kernels ----------------------------------
void checkKernels(const lwb::cudaplugin::Plugin& p) {
  if (!p.testKernel) {
    table.push_back({"kernels", "plugin lacks lwb_cuda_test_kernel", "", "", "", "FAIL"});
    parityFailed = true;
    return;
  }
  const std::vector<lwb::devcheck::KernelCase> cases = lwb::devcheck::kernelCases();
  for (size_t i = 0; i < cases.size();) {
    const std::string kernel = cases[i].kernel;
    int passed = 0, total = 0;
    std::string firstFailure;
    for (; i < cases.size() && cases[i].kernel == kernel; ++i, ++total) {
      const std::string error = lwb::devcheck::runKernelCase(p.testKernel, cases[i]);
      if (error.empty()) ++passed;
      else {
        std::fprintf(stderr, "kernel %s %s: %s\n", kernel.c_str(), cases[i].name.c_str(), error.c_str());
        if (firstFailure.empty()) firstFailure = cases[i].name;
      }
    }
    const bool ok = passed == total;
    parityFailed = parityFailed || !ok;
    table.push_back({"kernel " + kernel, std::to_string(passed) + "/" + std::to_string(total) + " cases" +
                                             (ok ? "" : ", first failing: " + firstFailure),
                     "vs CPU reference", "", "all", ok ? "PASS" : "FAIL"});
  }
}

bool addParityRow(const std::string& check, const ParityStats& st) {
  const double rel = st.maxAbs / std::max(st.maxRef, 1e-6);
  const bool ok = st.rows > 0 && rel < 0.03 && st.argmaxMismatch == 0;
  parityFailed = parityFailed || !ok;
  table.push_back({check, fmt("max|d| %.2e", st.maxAbs) + fmt(" (%.2f%%)", 100 * rel),
                   fmt("%d rows vs f64 ref", st.rows), "", "<3%", ok ? "PASS" : "FAIL"});
  if (st.argmaxMismatch) table.back().result += fmt(", %.0f argmax!", st.argmaxMismatch);
  return ok;
}

std::vector<int> randomSequence(const lwb::devcheck::HostLlama& model, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> tokens(static_cast<size_t>(n));
  for (int& t : tokens) t = int(rng() % unsigned(model.spec().vocab));
  return tokens;
}

void checkParityRandom(const lwb::cudaplugin::Plugin& p) {
  lwb::devcheck::HostLlama model(lwb::devcheck::HostLlamaSpec{});
  const std::vector<int> tokens = randomSequence(model, 700, 11);
  const std::vector<float> ref = model.logits(tokens);
  ParityStats results[2];
  for (int graphs = 0; graphs < 2; ++graphs) {
    results[graphs] = parityRandom(p, model, tokens, ref, graphs == 1);
    addParityRow(graphs ? "parity d64 g2 bf16, CUDA graphs" : "parity d64 g2 bf16, eager", results[graphs]);
  }
  double d = 0;
  for (size_t i = 0; i < results[0].all.size() && i < results[1].all.size(); ++i)
    d = std::max(d, double(std::fabs(results[0].all[i] - results[1].all[i])));
  const bool ok = results[0].all.size() == results[1].all.size() && d <= 1e-3 * std::max(results[0].maxRef, 1.0);
  parityFailed = parityFailed || !ok;
  table.push_back({"parity graphs vs eager", fmt("max|d| %.2e", d), "", "", "~0", ok ? "PASS" : "FAIL"});
  for (int n : {3, 5, 17})
    for (bool graphs : {true, false})
      addParityRow("parity padded decode " + std::to_string(n) + (graphs ? " seqs, graphs" : " seqs, eager"),
                   parityPadded(p, model, n, graphs));
}

// Other shapes and formats, CUDA graphs on: head_dim 128 with 4 query heads per kv head,
// an f16 model (f16 activations), tied embeddings, head_dim 80 (padded attention);
// Qwen2 (q/k/v biases, Qwen2.5-0.5B's 14:2 heads of 64, tied) and Qwen3 (per-head q/k
// RMSNorm, head_dim 128, f16 too).
void checkParityShapes(const lwb::cudaplugin::Plugin& p) {
  using lwb::devcheck::HostLlamaSpec;
  HostLlamaSpec d128, f16, tied, d80, qwen2, qwen3, qwen3f16;
  d128.heads = f16.heads = d80.heads = qwen3.heads = 8;
  d128.headDim = qwen3.headDim = 128;
  d80.headDim = 80;
  f16.dtype = LWB_CUDA_F16;
  tied.tied = true;
  qwen2.heads = 14, qwen2.kvHeads = 2, qwen2.qkvBias = true, qwen2.tied = true;
  qwen3.kvHeads = 4, qwen3.qkNorm = true;
  qwen3f16 = qwen3, qwen3f16.dtype = LWB_CUDA_F16;
  const std::pair<const char*, HostLlamaSpec> models[] = {
      {"parity d128 g4 bf16", d128},           {"parity d64 g4 f16", f16},
      {"parity d64 g2 bf16 tied", tied},       {"parity d80 g4 bf16", d80},
      {"parity qwen2 biases 14:2 d64 bf16", qwen2}, {"parity qwen3 q/k norm d128 g2 bf16", qwen3},
      {"parity qwen3 q/k norm d128 g2 f16", qwen3f16}};
  for (const auto& [name, spec] : models) {
    lwb::devcheck::HostLlama model(spec);
    const std::vector<int> tokens = randomSequence(model, 700, 12);
    addParityRow(std::string(name) + ", graphs", parityRandom(p, model, tokens, model.logits(tokens), true));
  }
}

#ifndef LWB_BENCH_STANDALONE
// ---- parity: the default model, CPU executor vs CUDA executor ------------------------
std::vector<int> greedy(lwb::Executor& ex, std::vector<int> tokens, int numNew, std::vector<std::vector<float>>* logits) {
  ex.allocateKvCache(64, 16);
  Seq s{tokens, 0, blockRange(0, 64, false)};
  ForwardResult out;
  std::vector<int> produced;
  int chunk = int(tokens.size());
  for (int step = 0; step < numNew; ++step) {
    ForwardBatch batch;
    addChunk(batch, s, chunk, true, 1);
    ex.forward(batch, out);
    logits->emplace_back(out.logits);
    const int next = int(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
    produced.push_back(next);
    s.tokens.push_back(next);
    chunk = 1;
  }
  return produced;
}

void checkParityDefaultModel() {
  std::string dir;
  try {
    dir = lwb::defaultModelDir();
  } catch (const std::exception&) {
    table.push_back({"parity default model CPU vs CUDA", "no default model", "", "", "", "SKIP"});
    parityFailed = true;  // on a GPU machine a check that did not run is a failure
    return;
  }
  auto model = lwb::loadModel(dir);
  std::string reason;
  auto cuda = lwb::tryCreateCudaExecutor(model, lwb::ExecutorOptions{}, &reason);
  if (!cuda) throw lwb::Error("CUDA executor for the default model: " + reason);
  auto cpu = lwb::createCpuExecutor(model, 0);
  const std::vector<int> prompt =
      model->encodePrompt("It is a truth universally acknowledged, that a single man in possession of a good fortune");
  std::vector<std::vector<float>> lc, lg;
  const std::vector<int> tc = greedy(*cpu, prompt, 48, &lc), tg = greedy(*cuda, prompt, 48, &lg);
  std::vector<float> margins;  // the CPU's top-two gap per token: the near-tie rule
  for (const std::vector<float>& row : lc) margins.push_back(lwb::devcheck::topTwoMargin(row.data(), row.size()));
  const lwb::devcheck::GreedyMatch match = lwb::devcheck::compareGreedy(tc, margins, tg);
  const size_t same = match.compared;
  double d = 0, scale = 0;
  for (size_t i = 0; i <= std::min(same, lc.size() - 1); ++i)  // rows whose inputs still agree
    for (size_t v = 0; v < lc[i].size(); ++v) {
      d = std::max(d, double(std::fabs(lc[i][v] - lg[i][v])));
      scale = std::max(scale, double(std::fabs(lc[i][v])));
    }
  const bool ok = match.ok && same >= 8 && d < 0.05 * std::max(scale, 1.0);
  if (!match.ok) std::fprintf(stderr, "default model: %s\n", match.message.c_str());
  parityFailed = parityFailed || !ok;
  table.push_back({"parity default model CPU vs CUDA", fmt("max|d| %.3f, ", d) + std::to_string(same) + "/48 tokens" +
                                                           (match.stoppedAtTie ? " (parted at a near-tie)" : ""),
                   fmt("logit scale %.1f", scale), "", "48/48", ok ? "PASS" : "FAIL"});
}
#endif

// ---- benchmark: random 1.1B Llama in bf16 ------------------------------------------------
struct BigModel {
  LwbCudaModelDesc desc{};
  std::vector<LwbCudaLayer> layers;
  std::vector<float> invFreq;
  double matrixBytes = 0;       // every matrix read once per decode step (bf16)
  double linearParams = 0;      // per token, excluding lm_head
};

BigModel tinyLlamaShape() {
  BigModel m;
  LwbCudaModelDesc& d = m.desc;
  d.hiddenSize = 2048;
  d.intermediateSize = 5632;
  d.numAttentionHeads = 32;
  d.numKeyValueHeads = 4;
  d.headDim = 64;
  d.numHiddenLayers = 22;
  d.vocabSize = 32000;
  d.maxPositionEmbeddings = 2048;
  d.rmsNormEps = 1e-5f;
  d.randomSeed = 42;
  d.randomScale = 0.02f;
  for (int i = 0; i < 32; ++i) m.invFreq.push_back(float(1.0 / std::pow(10000.0, 2.0 * i / 64.0)));
  d.ropeInvFreq = m.invFreq.data();
  auto t = [](int64_t rows, int64_t cols) { return LwbCudaTensor{nullptr, LWB_CUDA_BF16, rows, cols}; };
  const int64_t h = 2048, q = 2048, kv = 256, inter = 5632;
  d.embedTokens = t(32000, h);
  d.lmHead = t(32000, h);
  d.finalNorm = t(h, 1);
  m.layers.assign(22, LwbCudaLayer{t(h, 1), t(q, h), t(kv, h), t(kv, h), t(h, q), t(h, 1), t(inter, h), t(inter, h),
                                   t(h, inter)});
  d.layers = m.layers.data();
  m.linearParams = 22.0 * double(h * (q + 2 * kv) + q * h + 3 * inter * h);
  m.matrixBytes = 2.0 * (m.linearParams + 32000.0 * h);
  return m;
}

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void benchmark(const lwb::cudaplugin::Plugin& p) {
  double copyGBs = 0, peakTflops = 0;
  char err[512] = {0};
  if (!p.peaks || p.peaks(0, &copyGBs, &peakTflops, err, sizeof err) != 0)
    throw lwb::Error(std::string("measuring the card's ceilings: ") + (p.peaks ? err : "plugin lacks it"));
  table.push_back({"ceiling: D2D copy", fmt("%.0f GB/s", copyGBs), "read+write, 2 GiB", "", "", ""});
  table.push_back({"ceiling: bf16 GEMM 8192^3", fmt("%.0f TFLOP/s", peakTflops), "cuBLAS, fp32 accum", "", "", ""});

  const BigModel m = tinyLlamaShape();
  auto ex = create(p, m.desc, true);
  const int blocksPerSeq = 16;  // 256 tokens: 128 context + decode steps
  ex->exec->allocateKvCache(64 * blocksPerSeq + 4 * 32, 16);
  const int kvBytesPerToken = 22 * 2 * 256 * 2;
  std::mt19937 rng(5);
  auto randomTokens = [&](int n) {
    std::vector<int> t(static_cast<size_t>(n));
    for (int& x : t) x = int(rng() % 32000u);
    return t;
  };
  ForwardResult out;

  // Prefill: 4 prompts of 512 tokens in one step (2048 rows), from scratch each time.
  {
    const int numSeqs = 4, len = 512;
    std::vector<double> times;
    for (int rep = 0; rep < 6; ++rep) {
      ForwardBatch batch;
      std::vector<Seq> seqs;
      for (int i = 0; i < numSeqs; ++i) seqs.push_back({randomTokens(len), 0, blockRange(64 * blocksPerSeq + 32 * i, 32, false)});
      for (int i = 0; i < numSeqs; ++i) addChunk(batch, seqs[size_t(i)], len, true, i);
      const auto t0 = Clock::now();
      ex->exec->forward(batch, out);
      if (rep > 0) times.push_back(seconds(t0, Clock::now()));  // first run warms up
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2], tokens = double(numSeqs) * len;
    const double attn = 22.0 * 32 * numSeqs * 4.0 * 64 * (double(len) * (len + 1) / 2);
    const double flops = 2.0 * tokens * m.linearParams + 2.0 * numSeqs * 32000 * 2048 + attn;
    const double tflops = flops / t / 1e12, ratio = tflops / peakTflops;
    table.push_back({"prefill 4x512, 1.1B bf16", fmt("%.0f tok/s, ", tokens / t) + fmt("%.0f TFLOP/s", tflops),
                     fmt("%.0f TFLOP/s", peakTflops), fmt("%.0f%%", 100 * ratio), ">=40%", ratio >= 0.4 ? "OK" : "MISS"});
  }

  // Decode: B sequences with 128 tokens of context, 32 timed steps after 4 warm-ups.
  std::vector<double> tokPerSec;
  for (int batchSize : {1, 8, 64}) {
    std::vector<Seq> seqs;
    for (int i = 0; i < batchSize; ++i)
      seqs.push_back({randomTokens(128 + 40), 0, blockRange(i * blocksPerSeq, blocksPerSeq, false)});
    ForwardBatch prefill;
    for (int i = 0; i < batchSize; ++i) addChunk(prefill, seqs[size_t(i)], 128, true, i);
    ex->exec->forward(prefill, out);
    auto step = [&]() {
      ForwardBatch batch;
      for (int i = 0; i < batchSize; ++i) addChunk(batch, seqs[size_t(i)], 1, true, i);
      ex->exec->forward(batch, out);
    };
    for (int i = 0; i < 4; ++i) step();
    const int steps = 32;
    const double ctx0 = seqs[0].numComputed;
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) step();
    const double t = seconds(t0, Clock::now());
    const double avgCtx = ctx0 + steps / 2.0;
    const double bytes = steps * (m.matrixBytes + batchSize * avgCtx * kvBytesPerToken);
    const double gbs = bytes / t / 1e9, ratio = gbs / copyGBs;
    tokPerSec.push_back(batchSize * steps / t);
    const bool gated = batchSize == 1;
    table.push_back({"decode b=" + std::to_string(batchSize) + ", 1.1B bf16",
                     fmt("%.0f tok/s, ", tokPerSec.back()) + fmt("%.0f GB/s", gbs), fmt("%.0f GB/s", copyGBs),
                     fmt("%.0f%%", 100 * ratio), gated ? ">=60%" : "", gated ? (ratio >= 0.6 ? "OK" : "MISS") : ""});
  }
  const bool scales = tokPerSec[1] > 1.5 * tokPerSec[0] && tokPerSec[2] > 1.5 * tokPerSec[1];
  table.push_back({"decode scaling b=1/8/64", fmt("x%.1f", tokPerSec[1] / tokPerSec[0]) +
                                                   fmt(" / x%.1f", tokPerSec[2] / tokPerSec[0]),
                   "tok/s vs b=1", "", "rising", scales ? "OK" : "MISS"});
}

}  // namespace

int main(int argc, char** argv) {
  bool kernels = false, parity = false, bench = false, named = false, noParity = false, noBench = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--kernels") kernels = named = true;
    else if (a == "--parity") parity = named = true;
    else if (a == "--bench") bench = named = true;
    else if (a == "--rows") printRows = true;
    else if (a == "--no-parity") noParity = true;  // older spellings: all but these
    else if (a == "--no-bench") noBench = true;
    else {
      std::fprintf(stderr, "usage: %s [--kernels] [--parity] [--bench] [--rows] [--no-parity] [--no-bench]\n", argv[0]);
      return 2;
    }
  }
  if (!named) kernels = parity = bench = true;
  parity = parity && !noParity;
  bench = bench && !noBench;
  std::string reason;
  const lwb::cudaplugin::Plugin* p = lwb::cudaplugin::openUsablePlugin(0, &reason);
  if (!p) {
    std::fprintf(stderr, "bench_cuda: CUDA backend unusable: %s\n", reason.c_str());
    return 3;
  }
  std::printf("bench_cuda: plugin %s\n", p->path.c_str());
  try {
    if (kernels) checkKernels(*p);
    if (parity) {
      checkParityRandom(*p);
      checkParityShapes(*p);
#ifndef LWB_BENCH_STANDALONE
      checkParityDefaultModel();
#endif
    }
    if (bench) benchmark(*p);
  } catch (const std::exception& e) {
    table.push_back({"error", e.what(), "", "", "", "FAIL"});
    printTable();
    std::fprintf(stderr, "bench_cuda: error: %s\n", e.what());
    return 1;
  }
  printTable();
  std::printf("%s\n", parityFailed ? "bench_cuda: PARITY FAILED" : "bench_cuda: parity ok");
  return parityFailed ? 1 : 0;
}
