// EngineLoop::subscribe(): every subscriber and drainEvents() see every request's deltas
// and finish, each in its own queue; a full queue drops step records before anything a
// client needs; dropping the pointer unsubscribes; tags travel in the finished timeline.
#include <QtTest>

#include <set>

#include "common/random_model.h"
#include "engine/engine_loop.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

EngineConfig config() {
  EngineConfig c;
  c.executor.backend = "cpu";
  c.executor.numThreads = 1;
  c.numGpuBlocksOverride = 64;
  return c;
}

RequestInput request(int n, const std::string& tag) {
  RequestInput in;
  in.promptTokenIds = {1, 5 + n, 7, 9};
  in.sampling.temperature = 0;
  in.sampling.maxTokens = 6;
  in.sampling.ignoreEos = true;
  in.tag = tag;
  return in;
}

struct Seen {
  std::set<RequestId> finished;
  std::map<RequestId, std::string> tags;
  std::map<RequestId, int> tokens;
  int steps = 0;
  void add(const EngineEvent& e) {
    if (auto* f = std::get_if<RequestFinishedEvent>(&e)) {
      finished.insert(f->timeline.id);
      tags[f->timeline.id] = f->timeline.tag;
    }
    if (auto* d = std::get_if<TokenDelta>(&e)) tokens[d->id] += int(d->newTokenIds.size());
    steps += std::holds_alternative<StepRecord>(e);
  }
};

}  // namespace

class TestEngineLoopSubscribers : public QObject {
  Q_OBJECT
  std::shared_ptr<const Model> model_;

 private slots:
  void initTestCase() {
    model_ = loadModel(writeRandomLlamaModel((QDir::tempPath() + "/lwb_tst_subscribers").toStdString()));
  }

  void everyReaderSeesEveryRequest() {
    EngineLoop loop(model_, config());
    auto a = loop.subscribe(), b = loop.subscribe();
    std::set<RequestId> ids;
    for (int i = 0; i < 8; ++i) ids.insert(loop.submit(request(i, i % 2 ? "api" : "chat")));
    Seen sa, sb, main;
    QDeadlineTimer deadline(60000);
    while ((sa.finished.size() < ids.size() || sb.finished.size() < ids.size() || main.finished.size() < ids.size()) &&
           !deadline.hasExpired()) {
      for (auto& e : a->waitAndDrain(std::chrono::milliseconds(50))) sa.add(e);
      for (auto& e : b->drain()) sb.add(e);
      for (auto& e : loop.drainEvents()) main.add(e);
    }
    QCOMPARE(sa.finished, ids);
    QCOMPARE(sb.finished, ids);
    QCOMPARE(main.finished, ids);
    for (RequestId id : ids) {
      QCOMPARE(sa.tokens[id], 6);
      QCOMPARE(sb.tokens[id], 6);
      QCOMPARE(sa.tags[id], id % 2 == 0 ? std::string("api") : std::string("chat"));
      QCOMPARE(main.tags[id], sa.tags[id]);
    }
    QCOMPARE(sa.steps, sb.steps);
    QCOMPARE(a->numDropped(), uint64_t(0));
  }

  void fullQueueDropsStepsFirst() {
    EventSubscriber s(3);
    StepRecord step;
    s.push(step);
    s.push(TokenDelta{});
    s.push(step);
    s.push(RequestFinishedEvent{});  // over capacity: the oldest step goes
    s.push(RequestFinishedEvent{});  // and the next
    const auto events = s.drain();
    QCOMPARE(events.size(), size_t(3));
    QVERIFY(std::holds_alternative<TokenDelta>(events[0]));
    QVERIFY(std::holds_alternative<RequestFinishedEvent>(events[1]));
    QCOMPARE(s.numDropped(), uint64_t(2));
  }

  void closeWakesAndDroppedSubscriberIsForgotten() {
    EngineLoop loop(model_, config());
    auto s = loop.subscribe();
    std::thread closer([&] {
      QThread::msleep(50);
      s->close();
    });
    QElapsedTimer t;
    t.start();
    QVERIFY(s->waitAndDrain(std::chrono::milliseconds(20000)).empty());
    closer.join();
    QVERIFY(s->isClosed());
    std::weak_ptr<EventSubscriber> weak = s;
    s.reset();
    QVERIFY(weak.expired());  // the loop held it weakly
    const RequestId id = loop.submit(request(1, "x"));
    QDeadlineTimer deadline(60000);
    bool done = false;
    while (!done && !deadline.hasExpired())
      for (auto& e : loop.drainEvents())
        if (auto* f = std::get_if<RequestFinishedEvent>(&e)) done = f->timeline.id == id;
    QVERIFY(done);
  }
};

QTEST_GUILESS_MAIN(TestEngineLoopSubscribers)
#include "tst_engine_loop_subscribers.moc"
