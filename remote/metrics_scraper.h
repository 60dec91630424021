#pragma once
// Scrapes a server's /metrics about once a second on its own thread while a remote
// bench runs: the state before and after the run (for counter deltas), the series of
// running / waiting / KV usage, and the highest KV usage seen. A scrape that fails or
// does not parse is counted and named, never fatal.
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "remote/openai_client.h"
#include "remote/remote_metrics.h"

namespace lwb::remote {

struct ServerSample {
  double time = 0;  // seconds on the run's clock
  std::optional<double> numRunning, numWaiting, kvCacheUsage;
  std::optional<double> numSlotsProcessing;  // llama.cpp's /slots, where enabled
};

struct ServerObservation {
  ServerKind kind = ServerKind::Unknown;
  std::optional<RemoteServerState> before, after;  // first and last good scrape
  std::vector<ServerSample> series;
  std::optional<double> maxKvCacheUsage;
  int numScrapes = 0, numScrapeErrors = 0;
  std::string lastScrapeError;  // "" = none; e.g. "GET .../metrics: HTTP 404"
  std::string slotsError;       // llama.cpp without --slots: why /slots is not read
};

class MetricsScraper {
 public:
  // `now` is the run's clock; the scraper owns its own client.
  MetricsScraper(const ClientOptions& client, double intervalSeconds, OpenAiClient::Clock now);
  ~MetricsScraper();  // stop()

  void scrapeOnce();  // on the caller's thread (the baseline before a run)
  // Scrapes until the token and request counters hold still (a server may count a
  // finished request a moment after its stream ended), at most about a second.
  void scrapeSettled();
  void markBaseline();  // the latest good scrape becomes `before`
  void start();       // scrapes every interval until stop()
  void stop();        // joins the thread; then scrapeSettled() (the final state)
  ServerObservation observation() const;

 private:
  void loop();
  std::optional<double> scrapeSlots();  // llama.cpp: busy slots; nullopt once /slots fails

  OpenAiClient client_;
  double interval_;
  OpenAiClient::Clock now_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
  ServerObservation obs_;
  bool slotsUnavailable_ = false;  // asked once, refused: not asked again
};

}  // namespace lwb::remote
