// Hand-computed scenarios of vLLM V1's scheduler and KV books: each states its inputs
// and the exact schedule, block tables, free-queue order and counters expected, worked
// out from vLLM's rules (not from running this code). Pool: blocks of 4 tokens, free
// queue initially 0, 1, 2, ...; a fake forward pass appends token 7 where a token is due.
#include <QtTest>

#include <memory>

#include "engine/common/error.h"
#include "engine/model/model_config.h"
#include "engine/sched/scheduler.h"

using namespace lwb;

namespace {

using Ids = std::vector<int>;

struct Harness {
  ConfigInForce config;  // the engine's role: the scheduler reads it, never copies it
  Scheduler sched;
  std::vector<std::unique_ptr<Request>> reqs;

  Harness(const EngineConfig& c, int numBlocks)
      : config{c, 1024}, sched(config, std::make_unique<KvCacheManager>(numBlocks, c.blockSize)) {}

  // A prompt of `len` tokens first, first + 1, ...
  Request* add(int len, int first) {
    auto r = std::make_unique<Request>();
    r->id = int64_t(reqs.size()) + 1;
    for (int i = 0; i < len; ++i) r->tokenIds.push_back(first + i);
    r->numPromptTokens = len;
    r->sampling.maxTokens = 2;  // the pool must hold prompt + max_tokens
    reqs.push_back(std::move(r));
    const std::string reason = sched.addRequest(reqs.back().get());
    if (!reason.empty()) qFatal("rejected: %s", reason.c_str());
    return reqs.back().get();
  }

  SchedulerOutput step() {
    SchedulerOutput out = sched.schedule(0);
    sched.commitStep(out);
    for (const ScheduledSeq& s : out.seqs)
      if (s.needLogits) s.request->tokenIds.push_back(7);
    return out;
  }

  const Ids& blocks(const Request* r) const { return sched.kv().blockIds(r->id); }
  Ids freeQueue() const { return sched.kv().pool().freeQueueOrder(); }
};

int tokensOf(const SchedulerOutput& out, const Request* r) {
  for (const ScheduledSeq& s : out.seqs)
    if (s.request == r) return s.numNewTokens;
  return 0;
}

EngineConfig knobs(int budget, bool reserveFullIsl = true) {
  EngineConfig c;
  c.blockSize = 4;
  c.maxNumBatchedTokens = budget;
  c.maxNumSeqs = 8;
  c.schedulerReserveFullIsl = reserveFullIsl;
  return c;
}

}  // namespace

class TestSchedulerScenarios : public QObject {
  Q_OBJECT

 private slots:
  // 8 blocks, budget 8. a (20 tokens = 5 blocks) prefills in chunks of 8, 8, 4; in the
  // third step 4 tokens of budget are left for b (16 tokens = 4 blocks) but only 3
  // blocks are free. scheduler_reserve_full_isl on: b waits until a is done and is
  // never preempted. Off: b's first chunk (1 block) gets in, and the next step it cannot
  // grow and preempts itself: over-admission, then recompute.
  void admissionReservesTheWholeSequence() {
    Harness h(knobs(8, true), 8);
    Request* a = h.add(20, 1000);
    Request* b = h.add(16, 2000);
    QCOMPARE(tokensOf(h.step(), a), 8);
    QCOMPARE(tokensOf(h.step(), a), 8);
    SchedulerOutput s3 = h.step();
    QCOMPARE(tokensOf(s3, a), 4);
    QCOMPARE(int(s3.seqs.size()), 1);
    QCOMPARE(h.blocks(a), (Ids{0, 1, 2, 3, 4}));
    QCOMPARE(b->state, RequestState::Waiting);
    QVERIFY(!h.sched.kv().holds(b->id));
    // a is done (max_tokens 1). Its 5 blocks are full, hashed, freed tail first to the
    // back of the queue.
    h.sched.finishRequest(a, RequestState::Finished);
    QCOMPARE(h.freeQueue(), (Ids{5, 6, 7, 4, 3, 2, 1, 0}));
    SchedulerOutput s4 = h.step();
    QCOMPARE(tokensOf(s4, b), 8);
    QCOMPARE(h.blocks(b), (Ids{5, 6}));
    QVERIFY(s3.preempted.empty() && s4.preempted.empty());
  }

  void withoutTheReserveTheFirstChunkGetsInAndIsPreempted() {
    Harness h(knobs(8, false), 8);
    Request* a = h.add(20, 1000);
    Request* b = h.add(16, 2000);
    h.step();
    h.step();
    SchedulerOutput s3 = h.step();
    QCOMPARE(tokensOf(s3, a), 4);
    QCOMPARE(tokensOf(s3, b), 4);
    QCOMPARE(h.blocks(b), (Ids{5}));
    // a decodes its 21st token into a 6th block (6); b's next chunk (7 tokens, to 11)
    // needs 2 more blocks, 1 is free: b, the latest admitted, preempts itself.
    SchedulerOutput s4 = h.step();
    QCOMPARE(tokensOf(s4, a), 1);
    QCOMPARE(s4.preempted, (std::vector<Request*>{b}));
    QCOMPARE(h.blocks(a), (Ids{0, 1, 2, 3, 4, 6}));
    QCOMPARE(b->state, RequestState::Preempted);
    QCOMPARE(h.sched.waiting().front(), b);
    // b's only block was full and hashed: kept at the back (cached-free).
    QCOMPARE(h.freeQueue(), (Ids{7, 5}));
  }

  // a (10 tokens: 2 full blocks + 2 tokens) finishes: its unhashed partial block goes to
  // the front of the free queue, the hashed ones to the back, tail first. c (28 tokens)
  // then takes 7 blocks from the front: only a's 2nd block is evicted (LRU, tail before
  // head). d repeats a's prompt: it hits a's 1st block only, and its 2 new blocks evict
  // c's two tail blocks.
  void evictionOrderAndHitsAfterEviction() {
    Harness h(knobs(64), 8);
    Request* a = h.add(10, 1000);
    SchedulerOutput s1 = h.step();
    QCOMPARE(h.blocks(a), (Ids{0, 1, 2}));
    QCOMPARE(s1.prefixQueryTokens, int64_t(10));
    QCOMPARE(s1.prefixHitTokens, int64_t(0));
    h.sched.finishRequest(a, RequestState::Finished);
    QCOMPARE(h.freeQueue(), (Ids{2, 3, 4, 5, 6, 7, 1, 0}));

    Request* c = h.add(28, 5000);
    SchedulerOutput s2 = h.step();
    QCOMPARE(h.blocks(c), (Ids{2, 3, 4, 5, 6, 7, 1}));
    QVERIFY(h.sched.kv().pool().block(0).hash.has_value());  // a's head block survived; block 1 was evicted
    h.sched.finishRequest(c, RequestState::Finished);
    QCOMPARE(h.freeQueue(), (Ids{0, 1, 7, 6, 5, 4, 3, 2}));

    Request* d = h.add(10, 1000);
    SchedulerOutput s3 = h.step();
    QCOMPARE(s3.prefixHitTokens, int64_t(4));
    QCOMPARE(s3.prefixQueryTokens, int64_t(10));
    QCOMPARE(s3.prefixQueryRequests, int64_t(1));
    QCOMPARE(tokensOf(s3, d), 6);
    QCOMPARE(h.blocks(d), (Ids{0, 1, 7}));
    QCOMPARE(s1.prefixQueryRequests + s2.prefixQueryRequests + s3.prefixQueryRequests, int64_t(3));
    QCOMPARE(s1.prefixQueryTokens + s2.prefixQueryTokens + s3.prefixQueryTokens, int64_t(48));
    QCOMPARE(s1.prefixHitTokens + s2.prefixHitTokens + s3.prefixHitTokens, int64_t(4));
  }

  // Caching off: no lookups, so nothing counted (vLLM records no PrefixCacheStats).
  void cachingOffCountsNoQueries() {
    EngineConfig c = knobs(64);
    c.enablePrefixCaching = false;
    Harness h(c, 8);
    h.add(10, 1000);
    h.add(10, 1000);
    SchedulerOutput s = h.step();
    QCOMPARE(int(s.seqs.size()), 2);
    QCOMPARE(s.prefixQueryRequests, int64_t(0));
    QCOMPARE(s.prefixQueryTokens, int64_t(0));
  }

  // Preemption and resumption: 4 blocks; a and b (8 tokens each) fill the pool, a's
  // decode preempts b; b's resumed lookup (its own head block survived) is counted as
  // a preempted request's, not in the hit rate.
  void resumedRequestsStayOutOfTheHitRate() {
    Harness h(knobs(64), 4);
    Request* a = h.add(8, 1000);
    Request* b = h.add(8, 2000);
    SchedulerOutput s1 = h.step();
    QCOMPARE(s1.prefixQueryRequests, int64_t(2));
    QCOMPARE(h.blocks(a), (Ids{0, 1}));
    QCOMPARE(h.blocks(b), (Ids{2, 3}));
    SchedulerOutput s2 = h.step();
    QCOMPARE(s2.preempted, (std::vector<Request*>{b}));
    QCOMPARE(h.blocks(a), (Ids{0, 1, 3}));  // b's tail block (freed first) is evicted
    h.sched.finishRequest(a, RequestState::Finished);
    // a's third block holds 2 tokens (unhashed): front; its full blocks: back, tail first.
    QCOMPARE(h.freeQueue(), (Ids{3, 2, 1, 0}));
    SchedulerOutput s3 = h.step();
    QCOMPARE(tokensOf(s3, b), 5);  // 9 tokens, 4 from its own cached head block
    QCOMPARE(h.blocks(b), (Ids{2, 3, 1}));
    QCOMPARE(s3.prefixQueryRequests, int64_t(0));
    QCOMPARE(s3.preemptedPrefixQueryTokens, int64_t(9));
    QCOMPARE(s3.preemptedPrefixHitTokens, int64_t(4));
  }

  // Two requests computed the same prompt head before either registered it (here: the
  // KV books driven directly, hashing only after the pass): both blocks keep the hash;
  // after one is evicted a later lookup hits the other copy.
  void duplicateBlocksBothStayFindable() {
    KvCacheManager kv(4, 4);
    const std::vector<int> prompt = {1, 2, 3, 4, 5};
    QVERIFY(kv.allocateSlots(1, 5));
    QVERIFY(kv.allocateSlots(2, 5));
    QCOMPARE(kv.blockIds(1), (Ids{0, 1}));
    QCOMPARE(kv.blockIds(2), (Ids{2, 3}));
    kv.cacheFullBlocks(1, &prompt, 5);
    kv.cacheFullBlocks(2, &prompt, 5);
    QCOMPARE(kv.pool().numBlocksWithHash(*kv.pool().block(0).hash), 2);
    kv.free(1);
    kv.free(2);
    QCOMPARE(kv.pool().freeQueueOrder(), (Ids{3, 1, 0, 2}));
    QVERIFY(kv.allocateSlots(3, 12));  // takes 3, 1, 0: request 1's copy is evicted
    QCOMPARE(kv.blockIds(3), (Ids{3, 1, 0}));
    PrefixHit hit = kv.findCachedPrefix(prompt);
    QCOMPARE(hit.blockIds, (Ids{2}));
  }

  // vLLM's SchedulerConfig checks: without chunked prefill the budget must hold
  // max_model_len (a prompt must fit one step); the budget must hold max_num_seqs.
  void chunkedPrefillOffNeedsABudgetOfMaxModelLen() {
    ModelConfig model;
    model.maxPositionEmbeddings = 1024;
    EngineConfig c;
    c.enableChunkedPrefill = false;
    c.maxNumBatchedTokens = 512;
    try {
      c.validateFor(model.maxPositionEmbeddings);
      QFAIL("accepted");
    } catch (const Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("max_num_batched_tokens (512)") != std::string::npos, e.what());
      QVERIFY2(what.find("max_model_len (1024)") != std::string::npos, e.what());
    }
    c.maxModelLen = 512;
    QCOMPARE(c.validateFor(model.maxPositionEmbeddings), 512);
    c.enableChunkedPrefill = true;
    c.maxModelLen = 0;
    QCOMPARE(c.validateFor(model.maxPositionEmbeddings), 1024);
    c.maxNumBatchedTokens = 64;  // < max_num_seqs 128
    try {
      c.validateFor(model.maxPositionEmbeddings);
      QFAIL("accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("max_num_seqs (128)") != std::string::npos, e.what());
    }
  }

  // vLLM's effective max_num_batched_tokens / max_num_seqs defaults for `vllm serve`
  // depend on the device; 0 in the knobs means "vLLM's default", resolved per device.
  void batchDefaultsFollowTheDevice() {
    const size_t gib = size_t(1) << 30;
    auto defaults = [](std::string backend, std::string name, size_t memory) {
      DeviceInfo d;
      d.backend = std::move(backend);
      d.name = std::move(name);
      d.totalMemory = memory;
      return vllmBatchDefaults(d);
    };
    const BatchDefaults cpu = defaults("cpu", "AMD EPYC", 24 * gib);
    QCOMPARE(cpu.maxNumBatchedTokens, 2048);
    QCOMPARE(cpu.maxNumSeqs, 128);
    const BatchDefaults h200 = defaults("cuda", "NVIDIA H200", 141 * gib);
    QCOMPARE(h200.maxNumBatchedTokens, 8192);
    QCOMPARE(h200.maxNumSeqs, 1024);
    QVERIFY2(h200.source.find("NVIDIA H200") != std::string::npos, h200.source.c_str());
    const BatchDefaults a100 = defaults("cuda", "NVIDIA A100-SXM4-80GB", 80 * gib);  // vLLM: not for A100
    QCOMPARE(a100.maxNumBatchedTokens, 2048);
    QCOMPARE(a100.maxNumSeqs, 256);
    const BatchDefaults l4 = defaults("cuda", "NVIDIA L4", 22 * gib);
    QCOMPARE(l4.maxNumBatchedTokens, 2048);
    QCOMPARE(l4.maxNumSeqs, 256);

    DeviceInfo gpu;
    gpu.backend = "cuda";
    gpu.name = "NVIDIA H200";
    gpu.totalMemory = 141 * gib;
    EngineConfig c;  // both knobs at 0 = vLLM's default
    QCOMPARE(c.resolvedFor(gpu).maxNumBatchedTokens, 8192);
    QCOMPARE(c.resolvedFor(DeviceInfo{}).maxNumSeqs, 128);
    c.maxNumSeqs = 8;  // a set value wins
    QCOMPARE(c.resolvedFor(gpu).maxNumSeqs, 8);
    // Chunked prefill off with a 4096-token model: the CPU default budget is too small,
    // the H200's is not.
    ModelConfig model;
    model.maxPositionEmbeddings = 4096;
    c.enableChunkedPrefill = false;
    QVERIFY_THROWS_EXCEPTION(Error, c.validateFor(model.maxPositionEmbeddings, DeviceInfo{}));
    QCOMPARE(c.validateFor(model.maxPositionEmbeddings, gpu), 4096);
  }
};

QTEST_GUILESS_MAIN(TestSchedulerScenarios)
#include "tst_scheduler_scenarios.moc"
