#pragma once
// The ENGINE KNOBS section of packaging/llm-workbench.1, written from the knob table.
// tst_knob_table checks that the man page holds exactly this text between its markers.
#include <string>

namespace lwb::app {

constexpr const char* kManKnobsBegin = ".\\\" BEGIN KNOBS: generated from engine/config/knobs.cpp (see tst_knob_table)";
constexpr const char* kManKnobsEnd = ".\\\" END KNOBS";

// One ".TP" entry per knob, in table order, between the two marker lines.
std::string knobManSection();

}  // namespace lwb::app
