#include "app/cli/args.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/common/error.h"
#include "engine/config/engine_config.h"
#include "engine/config/knobs.h"

namespace lwb::app {

ArgParser::ArgParser(std::string command, std::string usage, std::string summary)
    : command_(std::move(command)), usage_(std::move(usage)), summary_(std::move(summary)) {
  flag("help", "show this help and exit");
}

void ArgParser::flag(const std::string& name, const std::string& help) { specs_.push_back({name, {"", help}}); }

void ArgParser::option(const std::string& name, const std::string& valueName, const std::string& help) {
  specs_.push_back({name, {valueName, help}});
}

void ArgParser::fail(const std::string& message) const { throw UsageError(message); }

void ArgParser::knobOptions(const std::string& heading) {
  specs_.push_back({"", {"", heading + ":"}});  // a heading line in --help
  for (const Knob& k : knobTable()) {
    Spec s;
    s.help = std::string(k.help) + " (" + k.expectation() + "; default " + k.defaultText() +
             (k.structural()       ? "; structural: rebuilds the KV cache)"
              : k.structuralWhen ? "; " + std::string(k.whenStructural) + " rebuilds the KV cache)"
                                 : ")");
    if (k.kind == KnobKind::Bool) s.negatable = true;
    else s.valueName = k.kind == KnobKind::Real ? "X" : k.kind == KnobKind::Json ? "JSON" : k.kind == KnobKind::Text ? "TEXT" : "N";
    if (k.kind == KnobKind::Choice) {
      s.valueName.clear();
      for (std::string_view c : k.choices) s.valueName += (s.valueName.empty() ? "" : "|") + std::string(c);
    }
    specs_.push_back({k.flag, s});
  }
}

void ArgParser::extraOptions(std::function<bool(const std::string&)> isKnown, const std::string& helpBlock) {
  isExtra_ = std::move(isKnown);
  extraHelp_ = helpBlock;
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const {
  for (const auto& [n, s] : specs_)
    if (n == name && !n.empty()) return &s;
  return nullptr;
}

void ArgParser::parseOnly(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h") {
      values_["help"] = "1";
      continue;
    }
    if (arg.rfind("--", 0) != 0) fail("unexpected argument '" + arg + "' (see --help)");
    std::string name = arg.substr(2), inlineValue;
    const bool hasInline = name.find('=') != std::string::npos;
    if (hasInline) {
      inlineValue = name.substr(name.find('=') + 1);
      name = name.substr(0, name.find('='));
    }
    const Spec* spec = find(name);
    const Spec* negated = name.rfind("no-", 0) == 0 ? find(name.substr(3)) : nullptr;
    if (!spec && negated && negated->negatable) {
      if (hasInline) fail("--" + name + " takes no value");
      values_[name.substr(3)] = "0";
      continue;
    }
    const bool extra = !spec && isExtra_ && isExtra_(name);
    if (!spec && !extra) fail("unknown option --" + name + " (see --help)");
    if (spec && spec->valueName.empty()) {
      if (hasInline) fail("--" + name + " takes no value");
      values_[name] = "1";
      continue;
    }
    std::string v = inlineValue;
    if (!hasInline) {
      if (i + 1 >= args.size()) fail("--" + name + " needs a value (" + (spec ? spec->valueName : "VALUE") + ")");
      v = args[++i];
    }
    if (extra) extras_.push_back({name, v});
    else values_[name] = v;
  }
}

bool ArgParser::parse(const std::vector<std::string>& args) {
  parseOnly(args);
  if (has("help")) {
    std::fputs(helpText().c_str(), stdout);
    return false;
  }
  return true;
}

bool ArgParser::parse(int argc, char** argv) { return parse(std::vector<std::string>(argv + 1, argv + argc)); }

void ArgParser::applyKnobs(EngineConfig& config) const {
  for (const Knob& k : knobTable()) {
    auto v = value(k.flag);
    if (!v) continue;
    try {
      const KnobValue parsed = k.kind == KnobKind::Bool ? KnobValue(*v == "1") : k.parse(*v);
      k.check(parsed);
      k.set(config, parsed);
    } catch (const Error& e) {  // a JSON knob's own message names the field
      fail("--" + k.flag + " " + *v + ": " + (k.kind == KnobKind::Json || k.kind == KnobKind::Text ? e.what() : "expected " + k.expectation()));
    }
  }
}

bool ArgParser::has(const std::string& name) const { return values_.count(name) > 0; }

std::optional<std::string> ArgParser::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string ArgParser::stringOr(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

long long ArgParser::integer(const std::string& name, long long fallback, long long min, long long max) const {
  auto v = value(name);
  if (!v) return fallback;
  size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v->size()) fail("--" + name + ": expected an integer, found '" + *v + "'");
  if (x < min || x > max)
    fail("--" + name + ": expected " + std::to_string(min) + " to " + std::to_string(max) + ", found " + *v);
  return x;
}

double ArgParser::number(const std::string& name, double fallback, double min, double max) const {
  auto v = value(name);
  if (!v) return fallback;
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v->size() || std::isnan(x)) fail("--" + name + ": expected a number, found '" + *v + "'");
  if (x < min || x > max) {
    std::ostringstream range;
    range << min << " to " << max;
    fail("--" + name + ": expected " + range.str() + ", found " + *v);
  }
  return x;
}

std::vector<int> ArgParser::intList(const std::string& name) const {
  std::vector<int> out;
  auto v = value(name);
  if (!v) return out;
  std::stringstream ss(*v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long long x = -1;
    try {
      x = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || x < 0 || x > 0x7fffffff)
      fail("--" + name + ": expected comma-separated non-negative integers, found '" + item + "'");
    out.push_back(int(x));
  }
  if (out.empty()) fail("--" + name + ": expected at least one integer");
  return out;
}

std::string ArgParser::helpText() const {
  std::ostringstream out;
  out << "Usage: " << usage_ << "\n\n" << summary_ << "\n\nOptions:\n";
  for (const auto& [name, spec] : specs_) {
    if (name.empty()) {  // a heading
      out << spec.help << "\n";
      continue;
    }
    std::string left = "  --" + name + (spec.negatable ? " | --no-" + name : "") +
                       (spec.valueName.empty() ? "" : " " + spec.valueName);
    if (left.size() < 32) left.resize(32, ' ');
    else left += "\n" + std::string(32, ' ');
    out << left << spec.help << "\n";
  }
  if (!extraHelp_.empty()) out << extraHelp_;
  return out.str();
}

int runReportingErrors(const std::string& command, int (*body)(int, char**), int argc, char** argv) {
  const std::string who = command.empty() ? "llm-workbench" : "llm-workbench " + command;
  try {
    return body(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", who.c_str(), e.what());
  }
  return 1;
}

}  // namespace lwb::app
