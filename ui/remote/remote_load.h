#pragma once
// The remote window's load generator and the run it keeps: the `bench` workload sent to
// the server by `bench --endpoint`'s runner (runRemoteBenchmark: one implementation),
// on a thread of its own, and the client's record of every request — TTFT, each ITL
// gap, e2e, output tokens — handed to the shared run views as the in-process engine's
// are (a RunSource: one Frame per ~30 Hz tick, never one signal per token).
//
// Nothing here waits on the network on the GUI thread: the run's threads hold only
// `Shared`, so stopping or destroying this object returns at once; streams in flight are
// canceled and end by themselves (at the latest after the read timeout).
#include <QTimer>

#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "remote/remote_bench.h"
#include "ui/bridge/run_source.h"

namespace lwb::ui {

struct RemoteLoadOptions {
  WorkloadOptions workload;
  int maxConcurrency = 0;   // max_concurrency; 0 = min(num_prompts, 256)
  QString tokenizerDir;     // the served model's tokenizer; "" = the bundled model's
};

class RemoteLoad : public RunSource {
  Q_OBJECT
 public:
  explicit RemoteLoad(QObject* parent = nullptr);
  ~RemoteLoad() override;

  // Another server (or the first): stops a run and clears the session's run.
  void setServer(const remote::ClientOptions& client);
  void setModel(const QString& servedModelName) { model_ = servedModelName; }
  // The server's KV events (nullptr: none): the next runs explain each request's missed
  // prompt tokens by reason as far as the events allow (remote/remote_prefix_miss.h).
  void setKvEvents(std::shared_ptr<const remote::KvEventSubscriber> kvEvents) { kvEvents_ = std::move(kvEvents); }
  QString model() const { return model_; }

  // false with error() set when no server or model is known yet, or a run is going.
  bool start(const RemoteLoadOptions& options);
  void stop();  // nothing more is sent; streams in flight are canceled
  bool running() const { return running_; }
  int numSent() const { return numSent_; }
  int numFinished() const { return numFinished_; }
  int numPlanned() const { return numPlanned_; }
  QString error() const { return error_; }
  // Run threads still going, of every RemoteLoad (one let go of ends by itself soon).
  static int numRunThreads();

  // The last run that ended, as `bench --endpoint` saves it (its JSON keys); nullopt
  // before one ended.
  const std::optional<remote::RemoteBenchRun>& lastRun() const { return lastRun_; }

  const RunData& run() const override { return run_; }

 signals:
  void runningChanged(bool running);
  void progressed(int numSent, int numFinished, int numPlanned);

 public:
  struct Shared;  // what the run's threads hold

 private:
  void poll();
  void finishRun();
  double now() const;

  remote::ClientOptions client_;
  QString model_;
  std::shared_ptr<const remote::KvEventSubscriber> kvEvents_;
  std::shared_ptr<Shared> active_;  // the run going on, if any
  RequestId idBase_ = 0;            // ids of earlier runs come first
  std::map<RequestId, RequestTimeline> live_;
  RunData run_;
  std::optional<remote::RemoteBenchRun> lastRun_;
  bool running_ = false;
  int numSent_ = 0, numFinished_ = 0, numPlanned_ = 0;
  QString error_;
  std::chrono::steady_clock::time_point t0_;  // the run's times: seconds since setServer
  QTimer timer_;
};

}  // namespace lwb::ui
