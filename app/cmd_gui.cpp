// `llm-workbench` with no sub-command (or --demo / --model): the window.
#include "app/commands.h"

#include <cstdio>

#ifdef LWB_WITH_GUI
#include <QApplication>
#include <QCommandLineParser>

#include "engine/common/error.h"
#include "engine/exec/executor.h"
#include "ui/main_window.h"
#include "ui/theme.h"

namespace lwb::app {

int runGui(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("llm-workbench"));
  QApplication::setApplicationName(QStringLiteral("llm-workbench"));
  QApplication::setApplicationVersion(QStringLiteral(LWB_VERSION));
  // Wayland/X11 match the window to packaging/io.github.llm_workbench.LlmWorkbench.desktop
  // (its icon and name in the dock / task switcher) by this id.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.llm_workbench.LlmWorkbench"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("LLM Workbench: watch a serving engine work."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption demo(QStringLiteral("demo"), QStringLiteral("Start with a shared-prefix load and a short chat."));
  const QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Model folder (Hugging Face layout) or .gguf file."),
                                 QStringLiteral("DIR"));
  const QCommandLineOption backend(QStringLiteral("backend"), QStringLiteral("auto, cpu or cuda (default auto)."),
                                   QStringLiteral("NAME"), QStringLiteral("auto"));
  const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("CPU threads (0 = all cores)."),
                                   QStringLiteral("N"), QStringLiteral("0"));
  const QCommandLineOption measure(QStringLiteral("measure-seconds"),
                                   QStringLiteral("With --demo: print output tok/s with the window open to stderr "
                                                  "after N seconds, then quit."),
                                   QStringLiteral("N"));
  const QCommandLineOption quantization(QStringLiteral("quantization"),
                                        QStringLiteral("Quantize the weights at load: q8_0 or q4_k (CPU backend)."),
                                        QStringLiteral("TYPE"));
  parser.addOptions({demo, model, backend, threads, quantization, measure});
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "llm-workbench: %s\n", qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) {
    std::printf("%s", qPrintable(parser.helpText()));
    return 0;
  }
  if (parser.isSet(QStringLiteral("version"))) {
    std::printf("llm-workbench %s\n", LWB_VERSION);
    return 0;
  }

  lwb::ui::WindowOptions options;
  options.modelDir = parser.value(model);
  options.backend = parser.value(backend);
  if (options.backend != QLatin1String("auto") && options.backend != QLatin1String("cpu") &&
      options.backend != QLatin1String("cuda")) {
    std::fprintf(stderr, "llm-workbench: --backend: expected auto, cpu or cuda, got '%s'\n", qPrintable(options.backend));
    return 2;
  }
  bool ok = false;
  options.threads = parser.value(threads).toInt(&ok);
  if (!ok || options.threads < 0) {
    std::fprintf(stderr, "llm-workbench: --threads: expected a count >= 0, got '%s'\n", qPrintable(parser.value(threads)));
    return 2;
  }
  options.quantization = parser.value(quantization);
  try {
    lwb::parseQuantization(options.quantization.toStdString());
  } catch (const lwb::Error& e) {
    std::fprintf(stderr, "llm-workbench: %s\n", e.what());
    return 2;
  }
  options.demo = parser.isSet(demo) || parser.isSet(measure);
  if (parser.isSet(measure)) {
    options.measureSeconds = parser.value(measure).toDouble(&ok);
    if (!ok || options.measureSeconds <= 0) {
      std::fprintf(stderr, "llm-workbench: --measure-seconds: expected seconds > 0, got '%s'\n",
                   qPrintable(parser.value(measure)));
      return 2;
    }
  }

  lwb::ui::theme::apply(app);
  lwb::ui::MainWindow window(options);
  window.show();
  return QApplication::exec();
}

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
