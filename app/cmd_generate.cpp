// `llm-workbench generate`: one prompt through the same engine the window uses.
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/commands.h"
#include "engine/config/knobs.h"
#include "engine/engine.h"
#include "engine/metrics/export.h"
#include "engine/model/generation_config.h"
#include "engine/model/model.h"

namespace lwb::app {

namespace {

ArgParser makeParser() {
  ArgParser p("generate",
              "llm-workbench generate [--model DIR] (--prompt TEXT | --prompt-token-ids 1,2,3) [OPTIONS]",
              "Generates a completion for one prompt. Text mode streams the answer to stdout;\n"
              "--json prints exactly one JSON object to stdout. Notices go to stderr.\n"
              "Sampling defaults come from the model's generation_config.json (as vLLM does),\n"
              "else temperature 1.0, top-p 1, max_tokens 256. Temperature 0 means greedy.");
  p.option("model", "DIR", "model folder in Hugging Face layout, or a .gguf file (default: the bundled model)");
  p.option("prompt", "TEXT", "prompt text (BOS added when tokenizer_config.json says so)");
  p.option("prompt-token-ids", "IDS", "comma-separated token ids, fed exactly (no BOS added)");
  p.flag("chat", "send the prompt as one user turn in the model's chat template");
  p.option("system", "TEXT", "with --chat: a system prompt");
  p.option("max-tokens", "N", "maximum tokens to generate");
  p.option("min-tokens", "N", "generate at least N tokens before EOS, stop ids or stop strings can end it");
  p.option("temperature", "T", "sampling temperature, 0 = greedy");
  p.option("top-p", "P", "nucleus sampling: smallest set with this much probability, in (0, 1]");
  p.option("top-k", "K", "sample among the K most likely tokens (0 = off)");
  p.option("min-p", "P", "drop tokens less likely than P x the most likely one, in [0, 1]");
  p.option("repetition-penalty", "R", "penalise tokens already in prompt or output (1 = off)");
  p.option("seed", "S", "random seed: the same seed gives the same tokens");
  p.flag("ignore-eos", "keep generating after the end-of-sequence token");
  p.option("stop", "TEXT", "stop when this text appears (not included in the output)");
  p.option("logprobs", "K", "report the top-K log-probabilities of every generated token (0-20)");
  p.flag("json", "print one JSON object with ids, text, logprobs and metrics");
  p.knobOptions();
  return p;
}

// Flags the user gives win; generation_config.json fills the rest (vLLM's --generation-config auto).
SamplingParams samplingFrom(const ArgParser& args, const GenerationDefaults& d) {
  const SamplingParams base = samplingDefaults(d).params;
  SamplingParams s;
  s.temperature = float(args.number("temperature", base.temperature, 0, 1e6));
  s.topP = float(args.number("top-p", base.topP, 1e-9, 1));
  s.topK = int(args.integer("top-k", base.topK, -1, 1 << 30));
  s.minP = float(args.number("min-p", base.minP, 0, 1));
  s.repetitionPenalty = float(args.number("repetition-penalty", base.repetitionPenalty, 1e-6, 1e6));
  s.maxTokens = int(args.integer("max-tokens", base.maxTokens, 1, 1 << 30));
  s.minTokens = int(args.integer("min-tokens", 0, 0, 1 << 30));
  if (args.has("seed")) s.seed = uint64_t(args.integer("seed", 0, 0, (1LL << 62)));
  s.ignoreEos = args.has("ignore-eos");
  s.logprobs = int(args.integer("logprobs", 0, 0, 20));
  if (auto stop = args.value("stop")) s.stop.push_back(*stop);
  s.validate();
  return s;
}

// Everything that can be checked without the model, so bad arguments fail fast.
void checkArguments(const ArgParser& args) {
  const bool hasText = args.has("prompt"), hasIds = args.has("prompt-token-ids");
  if (hasText == hasIds) throw UsageError("give exactly one of --prompt TEXT or --prompt-token-ids IDS");
  if (hasIds && args.has("chat")) throw UsageError("--chat needs --prompt TEXT, not token ids");
  if (hasIds) args.intList("prompt-token-ids");
  try {
    samplingFrom(args, GenerationDefaults{});
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  EngineConfig knobs;
  args.applyKnobs(knobs);
}

std::vector<int> promptFrom(const ArgParser& args, const Model& model) {
  if (args.has("prompt-token-ids")) return args.intList("prompt-token-ids");
  const std::string text = *args.value("prompt");
  if (!args.has("chat")) return model.encodePrompt(text);
  std::vector<ChatMessage> messages;
  if (auto system = args.value("system")) messages.push_back({"system", *system});
  messages.push_back({"user", text});
  if (!model.chatTemplate.notice().empty()) std::fprintf(stderr, "notice: %s\n", model.chatTemplate.notice().c_str());
  return model.encodeChat(messages, true);
}

nlohmann::json msOrNull(std::optional<double> seconds) {
  return seconds ? nlohmann::json(*seconds * 1000.0) : nlohmann::json(nullptr);
}

nlohmann::json resultJson(const Model& model, const std::vector<int>& prompt, const std::vector<int>& output,
                          const std::string& text, const RequestTimeline& t,
                          const std::vector<std::vector<std::pair<int, float>>>& logprobs, bool wantLogprobs) {
  nlohmann::json j;
  j["model"] = model.dir;
  j["prompt_token_ids"] = prompt;
  j["output_token_ids"] = output;
  j["text"] = text;
  j["finish_reason"] = finishReasonName(t.finishReason);
  if (wantLogprobs) {
    nlohmann::json lp = nlohmann::json::array();
    for (const auto& top : logprobs) {
      nlohmann::json row = nlohmann::json::array();
      for (const auto& [id, value] : top) row.push_back({id, value});
      lp.push_back(row);
    }
    j["logprobs"] = lp;
  } else {
    j["logprobs"] = nullptr;
  }
  j["metrics"] = {{"ttft_ms", msOrNull(t.ttft())}, {"tpot_ms", msOrNull(t.tpot())}, {"e2e_ms", msOrNull(t.e2e())},
                  {"prompt_tokens", t.numPromptTokens}, {"output_tokens", t.numOutputTokens}};
  return j;
}

int generate(int argc, char** argv) {
  ArgParser args = makeParser();
  if (!args.parse(argc, argv)) return 0;
  checkArguments(args);
  const bool json = args.has("json");
  const bool progress = isatty(fileno(stderr));
  EngineConfig config;
  args.applyKnobs(config);
  if (config.executor.backend == "sim")  // before loading: a config-only folder has no weights
    throw UsageError("--" + findKnob(knob::kBackend)->flag +
                     " sim: generate needs text, and a simulated engine runs no weights (its tokens are stand-ins); "
                     "simulate with bench or the window");
  const std::string dir = args.value("model") ? *args.value("model") : defaultModelDir();
  auto model = loadModel(dir, [&](double fraction, const std::string& stage) {
    if (progress) std::fprintf(stderr, "\rloading model: %3.0f%% %-40s", fraction * 100, stage.c_str());
  });
  if (progress) std::fprintf(stderr, "\r%-60s\r", "");

  RequestInput input;
  input.sampling = samplingFrom(args, model->generationDefaults);
  input.promptTokenIds = promptFrom(args, *model);
  input.tag = "generate";
  Engine engine(model, config);
  if (int(input.promptTokenIds.size()) >= engine.maxModelLen())
    throw Error("the prompt has " + std::to_string(input.promptTokenIds.size()) + " tokens; " +
                std::string(knob::kMaxModelLen) + " is " + std::to_string(engine.maxModelLen()) +
                " (the prompt must be shorter)");

  const RequestId id = engine.addRequest(input);
  std::string text;
  std::vector<std::vector<std::pair<int, float>>> logprobs;
  while (engine.hasUnfinishedRequests()) {
    for (const TokenDelta& d : engine.step().deltas) {
      if (d.id != id) continue;
      text += d.newText;
      logprobs.insert(logprobs.end(), d.newLogprobs.begin(), d.newLogprobs.end());
      if (!json) {
        std::fputs(d.newText.c_str(), stdout);
        std::fflush(stdout);
      }
    }
  }
  const RequestTimeline& t = *engine.timeline(id);
  if (t.finishReason == FinishReason::Error || t.finishReason == FinishReason::Rejected)
    throw Error("the request failed: " + t.error);
  if (json) {
    const std::vector<int>& all = *engine.outputTokenIds(id);  // prompt, then output
    const std::vector<int> output(all.end() - t.numOutputTokens, all.end());
    nlohmann::json j = resultJson(*model, input.promptTokenIds, output, text, t, logprobs, input.sampling.logprobs > 0);
    if (config.speculative.enabled()) j["metrics"].update(specDecodeJson(t.specDecode, "spec_decode_"));
    std::puts(j.dump().c_str());
  } else {
    std::printf("\n");
    std::fprintf(stderr, "[%s] %d prompt + %d output tokens, TTFT %.1f ms, TPOT %.1f ms\n",
                 finishReasonName(t.finishReason).c_str(), t.numPromptTokens, t.numOutputTokens,
                 t.ttft().value_or(0) * 1e3, t.tpot().value_or(0) * 1e3);
  }
  return 0;
}

}  // namespace

int runGenerate(int argc, char** argv) { return runReportingErrors("generate", generate, argc, argv); }

}  // namespace lwb::app
