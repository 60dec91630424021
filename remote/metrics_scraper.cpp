#include "remote/metrics_scraper.h"

#include <algorithm>

#include "engine/common/error.h"
#include "remote/server_config.h"

namespace lwb::remote {
namespace {

ClientOptions scrapeOptions(ClientOptions o) {
  // A slow /metrics must not hold the run's end: short timeouts.
  o.connectTimeoutSeconds = std::min(o.connectTimeoutSeconds, 2.0);
  o.readTimeoutSeconds = std::min(o.readTimeoutSeconds, 5.0);
  return o;
}

}  // namespace

MetricsScraper::MetricsScraper(const ClientOptions& client, double intervalSeconds, OpenAiClient::Clock now)
    : client_(scrapeOptions(client)), interval_(std::max(intervalSeconds, 0.05)), now_(std::move(now)) {}

MetricsScraper::~MetricsScraper() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MetricsScraper::scrapeOnce() {
  std::string why;
  const double t = now_();
  std::optional<RemoteServerState> state;
  if (auto text = client_.fetchMetrics(&why)) {
    try {
      state = readServerState(parsePrometheusText(*text, client_.endpoint().url() + "/metrics"));
    } catch (const Error& e) {
      why = e.what();
    }
  }
  std::optional<double> slots;
  if (state && state->kind == ServerKind::LlamaCpp) slots = scrapeSlots();
  std::lock_guard lock(mu_);
  ++obs_.numScrapes;
  if (!state) {
    ++obs_.numScrapeErrors;
    obs_.lastScrapeError = why;
    return;
  }
  obs_.kind = state->kind;
  if (!obs_.before) obs_.before = state;
  obs_.after = state;
  obs_.series.push_back({t, state->numRunning, state->numWaiting, state->kvCacheUsage, slots});
  if (state->kvCacheUsage) obs_.maxKvCacheUsage = std::max(obs_.maxKvCacheUsage.value_or(0), *state->kvCacheUsage);
}

std::optional<double> MetricsScraper::scrapeSlots() {
  if (slotsUnavailable_) return std::nullopt;
  std::string why;
  try {
    if (auto j = client_.getJson("/slots", &why)) {
      const auto slots = readLlamaCppSlots(*j);
      return double(std::count_if(slots.begin(), slots.end(), [](const LlamaCppSlot& s) { return s.isProcessing; }));
    }
  } catch (const Error& e) {
    why = client_.endpoint().url() + e.what();
  }
  slotsUnavailable_ = true;  // disabled (llama.cpp answers 501 without --slots) or malformed
  std::lock_guard lock(mu_);
  obs_.slotsError = why;
  return std::nullopt;
}

void MetricsScraper::scrapeSettled() {
  auto counters = [this] {
    std::lock_guard lock(mu_);
    if (!obs_.after) return std::optional<std::pair<double, double>>();
    return std::optional(std::pair(obs_.after->generationTokens.value_or(-1), obs_.after->numRequestsFinished.value_or(-1)));
  };
  scrapeOnce();
  for (int i = 0; i < 20; ++i) {
    const auto before = counters();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    scrapeOnce();
    if (!before || counters() == before) return;
  }
}

void MetricsScraper::markBaseline() {
  std::lock_guard lock(mu_);
  obs_.before = obs_.after;
}

void MetricsScraper::start() {
  std::lock_guard lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
}

void MetricsScraper::loop() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, std::chrono::duration<double>(interval_), [this] { return stopping_; })) {
    lock.unlock();
    scrapeOnce();
    lock.lock();
  }
}

void MetricsScraper::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  scrapeSettled();
}

ServerObservation MetricsScraper::observation() const {
  std::lock_guard lock(mu_);
  return obs_;
}

}  // namespace lwb::remote
