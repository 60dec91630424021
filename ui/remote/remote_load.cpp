#include "ui/remote/remote_load.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "engine/model/model.h"
#include "engine/model/tokenizer_files.h"
#include "remote/remote_report.h"

namespace lwb::ui {

namespace {
using Clock = std::chrono::steady_clock;
const std::string kTag = "load";
std::atomic<int> numThreads{0};
}  // namespace

// Filled by the run's threads, drained by the GUI tick.
struct RemoteLoad::Shared {
  struct Sent {
    int index = 0;
    double time = 0;
    int numPromptTokens = 0;
  };
  std::atomic<bool> cancel{false};
  std::mutex mu;
  std::vector<Sent> sent;
  std::vector<BenchRequestRecord> finished;  // timeline.id = index in the workload
  bool done = false;
  std::optional<remote::RemoteBenchRun> result;
  std::string error;
};

namespace {

using Shared = std::shared_ptr<RemoteLoad::Shared>;

std::vector<SyntheticRequest> makeRemoteWorkload(const RemoteLoadOptions& lo) {
  const std::string dir = lo.tokenizerDir.isEmpty() ? defaultModelDir() : lo.tokenizerDir.toStdString();
  const auto tokenizer = loadTokenizerFiles(dir).tokenizer;  // prompts travel as ids, as bench --endpoint's
  return makeWorkload(lo.workload, tokenizer->ordinaryIds(), tokenizer->bosId());
}

// The run's own thread: builds the workload and runs bench --endpoint's runner.
void runLoad(Shared d, remote::RemoteBenchOptions o, RemoteLoadOptions lo) {
  try {
    const std::vector<SyntheticRequest> workload = makeRemoteWorkload(lo);
    remote::RemoteBenchHooks hooks;
    hooks.onSent = [&d, &workload](int i, double t) {
      std::lock_guard lock(d->mu);
      d->sent.push_back({i, t, static_cast<int>(workload[size_t(i)].promptTokenIds.size())});
    };
    hooks.onFinished = [&d](int, const BenchRequestRecord& r) {
      std::lock_guard lock(d->mu);
      d->finished.push_back(r);
    };
    hooks.cancel = &d->cancel;
    remote::RemoteBenchRun run = remote::runRemoteBenchmark(o, workload, {}, hooks);
    run.report.config = remote::remoteBenchConfig(lo.workload, o, run);
    std::lock_guard lock(d->mu);
    d->result = std::move(run);
  } catch (const std::exception& e) {
    std::lock_guard lock(d->mu);
    d->error = e.what();
  }
  {
    std::lock_guard lock(d->mu);
    d->done = true;
  }
  --numThreads;
}

}  // namespace

RemoteLoad::RemoteLoad(QObject* parent) : RunSource(parent), t0_(Clock::now()) {
  timer_.setInterval(33);
  connect(&timer_, &QTimer::timeout, this, &RemoteLoad::poll);
}

RemoteLoad::~RemoteLoad() { stop(); }

int RemoteLoad::numRunThreads() { return numThreads; }

double RemoteLoad::now() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

void RemoteLoad::setServer(const remote::ClientOptions& client) {
  stop();
  active_.reset();  // its threads finish on their own; nothing of theirs reaches this session
  timer_.stop();
  if (running_) {
    running_ = false;
    emit runningChanged(false);
  }
  client_ = client;
  model_.clear();
  t0_ = Clock::now();
  idBase_ = 0;
  live_.clear();
  run_.clear();
  run_.device = "remote: " + client.url;
  lastRun_.reset();
  numSent_ = numFinished_ = numPlanned_ = 0;
  error_.clear();
  emit runReset();
}

bool RemoteLoad::start(const RemoteLoadOptions& options) {
  error_.clear();
  if (running_) error_ = tr("A load run is going on.");
  else if (client_.url.empty()) error_ = tr("Not connected to a server.");
  else if (model_.isEmpty()) error_ = tr("The server's model is not known yet (not connected).");
  else {
    try {
      options.workload.validate();
    } catch (const std::exception& e) {
      error_ = QString::fromUtf8(e.what());
    }
  }
  if (!error_.isEmpty()) return false;
  remote::RemoteBenchOptions o;
  o.client = client_;
  o.model = model_.toStdString();
  o.maxConcurrency = options.maxConcurrency;
  o.clock = [t0 = t0_] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  active_ = std::make_shared<Shared>();
  ++numThreads;
  o.kvEvents = kvEvents_.get();  // the thread holds kvEvents_ while it runs
  std::thread([d = active_, o, options, events = kvEvents_] {
    (void)events;
    runLoad(d, o, options);
  }).detach();
  run_.hasWorkload = true;
  run_.workload = options.workload;
  run_.modelDir = o.model;
  numSent_ = numFinished_ = 0;
  numPlanned_ = options.workload.numPrompts;
  running_ = true;
  timer_.start();
  emit runningChanged(true);
  emit progressed(numSent_, numFinished_, numPlanned_);
  return true;
}

void RemoteLoad::stop() {
  if (active_) active_->cancel = true;
}

void RemoteLoad::poll() {
  if (!active_) return;
  std::vector<Shared::Sent> sent;
  std::vector<BenchRequestRecord> finished;
  bool done = false;
  {
    std::lock_guard lock(active_->mu);
    sent.swap(active_->sent);
    finished.swap(active_->finished);
    done = active_->done;
  }
  Frame frame;
  for (const auto& s : sent) {
    RequestTimeline t;
    t.id = idBase_ + s.index;
    t.arrivalTime = s.time;
    t.numPromptTokens = s.numPromptTokens;
    t.tag = kTag;
    live_[t.id] = t;
  }
  for (auto& r : finished) {
    r.timeline.id += idBase_;
    r.timeline.tag = kTag;
    live_.erase(r.timeline.id);
    run_.requests.push_back(r.timeline);
    frame.finished.push_back({r.timeline, {}});
  }
  numSent_ += int(sent.size());
  numFinished_ += int(finished.size());
  if (done) finishRun();
  auto snapshot = std::make_shared<EngineSnapshot>();
  snapshot->time = now();
  snapshot->modelDir = model_.toStdString();
  for (const auto& [id, t] : live_) snapshot->live.push_back(t);
  snapshot->numRunning = int(live_.size());  // in flight, as far as the client knows
  frame.snapshot = std::move(snapshot);
  frame.snapshotChanged = true;
  emit frameReady(frame);
  emit progressed(numSent_, numFinished_, numPlanned_);
  if (done) emit runningChanged(false);
}

void RemoteLoad::finishRun() {
  {
    std::lock_guard lock(active_->mu);
    if (active_->result) lastRun_ = std::move(active_->result);
    error_ = QString::fromStdString(active_->error);
  }
  active_.reset();
  timer_.stop();
  live_.clear();
  idBase_ += numPlanned_;
  running_ = false;
}

}  // namespace lwb::ui
