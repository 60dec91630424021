#pragma once
// A small command-line parser for the sub-commands: `--name value` or `--name=value`,
// boolean flags, the last of a repeated flag wins, unknown flags are errors. Errors are
// lwb::Error with a one-line message naming the flag, the value and what was expected.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/error.h"

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

  // Returns false when --help was given (help already printed to stdout).
  bool parse(int argc, char** argv);

  bool has(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::string stringOr(const std::string& name, const std::string& fallback) const;
  long long integer(const std::string& name, long long fallback, long long min, long long max) const;
  double number(const std::string& name, double fallback, double min, double max) const;
  // A comma-separated list of integers ("1,2,3").
  std::vector<int> intList(const std::string& name) const;
  std::string helpText() const;
  const std::string& command() const { return command_; }

 private:
  struct Spec {
    std::string valueName;  // empty for a boolean flag
    std::string help;
  };
  [[noreturn]] void fail(const std::string& message) const;
  std::string command_, usage_, summary_;
  std::vector<std::pair<std::string, Spec>> specs_;  // in declaration order, for --help
  std::map<std::string, std::string> values_;
};

// Runs `body`, turning errors into one line "llm-workbench <command>: <message>" on
// stderr and exit code 2 (UsageError) or 1 (any other error).
int runReportingErrors(const std::string& command, int (*body)(int, char**), int argc, char** argv);

}  // namespace lwb::app
