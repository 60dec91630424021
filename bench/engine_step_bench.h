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
#include "engine/engine_testing.h"
#include "engine/exec/cpu/cpu_executor.h"
#include "engine/exec/cpu/thread_pool.h"
#include "engine/metrics/stats.h"
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
// request computes its whole prompt. First after loading: over several loads, each first
// step paired with the same engine's (executor's) next one, so that the ratio compares two
// steps a moment apart (one first step against a median of warm steps taken later moves
// with a shared machine's load); the line gives the medians.
inline void benchEngineStep(const std::string& label, std::shared_ptr<const Model> model, int threads, bool quick) {
  const int prompt = quick ? 128 : 512, reps = quick ? 5 : 9, loads = quick ? 3 : 5;
  const int numThreads = threads > 0 ? threads : ThreadPool::availableCores();
  const int vocab = model->config.vocabSize;
  EngineConfig cfg;
  cfg.executor.backend = "cpu";
  cfg.executor.numThreads = threads;
  std::vector<StepTime> exFirst, engFirst, exWarm, engWarm;
  std::vector<double> exRatio, engRatio, exRatioCpu, engRatioCpu;  // first / next, per load
  for (int load = 0; load < loads; ++load) {
    Engine engine(model, cfg);  // loads: packs weights, sizes the KV pool, warms up
    auto ex = createCpuExecutor(model, threads);
    ex->setBatchLimits({engine.effectiveConfig().maxNumBatchedTokens, engine.effectiveConfig().maxNumSeqs, engine.maxModelLen()});
    ex->allocateKvCache(engine.numKvBlocks(), 16);
    const int seed = 1000 * (load + 1);
    exFirst.push_back(executorStep(*ex, promptOf(prompt, seed, vocab), numThreads));
    engFirst.push_back(engineStep(engine, promptOf(prompt, seed + 1, vocab), numThreads));
    const StepTime exNext = executorStep(*ex, promptOf(prompt, seed + 2, vocab), numThreads);
    const StepTime engNext = engineStep(engine, promptOf(prompt, seed + 3, vocab), numThreads);
    exRatio.push_back(exFirst.back().wall / exNext.wall), exRatioCpu.push_back(exFirst.back().cpu / exNext.cpu);
    engRatio.push_back(engFirst.back().wall / engNext.wall), engRatioCpu.push_back(engFirst.back().cpu / engNext.cpu);
    if (load + 1 < loads) continue;
    for (int r = 0; r < reps; ++r) {
      exWarm.push_back(executorStep(*ex, promptOf(prompt, 2 + r, vocab), numThreads));
      engWarm.push_back(engineStep(engine, promptOf(prompt, 100 + r, vocab), numThreads));
    }
  }
  const auto mid = [](const std::vector<double>& v) { return percentile(v, 50); };
  const StepTime e = median(engWarm), x = median(exWarm), ef = median(engFirst), xf = median(exFirst);
  std::printf("\n== %s: a %d-token prefill, engine step vs executor alone (warm: median of %d; first after loading: "
              "median of %d loads, each against its next step)\n", label.c_str(), prompt, reps, loads);
  std::printf("executor alone:  warm %7.2f ms  first %7.2f ms = %.2f× its next   [per CPU time: warm %7.2f ms  first %7.2f ms = %.2f×]\n",
              1e3 * x.wall, 1e3 * xf.wall, mid(exRatio), 1e3 * x.cpu, 1e3 * xf.cpu, mid(exRatioCpu));
  std::printf("engine step:     warm %7.2f ms  first %7.2f ms = %.2f× its next   [per CPU time: warm %7.2f ms  first %7.2f ms = %.2f×]\n",
              1e3 * e.wall, 1e3 * ef.wall, mid(engRatio), 1e3 * e.cpu, 1e3 * ef.cpu, mid(engRatioCpu));
  std::printf("engine/executor (warm): %.2f×; engine first/next: %.2f×   [per CPU time: %.2f× and %.2f×]  (targets ≤ 1.10)\n",
              e.wall / x.wall, mid(engRatio), e.cpu / x.cpu, mid(engRatioCpu));
}

// Decode steps of B running requests as Engine steps (schedule, block tables, forward,
// sampling at vLLM's default temperature 1, detokenization, bookkeeping) against the
// executor alone replaying the very batches the engine ran (its prefills too, so the cache
// holds the same rows): what the serving path adds to a decode step. In rounds, the engine's
// steps then the executor's; each round's ratio compares medians taken a moment apart (a
// shared machine's load moves both), the line gives the medians over the rounds.
inline void benchEngineDecode(const std::string& label, std::shared_ptr<const Model> model, int threads, bool quick,
                              const std::vector<int>& batches, const std::string& kvCacheDtype = "auto") {
  const int prompt = quick ? 32 : 128, steps = quick ? 8 : 12, rounds = quick ? 3 : 7;
  const int numThreads = threads > 0 ? threads : ThreadPool::availableCores();
  const int vocab = model->config.vocabSize;
  std::printf("\n== %s, kv_cache_dtype %s: decode steps of B requests (%d-token prompts, temperature 1), engine step vs "
              "the executor alone on the same batches (%d rounds of %d steps each)\n",
              label.c_str(), kvCacheDtype.c_str(), prompt, rounds, steps);
  for (int B : batches) {
    EngineConfig cfg;
    cfg.executor.backend = "cpu";
    cfg.executor.numThreads = threads;
    cfg.executor.kvCacheDtype = kvCacheDtype;
    Engine engine(model, cfg);
    std::vector<ForwardBatch> ran;  // every batch the engine ran, in order
    EngineTesting::setBeforeForwardHook(engine, [&](const ForwardBatch& b) { ran.push_back(b); });
    for (int b = 0; b < B; ++b) {
      RequestInput in;
      in.promptTokenIds = promptOf(prompt, 7 * b + 1, vocab);
      in.sampling.maxTokens = prompt + 2 * rounds * steps;
      in.sampling.ignoreEos = true;
      engine.addRequest(in);
    }
    // Until every request decodes (its prompt done), then one more step.
    for (int guard = 0; guard < 4 * B + 16; ++guard) {
      const StepOutput o = engine.step();
      if (o.record.numPrefillTokens == 0 && o.record.numDecodeTokens == B) break;
    }
    auto ex = createCpuExecutor(model, threads, GgmlType::F32, cpuKvCacheType(kvCacheDtype));
    ex->setBatchLimits({engine.effectiveConfig().maxNumBatchedTokens, engine.effectiveConfig().maxNumSeqs, engine.maxModelLen()});
    ex->allocateKvCache(engine.numKvBlocks(), engine.effectiveConfig().blockSize);
    ForwardResult out;
    size_t replayed = 0;
    for (; replayed < ran.size(); ++replayed) ex->forward(ran[replayed], out);  // the prefills, the first decode steps
    std::vector<double> eng, exe, ratio;
    for (int round = 0; round < rounds; ++round) {
      std::vector<double> e, x;
      for (int i = 0; i < steps; ++i) e.push_back(timeIt(numThreads, [&] { engine.step(); }).wall);
      for (; replayed < ran.size(); ++replayed) x.push_back(timeIt(numThreads, [&] { ex->forward(ran[replayed], out); }).wall);
      eng.push_back(percentile(e, 50));
      exe.push_back(percentile(x, 50));
      ratio.push_back(eng.back() / exe.back());
    }
    std::printf("decode batch %2d: engine step %8.1f us  executor alone %8.1f us  = %.2f× (rounds %.2f–%.2f)  (target ≤ 1.10)\n",
                B, 1e6 * percentile(eng, 50), 1e6 * percentile(exe, 50), percentile(ratio, 50),
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
  }
}

}  // namespace lwb::bench
