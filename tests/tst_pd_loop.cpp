// EngineLoop running a prefill/decode pair (EngineLoop(model, PdConfig), the window's
// P/D mode): every request finishes once with its transfer, step records come from both
// instances, the snapshot carries the prefill instance's pool, live knobs reach both
// instances and structural ones are refused; on the CPU and on the simulator.
#include <QtTest>

#include <map>

#include "common/random_model.h"
#include "engine/config/knobs.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

RequestInput request(int i) {
  RequestInput in;
  in.promptTokenIds.push_back(1);
  for (int k = 0; k < 20 + i % 10; ++k) in.promptTokenIds.push_back(3 + (k * 7 + i) % 200);
  in.sampling.temperature = 0;
  in.sampling.maxTokens = 5;
  in.sampling.ignoreEos = true;
  return in;
}

struct Seen {
  std::map<RequestId, RequestFinishedEvent> finished;
  int numPrefillSteps = 0, numDecodeSteps = 0;
  std::vector<EngineErrorEvent> errors;
};

void drainInto(EngineLoop& loop, Seen& seen) {
  for (EngineEvent& e : loop.drainEvents()) {
    if (auto* f = std::get_if<RequestFinishedEvent>(&e)) {
      if (seen.finished.count(f->timeline.id)) qFatal("request %lld finished twice", (long long)f->timeline.id);
      seen.finished[f->timeline.id] = *f;
    } else if (auto* s = std::get_if<StepRecord>(&e)) {
      (s->instance == StepRecord::Instance::Prefill ? seen.numPrefillSteps : seen.numDecodeSteps)++;
    } else if (auto* err = std::get_if<EngineErrorEvent>(&e)) {
      seen.errors.push_back(*err);
    }
  }
}

// Pulls events until `done` holds (or a minute has passed).
template <class F>
void pullUntil(EngineLoop& loop, Seen& seen, F done) {
  QDeadlineTimer deadline(60000);
  while (!done() && !deadline.hasExpired()) {
    drainInto(loop, seen);
    QThread::msleep(2);
  }
}

// Requests `first` ... `first + numRequests - 1` (distinct prompts: none is cached on D).
void checkPair(EngineLoop& loop, int numRequests, int first = 0) {
  for (int i = first; i < first + numRequests; ++i) loop.submit(request(i));
  Seen seen;
  pullUntil(loop, seen, [&] { return int(seen.finished.size()) >= numRequests; });
  QCOMPARE(int(seen.finished.size()), numRequests);
  for (const auto& [id, f] : seen.finished) {
    QCOMPARE(f.timeline.finishReason, FinishReason::Length);
    QCOMPARE(int(f.outputTokenIds.size()), 5);
    QVERIFY(f.timeline.kvTransferBytes > 0);
    QVERIFY(f.timeline.kvTransferStartTime.has_value());
    QVERIFY(*f.timeline.kvTransferStartTime >= *f.timeline.firstScheduledTime);
  }
  QVERIFY(seen.numPrefillSteps > 0);
  QVERIFY(seen.numDecodeSteps > 0);
  QTRY_VERIFY(loop.snapshot()->disaggregated && !loop.snapshot()->prefillInstances.empty() &&
              !loop.snapshot()->prefillInstances[0].kvBlocks.empty());
  QVERIFY(loop.pdConfig().has_value());
  QCOMPARE(int(loop.snapshot()->prefillInstances.size()), loop.pdConfig()->numPrefill);
  QCOMPARE(int(loop.snapshot()->decodeInstances.size()), loop.pdConfig()->numDecode);
}

}  // namespace

class TestPdLoop : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::shared_ptr<const Model> model_;

 private slots:
  void initTestCase() {
    RandomModelSpec spec;
    spec.hiddenSize = 32;
    spec.intermediateSize = 64;
    spec.numAttentionHeads = 2;
    spec.numKeyValueHeads = 1;
    spec.numHiddenLayers = 1;
    spec.maxPositionEmbeddings = 128;
    model_ = loadModel(writeRandomLlamaModel(dir_.filePath("m").toStdString(), spec));
  }

  void cpuPairServesThroughTheLoop() {
    EngineConfig c;
    c.executor.backend = "cpu";
    EngineLoop loop(model_, makePdConfig(c, 1, 1));
    checkPair(loop, 6);

    // A live knob reaches the pair; a structural one is refused and the knobs stay.
    EngineConfig live = loop.config();
    live.maxNumSeqs = 3;
    loop.setConfig(live);
    QTRY_COMPARE(loop.config().maxNumSeqs, 3);
    EngineConfig structural = loop.config();
    structural.blockSize = 32;
    loop.setConfig(structural);
    Seen seen;
    pullUntil(loop, seen, [&] { return !seen.errors.empty(); });
    QVERIFY(!seen.errors.empty());
    QVERIFY2(QString::fromStdString(seen.errors.front().message).contains("prefill/decode pair"),
             seen.errors.front().message.c_str());
    QCOMPARE(loop.config().blockSize, 16);
    checkPair(loop, 2, 100);  // still serving
  }

  void simulatedPairServesThroughTheLoop() {
    const auto model = loadModelConfigOnly(LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b");
    EngineConfig c;
    c.executor.backend = "sim";
    EngineLoop loop(model, makePdConfig(c, 1, 1));
    loop.setSimulationSpeed(0);
    checkPair(loop, 8);
  }
};

QTEST_GUILESS_MAIN(TestPdLoop)
#include "tst_pd_loop.moc"
