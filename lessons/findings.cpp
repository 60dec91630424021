// The findings of the first five lessons (the batch, the KV cache, the budget and the
// prefix cache); findings_more.cpp holds speculative decoding, P/D and goodput.
#include "lessons/findings.h"

#include <algorithm>

#include "engine/kv/prefix_miss.h"
#include "engine/metrics/stats.h"
#include "lessons/finding_words.h"

namespace lwb::lesson_findings {

using namespace lesson_words;

// ---- 1. prefill is compute-bound, decode memory-bound ----
Phrase prefillDecode(const std::vector<LessonRun>& runs) {
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
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "The run had no pure decode step or no large prefill step to "
                                                    "compare; run the lesson at full size."));
  const double dMs = summarize(decodeMs).median, dTokens = summarize(decodeTokens).median;
  const double dUs = dMs * 1e3 / dTokens, pUs = summarize(prefillUsPerToken).median;
  const double pTokens = summarize(prefillTokens).median;
  const Phrase facts = Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "A decode step of %1 tokens took %2 ms (%3 us per token); a prefill step of %4 "
                                    "tokens took %5 us per token."),
      {num(dTokens), num(dMs), num(dUs), num(pTokens), num(pUs)});
  if (dUs > 1.5 * pUs)
    return sentences(
        {facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                               "Lessons",
                               "Per token, prefill was %1 cheaper: a decode step reads all the weights (and its KV) "
                               "once however few tokens it computes, so its time is set by memory bandwidth; a "
                               "prefill step spreads that read over hundreds of tokens and keeps the compute units "
                               "busy. Batching decodes is how an engine recovers the difference. See Batch "
                               "composition: the step duration against the tokens each step computed."),
                           {times(dUs, pUs)})});
  return sentences(
      {facts, Phrase::marked(LWB_TRANSLATE_NOOP("Lessons",
                                            "Per token the two cost about the same (%1), so the expected gap did not "
                                            "appear here: on this device even a decode step is bound by compute (the "
                                            "weights fit in the caches, or the batch is already large). See Batch "
                                            "composition."),
                         {times(dUs, pUs)})});
}

// ---- 2. the KV cache and memory ----
Phrase kvCache(const std::vector<LessonRun>& runs) {
  const LessonRun &big = runs.at(0), &small = runs.at(1);
  const BenchReport &a = big.report, &b = small.report;
  const Phrase facts = Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "With %1 KV blocks (%2 tokens) instead of %3, the engine preempted %4 times (%5 "
                                    "with the larger pool), median TTFT %6 and output throughput %7."),
      {std::to_string(small.numKvBlocks), std::to_string(small.numKvBlocks * small.blockSize),
       std::to_string(big.numKvBlocks), std::to_string(b.numPreemptions), std::to_string(a.numPreemptions),
       change(a.ttftMs.median, b.ttftMs.median, "ms"), change(a.outputThroughput, b.outputThroughput, "tok/s")});
  if (b.numPreemptions > a.numPreemptions || b.ttftMs.median > 1.2 * a.ttftMs.median)
    return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                                 "Lessons", "A pool that cannot hold the whole running batch turns load into "
                                            "queueing (requests wait for blocks) and preemption (a running request "
                                            "gives its blocks back and recomputes later). See the KV block map (red: "
                                            "preempted) and Batch composition (waiting)."))});
  return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                               "Lessons", "The small pool still held the batch, so the expected queueing and "
                                          "preemption did not happen here; a heavier load or a smaller pool would "
                                          "show it."))});
}

// ---- 3. continuous batching ----
Phrase batching(const std::vector<LessonRun>& runs) {
  const BenchReport &one = runs.front().report, &many = runs.back().report;
  const double speed1 = one.tpotMs.median > 0 ? 1000 / one.tpotMs.median : 0;
  const double speedN = many.tpotMs.median > 0 ? 1000 / many.tpotMs.median : 0;
  const Phrase facts =
      Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "From %1 to %2, total output throughput %3, while one request's "
                                               "decode speed %4."),
                 {runs.front().setting.label, runs.back().setting.label,
                  change(one.outputThroughput, many.outputThroughput, "tok/s"), change(speed1, speedN, "tok/s")});
  if (many.outputThroughput > 1.3 * one.outputThroughput)
    return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                                 "Lessons", "A decode step costs about the same for one request as for several (it "
                                            "reads the weights once), so batching multiplies the engine's throughput "
                                            "without making any single request faster. See Batch composition (decode "
                                            "tokens per step) and Latency (ITL)."))});
  return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                               "Lessons", "Throughput did not rise with the batch in this run, so the expected "
                                          "effect did not happen: each step's cost grew with its batch, as on a "
                                          "device already bound by compute (or a busy machine)."))});
}

// ---- 4. chunked prefill and max_num_batched_tokens ----
Phrase chunkedPrefill(const std::vector<LessonRun>& runs) {
  const BenchReport &big = runs.at(0).report, &small = runs.at(1).report;
  const Phrase facts = Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "With %1 instead of %2, p99 inter-token latency %3 and median TTFT %4."),
      {runs.at(1).setting.label, runs.at(0).setting.label, change(big.itlMs.p99, small.itlMs.p99, "ms"),
       change(big.ttftMs.median, small.ttftMs.median, "ms")});
  if (small.itlMs.p99 < 0.8 * big.itlMs.p99)
    return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                                 "Lessons", "A smaller token budget cuts each long prompt into chunks, so the "
                                            "running requests' decode steps no longer wait behind a whole prompt "
                                            "(lower ITL spikes), and each prompt takes more steps to finish (higher "
                                            "TTFT): the budget is a dial between the two. See Batch composition "
                                            "(prefill chunks against the budget line) and Latency (ITL)."))});
  return sentences({facts, Phrase::marked(LWB_TRANSLATE_NOOP(
                               "Lessons", "The ITL spikes did not shrink in this run, so the expected effect did not "
                                          "appear: either a whole prompt's prefill costs little next to a decode "
                                          "step on this device, or other work on the machine hid it (run the lesson "
                                          "again, or at full size, to tell which)."))});
}

// ---- 5. prefix caching ----
Phrase prefixCaching(const std::vector<LessonRun>& runs) {
  const BenchReport &on = runs.at(0).report, &off = runs.at(1).report;
  std::vector<Phrase> parts = {Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "With prefix caching on, %1 % of the prompt tokens came from the cache, and "
                                    "median TTFT was %2 against %3 with it off (%4)."),
      {num(on.prefixCacheHitRate * 100), num(on.ttftMs.median, "ms"), num(off.ttftMs.median, "ms"),
       times(off.ttftMs.median, on.ttftMs.median)})};
  std::vector<std::pair<int64_t, std::string>> misses;
  for (int i = 0; i < kNumPrefixMissReasons; ++i)
    if (const int64_t n = on.prefixMissTokens[size_t(i)]; n > 0)
      misses.push_back({n, std::string(prefixMissReasonName(prefixMissReasonAt(i)))});
  std::sort(misses.rbegin(), misses.rend());
  if (!misses.empty()) {
    std::vector<Phrase> items;
    for (const auto& m : misses) items.push_back(std::to_string(m.first) + " " + m.second);
    parts.push_back(Phrase::marked(
        LWB_TRANSLATE_NOOP("Lessons", "The tokens it computed anyway missed for these reasons: %1."), {list(items)}));
  }
  if (on.prefixCacheHitRate > 0.2 && on.ttftMs.median < 0.9 * off.ttftMs.median)
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "A shared system prompt is computed once and its KV blocks reused by every request that starts "
                   "with it: the prefill of a hit costs nothing. See Prefix cache (hit rate and misses by reason).")));
  else
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "The cache did not shorten TTFT here, so the expected effect did not happen; the reasons above "
                   "say why the prefix was not reused.")));
  return sentences(parts);
}

}  // namespace lwb::lesson_findings
