#pragma once
// Each lesson's finding from its runs (lessons/ only; lessons.cpp pairs them with the
// settings whose order they read). A finding states the measured numbers, then either
// the mechanism behind them or, when the expected effect did not happen, that it did not.
#include <vector>

#include "lessons/lessons.h"

namespace lwb::lesson_findings {

Phrase prefillDecode(const std::vector<LessonRun>& runs);      // one mixed run
Phrase kvCache(const std::vector<LessonRun>& runs);            // large pool, small pool
Phrase batching(const std::vector<LessonRun>& runs);           // max_num_seqs ascending
Phrase chunkedPrefill(const std::vector<LessonRun>& runs);     // large budget, small budget
Phrase prefixCaching(const std::vector<LessonRun>& runs);      // caching on, off
Phrase speculativeDecoding(const std::vector<LessonRun>& runs);  // (off, on) per load, ascending
Phrase pdDisaggregation(const std::vector<LessonRun>& runs);   // colocated, P/D
Phrase goodput(const std::vector<LessonRun>& runs);            // request rates ascending

}  // namespace lwb::lesson_findings
