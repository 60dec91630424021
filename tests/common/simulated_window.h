#pragma once
// The window the simulator's UI tests open: the sim backend (Llama-3-8B's shape on one
// H100, the default sim_hardware), the default layout, shown at 1400 x 900. Null when the
// engine did not attach within `timeoutMs`.
#include <QCoreApplication>
#include <QStandardPaths>
#include <QTest>
#include <memory>

#include "ui/bridge/engine_bridge.h"
#include "ui/main_window.h"
#include "ui/theme.h"

namespace lwb::test {

inline std::unique_ptr<ui::MainWindow> openSimulatedWindow(int timeoutMs = 60000) {
  QStandardPaths::setTestModeEnabled(true);  // autosave and settings stay out of $HOME
  QCoreApplication::setOrganizationName("llm-workbench-test");
  ui::WindowOptions options;
  options.modelDir = QStringLiteral(LWB_SOURCE_DIR "/resources/sim-models/llama-3-8b");
  options.knobs.executor.backend = "sim";
  options.restoreLayout = false;
  ui::theme::apply(*qApp);
  auto window = std::make_unique<ui::MainWindow>(options);
  window->resize(1400, 900);
  window->show();
  if (!QTest::qWaitFor([&] { return window->bridge()->attached() && window->simulated(); }, timeoutMs)) return nullptr;
  return window;
}

}  // namespace lwb::test
