// Any "name=value" lines as bench workload options: parse, validate, and when valid
// build a small workload whose prompts use only ordinary ids.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "engine/bench/workload.h"
#include "engine/common/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lwb::WorkloadOptions options;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  try {
    while (std::getline(in, line)) {
      const size_t eq = line.find('=');
      lwb::parseWorkloadOption(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1), &options);
    }
    options.validate();
    if (int64_t(options.numPrompts) * (options.inputLen * 2 + options.sharedPrefixLen + 1) > 200000) return 0;
    const std::vector<int> ordinary = {5, 6, 7, 8, 9};
    for (const auto& r : lwb::makeWorkload(options, ordinary, 1))
      for (size_t i = 1; i < r.promptTokenIds.size(); ++i)
        if (r.promptTokenIds[i] < 5 || r.promptTokenIds[i] > 9) std::abort();
  } catch (const lwb::Error&) {
  }
  return 0;
}
