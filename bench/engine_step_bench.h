#pragma once
// bench_cpu's engine-step section: one prompt's prefill as an Engine step (schedule,
// block tables, forward, sampling, detokenization, bookkeeping) against the executor
// alone on the same batch, each the first after loading and warm. Included by bench_cpu.cpp
// only (every bench_*.cpp is its own executable).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/model/model.h"

namespace lwb::bench {

struct StepTime {
  double wall = 0, cpu = 0;  // seconds; cpu = process CPU time / threads
};

inline StepTime timeIt(int threads, const std::function<void()>& fn) {
  auto cpuNow = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  };
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpuNow();
  fn();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), (cpuNow() - c0) / threads};
}

inline std::vector<int> promptOf(int numTokens, int seed, int vocab) {
  std::vector<int> ids(static_cast<size_t>(numTokens));
  for (int i = 0; i < numTokens; ++i) ids[size_t(i)] = (seed * 7919 + i * 31 + 7) % vocab;
  return ids;
}

// One request of `prompt` tokens, max_tokens 1: its single step is the prefill.
inline StepTime engineStep(Engine& engine, const std::vector<int>& prompt, int threads) {
  RequestInput in;
  in.promptTokenIds = prompt;
  in.sampling.maxTokens = 1;
  in.sampling.ignoreEos = true;
  engine.addRequest(in);
  StepTime t;
  while (engine.hasUnfinishedRequests()) {
    const StepTime s = timeIt(threads, [&] { engine.step(); });
    t.wall += s.wall, t.cpu += s.cpu;
  }
  return t;
}

inline StepTime executorStep(Executor& ex, const std::vector<int>& prompt, int threads) {
  const int n = int(prompt.size());
  ForwardBatch batch{std::vector<int32_t>(prompt.begin(), prompt.end()), {{1, 0, n, 0, {}, true}}};
  for (int b = 0; b < (n + 15) / 16; ++b) batch.seqs[0].blockTable.push_back(b);
  ForwardResult out;
  return timeIt(threads, [&] { ex.forward(batch, out); });
}

inline StepTime median(std::vector<StepTime> v) {
  std::sort(v.begin(), v.end(), [](const StepTime& a, const StepTime& b) { return a.wall < b.wall; });
  StepTime m = v[v.size() / 2];
  std::sort(v.begin(), v.end(), [](const StepTime& a, const StepTime& b) { return a.cpu < b.cpu; });
  m.cpu = v[v.size() / 2].cpu;
  return m;
}

// Alternates engine and executor runs so machine load hits both alike. The engine runs its
// default knobs (prefix caching on); the prompts differ from their first token, so every
// request computes its whole prompt.
inline void benchEngineStep(const std::string& label, std::shared_ptr<const Model> model, int threads, bool quick) {
  const int prompt = quick ? 128 : 512, reps = quick ? 5 : 9;
  const int numThreads = threads > 0 ? threads : ThreadPool::availableCores();
  EngineConfig cfg;
  cfg.executor.backend = "cpu";
  cfg.executor.numThreads = threads;
  Engine engine(model, cfg);  // loads: packs weights, sizes the KV pool, warms up
  auto ex = createCpuExecutor(model, threads);
  ex->setBatchLimits({engine.effectiveConfig().maxNumBatchedTokens, engine.effectiveConfig().maxNumSeqs, engine.maxModelLen()});
  ex->allocateKvCache(engine.numKvBlocks(), 16);
  const int vocab = model->config.vocabSize;
  const StepTime exFirst = executorStep(*ex, promptOf(prompt, 0, vocab), numThreads);
  const StepTime engFirst = engineStep(engine, promptOf(prompt, 1, vocab), numThreads);
  std::vector<StepTime> exWarm, engWarm;
  for (int r = 0; r < reps; ++r) {
    exWarm.push_back(executorStep(*ex, promptOf(prompt, 2 + r, vocab), numThreads));
    engWarm.push_back(engineStep(engine, promptOf(prompt, 100 + r, vocab), numThreads));
  }
  const StepTime e = median(engWarm), x = median(exWarm);
  std::printf("\n== %s: a %d-token prefill, engine step vs executor alone (median of %d, first after loading)\n",
              label.c_str(), prompt, reps);
  std::printf("executor alone:  warm %7.2f ms  first %7.2f ms   [per CPU time: warm %7.2f ms  first %7.2f ms]\n",
              1e3 * x.wall, 1e3 * exFirst.wall, 1e3 * x.cpu, 1e3 * exFirst.cpu);
  std::printf("engine step:     warm %7.2f ms  first %7.2f ms   [per CPU time: warm %7.2f ms  first %7.2f ms]\n",
              1e3 * e.wall, 1e3 * engFirst.wall, 1e3 * e.cpu, 1e3 * engFirst.cpu);
  std::printf("engine/executor (warm): %.2f×; engine first/warm: %.2f×   [per CPU time: %.2f× and %.2f×]  (targets ≤ 1.10)\n",
              e.wall / x.wall, engFirst.wall / e.wall, e.cpu / x.cpu, engFirst.cpu / e.cpu);
}

}  // namespace lwb::bench
