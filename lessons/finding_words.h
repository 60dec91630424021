#pragma once
// The pieces every finding is built from (lessons/ only): numbers as a finding writes
// them, ratios, "rose from a to b (r)", and the joins between sentences and list items,
// each a template of its own so that a translation can reword it (Japanese joins
// sentences without a space and lists with 、).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/bench/workload.h"
#include "lessons/phrase.h"

namespace lwb::lesson_words {

// 3 significant digits, at most one decimal for large numbers; a whole number has none.
std::string num(double v);
std::string num(double v, const char* unit);  // "12.1 ms"
// a / b with its decimals even when whole ("8.00x"): it reads as a ratio; "n/a" when b <= 0.
std::string times(double a, double b);
// "rose from 12.1 ms to 30.4 ms (2.51x)", "fell from ...", or "stayed at about 12.1 ms"
// when within `sameWithin` of the start.
Phrase change(double from, double to, const char* unit, double sameWithin = 0.05);
// Sentences in order, as one paragraph.
Phrase sentences(const std::vector<Phrase>& parts);
// Items of a list: "a, b, c".
Phrase list(const std::vector<Phrase>& items);
// "max_num_seqs 4": a knob's name and its value, as the lessons' labels name their runs.
std::string knobLabel(std::string_view knob, const std::string& value);

// The settings' side, shared by lessons.cpp and lessons_more.cpp: a count at `scale`
// (at least `least`), and a workload that runs every request to its output length.
int scaled(int full, double scale, int least);
WorkloadOptions fixedLengthWorkload(int prompts, int input, int output, double rate, uint64_t seed);

}  // namespace lwb::lesson_words
