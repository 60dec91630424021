// The findings of speculative decoding, P/D disaggregation and goodput.
#include <algorithm>
#include <cstdio>

#include "engine/config/knobs.h"
#include "lessons/finding_words.h"
#include "lessons/findings.h"

namespace lwb::lesson_findings {

using namespace lesson_words;

namespace {

// Tokens per verification keeps two decimals: "4.00" reads as a mean, not a count.
std::string twoDecimals(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

double decodeSpeed(const BenchReport& r) { return r.tpotMs.median > 0 ? 1000 / r.tpotMs.median : 0; }

double medianTransferMs(const BenchReport& r) {
  std::vector<double> ms;
  for (const BenchRequestRecord& q : r.requests)
    if (q.timeline.kvTransferTime) ms.push_back(*q.timeline.kvTransferTime * 1000);
  if (ms.empty()) return -1;
  std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

// ---- 6. speculative decoding: (off, on) at each load, the lightest first ----
Phrase speculativeDecoding(const std::vector<LessonRun>& runs) {
  if (runs.size() < 2)
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "The lesson needs a run with speculation and one without."));
  const BenchReport &off1 = runs[0].report, &on1 = runs[1].report;
  std::vector<Phrase> parts = {Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "With one request at a time, %1 % of the draft tokens were accepted (mean "
                                    "acceptance length %2 tokens per verification) and the request's decode speed "
                                    "%3."),
      {num(on1.specDecode.acceptanceRate() * 100), twoDecimals(on1.specDecode.meanAcceptanceLength()),
       change(decodeSpeed(off1), decodeSpeed(on1), "tok/s")})};
  std::vector<Phrase> ratios;
  size_t vanished = 0;  // the first pair whose throughput with speculation was lower; 0 = none
  for (size_t i = 0; i + 1 < runs.size(); i += 2) {
    const double off = runs[i].report.outputThroughput, on = runs[i + 1].report.outputThroughput;
    const std::string load = knobLabel(knob::kMaxNumSeqs, std::to_string(runs[i].setting.knobs.maxNumSeqs));
    ratios.push_back(Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "%1 at %2"), {times(on, off), load}));
    if (vanished == 0 && on < off) vanished = i + 1;
  }
  parts.push_back(Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "Total output throughput with speculation against without: %1."), {list(ratios)}));
  if (decodeSpeed(on1) < 1.05 * decodeSpeed(off1)) {
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "Speculation did not speed up even one request here, so the expected gain did not appear: too "
                   "few drafts were accepted to pay for verifying them. See Speculative decoding (acceptance "
                   "rate).")));
  } else if (vanished > 0) {
    const int load = runs[vanished - 1].setting.knobs.maxNumSeqs;
    parts.push_back(Phrase::marked(
        LWB_TRANSLATE_NOOP("Lessons",
                           "The gain was gone at %1: with many requests in a step the engine is no longer bound by "
                           "reading the weights, so the draft positions each request verifies cost compute that "
                           "the accepted tokens do not repay. Speculation pays while few requests share a step and "
                           "costs throughput once the batch is full. See Speculative decoding (acceptance rate) and "
                           "Batch composition."),
        {knobLabel(knob::kMaxNumSeqs, std::to_string(load))}));
  } else {
    parts.push_back(Phrase::marked(
        LWB_TRANSLATE_NOOP("Lessons", "The gain did not vanish up to %1, the highest load tried: on this device "
                                      "verifying the drafts still cost less than the steps they saved."),
        {knobLabel(knob::kMaxNumSeqs, std::to_string(runs[runs.size() - 2].setting.knobs.maxNumSeqs))}));
  }
  return sentences(parts);
}

// ---- 7. P/D disaggregation against chunked prefill: colocated, then the pair ----
Phrase pdDisaggregation(const std::vector<LessonRun>& runs) {
  if (runs.size() < 2)
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "The lesson needs the colocated run and the P/D run."));
  const BenchReport &col = runs[0].report, &pd = runs[1].report;
  std::vector<Phrase> parts = {Phrase::marked(
      LWB_TRANSLATE_NOOP("Lessons", "%1 against %2: p99 ITL %3, median TTFT (the KV transfer included) %4, total "
                                    "throughput %5."),
      {runs[1].setting.label, runs[0].setting.label, change(col.itlMs.p99, pd.itlMs.p99, "ms"),
       change(col.ttftMs.median, pd.ttftMs.median, "ms"),
       change(col.totalTokenThroughput, pd.totalTokenThroughput, "tok/s")})};
  if (const double transfer = medianTransferMs(pd); transfer >= 0)
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "The median KV transfer took %1."), {num(transfer, "ms")}));
  if (pd.simulated())
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "On the simulator the pair ran on two GPUs and the colocated engine on one: the pair had twice "
                   "the hardware.")));
  const bool itlBetter = pd.itlMs.p99 < 0.8 * col.itlMs.p99;
  const bool ttftWorse = pd.ttftMs.median > 1.05 * col.ttftMs.median;
  if (itlBetter && ttftWorse)
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "On the decode instance no prompt's prefill shares a step with the decodes, so the ITL spikes "
                   "that chunked prefill only shortens are gone; the price was paid in TTFT (the prefill "
                   "instance's queue and the transfer).")));
  else if (itlBetter)
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "On the decode instance no prompt's prefill shares a step with the decodes, so the ITL spikes "
                   "that chunked prefill only shortens are gone, and TTFT did not pay for it here: the prefill "
                   "instance kept up with the arrivals.")));
  else
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "P/D did not lower p99 ITL in this run: chunked prefill already kept each prompt's chunks small "
                   "next to a decode step, so separating the phases did not pay off on ITL here.")));
  parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
      "Lessons", "See Latency (ITL) and the Runs view, which puts the two runs side by side.")));
  return sentences(parts);
}

// ---- 8. goodput under an SLO: request rates ascending ----
Phrase goodput(const std::vector<LessonRun>& runs) {
  if (runs.empty() || !runs.front().report.goodput)
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "No SLO was set; goodput needs one."));
  std::vector<Phrase> items;
  size_t best = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const BenchReport& r = runs[i].report;
    items.push_back(Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "%1 req/s at %2 (%3 % of requests met it)"),
                               {num(r.requestGoodput), runs[i].setting.label, num(r.requestGoodputFraction * 100)}));
    if (r.requestGoodput > runs[best].report.requestGoodput) best = i;
  }
  std::vector<Phrase> parts = {
      Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "Under the SLO %1 (ms), goodput was %2."),
                 {runs.front().report.goodput->describe(), list(items)}),
      Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "The most requests per second that met it: %1 at %2."),
                 {num(runs[best].report.requestGoodput), runs[best].setting.label})};
  const BenchReport& last = runs.back().report;
  if (best + 1 < runs.size() && last.requestGoodput < runs[best].report.requestGoodput)
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "Past that load, throughput keeps rising or stays flat but fewer requests meet the SLO: queueing "
                   "pushes TTFT over it. Capacity is the load where goodput peaks, not where throughput does. See "
                   "Latency (TTFT against time).")));
  else
    parts.push_back(Phrase::marked(LWB_TRANSLATE_NOOP(
        "Lessons", "Goodput still rose at the highest load tried, so this engine's capacity under the SLO lies "
                   "beyond it.")));
  return sentences(parts);
}

}  // namespace lwb::lesson_findings
