#include "lessons/lessons.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/bench/bench_runner.h"
#include "engine/bench/goodput.h"
#include "engine/common/error.h"
#include "engine/config/config_json.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/kv/prefix_miss.h"
#include "engine/metrics/stats.h"
#include "engine/model/model.h"

namespace lwb {

namespace {

// Numbers as a finding writes them: 3 significant digits, at most one decimal for large ones.
std::string num(double v) {
  char b[32];
  const double a = std::abs(v);
  if (v == std::round(v) && a < 1e15) {  // a count: no decimals
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
  }
  std::snprintf(b, sizeof b, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
  return b;
}

// A ratio keeps its decimals even when whole ("8.00x"): it reads as a ratio, not a count.
std::string times(double a, double b) {
  if (b <= 0) return "n/a";
  const double r = a / b;
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 1 ? "%.3fx" : r < 10 ? "%.2fx" : r < 100 ? "%.1fx" : "%.0fx", r);
  return buf;
}
std::string knobName(std::string_view k) { return std::string(k); }
int scaled(int full, double scale, int least) { return std::max(least, int(std::lround(full * scale))); }

// "rose from 12.1 to 30.4 ms (2.51x)" / "fell from ..." / "stayed at ...".
std::string change(double from, double to, const std::string& unit, double sameWithin = 0.05) {
  if (from > 0 && std::abs(to / from - 1) <= sameWithin) return "stayed at about " + num(from) + unit;
  return std::string(to > from ? "rose" : "fell") + " from " + num(from) + unit + " to " + num(to) + unit + " (" +
         times(to, from) + ")";
}

WorkloadOptions workload(int prompts, int input, int output, double rate, uint64_t seed) {
  WorkloadOptions w;
  w.numPrompts = prompts;
  w.inputLen = input;
  w.outputLen = output;
  w.requestRate = rate;
  w.ignoreEos = true;
  w.seed = seed;
  return w;
}

// ---- 1. prefill is compute-bound, decode memory-bound ----
std::string prefillDecodeFinding(const std::vector<LessonRun>& runs) {
  std::vector<double> decodeMs, decodeTokens, prefillUsPerToken, prefillTokens;
  for (const StepRecord& s : runs.at(0).steps) {
    const int tokens = s.numPrefillTokens + s.numDecodeTokens;
    if (s.numPrefillTokens == 0 && s.numDecodeTokens > 0) {
      decodeMs.push_back(s.duration * 1e3);
      decodeTokens.push_back(s.numDecodeTokens);
    } else if (s.numPrefillTokens >= 128) {
      prefillUsPerToken.push_back(s.duration * 1e6 / tokens);
      prefillTokens.push_back(tokens);
    }
  }
  if (decodeMs.empty() || prefillUsPerToken.empty())
    return "The run had no pure decode step or no large prefill step to compare; run the lesson at full size.";
  const double dMs = summarize(decodeMs).median, dTokens = summarize(decodeTokens).median;
  const double dUs = dMs * 1e3 / dTokens, pUs = summarize(prefillUsPerToken).median;
  const double pTokens = summarize(prefillTokens).median;
  const std::string facts = "A decode step of " + num(dTokens) + " tokens took " + num(dMs) + " ms (" + num(dUs) +
                            " us per token); a prefill step of " + num(pTokens) + " tokens took " + num(pUs) +
                            " us per token.";
  if (dUs > 1.5 * pUs)
    return facts + " Per token, prefill was " + times(dUs, pUs) +
           " cheaper: a decode step reads all the weights (and its KV) once however few tokens it computes, so "
           "its time is set by memory bandwidth; a prefill step spreads that read over hundreds of tokens and "
           "keeps the compute units busy. Batching decodes is how an engine recovers the difference. See Batch "
           "composition: the step duration against the tokens each step computed.";
  return facts + " Per token the two cost about the same (" + times(dUs, pUs) +
         "), so the expected gap did not appear here: on this device even a decode step is bound by compute (the "
         "weights fit in the caches, or the batch is already large). See Batch composition.";
}

// ---- 2. the KV cache and memory ----
std::string kvCacheFinding(const std::vector<LessonRun>& runs) {
  const LessonRun &big = runs.at(0), &small = runs.at(1);
  const BenchReport &a = big.report, &b = small.report;
  std::string s = "With " + std::to_string(small.numKvBlocks) + " KV blocks (" +
                  std::to_string(small.numKvBlocks * small.blockSize) + " tokens) instead of " +
                  std::to_string(big.numKvBlocks) + ", the engine preempted " + std::to_string(b.numPreemptions) +
                  " times (" + std::to_string(a.numPreemptions) + " with the larger pool), median TTFT " +
                  change(a.ttftMs.median, b.ttftMs.median, " ms") + " and output throughput " +
                  change(a.outputThroughput, b.outputThroughput, " tok/s") + ".";
  if (b.numPreemptions > a.numPreemptions || b.ttftMs.median > 1.2 * a.ttftMs.median)
    return s + " A pool that cannot hold the whole running batch turns load into queueing (requests wait for "
               "blocks) and preemption (a running request gives its blocks back and recomputes later). See the KV "
               "block map (red: preempted) and Batch composition (waiting).";
  return s + " The small pool still held the batch, so the expected queueing and preemption did not happen here; "
             "a heavier load or a smaller pool would show it.";
}

// ---- 3. continuous batching ----
std::string batchingFinding(const std::vector<LessonRun>& runs) {
  const BenchReport &one = runs.front().report, &many = runs.back().report;
  const double speed1 = one.tpotMs.median > 0 ? 1000 / one.tpotMs.median : 0;
  const double speedN = many.tpotMs.median > 0 ? 1000 / many.tpotMs.median : 0;
  std::string s = "From " + runs.front().setting.label + " to " + runs.back().setting.label +
                  ", total output throughput " + change(one.outputThroughput, many.outputThroughput, " tok/s") +
                  ", while one request's decode speed " + change(speed1, speedN, " tok/s") + ".";
  if (many.outputThroughput > 1.3 * one.outputThroughput)
    return s + " A decode step costs about the same for one request as for several (it reads the weights once), "
               "so batching multiplies the engine's throughput without making any single request faster. See "
               "Batch composition (decode tokens per step) and Latency (ITL).";
  return s + " Throughput did not rise with the batch in this run, so the expected effect did not happen: each "
             "step's cost grew with its batch, as on a device already bound by compute (or a busy machine).";
}

// ---- 4. chunked prefill and max_num_batched_tokens ----
std::string chunkedPrefillFinding(const std::vector<LessonRun>& runs) {
  const BenchReport &big = runs.at(0).report, &small = runs.at(1).report;
  std::string s = "With " + runs.at(1).setting.label + " instead of " + runs.at(0).setting.label +
                  ", p99 inter-token latency " + change(big.itlMs.p99, small.itlMs.p99, " ms") +
                  " and median TTFT " + change(big.ttftMs.median, small.ttftMs.median, " ms") + ".";
  if (small.itlMs.p99 < 0.8 * big.itlMs.p99)
    return s + " A smaller token budget cuts each long prompt into chunks, so the running requests' decode steps "
               "no longer wait behind a whole prompt (lower ITL spikes), and each prompt takes more steps to "
               "finish (higher TTFT): the budget is a dial between the two. See Batch composition (prefill chunks "
               "against the budget line) and Latency (ITL).";
  return s + " The ITL spikes did not shrink in this run, so the expected effect did not appear: either a whole "
             "prompt's prefill costs little next to a decode step on this device, or other work on the machine "
             "hid it (run the lesson again, or at full size, to tell which).";
}

// ---- 5. prefix caching ----
std::string prefixCachingFinding(const std::vector<LessonRun>& runs) {
  const BenchReport &on = runs.at(0).report, &off = runs.at(1).report;
  std::string s = "With prefix caching on, " + num(on.prefixCacheHitRate * 100) +
                  " % of the prompt tokens came from the cache, and median TTFT was " + num(on.ttftMs.median) +
                  " ms against " + num(off.ttftMs.median) + " ms with it off (" +
                  times(off.ttftMs.median, on.ttftMs.median) + ").";
  std::vector<std::pair<int64_t, std::string>> misses;
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    if (const int64_t n = on.prefixMissTokens[size_t(i)]; n > 0)
      misses.push_back({n, std::string(prefixMissReasonName(prefixMissReasonAt(i)))});
  std::sort(misses.rbegin(), misses.rend());
  if (!misses.empty()) {
    s += " The tokens it computed anyway missed for these reasons: ";
    for (size_t i = 0; i < misses.size(); ++i)
      s += (i ? ", " : "") + std::to_string(misses[i].first) + " " + misses[i].second;
    s += ".";
  }
  if (on.prefixCacheHitRate > 0.2 && on.ttftMs.median < 0.9 * off.ttftMs.median)
    return s + " A shared system prompt is computed once and its KV blocks reused by every request that starts "
               "with it: the prefill of a hit costs nothing. See Prefix cache (hit rate and misses by reason).";
  return s + " The cache did not shorten TTFT here, so the expected effect did not happen; the reasons above say "
             "why the prefix was not reused.";
}

// ---- 8. goodput under an SLO ----
std::string goodputFinding(const std::vector<LessonRun>& runs) {
  if (runs.empty() || !runs.front().report.goodput) return "No SLO was set; goodput needs one.";
  std::string s = "Under the SLO " + runs.front().report.goodput->describe() + " (ms), goodput was ";
  size_t best = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const BenchReport& r = runs[i].report;
    s += (i ? ", " : "") + num(r.requestGoodput) + " req/s at " + runs[i].setting.label + " (" +
         num(r.requestGoodputFraction * 100) + " % of requests met it)";
    if (r.requestGoodput > runs[best].report.requestGoodput) best = i;
  }
  s += ". The most requests per second that met it: " + num(runs[best].report.requestGoodput) + " at " +
       runs[best].setting.label + ".";
  const BenchReport& last = runs.back().report;
  if (best + 1 < runs.size() && last.requestGoodput < runs[best].report.requestGoodput)
    return s + " Past that load, throughput keeps rising or stays flat but fewer requests meet the SLO: queueing "
               "pushes TTFT over it. Capacity is the load where goodput peaks, not where throughput does. See "
               "Latency (TTFT against time).";
  return s + " Goodput still rose at the highest load tried, so this engine's capacity under the SLO lies beyond "
             "it.";
}

std::vector<Lesson> makeLessons() {
  std::vector<Lesson> v;
  v.push_back({"prefill-decode", "Why is a decode step as slow as a prefill step of many tokens?",
               [](const EngineConfig& base, double scale) {
                 return std::vector<LessonSetting>{
                     {"mixed load", base, workload(scaled(24, scale, 4), 512, scaled(64, scale, 8), INFINITY, 1), ""}};
               },
               prefillDecodeFinding});
  v.push_back({"kv-cache", "What happens when the KV cache cannot hold the running batch?",
               [](const EngineConfig& base, double scale) {
                 const WorkloadOptions w = workload(scaled(48, scale, 6), 256, scaled(128, scale, 16), INFINITY, 2);
                 EngineConfig small = base;
                 // Two whole requests and a third's prompt: the third is admitted, and the
                 // decodes' growth then preempts.
                 small.numGpuBlocksOverride =
                     (2 * (w.inputLen + 1 + w.outputLen) + w.inputLen + 1 + base.blockSize - 1) / base.blockSize;
                 return std::vector<LessonSetting>{
                     {"KV pool as configured", base, w, ""},
                     {knobName(knob::kNumGpuBlocksOverride) + " " + std::to_string(small.numGpuBlocksOverride), small,
                      w, ""}};
               },
               kvCacheFinding});
  v.push_back({"batching", "Does a bigger batch make the engine faster, or each request?",
               [](const EngineConfig& base, double scale) {
                 const WorkloadOptions w = workload(scaled(32, scale, 8), 64, scaled(128, scale, 16), INFINITY, 3);
                 std::vector<LessonSetting> out;
                 for (int seqs : {1, 4, 16}) {
                   EngineConfig c = base;
                   c.maxNumSeqs = seqs;
                   out.push_back({knobName(knob::kMaxNumSeqs) + " " + std::to_string(seqs), c, w, ""});
                 }
                 return out;
               },
               batchingFinding});
  v.push_back({"chunked-prefill", "What does " + knobName(knob::kMaxNumBatchedTokens) + " trade between TTFT and ITL?",
               [](const EngineConfig& base, double scale) {
                 WorkloadOptions w = workload(scaled(12, scale, 3), 800, 16, 4, 4);
                 w.numBackgroundRequests = 4;
                 w.backgroundOutputLen = scaled(300, scale, 60);
                 EngineConfig big = base, small = base;
                 big.enableChunkedPrefill = small.enableChunkedPrefill = true;
                 big.maxNumBatchedTokens = 2048;
                 small.maxNumBatchedTokens = 128;
                 big.maxNumSeqs = small.maxNumSeqs = 64;  // <= the small budget; more than the load runs
                 const std::string k = knobName(knob::kMaxNumBatchedTokens);
                 return std::vector<LessonSetting>{{k + " 2048", big, w, ""}, {k + " 128", small, w, ""}};
               },
               chunkedPrefillFinding});
  v.push_back({"prefix-caching", "How much does a shared system prompt save, and what breaks the reuse?",
               [](const EngineConfig& base, double scale) {
                 WorkloadOptions w = workload(scaled(48, scale, 8), 64, 32, 8, 5);
                 w.sharedPrefixLen = 512;
                 w.numPrefixGroups = 2;
                 EngineConfig on = base, off = base;
                 on.enablePrefixCaching = true;
                 off.enablePrefixCaching = false;
                 const std::string k = knobName(knob::kEnablePrefixCaching);
                 return std::vector<LessonSetting>{{k + " on", on, w, ""}, {k + " off", off, w, ""}};
               },
               prefixCachingFinding});
  v.push_back({"goodput", "How many requests per second can the engine serve within an SLO?",
               [](const EngineConfig& base, double scale) {
                 std::vector<LessonSetting> out;
                 for (double rate : {2.0, 8.0, 32.0}) {
                   WorkloadOptions w = workload(scaled(int(rate * 6), scale, 8), 128, 64, rate, 6);
                   w.rangeRatio = 0.5;
                   out.push_back({"request_rate " + num(rate), base, w, "ttft:250 tpot:30"});
                 }
                 return out;
               },
               goodputFinding});
  return v;
}

}  // namespace

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = makeLessons();
  return all;
}

const Lesson& findLesson(const std::string& name) {
  std::string names;
  for (const Lesson& l : lessons()) {
    if (l.name == name) return l;
    names += (names.empty() ? "" : ", ") + l.name;
  }
  throw Error("lesson '" + name + "': no such lesson (expected one of " + names + ")");
}

std::vector<LessonRun> runLesson(const Lesson& lesson, const std::shared_ptr<const Model>& model,
                                 const EngineConfig& base, double scale, const LessonProgress& progress,
                                 const std::atomic<bool>* cancel) {
  const std::vector<LessonSetting> settings = lesson.settings(base, scale);
  std::vector<LessonRun> runs;
  for (size_t i = 0; i < settings.size(); ++i) {
    if (cancel && *cancel) break;
    const LessonSetting& s = settings[i];
    if (progress) progress(int(i), int(settings.size()), s.label);
    Engine engine(model, s.knobs);
    std::vector<SyntheticRequest> w = makeWorkloadFor(s.workload, *model);
    clampPromptLengths(w, std::max(2, engine.maxModelLen() - s.workload.outputLen));
    BenchRun r = runServingBenchmark(engine, w);
    LessonRun run{s, std::move(r.report), std::move(r.steps), engine.numKvBlocks(), s.knobs.blockSize};
    if (engine.simulated()) {  // every figure predicted: say so wherever the report goes
      run.report.simHardware = s.knobs.executor.simHardware;
      run.report.simulatedDevice = engine.deviceInfo().name;
    }
    run.report.config = workloadJson(s.workload);
    run.report.config.update(configToJson(s.knobs));
    if (!s.goodput.empty()) applyGoodput(run.report, parseGoodput(s.goodput));
    runs.push_back(std::move(run));
  }
  if (progress) progress(int(runs.size()), int(settings.size()), "done");
  return runs;
}

nlohmann::json lessonJson(const Lesson& lesson, const std::vector<LessonRun>& runs, const std::string& finding) {
  nlohmann::json out = {{"lesson", lesson.name}, {"question", lesson.question}, {"finding", finding}};
  nlohmann::json list = nlohmann::json::array();
  for (const LessonRun& r : runs) {
    nlohmann::json j = benchReportJson(r.report);
    j.erase("requests");  // per-request records stay in `bench --json`
    j["label"] = r.setting.label;
    list.push_back(std::move(j));
  }
  out["runs"] = std::move(list);
  return out;
}

}  // namespace lwb
