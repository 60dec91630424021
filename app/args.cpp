#include "app/args.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/common/error.h"

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

bool ArgParser::parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) fail("unexpected argument '" + arg + "' (see --help)");
    std::string name = arg.substr(2), inlineValue;
    const bool hasInline = name.find('=') != std::string::npos;
    if (hasInline) {
      inlineValue = name.substr(name.find('=') + 1);
      name = name.substr(0, name.find('='));
    }
    const Spec* spec = nullptr;
    for (const auto& [n, s] : specs_)
      if (n == name) spec = &s;
    if (!spec) fail("unknown option --" + name + " (see --help)");
    if (spec->valueName.empty()) {
      if (hasInline) fail("--" + name + " takes no value");
      values_[name] = "1";
    } else if (hasInline) {
      values_[name] = inlineValue;
    } else {
      if (i + 1 >= argc) fail("--" + name + " needs a value (" + spec->valueName + ")");
      values_[name] = argv[++i];
    }
  }
  if (has("help")) {
    std::fputs(helpText().c_str(), stdout);
    return false;
  }
  return true;
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
    std::string left = "  --" + name + (spec.valueName.empty() ? "" : " " + spec.valueName);
    if (left.size() < 32) left.resize(32, ' ');
    else left += "\n" + std::string(32, ' ');
    out << left << spec.help << "\n";
  }
  return out.str();
}

int runReportingErrors(const std::string& command, int (*body)(int, char**), int argc, char** argv) {
  try {
    return body(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "llm-workbench %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "llm-workbench %s: %s\n", command.c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm-workbench %s: internal error: %s\n", command.c_str(), e.what());
  }
  return 1;
}

}  // namespace lwb::app
