#pragma once
// The command-line parser of every sub-command: `--name value` or `--name=value`,
// boolean flags (`--x` / `--no-x` for the knobs), the last of a repeated flag wins,
// unknown flags are errors. The engine knobs come from the knob table
// (engine/config/knobs.h), so every sub-command spells, ranges and documents them alike.
// Errors are UsageError with a one-line message naming the flag, the value and what was
// expected.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/error.h"

namespace lwb {
struct EngineConfig;
}

namespace lwb::app {

// A bad command line (exit code 2), as opposed to a failure while running (exit code 1).
class UsageError : public Error {
 public:
  using Error::Error;
};

class ArgParser {
 public:
  ArgParser(std::string command, std::string usage, std::string summary);
  void flag(const std::string& name, const std::string& help);
  void option(const std::string& name, const std::string& valueName, const std::string& help);
  // Every knob of the table as an option (Bool knobs: --x and --no-x), under `heading`
  // in --help.
  void knobOptions(const std::string& heading = "Engine knobs (vLLM names)");
  // Options taking a value that are not declared one by one (the workload's): accepted
  // when `isKnown(name)` holds, listed in --help as `helpBlock`.
  void extraOptions(std::function<bool(const std::string&)> isKnown, const std::string& helpBlock);

  // Returns false when --help was given (help already printed to stdout).
  bool parse(int argc, char** argv);              // argv[0] is the sub-command's name
  bool parse(const std::vector<std::string>& args);
  // Parses without printing help (has("help") tells).
  void parseOnly(const std::vector<std::string>& args);

  bool has(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::string stringOr(const std::string& name, const std::string& fallback) const;
  long long integer(const std::string& name, long long fallback, long long min, long long max) const;
  double number(const std::string& name, double fallback, double min, double max) const;
  // A comma-separated list of integers ("1,2,3").
  std::vector<int> intList(const std::string& name) const;
  // The given extra options, in the order given ({name, value}).
  const std::vector<std::pair<std::string, std::string>>& extras() const { return extras_; }
  // The knobs given on the command line written into `config` (others untouched);
  // throws UsageError "--block-size 24: expected a power of two in 1..256".
  void applyKnobs(EngineConfig& config) const;
  std::string helpText() const;
  const std::string& command() const { return command_; }

 private:
  struct Spec {
    std::string valueName;  // empty for a boolean flag
    std::string help;
    bool negatable = false; // --no-<name> sets it off
  };
  [[noreturn]] void fail(const std::string& message) const;
  const Spec* find(const std::string& name) const;
  std::string command_, usage_, summary_;
  std::vector<std::pair<std::string, Spec>> specs_;  // in declaration order, for --help
  std::map<std::string, std::string> values_;
  std::function<bool(const std::string&)> isExtra_;
  std::string extraHelp_;
  std::vector<std::pair<std::string, std::string>> extras_;
};

// Runs `body`, turning errors into one line "llm-workbench <command>: <message>" on
// stderr and exit code 2 (UsageError) or 1 (any other error).
int runReportingErrors(const std::string& command, int (*body)(int, char**), int argc, char** argv);

}  // namespace lwb::app
