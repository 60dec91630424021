#include "lessons/finding_words.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lwb::lesson_words {

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

std::string num(double v, const char* unit) { return num(v) + " " + unit; }

std::string times(double a, double b) {
  if (b <= 0) return "n/a";
  const double r = a / b;
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 1 ? "%.3fx" : r < 10 ? "%.2fx" : r < 100 ? "%.1fx" : "%.0fx", r);
  return buf;
}

Phrase change(double from, double to, const char* unit, double sameWithin) {
  if (from > 0 && std::abs(to / from - 1) <= sameWithin)
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "stayed at about %1"), {num(from, unit)});
  if (to > from)
    return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "rose from %1 to %2 (%3)"),
                      {num(from, unit), num(to, unit), times(to, from)});
  return Phrase::marked(LWB_TRANSLATE_NOOP("Lessons", "fell from %1 to %2 (%3)"),
                    {num(from, unit), num(to, unit), times(to, from)});
}

namespace {
Phrase fold(const std::vector<Phrase>& parts, const char* joint) {
  if (parts.empty()) return {};
  Phrase out = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) out = Phrase::marked(joint, {out, parts[i]});
  return out;
}
}  // namespace

Phrase sentences(const std::vector<Phrase>& parts) {
  std::vector<Phrase> kept;
  for (const Phrase& p : parts)
    if (!p.empty()) kept.push_back(p);
  return fold(kept, LWB_TRANSLATE_NOOP("Lessons", "%1 %2"));
}

Phrase list(const std::vector<Phrase>& items) { return fold(items, LWB_TRANSLATE_NOOP("Lessons", "%1, %2")); }

std::string knobLabel(std::string_view knob, const std::string& value) { return std::string(knob) + " " + value; }

int scaled(int full, double scale, int least) { return std::max(least, int(std::lround(full * scale))); }

WorkloadOptions fixedLengthWorkload(int prompts, int input, int output, double rate, uint64_t seed) {
  WorkloadOptions w;
  w.numPrompts = prompts;
  w.inputLen = input;
  w.outputLen = output;
  w.requestRate = rate;
  w.ignoreEos = true;
  w.seed = seed;
  return w;
}

}  // namespace lwb::lesson_words
