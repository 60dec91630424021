// `llm-workbench` with no sub-command (or --demo / --model): the window.
#include "app/commands.h"

#include <cstdio>

#ifdef LWB_WITH_GUI
#include <QApplication>

#include "app/cli/args.h"
#include "ui/main_window.h"
#include "ui/theme.h"

namespace lwb::app {

namespace {

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
  parser.flag("demo", "start with a shared-prefix load and a short chat");
  parser.option("model", "DIR", "model folder (Hugging Face layout) or .gguf file");
  parser.option("measure-seconds", "N",
                "with --demo: print output tok/s with the window open to stderr after N seconds, then quit");
  parser.knobOptions("Engine knobs (vLLM names; the Knobs panel changes them later)");
  if (!parser.parse(argc, argv)) return 0;
  if (parser.has("version")) {
    std::printf("llm-workbench %s\n", LWB_VERSION);
    return 0;
  }
  lwb::ui::WindowOptions options;
  options.modelDir = QString::fromStdString(parser.stringOr("model", ""));
  parser.applyKnobs(options.knobs);
  options.demo = parser.has("demo") || parser.has("measure-seconds");
  if (parser.has("measure-seconds")) options.measureSeconds = parser.number("measure-seconds", 0, 1e-3, 1e9);

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
