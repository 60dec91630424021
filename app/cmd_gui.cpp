// `llm-workbench` with no sub-command (or --demo / --model): the window.
#include "app/commands.h"

#include <cstdio>

#ifdef LWB_WITH_GUI
#include <QApplication>

#include "app/api_serve_controller.h"
#include "app/cli/args.h"
#include "app/cli/bench_options.h"
#include "app/window_args.h"
#include "ui/language.h"
#include "ui/main_window.h"
#include "ui/remote/remote_pair_window.h"
#include "ui/remote/remote_window.h"
#include "ui/theme.h"

namespace lwb::app {

namespace {

// --lang for this run, else the choice saved by View ▸ Language, else the system locale.
void installWindowLanguage(const ArgParser& parser) {
  const QString choice = parser.has("lang") ? QString::fromStdString(parser.stringOr("lang", "")) : lwb::ui::savedLanguage();
  if (!lwb::ui::languageChoices().contains(choice))
    throw UsageError("--lang " + choice.toStdString() + ": expected system, en or ja");
  const QString lang = lwb::ui::resolveLanguage(choice);
  if (!lwb::ui::installLanguage(lang))
    std::fprintf(stderr, "llm-workbench: no '%s' translation built in; the window stays in English\n", qPrintable(lang));
}

int gui(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("llm-workbench"));
  QApplication::setApplicationName(QStringLiteral("llm-workbench"));
  QApplication::setApplicationVersion(QStringLiteral(LWB_VERSION));
  // Wayland/X11 match the window to packaging/io.github.llm_workbench.LlmWorkbench.desktop
  // (its icon and name in the dock / task switcher) by this id.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.llm_workbench.LlmWorkbench"));

  // QApplication took its own arguments (-platform, -style, ...) out of argc/argv.
  ArgParser parser("llm-workbench", "llm-workbench [options]", "LLM Workbench: watch a serving engine work.");
  parser.flag("version", "print the version and exit");
  parser.flag("demo", "open on the first lesson, then a shared-prefix load and a short chat");
  parser.option("model", "DIR", "model folder (Hugging Face layout) or .gguf file");
  parser.option("measure-seconds", "N",
                "with --demo: print output tok/s with the window open to stderr after N seconds, then quit");
  parser.option("endpoint", "URL", "open on a running OpenAI-compatible server (remote mode)");
  parser.option("api-key", "KEY", "with --endpoint: the server's API key");
  parser.option("served-model-name", "NAME", "with --endpoint: the model to use (default: the first listed)");
  parser.option("kv-events", "ADDR",
                "with --endpoint: the server's KV-event address (vLLM's --kv-events-config endpoint) for its block map");
  parser.option("kv-events-replay", "ADDR", "with --kv-events: its replay address");
  parser.option("lang", "LANG", "the window's language: system, en or ja (default: View > Language, else system)");
  parser.option("prefill-endpoint", "URL", "with --decode-endpoint: watch a prefill/decode pair's two servers side by side");
  parser.option("decode-endpoint", "URL", "with --prefill-endpoint: the pair's decode server");
  parser.option("pd", "P:D", "start a prefill/decode pair: prefill and decode instances, the KV blocks copied\n"
                            "between them (CPU: one of each, P and D threads; sim: P and D simulated GPUs, each 1..8)");
  parser.knobOptions("Engine knobs (vLLM names; the Knobs panel changes them later)");
  if (!parser.parse(argc, argv)) return 0;
  if (parser.has("version")) {
    std::printf("llm-workbench %s\n", LWB_VERSION);
    return 0;
  }
  installWindowLanguage(parser);

  if (parser.has("prefill-endpoint") || parser.has("decode-endpoint")) {
    if (!parser.has("prefill-endpoint") || !parser.has("decode-endpoint") || parser.has("endpoint"))
      throw UsageError("--prefill-endpoint and --decode-endpoint: give both (and no --endpoint)");
    lwb::ui::theme::apply(app);
    auto value = [&parser](const char* name) { return QString::fromStdString(parser.stringOr(name, "")); };
    const lwb::ui::RemoteOptions prefill{value("prefill-endpoint"), value("api-key"), value("served-model-name")};
    const lwb::ui::RemoteOptions decode{value("decode-endpoint"), value("api-key"), value("served-model-name")};
    lwb::ui::RemotePairWindow window(prefill, decode);
    window.show();
    return QApplication::exec();
  }

  if (parser.has("endpoint")) {
    lwb::ui::theme::apply(app);
    auto value = [&parser](const char* name) { return QString::fromStdString(parser.stringOr(name, "")); };
    lwb::ui::RemoteOptions remote{value("endpoint"), value("api-key"), value("served-model-name")};
    remote.kvEventsEndpoint = value("kv-events");
    remote.kvEventsReplayEndpoint = value("kv-events-replay");
    lwb::ui::RemoteWindow window(remote);
    window.show();
    return QApplication::exec();
  }

  lwb::ui::WindowOptions options;
  options.modelDir = QString::fromStdString(parser.stringOr("model", ""));
  parser.applyKnobs(options.knobs);
  options.demo = parser.has("demo") || parser.has("measure-seconds");
  if (parser.has("pd")) {
    const PdSplit split = parseWindowPdSplit(parser.stringOr("pd", ""), options.knobs.executor.backend);
    options.pdPrefill = split.prefill;
    options.pdDecode = split.decode;
  }
  if (parser.has("measure-seconds")) options.measureSeconds = parser.number("measure-seconds", 0, 1e-3, 1e9);
  options.serveController = std::make_shared<ApiServeController>();

  lwb::ui::theme::apply(app);
  lwb::ui::MainWindow window(options);
  window.show();
  return QApplication::exec();
}

}  // namespace

int runGui(int argc, char** argv) { return runReportingErrors("", gui, argc, argv); }

}  // namespace lwb::app

#else

namespace lwb::app {

int runGui(int, char**) {
  std::fprintf(stderr,
               "llm-workbench was built without the GUI (LLM_WORKBENCH_GUI=OFF); use the `generate` or "
               "`bench` sub-commands\n");
  return 1;
}

}  // namespace lwb::app

#endif
