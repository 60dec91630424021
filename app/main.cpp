// llm-workbench: the window by default; `generate`, `bench` and `serve` run headless.
#include <cstdio>
#include <cstring>
#include <string>

#include "app/commands.h"

namespace {

const char* kUsage =
    "Usage:\n"
    "  llm-workbench [--demo] [--model DIR] [--lang system|en|ja] [--pd P:D] [engine knobs]\n"
    "                                   open the workbench window (engine knobs: see --help of any of them;\n"
    "                                   --pd: a prefill/decode pair side by side)\n"
    "  llm-workbench --endpoint URL [--api-key KEY] [--served-model-name NAME]\n"
    "                [--kv-events ADDR [--kv-events-replay ADDR]]\n"
    "                                   open the window on a running server (remote mode)\n"
    "  llm-workbench --prefill-endpoint URL --decode-endpoint URL [--api-key KEY]\n"
    "                                   watch a prefill/decode pair's two servers side by side\n"
    "  llm-workbench generate [OPTIONS]  generate text for one prompt (see generate --help)\n"
    "  llm-workbench bench [OPTIONS]     run a synthetic serving benchmark (see bench --help)\n"
    "  llm-workbench serve [OPTIONS]     serve an OpenAI-compatible HTTP API (see serve --help)\n"
    "  llm-workbench proxy --prefill URL --decode URL [--port N]\n"
    "                                   one endpoint in front of a prefill and a decode serve (see proxy --help)\n"
    "  llm-workbench tokenize [OPTIONS]  text or a chat through a model's tokenizer (see tokenize --help)\n"
    "  llm-workbench simulate-step [OPTIONS]\n"
    "                                   one step's predicted time on simulated hardware (see simulate-step --help)\n"
    "  llm-workbench calibrate [OPTIONS] --out FILE\n"
    "                                   time this machine's engine and fit a simulator profile (see calibrate --help)\n"
    "  llm-workbench lesson (--list | NAME [OPTIONS])\n"
    "                                   run a guided experiment and print its finding (see lesson --help)\n"
    "  llm-workbench --version | --help\n"
    "\n"
    "A workbench that runs an LLM inference engine and shows what it does inside:\n"
    "batches, KV-cache blocks, prefix-cache hits, preemption and latency.\n"
    "Without --model the bundled default model is used (LWB_MODEL_DIR overrides it).\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2) {
    const std::string first = argv[1];
    if (first == "--version" || first == "-V") {
      std::printf("llm-workbench %s\n", LWB_VERSION);
      return 0;
    }
    if (first == "--help" || first == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (first == "generate") return lwb::app::runGenerate(argc - 1, argv + 1);
    if (first == "bench") return lwb::app::runBench(argc - 1, argv + 1);
    if (first == "serve") return lwb::app::runServe(argc - 1, argv + 1);
    if (first == "proxy") return lwb::app::runProxy(argc - 1, argv + 1);
    if (first == "tokenize") return lwb::app::runTokenize(argc - 1, argv + 1);
    if (first == "simulate-step") return lwb::app::runSimulateStep(argc - 1, argv + 1);
    if (first == "calibrate") return lwb::app::runCalibrate(argc - 1, argv + 1);
    if (first == "lesson") return lwb::app::runLesson(argc - 1, argv + 1);
    if (first.rfind("--", 0) != 0) {
      std::fprintf(stderr,
                   "llm-workbench: unknown command '%s' (expected generate, bench, serve, proxy, tokenize, simulate-step, calibrate, lesson or options; see --help)\n",
                   argv[1]);
      return 2;
    }
  }
  return lwb::app::runGui(argc, argv);
}
