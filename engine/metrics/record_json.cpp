#include "engine/metrics/record_json.h"

#include <string>

#include "engine/common/error.h"

namespace lwb {
namespace {

using nlohmann::json;

json optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> optionalFrom(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}

FinishReason finishReasonFrom(const std::string& s) {
  for (auto r : {FinishReason::Stop, FinishReason::Length, FinishReason::Abort, FinishReason::Error,
                 FinishReason::Rejected})
    if (finishReasonName(r) == s) return r;
  return FinishReason::None;
}

// The encoding of saved runs before there was one: a positional array.
StepRecord stepFromArray(const json& j) {
  // 16 since prefix_query_requests (vLLM's recent hit rate); older files have 15.
  check(j.size() == 15 || j.size() == 16,
        "run file: a step saved as an array must have 16 numbers (15 in older files); found " +
            std::to_string(j.size()));
  StepRecord s;
  s.step = j[0];
  s.startTime = j[1];
  s.duration = j[2];
  s.numPrefillTokens = j[3];
  s.numDecodeTokens = j[4];
  s.numScheduledSeqs = j[5];
  s.numRunning = j[6];
  s.numWaiting = j[7];
  s.numBlocksUsed = j[8];
  s.numBlocksCachedFree = j[9];
  s.numBlocksFree = j[10];
  s.prefixQueryTokens = j[11];
  s.prefixHitTokens = j[12];
  s.numPreemptions = j[13];
  s.tokenBudget = j[14];
  if (j.size() == 16) s.prefixQueryRequests = j[15];
  return s;
}

json missedTokensJson(const std::array<int64_t, kNumPrefixMissReasons>& n) {
  json out = json::object();
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    if (n[size_t(i)] > 0) out[std::string(prefixMissReasonName(prefixMissReasonAt(i)))] = n[size_t(i)];
  return out;
}

// {reason: tokens} → counts; names the record, the reason and the value when wrong.
void missedTokensFrom(const json& j, const std::string& where, std::array<int64_t, kNumPrefixMissReasons>& out) {
  check(j.is_object(), where + ": expected an object of reason: tokens, found " + j.dump());
  for (const auto& [name, value] : j.items()) {
    const int i = prefixMissReasonIndex(name);
    check(i >= 0, where + ": unknown reason \"" + name + "\"");
    check(value.is_number_integer() && value.get<int64_t>() >= 0,
          where + "." + name + ": " + value.dump() + "; expected a token count >= 0");
    out[size_t(i)] = value.get<int64_t>();
  }
}

}  // namespace

json missedByReasonJson(const PrefixMiss& m) {
  std::array<int64_t, kNumPrefixMissReasons> n{};
  for (size_t i = 0; i < n.size(); ++i) n[i] = m.numTokens[i];
  return missedTokensJson(n);
}

void addPrefixMissJson(const PrefixMiss& m, json& record, bool details) {
  record[kMissedByReasonKey] = missedByReasonJson(m);
  if (m.divergedAtToken >= 0) record[kDivergedAtTokenKey] = m.divergedAtToken;
  if (!details) return;
  if (m.divergedAtToken >= 0) record["diverged_text"] = {{"ours", m.divergedOurText}, {"theirs", m.divergedTheirText}};
  if (m.evictedTime >= 0) {
    record["evicted_time"] = m.evictedTime;
    record["evicted_by"] = m.evictedBy;
  }
  record["recomputed_after_preemption"] = m.recomputedAfterPreemption;
}

PrefixMiss prefixMissFromJson(const json& record) {
  PrefixMiss m;
  if (!record.contains(kMissedByReasonKey)) return m;  // runs saved before the reasons
  const std::string where = "request record " + record.value("id", json(nullptr)).dump() + ": " + kMissedByReasonKey;
  std::array<int64_t, kNumPrefixMissReasons> n{};
  missedTokensFrom(record[kMissedByReasonKey], where, n);
  for (size_t i = 0; i < n.size(); ++i) m.numTokens[i] = int(n[i]);
  m.accounted = true;
  m.divergedAtToken = record.value(kDivergedAtTokenKey, -1);
  if (record.contains("diverged_text")) {
    m.divergedOurText = record["diverged_text"].value("ours", std::string());
    m.divergedTheirText = record["diverged_text"].value("theirs", std::string());
  }
  m.evictedTime = record.value("evicted_time", -1.0);
  m.evictedBy = record.value("evicted_by", std::vector<int64_t>{});
  m.recomputedAfterPreemption = record.value("recomputed_after_preemption", 0);
  return m;
}

double kvCacheUsage(const StepRecord& s) {
  const int total = s.numBlocksUsed + s.numBlocksCachedFree + s.numBlocksFree;
  return total > 0 ? static_cast<double>(s.numBlocksUsed) / total : 0.0;
}

json specDecodeJson(const SpecDecodeCounts& c, const std::string& prefix) {
  return {{prefix + "num_drafts", c.numDrafts},
          {prefix + "num_draft_tokens", c.numDraftTokens},
          {prefix + "num_accepted_tokens", c.numAcceptedTokens},
          {prefix + "num_accepted_tokens_per_pos", c.numAcceptedTokensPerPos},
          {prefix + "acceptance_rate", c.acceptanceRate()},
          {prefix + "mean_acceptance_length", c.meanAcceptanceLength()}};
}

json timelineToJson(const RequestTimeline& t) {
  json j = {{"id", t.id}, {"priority", t.priority}, {"num_prompt_tokens", t.numPromptTokens},
          {"num_output_tokens", t.numOutputTokens}, {"num_cached_prompt_tokens", t.numCachedPromptTokens},
          {"num_preemptions", t.numPreemptions}, {"arrival_time", t.arrivalTime},
          {"first_scheduled_time", optional(t.firstScheduledTime)}, {"first_token_time", optional(t.firstTokenTime)},
          {"finish_time", optional(t.finishTime)}, {"queue_time", optional(t.queueTime())},
          {"ttft", optional(t.ttft())}, {"tpot", optional(t.tpot())}, {"e2e", optional(t.e2e())},
          {"prefill_time", optional(t.prefillTime())}, {"decode_time", optional(t.decodeTime())},
          {"inference_time", optional(t.inferenceTime())}, {"token_times", t.tokenTimes}, {"preemption_times", t.preemptionTimes},
          {"finish_reason", finishReasonName(t.finishReason)}, {"error", t.error}};
  j.update(specDecodeJson(t.specDecode, "spec_decode_"));
  if (t.prefixMiss.accounted) addPrefixMissJson(t.prefixMiss, j, true);
  j["kv_transfer_bytes"] = t.kvTransferBytes;
  j["kv_transfer_ms"] = t.kvTransferTime ? json(*t.kvTransferTime * 1000.0) : json(nullptr);
  return j;
}

json stepToJson(const StepRecord& s) {
  json j = {{"step", s.step}, {"start_time", s.startTime}, {"duration", s.duration},
          {"num_prefill_tokens", s.numPrefillTokens}, {"num_decode_tokens", s.numDecodeTokens},
          {"num_scheduled_seqs", s.numScheduledSeqs}, {"num_running", s.numRunning}, {"num_waiting", s.numWaiting},
          {"num_blocks_used", s.numBlocksUsed}, {"num_blocks_cached_free", s.numBlocksCachedFree},
          {"num_blocks_free", s.numBlocksFree}, {"kv_cache_usage", kvCacheUsage(s)},
          {"prefix_query_requests", s.prefixQueryRequests}, {"prefix_query_tokens", s.prefixQueryTokens},
          {"prefix_hit_tokens", s.prefixHitTokens},
          {"num_preemptions", s.numPreemptions}, {"token_budget", s.tokenBudget},
          {"num_spec_tokens", s.numSpecTokens}, {"num_accepted_spec_tokens", s.numAcceptedSpecTokens},
          {"num_spec_drafts", s.numSpecDrafts}};
  j["prefix_missed_tokens"] = missedTokensJson(s.prefixMissTokens);
  return j;
}

RequestTimeline timelineFromJson(const json& j) {
  check(j.is_object() && j.contains("id"), "request record: expected an object with an \"id\"");
  RequestTimeline t;
  try {
    t.id = j.at("id").get<RequestId>();
    t.priority = j.value("priority", 0);
    t.numPromptTokens = j.value("num_prompt_tokens", 0);
    t.numOutputTokens = j.value("num_output_tokens", 0);
    t.numCachedPromptTokens = j.value("num_cached_prompt_tokens", 0);
    t.numPreemptions = j.value("num_preemptions", 0);
    t.arrivalTime = j.value("arrival_time", 0.0);
    t.firstScheduledTime = optionalFrom(j, "first_scheduled_time");
    t.firstTokenTime = optionalFrom(j, "first_token_time");
    t.finishTime = optionalFrom(j, "finish_time");
    t.tokenTimes = j.value("token_times", std::vector<double>{});
    t.kvTransferBytes = j.value("kv_transfer_bytes", int64_t(0));
    if (j.contains("kv_transfer_ms") && j.at("kv_transfer_ms").is_number())
      t.kvTransferTime = j.at("kv_transfer_ms").get<double>() / 1000.0;
    t.preemptionTimes = j.value("preemption_times", std::vector<double>{});
    t.finishReason = finishReasonFrom(j.value("finish_reason", std::string()));
    t.error = j.value("error", std::string());
    t.specDecode.numDrafts = j.value("spec_decode_num_drafts", int64_t(0));  // absent before speculation
    t.specDecode.numDraftTokens = j.value("spec_decode_num_draft_tokens", int64_t(0));
    t.specDecode.numAcceptedTokens = j.value("spec_decode_num_accepted_tokens", int64_t(0));
    t.specDecode.numAcceptedTokensPerPos = j.value("spec_decode_num_accepted_tokens_per_pos", std::vector<int64_t>{});
    t.prefixMiss = prefixMissFromJson(j);  // absent before the reasons
  } catch (const json::exception& e) {
    throw Error("request record " + j["id"].dump() + ": malformed field: " + e.what());
  }
  return t;
}

StepRecord stepFromJson(const json& j) {
  if (j.is_array()) return stepFromArray(j);
  check(j.is_object(), "step record: expected an object (or an array of 15 or 16 numbers in older run files)");
  StepRecord s;
  try {
    s.step = j.value("step", int64_t(0));
    s.startTime = j.value("start_time", 0.0);
    s.duration = j.value("duration", 0.0);
    s.numPrefillTokens = j.value("num_prefill_tokens", 0);
    s.numDecodeTokens = j.value("num_decode_tokens", 0);
    s.numScheduledSeqs = j.value("num_scheduled_seqs", 0);
    s.numRunning = j.value("num_running", 0);
    s.numWaiting = j.value("num_waiting", 0);
    s.numBlocksUsed = j.value("num_blocks_used", 0);
    s.numBlocksCachedFree = j.value("num_blocks_cached_free", 0);
    s.numBlocksFree = j.value("num_blocks_free", 0);
    s.prefixQueryRequests = j.value("prefix_query_requests", int64_t(0));
    s.prefixQueryTokens = j.value("prefix_query_tokens", int64_t(0));
    s.prefixHitTokens = j.value("prefix_hit_tokens", int64_t(0));
    s.numPreemptions = j.value("num_preemptions", 0);
    s.tokenBudget = j.value("token_budget", 0);
    s.numSpecTokens = j.value("num_spec_tokens", 0);  // absent before speculation
    s.numAcceptedSpecTokens = j.value("num_accepted_spec_tokens", 0);
    s.numSpecDrafts = j.value("num_spec_drafts", 0);
    if (j.contains("prefix_missed_tokens"))  // absent before the reasons
      missedTokensFrom(j["prefix_missed_tokens"], "step record " + std::to_string(s.step) + ": prefix_missed_tokens",
                       s.prefixMissTokens);
  } catch (const json::exception& e) {
    throw Error("step record " + j.value("step", json(nullptr)).dump() + ": malformed field: " + e.what());
  }
  return s;
}

}  // namespace lwb
