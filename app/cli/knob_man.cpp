#include "app/cli/knob_man.h"

#include "engine/config/engine_config.h"
#include "engine/config/knobs.h"

namespace lwb::app {

namespace {

// roff: a minus sign in a flag is "\-".
std::string flagRoff(const std::string& flag) {
  std::string out;
  for (char c : flag) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::string entry(const Knob& k) {
  std::string out = ".TP\n";
  const std::string flag = "\\-\\-" + flagRoff(k.flag);
  if (k.kind == KnobKind::Bool) {
    out += ".BR " + flag + " \", \" \\-\\-no\\-" + flagRoff(k.flag) + "\n";
  } else if (k.kind == KnobKind::Choice) {
    std::string choices;
    for (std::string_view c : k.choices) choices += (choices.empty() ? "" : "|") + std::string(c);
    out += ".BR " + flag + " \" " + choices + "\"\n";
  } else {
    out += ".BI " + flag + (k.kind == KnobKind::Real ? " \" X\"\n" : k.kind == KnobKind::Json ? " \" JSON\"\n" : k.kind == KnobKind::Text ? " \" TEXT\"\n" : " \" N\"\n");
  }
  out += std::string(k.help) + ".\n";
  out += "Accepts " + k.expectation() + "; default " + k.defaultText() + ".\n";
  out += k.applyText();
  out += " (vLLM: " + std::string(k.name) + ").\n";
  return out;
}

}  // namespace

std::string knobManSection() {
  std::string out = std::string(kManKnobsBegin) + "\n";
  for (const Knob& k : knobTable()) out += entry(k);
  return out + kManKnobsEnd + "\n";
}

}  // namespace lwb::app
