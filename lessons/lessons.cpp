#include "lessons/lessons.h"

#include <algorithm>
#include <cmath>

#include "engine/bench/bench_runner.h"
#include "engine/bench/goodput.h"
#include "engine/common/error.h"
#include "engine/config/config_json.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/model/model.h"
#include "lessons/finding_words.h"
#include "lessons/findings.h"

namespace lwb {

namespace {

using lesson_words::fixedLengthWorkload;
using lesson_words::knobLabel;
using lesson_words::scaled;
using lesson_words::num;

Phrase question(const char* text, std::vector<Phrase> args = {}) { return Phrase::marked(text, std::move(args)); }

std::vector<LessonSetting> prefillDecodeSettings(const EngineConfig& base, double scale) {
  return {{Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "mixed load")), base,
           fixedLengthWorkload(scaled(24, scale, 4), 512, scaled(64, scale, 8), INFINITY, 1), "", {}}};
}

std::vector<LessonSetting> kvCacheSettings(const EngineConfig& base, double scale) {
  const WorkloadOptions w = fixedLengthWorkload(scaled(48, scale, 6), 256, scaled(128, scale, 16), INFINITY, 2);
  EngineConfig small = base;
  // Two whole requests and a third's prompt: the third is admitted, and the decodes'
  // growth then preempts.
  small.numGpuBlocksOverride = (2 * (w.inputLen + 1 + w.outputLen) + w.inputLen + 1 + base.blockSize - 1) / base.blockSize;
  return {{Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "KV pool as configured")), base, w, "", {}},
          {knobLabel(knob::kNumGpuBlocksOverride, std::to_string(small.numGpuBlocksOverride)), small, w, "", {}}};
}

std::vector<LessonSetting> batchingSettings(const EngineConfig& base, double scale) {
  const WorkloadOptions w = fixedLengthWorkload(scaled(32, scale, 8), 64, scaled(128, scale, 16), INFINITY, 3);
  std::vector<LessonSetting> out;
  for (int seqs : {1, 4, 16}) {
    EngineConfig c = base;
    c.maxNumSeqs = seqs;
    out.push_back({knobLabel(knob::kMaxNumSeqs, std::to_string(seqs)), c, w, "", {}});
  }
  return out;
}

std::vector<LessonSetting> chunkedPrefillSettings(const EngineConfig& base, double scale) {
  WorkloadOptions w = fixedLengthWorkload(scaled(12, scale, 3), 800, 16, 4, 4);
  w.numBackgroundRequests = 4;
  w.backgroundOutputLen = scaled(300, scale, 60);
  EngineConfig big = base, small = base;
  big.enableChunkedPrefill = small.enableChunkedPrefill = true;
  big.maxNumBatchedTokens = 2048;
  small.maxNumBatchedTokens = 128;
  big.maxNumSeqs = small.maxNumSeqs = 64;  // <= the small budget; more than the load runs
  return {{knobLabel(knob::kMaxNumBatchedTokens, "2048"), big, w, "", {}},
          {knobLabel(knob::kMaxNumBatchedTokens, "128"), small, w, "", {}}};
}

std::vector<LessonSetting> prefixCachingSettings(const EngineConfig& base, double scale) {
  WorkloadOptions w = fixedLengthWorkload(scaled(48, scale, 8), 64, 32, 8, 5);
  w.sharedPrefixLen = 512;
  w.numPrefixGroups = 2;
  EngineConfig on = base, off = base;
  on.enablePrefixCaching = true;
  off.enablePrefixCaching = false;
  return {{knobLabel(knob::kEnablePrefixCaching, "on"), on, w, "", {}},
          {knobLabel(knob::kEnablePrefixCaching, "off"), off, w, "", {}}};
}

std::vector<LessonSetting> goodputSettings(const EngineConfig& base, double scale) {
  std::vector<LessonSetting> out;
  for (double rate : {2.0, 8.0, 32.0}) {
    WorkloadOptions w = fixedLengthWorkload(scaled(int(rate * 6), scale, 8), 128, 64, rate, 6);
    w.rangeRatio = 0.5;
    out.push_back({"request_rate " + num(rate), base, w, "ttft:250 tpot:30", {}});
  }
  return out;
}

}  // namespace

// lessons_more.cpp: the settings of speculative decoding and P/D disaggregation.
std::vector<LessonSetting> speculativeDecodingSettings(const EngineConfig& base, double scale);
Phrase speculativeDecodingUnsupported(const EngineConfig& base);
std::vector<LessonSetting> pdDisaggregationSettings(const EngineConfig& base, double scale);

namespace {

std::vector<Lesson> makeLessons() {
  namespace f = lesson_findings;
  std::vector<Lesson> v;
  v.push_back({"prefill-decode",
               question(LWB_TRANSLATE_NOOP("Lessons", "Why is a decode step as slow as a prefill step of many tokens?")),
               prefillDecodeSettings, f::prefillDecode, {}});
  v.push_back({"kv-cache",
               question(LWB_TRANSLATE_NOOP("Lessons", "What happens when the KV cache cannot hold the running batch?")),
               kvCacheSettings, f::kvCache, {}});
  v.push_back({"batching",
               question(LWB_TRANSLATE_NOOP("Lessons", "Does a bigger batch make the engine faster, or each request?")),
               batchingSettings, f::batching, {}});
  v.push_back({"chunked-prefill",
               question(LWB_TRANSLATE_NOOP("Lessons", "What does %1 trade between TTFT and ITL?"),
                        {std::string(knob::kMaxNumBatchedTokens)}),
               chunkedPrefillSettings, f::chunkedPrefill, {}});
  v.push_back({"prefix-caching",
               question(LWB_TRANSLATE_NOOP("Lessons",
                                           "How much does a shared system prompt save, and what breaks the reuse?")),
               prefixCachingSettings, f::prefixCaching, {}});
  v.push_back({"speculative-decoding",
               question(LWB_TRANSLATE_NOOP("Lessons", "When does speculative decoding pay, and when does it stop "
                                                      "paying as load grows?")),
               speculativeDecodingSettings, f::speculativeDecoding, speculativeDecodingUnsupported});
  v.push_back({"pd-disaggregation",
               question(LWB_TRANSLATE_NOOP("Lessons", "Prefill and decode on separate instances, or chunked prefill "
                                                      "on one: what does each do to ITL and TTFT?")),
               pdDisaggregationSettings, f::pdDisaggregation, {}});
  v.push_back({"goodput",
               question(LWB_TRANSLATE_NOOP("Lessons", "How many requests per second can the engine serve within an "
                                                      "SLO?")),
               goodputSettings, f::goodput, {}});
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

Phrase unsupportedReason(const Lesson& lesson, const EngineConfig& base) {
  return lesson.unsupported ? lesson.unsupported(base) : Phrase{};
}

std::string findingText(const Lesson& lesson, const std::vector<LessonRun>& runs) {
  return english(lesson.finding(runs));
}

namespace {

LessonRun runOnPair(const LessonSetting& s, const std::shared_ptr<const Model>& model, const std::atomic<bool>* cancel) {
  PdEngine engine(model, *s.pd);
  std::vector<SyntheticRequest> w = makeWorkloadFor(s.workload, *model);
  clampPromptLengths(w, std::max(2, engine.decodeEngine().maxModelLen() - s.workload.outputLen));
  BenchRun r = runServingBenchmark(engine, w, {}, {0, cancel});
  LessonRun run{s, std::move(r.report), std::move(r.steps), engine.decodeEngine().numKvBlocks(), s.knobs.blockSize};
  if (engine.simulated()) {
    run.report.simHardware = s.pd->decode.executor.simHardware;
    run.report.simulatedDevice = engine.decodeEngine().deviceInfo().name;
  }
  run.report.config[std::string(knob::kKvTransferConfig)] = s.pd->transfer.toJson();
  return run;
}

LessonRun runOnEngine(const LessonSetting& s, const std::shared_ptr<const Model>& model, const std::atomic<bool>* cancel) {
  Engine engine(model, s.knobs);
  std::vector<SyntheticRequest> w = makeWorkloadFor(s.workload, *model);
  clampPromptLengths(w, std::max(2, engine.maxModelLen() - s.workload.outputLen));
  BenchRun r = runServingBenchmark(engine, w, {}, {0, cancel});
  LessonRun run{s, std::move(r.report), std::move(r.steps), engine.numKvBlocks(), s.knobs.blockSize};
  if (engine.simulated()) {  // every figure predicted: say so wherever the report goes
    run.report.simHardware = s.knobs.executor.simHardware;
    run.report.simulatedDevice = engine.deviceInfo().name;
  }
  return run;
}

}  // namespace

LessonRun runLessonSetting(const LessonSetting& s, const std::shared_ptr<const Model>& model,
                           const std::atomic<bool>* cancel) {
  LessonRun run = s.pd ? runOnPair(s, model, cancel) : runOnEngine(s, model, cancel);
  nlohmann::json config = workloadJson(s.workload);
  config.update(configToJson(s.knobs));
  run.report.config.update(config);
  if (!s.goodput.empty()) applyGoodput(run.report, parseGoodput(s.goodput));
  return run;
}

std::vector<LessonRun> runLesson(const Lesson& lesson, const std::shared_ptr<const Model>& model,
                                 const EngineConfig& base, double scale, const LessonProgress& progress,
                                 const std::atomic<bool>* cancel) {
  if (const Phrase why = unsupportedReason(lesson, base); !why.empty())
    throw Error("lesson '" + lesson.name + "': " + english(why));
  const std::vector<LessonSetting> settings = lesson.settings(base, scale);
  std::vector<LessonRun> runs;
  for (size_t i = 0; i < settings.size(); ++i) {
    if (cancel && *cancel) break;
    if (progress) progress(int(i), int(settings.size()), english(settings[i].label));
    runs.push_back(runLessonSetting(settings[i], model));
  }
  if (progress) progress(int(runs.size()), int(settings.size()), "done");
  return runs;
}

nlohmann::json lessonJson(const Lesson& lesson, const std::vector<LessonRun>& runs, const std::string& finding) {
  nlohmann::json out = {{"lesson", lesson.name}, {"question", english(lesson.question)}, {"finding", finding}};
  nlohmann::json list = nlohmann::json::array();
  for (const LessonRun& r : runs) {
    nlohmann::json j = benchReportJson(r.report);
    j.erase("requests");  // per-request records stay in `bench --json`
    j["label"] = english(r.setting.label);
    list.push_back(std::move(j));
  }
  out["runs"] = std::move(list);
  return out;
}

}  // namespace lwb
