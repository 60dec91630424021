#include "remote/remote_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "engine/common/error.h"

namespace lwb::remote {
namespace {

using Clock = std::chrono::steady_clock;

FinishReason finishReasonFrom(const StreamResult& s) {
  if (s.finishReason == "abort" || s.error == "canceled") return FinishReason::Abort;
  if (!s.error.empty()) return FinishReason::Error;
  if (s.finishReason == "length") return FinishReason::Length;
  return FinishReason::Stop;  // "stop", a tool call or none given before [DONE]
}

void warmUp(OpenAiClient& client, const SyntheticRequest& sample, const std::string& model,
            const OpenAiClient::Clock& now) {
  // Its own short prompt, as the local bench's warm-up: it seeds no prefix the workload uses.
  SyntheticRequest r = sample;
  r.promptTokenIds.assign(8, sample.promptTokenIds.back());
  r.promptTokenIds.front() = sample.promptTokenIds.front();  // BOS
  r.sampling.maxTokens = 2;
  r.sampling.ignoreEos = false;
  const StreamResult s = client.streamCompletion(completionBody(r, model), now);
  if (!s.error.empty()) throw Error("the initial test request failed: " + s.error);
}

// Sleeps until `target` on the run's clock, in short slices so that a cancel is heard.
// False when canceled.
bool waitUntil(double target, const OpenAiClient::Clock& now, const std::atomic<bool>* cancel) {
  for (double left = target - now(); left > 0; left = target - now()) {
    if (cancel && *cancel) return false;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.05)));
  }
  return !(cancel && *cancel);
}

int numStreams(const RemoteBenchOptions& o, size_t numRequests) {
  const int cap = o.maxConcurrency > 0 ? o.maxConcurrency : kMaxStreams;
  return std::max(1, std::min(cap, static_cast<int>(numRequests)));
}

}  // namespace

nlohmann::json completionBody(const SyntheticRequest& request, const std::string& model) {
  nlohmann::json body = {{"model", model},
                         {"prompt", request.promptTokenIds},
                         {"max_tokens", request.sampling.maxTokens},
                         {"temperature", request.sampling.temperature},
                         {"ignore_eos", request.sampling.ignoreEos}};
  if (request.sampling.seed && request.sampling.temperature > 0) body["seed"] = *request.sampling.seed;
  return body;
}

BenchRequestRecord toRequestRecord(const StreamResult& s, int numPromptTokens, RequestId id) {
  BenchRequestRecord rec;
  RequestTimeline& t = rec.timeline;
  t.id = id;
  t.arrivalTime = s.sendTime;
  t.numPromptTokens = s.promptTokens.value_or(numPromptTokens);
  t.numCachedPromptTokens = s.cachedTokens.value_or(0);
  t.tokenTimes = s.chunkTimes;
  t.numOutputTokens = s.completionTokens.value_or(static_cast<int>(s.chunkTimes.size()));
  if (!s.chunkTimes.empty()) t.firstTokenTime = s.chunkTimes.front();
  t.finishTime = s.endTime;
  t.finishReason = finishReasonFrom(s);
  t.error = s.error;
  if (t.finishReason == FinishReason::Abort && t.error.empty()) t.error = "the server aborted the request";
  return rec;
}

RemoteBenchRun runRemoteBenchmark(const RemoteBenchOptions& o, const std::vector<SyntheticRequest>& workload,
                                  const BenchProgress& progress, const RemoteBenchHooks& hooks) {
  const Clock::time_point t0 = Clock::now();
  const OpenAiClient::Clock now =
      o.clock ? o.clock : [t0] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  RemoteBenchRun run;
  {
    OpenAiClient client(o.client);
    if (o.warmUp && !workload.empty()) warmUp(client, workload.front(), o.model, now);
    run.serverConfig = fetchServerConfig(client);
  }
  MetricsScraper scraper(o.client, o.scrapeIntervalSeconds, now);
  scraper.scrapeSettled();  // the baseline the counters' deltas start from, warm-up counted
  scraper.markBaseline();
  scraper.start();

  const double start = now();
  const int total = static_cast<int>(workload.size());
  std::vector<BenchRequestRecord> records(workload.size());
  std::vector<char> sent(workload.size(), 0);  // [request]: 1 once its stream began
  std::vector<RemotePrefixMiss> explained(workload.size());
  std::atomic<int> next{0};
  std::mutex progressMu;
  int numFinished = 0;
  auto worker = [&] {
    OpenAiClient client(o.client);
    for (int i = next++; i < total; i = next++) {
      if (!waitUntil(start + workload[i].arrivalTime, now, hooks.cancel)) return;
      sent[i] = 1;
      if (hooks.onSent) hooks.onSent(i, now());
      std::optional<RemotePromptLookup> atSend;
      if (o.kvEvents) atSend = o.kvEvents->lookupPrompt(workload[i].promptTokenIds);
      const StreamResult s = client.streamCompletion(completionBody(workload[i], o.model), now, hooks.cancel);
      records[i] = toRequestRecord(s, static_cast<int>(workload[i].promptTokenIds.size()), i);
      if (atSend) explained[i] = explainRemoteMiss(*atSend, s.cachedTokens);
      if (explained[i].known) records[i].timeline.prefixMiss = explained[i].miss;
      if (hooks.onFinished) hooks.onFinished(i, records[i]);
      std::lock_guard lock(progressMu);
      ++numFinished;
      if (progress) progress(numFinished, total);
    }
  };
  std::vector<std::thread> threads;
  for (int k = numStreams(o, workload.size()); k > 0; --k) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const double duration = now() - start;

  scraper.stop();
  std::vector<BenchRequestRecord> kept;  // all of them unless canceled
  for (size_t i = 0; i < records.size(); ++i) {
    if (!sent[i]) continue;
    kept.push_back(std::move(records[i]));
    if (!o.kvEvents) continue;
    run.numPrefixUnexplained += explained[i].known ? 0 : 1;
    run.prefixHeldWhenSentTokens += explained[i].heldWhenSent;
  }
  run.report = makeBenchReport(std::move(kept), {}, duration);
  run.prefixMissExplained = o.kvEvents != nullptr;
  for (const BenchRequestRecord& r : run.report.requests)
    for (size_t k = 0; k < r.timeline.prefixMiss.numTokens.size(); ++k)
      run.report.prefixMissTokens[k] += r.timeline.prefixMiss.numTokens[k];
  run.server = scraper.observation();
  return run;
}

}  // namespace lwb::remote
