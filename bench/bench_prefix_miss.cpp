// What explaining prefix-cache misses costs (engine/kv/prefix_miss.h): the bookkeeping
// remembers every registered block in a bounded ring (PrefixHistory) and walks each
// first admission's missed blocks. Two measurements, each with the accounting off and on
// in alternating rounds of the same run, so that machine load hits both alike, and each
// on two workloads: "shared" (a few prefixes that stay cached) and "evict" (more prefixes
// than the pool holds, so that blocks are evicted and their prompts come back: the
// evicted path, a history lookup that finds the evicted hash):
//   1. engine: the default model's engine steps (schedule, forward, sample, record) in a
//      small KV pool (mean step time);
//   2. books: the scheduler and KV books alone, with a fake forward pass (no weights):
//      the bookkeeping's share of a step without a forward pass to hide it.
// Prints the ratios on / off against the bound (1.02: at most 2 % slower), and the
// history's memory for the pool. Never part of the test suite.
// Usage: bench_prefix_miss [--quick] [--model DIR] [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/bench/bench_runner.h"
#include "engine/bench/workload.h"
#include "engine/common/error.h"
#include "engine/engine.h"
#include "engine/engine_testing.h"
#include "engine/model/model.h"
#include "engine/model/tokenizer.h"
#include "engine/sched/scheduler.h"

using namespace lwb;

namespace {

constexpr double kBound = 1.02;

struct Args {
  bool quick = false;
  std::string modelDir;
  int rounds = 5;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) a.quick = true;
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) a.modelDir = argv[++i];
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) a.rounds = std::max(1, std::atoi(argv[++i]));
    else throw Error(std::string("bench_prefix_miss: unknown argument ") + argv[i]);
  }
  if (a.quick) a.rounds = std::min(a.rounds, 3);
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// --- 1. the engine -----------------------------------------------------------------------

EngineConfig engineConfig() {
  EngineConfig e;
  e.executor.backend = "cpu";
  e.maxNumBatchedTokens = 512;
  e.maxNumSeqs = 32;
  e.numGpuBlocksOverride = 160;  // 2560 tokens: a tight pool
  return e;
}

// "shared": 6 prefixes of 13 blocks stay cached; "evict": 16 prefixes of 16 blocks (256
// blocks) in the 160-block pool are evicted and asked for again.
WorkloadOptions engineWorkload(bool quick, bool evict) {
  WorkloadOptions w;
  w.numPrompts = quick ? 48 : 128;
  w.inputLen = evict ? 32 : 48;
  w.rangeRatio = 0.5;
  w.outputLen = 8;
  w.sharedPrefixLen = evict ? 256 : 200;
  w.numPrefixGroups = evict ? 16 : 6;
  w.ignoreEos = true;
  w.seed = 44;
  return w;
}

struct RunCost {
  double seconds = 0;      // mean per step
  int64_t numMissed = 0;   // prompt tokens explained
  int64_t numEvicted = 0;  // of which evicted
};

RunCost engineRun(const std::shared_ptr<const Model>& model, bool accounting, const WorkloadOptions& w) {
  Engine engine(model, engineConfig());
  EngineTesting::setPrefixMissAccounting(engine, accounting);
  runServingBenchmark(engine, makeWorkloadFor(w, *model));
  RunCost c;
  for (const StepRecord& s : engine.steps()) c.seconds += s.duration;
  c.seconds /= double(std::max<size_t>(1, engine.steps().size()));
  const auto missed = engine.totals().prefixMissTokens;
  for (int64_t n : missed) c.numMissed += n;
  c.numEvicted = missed[size_t(PrefixMissReason::Evicted)];
  return c;
}

void engineSection(const Args& a) {
  const std::string dir = a.modelDir.empty() ? defaultModelDir() : a.modelDir;
  const auto model = loadModel(dir);
  std::printf("\n== 1. engine steps: %s, cpu, %d blocks ==\n", dir.c_str(), engineConfig().numGpuBlocksOverride);
  for (bool evict : {false, true}) {
    const WorkloadOptions w = engineWorkload(a.quick, evict);
    std::vector<double> off, on;
    RunCost last;
    for (int round = 0; round < a.rounds; ++round) {
      off.push_back(engineRun(model, false, w).seconds);
      last = engineRun(model, true, w);
      on.push_back(last.seconds);
    }
    const double ratio = median(on) / median(off);
    std::printf("  %s: %d prompts in %d groups x %d-token prefix; mean step, median of %d rounds: off %.3f ms, "
                "on %.3f ms; on / off %.3f (bound %.2f) %s\n",
                evict ? "evict " : "shared", w.numPrompts, w.numPrefixGroups, w.sharedPrefixLen, a.rounds,
                1e3 * median(off), 1e3 * median(on), ratio, kBound, ratio <= kBound ? "PASS" : "MISS");
    std::printf("    (each run explained %lld missed prompt tokens, %lld of them evicted)\n",
                static_cast<long long>(last.numMissed), static_cast<long long>(last.numEvicted));
  }
}

// --- 2. the books alone ------------------------------------------------------------------

struct Books {
  ConfigInForce config;
  Scheduler sched;
  std::vector<std::unique_ptr<Request>> reqs;
  Books(const EngineConfig& c, int numBlocks, bool accounting)
      : config{c, 4096}, sched(config, makeKv(numBlocks, c.blockSize, accounting)) {}
  static std::unique_ptr<KvCacheManager> makeKv(int numBlocks, int blockSize, bool accounting) {
    auto kv = std::make_unique<KvCacheManager>(numBlocks, blockSize);
    kv->setMissAccounting(accounting);
    return kv;
  }
};

// Seconds spent in schedule() + commitStep() over a fixed random workload: prompts of a
// shared head (one of `numHeads`, 512 tokens = 32 blocks) with a changed token somewhere
// and an own tail. 8 heads stay cached in the 1024 blocks; 64 heads (2048 blocks) do not,
// so heads are evicted and asked for again. *numEvicted: prompt tokens missed as evicted.
double booksRun(bool accounting, int numHeads, int numSteps, size_t* historyBytes, int64_t* numEvicted) {
  EngineConfig c;
  c.maxNumBatchedTokens = 2048;
  c.maxNumSeqs = 64;
  Books b(c, 1024, accounting);
  std::mt19937 rng(44);
  std::vector<std::vector<int>> heads(size_t(numHeads), std::vector<int>{});
  for (auto& h : heads)
    for (int i = 0; i < 512; ++i) h.push_back(int(rng() % 30000));
  double seconds = 0;
  for (int step = 0; step < numSteps; ++step) {
    for (int k = 0; k < 2; ++k) {
      auto r = std::make_unique<Request>();
      r->id = int64_t(b.reqs.size()) + 1;
      r->tokenIds = heads[rng() % heads.size()];
      r->tokenIds.resize(64 + rng() % 448);
      if (rng() % 2) r->tokenIds[rng() % r->tokenIds.size()] = int(rng() % 30000);
      for (int n = 32 + int(rng() % 64); n > 0; --n) r->tokenIds.push_back(int(rng() % 30000));
      r->numPromptTokens = r->numTokens();
      r->sampling.maxTokens = 4 + int(rng() % 12);
      b.sched.addRequest(r.get());
      b.reqs.push_back(std::move(r));
    }
    const auto t0 = std::chrono::steady_clock::now();
    SchedulerOutput out = b.sched.schedule(double(step));
    b.sched.commitStep(out);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const ScheduledSeq& s : out.seqs)
      if (s.needLogits) s.request->tokenIds.push_back(int(rng() % 30000));
    for (const ScheduledSeq& s : out.seqs)
      if (s.request->numOutputTokens() >= s.request->sampling.maxTokens)
        b.sched.finishRequest(s.request, RequestState::Finished);
  }
  if (historyBytes && b.sched.kv().history()) *historyBytes = b.sched.kv().history()->approxBytes();
  if (numEvicted) {
    *numEvicted = 0;
    for (const auto& r : b.reqs) *numEvicted += r->timeline.prefixMiss[PrefixMissReason::Evicted];
  }
  return seconds / numSteps;
}

void booksSection(const Args& a) {
  const int numSteps = a.quick ? 2000 : 8000;
  std::printf("\n== 2. scheduler + KV books alone (fake forward), 1024 blocks of 16, %d steps ==\n", numSteps);
  size_t bytes = 0;
  for (int numHeads : {8, 64}) {
    std::vector<double> off, on;
    int64_t evicted = 0;
    for (int round = 0; round < a.rounds; ++round) {
      off.push_back(booksRun(false, numHeads, numSteps, nullptr, nullptr));
      on.push_back(booksRun(true, numHeads, numSteps, &bytes, &evicted));
    }
    std::printf("  %s (%d heads of 512 tokens): mean schedule + commit, median of %d rounds: off %.2f us, on %.2f us; "
                "on / off %.3f; %lld prompt tokens missed as evicted\n",
                numHeads > 8 ? "evict " : "shared", numHeads, a.rounds, 1e6 * median(off), 1e6 * median(on),
                median(on) / median(off), static_cast<long long>(evicted));
  }
  std::printf("  history: %d entries (2 x blocks, within [4096, 131072]), about %.1f MiB at most\n",
              KvCacheManager::historyCapacityFor(1024), double(bytes) / (1024.0 * 1024.0));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parseArgs(argc, argv);
    std::printf("bench_prefix_miss%s: prefix-miss accounting off vs on, alternating rounds\n", a.quick ? " --quick" : "");
    booksSection(a);
    engineSection(a);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_prefix_miss: %s\n", e.what());
    return 1;
  }
}
