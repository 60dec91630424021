// Exporters on hand-made records: the run JSON (vLLM metric names), CSV shape, the
// Chrome trace's event kinds, names and ordering, and the bench report's keys/values.
#include <QtTest>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/bench/bench_report.h"
#include "engine/common/json.h"
#include "engine/metrics/export.h"
#include "engine/metrics/trace.h"

using namespace lwb;
using nlohmann::json;

namespace {

RequestTimeline finished(RequestId id, double arrival, std::vector<double> tokens, int prompt) {
  RequestTimeline t;
  t.id = id;
  t.arrivalTime = arrival;
  t.firstScheduledTime = arrival + 0.01;
  t.firstTokenTime = tokens.front();
  t.finishTime = tokens.back();
  t.tokenTimes = std::move(tokens);
  t.numOutputTokens = int(t.tokenTimes.size());
  t.numPromptTokens = prompt;
  t.finishReason = FinishReason::Length;
  return t;
}

std::vector<RequestTimeline> timelines() {
  RequestTimeline rejected;
  rejected.id = 3;
  rejected.arrivalTime = 0.2;
  rejected.finishReason = FinishReason::Rejected;
  rejected.error = "prompt of 2000 tokens, exceeds max_model_len, \"1024\"";
  RequestTimeline preempted = finished(2, 0.1, {0.3, 0.35, 0.5}, 16);
  preempted.numPreemptions = 1;
  preempted.preemptionTimes = {0.4};
  return {finished(1, 0.0, {0.1, 0.2, 0.3, 0.4}, 10), preempted, rejected};
}

std::vector<StepRecord> steps() {
  std::vector<StepRecord> out;
  for (int i = 0; i < 5; ++i) {
    StepRecord s;
    s.step = i;
    s.startTime = 0.01 + 0.1 * i;
    s.duration = 0.05;
    s.numPrefillTokens = i == 0 ? 26 : 0;
    s.numDecodeTokens = i == 0 ? 0 : 2;
    s.numRunning = 2;
    s.numBlocksUsed = 2 + i;
    s.numBlocksCachedFree = 1;
    s.numBlocksFree = 7 - i;
    s.prefixQueryTokens = i == 0 ? 32 : 0;
    s.prefixHitTokens = i == 0 ? 16 : 0;
    s.numPreemptions = i == 3 ? 1 : 0;
    out.push_back(s);
  }
  return out;
}

int countLines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// Rows as column name -> field; row 0 maps each name to itself. Fields must not be quoted
// (the rows the spec tests read have no error text).
std::vector<std::map<std::string, std::string>> csvTable(const std::string& csv) {
  auto split = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  size_t start = 0;
  while (start < csv.size()) {
    const size_t end = csv.find('\n', start);
    const auto fields = split(csv.substr(start, end - start));
    if (header.empty()) header = fields;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
    start = end + 1;
  }
  return rows;
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT

 private slots:
  void runJsonHasDocumentedKeys() {
    const json j = lwb::parseJson(runToJson(timelines(), steps()).dump());
    QCOMPARE(j["requests"].size(), size_t(3));
    QCOMPARE(j["steps"].size(), size_t(5));
    for (const char* key : {"id", "num_prompt_tokens", "num_output_tokens", "arrival_time", "queue_time", "ttft",
                            "tpot", "e2e", "prefill_time", "decode_time", "token_times", "finish_reason"})
      QVERIFY2(j["requests"][0].contains(key), key);
    QCOMPARE(j["requests"][0]["ttft"].get<double>(), 0.1);
    QVERIFY(j["requests"][2]["ttft"].is_null());
    QCOMPARE(j["requests"][2]["finish_reason"].get<std::string>(), std::string("rejected"));
    const json& m = j["metrics"];
    for (const char* key : {"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
                            "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
                            "vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries", "vllm:prefix_cache_hits",
                            "vllm:num_preemptions", "vllm:prompt_tokens", "vllm:generation_tokens"})
      QVERIFY2(m.contains(key), key);
    QCOMPARE(m["vllm:prefix_cache_queries"].get<int>(), 32);
    QCOMPARE(m["vllm:prefix_cache_hits"].get<int>(), 16);
    QCOMPARE(m["vllm:num_preemptions"].get<int>(), 1);
    QCOMPARE(m["vllm:generation_tokens"].get<int>(), 7);
    QCOMPARE(m["vllm:time_to_first_token_seconds"]["count"].get<int>(), 2);  // the rejected one has none
    QCOMPARE(m["vllm:inter_token_latency_seconds"]["count"].get<int>(), 5);  // 3 + 2 gaps
    QCOMPARE(m["vllm:inter_token_latency_seconds"]["buckets"]["+Inf"].get<int>(), 5);
    QCOMPARE(m["vllm:kv_cache_usage_perc"].get<double>(), 6.0 / 10.0);  // last step: 6 of 10 blocks
    // vLLM's request_success by finished_reason; the rejected request never ran, so it
    // has no latency samples; prompt tokens count at the first token (10 + 16).
    QCOMPARE(m["vllm:request_success"]["length"].get<int>(), 2);
    QCOMPARE(m["vllm:request_success"]["rejected"].get<int>(), 1);
    QCOMPARE(m["vllm:e2e_request_latency_seconds"]["count"].get<int>(), 2);
    QCOMPARE(m["vllm:prompt_tokens"].get<int>(), 26);
  }

  // Every finished request is recorded, aborted ones included (vLLM's
  // FinishedRequestStats): its e2e and a TPOT of 0 for at most one token.
  void abortedRequestsAreRecorded() {
    RequestTimeline aborted;
    aborted.id = 9;
    aborted.arrivalTime = 1.0;
    aborted.finishTime = 1.5;
    aborted.finishReason = FinishReason::Abort;
    const json m = runToJson({aborted}, {})["metrics"];
    QCOMPARE(m["vllm:e2e_request_latency_seconds"]["count"].get<int>(), 1);
    QCOMPARE(m["vllm:request_time_per_output_token_seconds"]["count"].get<int>(), 1);
    QCOMPARE(m["vllm:time_to_first_token_seconds"]["count"].get<int>(), 0);
    QCOMPARE(m["vllm:request_success"]["abort"].get<int>(), 1);
    QCOMPARE(m["vllm:prompt_tokens"].get<int>(), 0);
  }

  void kvUsageCountsCachedBlocksAsFree() {
    StepRecord s;
    QCOMPARE(kvCacheUsage(s), 0.0);
    s.numBlocksUsed = 3;
    s.numBlocksCachedFree = 5;
    s.numBlocksFree = 2;
    QCOMPARE(kvCacheUsage(s), 0.3);
  }

  void csvHeaderAndRows() {
    const std::string r = requestsCsv(timelines());
    QCOMPARE(countLines(r), 1 + 3);
    QVERIFY(r.rfind("id,priority,num_prompt_tokens,num_output_tokens,", 0) == 0);
    QVERIFY(r.find("\"prompt of 2000 tokens, exceeds max_model_len, \"\"1024\"\"\"") != std::string::npos);
    const std::string s = stepsCsv(steps());
    QCOMPARE(countLines(s), 1 + 5);
    QVERIFY(s.rfind("step,start_time,duration,num_prefill_tokens,num_decode_tokens,", 0) == 0);
    // Every row has as many fields as the header (no quoted commas in step rows).
    const size_t headerFields = std::count(s.begin(), s.begin() + s.find('\n'), ',');
    size_t start = s.find('\n') + 1;
    while (start < s.size()) {
      const size_t end = s.find('\n', start);
      QCOMPARE(size_t(std::count(s.begin() + start, s.begin() + end, ',')), headerFields);
      start = end + 1;
    }
    QCOMPARE(countLines(requestsCsv({})), 1);
  }

  // The spec_decode_* scalars under the JSON's names, per request; draft tokens verified,
  // accepted and verifications per step. Requests without speculation carry zeros.
  void csvCarriesSpecDecodeColumns() {
    std::vector<RequestTimeline> t = timelines();
    t[0].specDecode.observe(4, 3);
    t[0].specDecode.observe(4, 0);  // 2 drafts, 8 draft tokens, 3 accepted
    const auto requests = csvTable(requestsCsv(t));
    QCOMPARE(requests.size(), size_t(1 + 3));
    QCOMPARE(requests[1].at("spec_decode_num_drafts"), std::string("2"));
    QCOMPARE(requests[1].at("spec_decode_num_draft_tokens"), std::string("8"));
    QCOMPARE(requests[1].at("spec_decode_num_accepted_tokens"), std::string("3"));
    QCOMPARE(std::stod(requests[1].at("spec_decode_acceptance_rate")), 0.375);
    QCOMPARE(std::stod(requests[1].at("spec_decode_mean_acceptance_length")), 2.5);
    QCOMPARE(requests[2].at("spec_decode_num_drafts"), std::string("0"));
    QVERIFY(!requests[0].count("spec_decode_num_accepted_tokens_per_pos"));  // a list: JSON only

    std::vector<StepRecord> st = steps();
    st[2].numSpecTokens = 6;
    st[2].numAcceptedSpecTokens = 4;
    st[2].numSpecDrafts = 2;
    const auto rows = csvTable(stepsCsv(st));
    QCOMPARE(rows[3].at("num_spec_tokens"), std::string("6"));
    QCOMPARE(rows[3].at("num_accepted_spec_tokens"), std::string("4"));
    QCOMPARE(rows[3].at("num_spec_drafts"), std::string("2"));
    QCOMPARE(rows[1].at("num_spec_drafts"), std::string("0"));
  }

  void chromeTraceEvents() {
    const json j = lwb::parseJson(chromeTrace(timelines(), steps()).dump());
    QVERIFY(j.contains("traceEvents"));
    std::map<std::string, int> spans, counters;
    int instants = 0;
    double lastTs = -1;
    bool seenNonMeta = false;
    for (const auto& e : j["traceEvents"]) {
      const std::string ph = e["ph"], name = e["name"];
      if (ph == "M") {
        QVERIFY2(!seenNonMeta, "metadata events come first");
        continue;
      }
      seenNonMeta = true;
      const double ts = e["ts"];
      QVERIFY2(ts >= lastTs, qPrintable(QString("ts %1 after %2").arg(ts).arg(lastTs)));
      lastTs = ts;
      QVERIFY(e.contains("pid") && e.contains("tid"));
      if (ph == "X") {
        ++spans[name];
        QVERIFY(e["dur"].get<double>() >= 0);
      } else if (ph == "C") {
        ++counters[name];
        QVERIFY(!e["args"].empty());
      } else if (ph == "i") {
        ++instants;
      }
    }
    QCOMPARE(spans["step"], 5);
    QCOMPARE(spans["request"], 3);
    QCOMPARE(spans["queued"], 2);
    QCOMPARE(spans["prefill"], 2);
    QCOMPARE(spans["decode"], 2);
    QCOMPARE(counters["kv_cache_usage_perc"], 5);
    QCOMPARE(counters["num_requests"], 5);
    QCOMPARE(counters["batch_tokens"], 5);
    QCOMPARE(instants, 1);  // one preemption
  }

  // Microseconds: request 1's decode span starts at its first token (0.1 s).
  void chromeTraceUnits() {
    const json j = chromeTrace(timelines(), steps());
    bool found = false;
    for (const auto& e : j["traceEvents"])
      if (e["name"] == "decode" && e["tid"] == 2) {
        QCOMPARE(e["ts"].get<double>(), 1e5);
        QCOMPARE(e["dur"].get<double>(), 3e5);
        found = true;
      }
    QVERIFY(found);
  }

  void benchReportNumbers() {
    std::vector<BenchRequestRecord> records;
    for (const auto& t : timelines()) records.push_back({t, std::vector<int>(size_t(t.numOutputTokens), 42)});
    const BenchReport r = makeBenchReport(records, steps(), 2.0);
    QCOMPARE(r.completed, 2);
    QCOMPARE(r.numFailed, 1);
    QCOMPARE(r.totalInputTokens, int64_t(26));
    QCOMPARE(r.totalOutputTokens, int64_t(7));
    QCOMPARE(r.requestThroughput, 1.0);
    QCOMPARE(r.outputThroughput, 3.5);
    QCOMPARE(r.totalTokenThroughput, 16.5);
    QCOMPARE(r.ttftMs.mean, 150.0);     // (100 + 200) / 2
    QCOMPARE(r.e2elMs.median, 400.0);   // 400 and 400
    QCOMPARE(r.prefixCacheHitRate, 0.5);
    QCOMPARE(r.numPreemptions, int64_t(1));
    QCOMPARE(r.maxKvCacheUsage, 0.6);
    const BenchReport none = makeBenchReport({}, {}, 0.0);
    QCOMPARE(none.prefixCacheHitRate, 0.0);
    QCOMPARE(none.requestThroughput, 0.0);
  }

  void benchReportJsonAndText() {
    std::vector<BenchRequestRecord> records;
    for (const auto& t : timelines()) records.push_back({t, std::vector<int>(size_t(t.numOutputTokens), 42)});
    const BenchReport r = makeBenchReport(records, steps(), 2.0);
    const json j = lwb::parseJson(benchReportJson(r).dump());
    for (const char* key : {"completed", "duration", "total_input_tokens", "total_output_tokens",
                            "request_throughput", "output_throughput", "total_token_throughput", "mean_ttft_ms",
                            "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
                            "mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms",
                            "p99_e2el_ms", "prefix_cache_hit_rate", "num_preemptions", "max_kv_cache_usage",
                            "config", "requests"})
      QVERIFY2(j.contains(key), key);
    QCOMPARE(j["requests"].size(), size_t(3));
    QCOMPARE(j["requests"][0]["output_len"].get<int>(), 4);
    QCOMPARE(j["requests"][0]["prompt_len"].get<int>(), 10);
    QCOMPARE(j["requests"][0]["output_token_ids"].size(), size_t(4));
    QCOMPARE(j["requests"][0]["ttft_ms"].get<double>(), 100.0);
    const std::string text = formatBenchSummary(r);
    for (const char* s : {"Serving Benchmark Result", "Successful requests:", "Benchmark duration (s):",
                          "Mean TTFT (ms):", "P99 ITL (ms):", "Prefix cache hit rate:", "Preemptions:",
                          "Max KV cache usage:"})
      QVERIFY2(text.find(s) != std::string::npos, s);
  }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
