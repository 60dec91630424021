#include "app/cli/remote_options.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "app/cli/args.h"
#include "engine/bench/workload.h"
#include "engine/config/knobs.h"

namespace lwb::app {
namespace {

using Apply = std::function<void(RemoteCliOptions&, const std::string& flag, const std::string& value)>;

Apply text(std::string RemoteCliOptions::*field) {
  return [=](RemoteCliOptions& o, const std::string& f, const std::string& v) {
    if (v.empty()) throw UsageError(f + ": expected a non-empty value");
    o.*field = v;
  };
}

Apply seconds(double RemoteCliOptions::*field, double lo, double hi) {
  return [=](RemoteCliOptions& o, const std::string& f, const std::string& v) {
    size_t used = 0;
    double s = NAN;
    try {
      s = std::stod(v, &used);
    } catch (const std::exception&) {
    }
    if (used != v.size() || !(s >= lo && s <= hi)) {
      char range[64];
      std::snprintf(range, sizeof range, "%g..%g", lo, hi);
      throw UsageError(f + " '" + v + "': expected seconds in " + range);
    }
    o.*field = s;
  };
}

const std::map<std::string, Apply>& remoteFlags() {
  static const std::map<std::string, Apply> flags = {
      {"--endpoint", text(&RemoteCliOptions::endpoint)},
      {"--api-key", text(&RemoteCliOptions::apiKey)},
      {"--served-model-name", text(&RemoteCliOptions::servedModelName)},
      {"--tokenizer", text(&RemoteCliOptions::tokenizerDir)},
      {"--read-timeout", seconds(&RemoteCliOptions::readTimeoutSeconds, 0.1, 86400)},
      {"--metrics-interval", seconds(&RemoteCliOptions::metricsIntervalSeconds, 0.1, 3600)},
      {"--max-concurrency", [](RemoteCliOptions& o, const std::string& f, const std::string& v) {
         size_t used = 0;
         int n = 0;
         try {
           n = std::stoi(v, &used);
         } catch (const std::exception&) {
         }
         if (used != v.size() || n < 1 || n > 4096) throw UsageError(f + " '" + v + "': expected an integer in 1..4096");
         o.maxConcurrency = n;
       }},
  };
  return flags;
}

// What the local bench accepts that still means something against a remote server.
bool isRemoteCompatible(const std::string& flag) {
  static const std::set<std::string> kept = {"--json", "--trace", "--csv", "--quiet", "--help", "-h", "--ignore-eos",
                                             "--goodput", "--sweep", "--search"};
  return kept.count(flag) > 0 || isWorkloadOption(flag);
}

std::string flagName(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

bool hasEndpointFlag(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (flagName(a) == "--endpoint") return true;
  return false;
}

RemoteCliOptions takeRemoteArgs(std::vector<std::string>& args) {
  RemoteCliOptions o;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string flag = flagName(args[i]);
    auto it = remoteFlags().find(flag);
    if (it == remoteFlags().end()) {
      const std::string bare = flag.rfind("--no-", 0) == 0 ? flag.substr(5) : flag.substr(std::min<size_t>(2, flag.size()));
      if (args[i].rfind("--", 0) == 0 && findKnobByFlag(bare))
        throw UsageError(flag + ": not a remote bench option (an engine knob: the remote server has its own; set "
                                "it where the server is started)");
      if (args[i].rfind("--", 0) == 0 && !isRemoteCompatible(flag))
        throw UsageError(flag + ": not a remote bench option (see llm-workbench bench --help)");
      rest.push_back(args[i]);
      continue;
    }
    std::string value;
    if (args[i].size() > flag.size()) value = args[i].substr(flag.size() + 1);
    else if (i + 1 < args.size()) value = args[++i];
    else throw UsageError(flag + ": missing value");
    it->second(o, flag, value);
  }
  args = std::move(rest);
  return o;
}

std::string remoteBenchUsage() {
  return R"(Remote mode: the same workload against a running OpenAI-compatible server
(vLLM, SGLang, llama.cpp's server, llm-workbench serve), timed on the client:
  --endpoint URL                  http://host:port of the server (a trailing /v1 is allowed)
  --api-key KEY                   sent as Authorization: Bearer KEY
  --served-model-name NAME        model to ask for (default: the first of GET /v1/models)
  --tokenizer DIR                 folder with the served model's tokenizer.model (default:
                                  the bundled model's; prompts are sent as token ids)
  --max-concurrency N             concurrent streams (default: one per request, at most 256)
  --read-timeout S                a stream silent this long counts as stalled (default 60)
  --metrics-interval S            how often /metrics is scraped (default 1)
Engine knobs are refused with --endpoint: the server has its own. --goodput applies as
locally; --sweep takes request_rate or max_concurrency.
)";
}

}  // namespace lwb::app
