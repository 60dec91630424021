#pragma once
// One form field per knob of the knob table, shared by the engine's knobs panel and the
// remote window's read-only one: a check box, a combo box (choices, powers of two), a
// spin box (byte counts in MiB) or a line of JSON text, with the knob's help as tooltip.
#include <QString>

#include "engine/config/knobs.h"

class QWidget;

namespace lwb::ui {

inline constexpr double kKnobMiB = 1024.0 * 1024.0;

bool knobInMiB(const Knob& k);  // a byte count is edited in MiB
// The knob's help, translated for the window (the knob table marks it; the CLI keeps English).
QString knobHelp(const Knob& k);
// What the field accepts, in the window's language (Knob::expectation() is the CLI's).
QString knobExpectation(const Knob& k);
QString knobTooltip(const Knob& k);
QWidget* makeKnobField(const Knob& k, QWidget* parent);
void showKnobValue(const Knob& k, QWidget* field, const KnobValue& v);

}  // namespace lwb::ui
