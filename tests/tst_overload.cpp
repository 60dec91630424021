// Overload (issue "Reliability"): 10,000 queued requests on a tiny random model, half of
// them aborted at random moments, knob changes mid-run. The engine keeps serving, every
// request ends with a reason, no KV block leaks, memory stays bounded.
#include <QtTest>

#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "common/random_model.h"
#include "engine/engine.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

constexpr int kNumRequests = 10000;

long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

std::shared_ptr<const Model> tinyModel(const QString& dir) {
  RandomModelSpec spec;
  spec.hiddenSize = 32;
  spec.intermediateSize = 64;
  spec.numAttentionHeads = 2;
  spec.numKeyValueHeads = 1;
  spec.numHiddenLayers = 1;
  spec.vocabSize = tinyTokenizerVocabSize();
  spec.maxPositionEmbeddings = 128;
  return loadModel(writeRandomLlamaModel(dir.toStdString(), spec));
}

RequestInput randomRequest(std::mt19937& rng, int vocab) {
  RequestInput in;
  const int len = 1 + int(rng() % 40);
  in.promptTokenIds.push_back(1);
  for (int i = 1; i < len; ++i) in.promptTokenIds.push_back(3 + int(rng() % unsigned(vocab - 3)));
  in.sampling.maxTokens = 1 + int(rng() % 2);
  in.sampling.temperature = (rng() % 2) ? 0.0f : 0.8f;
  in.sampling.ignoreEos = true;
  in.priority = int(rng() % 3);
  return in;
}

EngineConfig randomKnobs(std::mt19937& rng, EngineConfig c) {
  const int budgets[] = {8, 32, 64, 256, 2048};
  c.maxNumBatchedTokens = budgets[rng() % 5];
  c.maxNumSeqs = 1 + int(rng() % std::min(64, c.maxNumBatchedTokens));  // vLLM: budget >= max_num_seqs
  c.enableChunkedPrefill = rng() % 4 != 0;
  // vLLM: without chunked prefill the budget must hold max_model_len (the model's 128).
  if (!c.enableChunkedPrefill) c.maxNumBatchedTokens = std::max(c.maxNumBatchedTokens, 128);
  c.enablePrefixCaching = rng() % 2;
  c.schedulingPolicy = (rng() % 2) ? SchedulingPolicy::Priority : SchedulingPolicy::Fcfs;
  c.longPrefillTokenThreshold = (rng() % 3 == 0) ? 16 : 0;
  return c;
}

void checkNoBlockIsOwned(const Engine& engine) {
  for (const KvBlockInfo& b : engine.kvBlocks()) {
    QVERIFY(b.kind != KvBlockInfo::Kind::Owned);
    QCOMPARE(b.refCount, 0);
  }
}

}  // namespace

class TestOverload : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::shared_ptr<const Model> model_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    model_ = tinyModel(dir_.path());
  }

  void engineSurvivesTenThousandRequestsAbortsAndKnobChanges() {
    std::mt19937 rng(2024);
    EngineConfig config;
    config.numGpuBlocksOverride = 48;  // small pool: preemption happens too
    config.executor.backend = "cpu";
    config.executor.numThreads = 1;
    Engine engine(model_, config);
    std::vector<RequestId> ids;
    for (int i = 0; i < kNumRequests; ++i) ids.push_back(engine.addRequest(randomRequest(rng, model_->config.vocabSize)));
    const long rssAfterSubmit = residentKiB();

    std::vector<RequestId> toAbort = ids;
    std::shuffle(toAbort.begin(), toAbort.end(), rng);
    toAbort.resize(kNumRequests / 2);
    size_t nextAbort = 0;
    int steps = 0;
    while (engine.hasUnfinishedRequests()) {
      for (int k = 0; k < 40 && nextAbort < toAbort.size(); ++k) engine.abortRequest(toAbort[nextAbort++]);
      if (++steps % 25 == 0) engine.setConfig(randomKnobs(rng, engine.config()));
      engine.step();
      QVERIFY2(steps < 200000, "the engine stopped making progress");
    }
    std::set<FinishReason> allowed = {FinishReason::Stop, FinishReason::Length, FinishReason::Abort,
                                      FinishReason::Rejected};
    int aborted = 0, completed = 0;
    for (RequestId id : ids) {
      const RequestTimeline* t = engine.timeline(id);
      QVERIFY(t);
      QVERIFY2(allowed.count(t->finishReason), qPrintable(QString("request %1: %2 %3").arg(id)
                                                             .arg(QString::fromStdString(finishReasonName(t->finishReason)))
                                                             .arg(QString::fromStdString(t->error))));
      if (t->finishReason == FinishReason::Rejected) QVERIFY(!t->error.empty());
      aborted += t->finishReason == FinishReason::Abort;
      completed += t->finishReason == FinishReason::Length;
    }
    QVERIFY(aborted > 0 && completed > 0);
    checkNoBlockIsOwned(engine);
    // Bounded: finishing 10k tiny requests must not grow memory by more than ~200 MB.
    QVERIFY2(residentKiB() - rssAfterSubmit < 200 * 1024, "memory grew unboundedly during the run");
  }

  void loopSurvivesConcurrentSubmitAbortAndKnobChanges() {
    EngineConfig config;
    config.numGpuBlocksOverride = 64;
    config.executor.backend = "cpu";
    config.executor.numThreads = 1;
    EngineLoop loop(model_, config);
    std::atomic<bool> done{false};
    std::vector<RequestId> submitted;
    std::mutex submittedMutex;
    std::thread submitter([&] {
      std::mt19937 rng(7);
      for (int i = 0; i < 3000; ++i) {
        RequestId id = loop.submit(randomRequest(rng, model_->config.vocabSize));
        std::lock_guard lock(submittedMutex);
        submitted.push_back(id);
      }
    });
    std::thread aborter([&] {
      std::mt19937 rng(8);
      while (!done) {
        RequestId id = -1;
        {
          std::lock_guard lock(submittedMutex);
          if (!submitted.empty()) id = submitted[rng() % submitted.size()];
        }
        if (id >= 0) loop.abort(id);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    std::thread tuner([&] {
      std::mt19937 rng(9);
      while (!done) {
        loop.setConfig(randomKnobs(rng, loop.config()));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    submitter.join();
    std::set<RequestId> finished;
    QElapsedTimer guard;
    guard.start();
    while (finished.size() < 3000 && guard.elapsed() < 600000) {
      for (const EngineEvent& e : loop.drainEvents())
        if (const auto* f = std::get_if<RequestFinishedEvent>(&e)) finished.insert(f->timeline.id);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    done = true;
    aborter.join();
    tuner.join();
    QCOMPARE(finished.size(), size_t(3000));
    auto snap = loop.snapshot();
    QVERIFY(snap);
    QTRY_VERIFY_WITH_TIMEOUT(loop.snapshot()->numRunning == 0 && loop.snapshot()->numWaiting == 0, 60000);
    for (const KvBlockInfo& b : loop.snapshot()->kvBlocks) QVERIFY(b.kind != KvBlockInfo::Kind::Owned);
  }
};

QTEST_GUILESS_MAIN(TestOverload)
#include "tst_overload.moc"
