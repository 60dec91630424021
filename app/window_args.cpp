#include "app/window_args.h"

#include "app/cli/args.h"
#include "ui/main_window.h"

namespace lwb::app {

PdSplit parseWindowPdSplit(const std::string& text, const std::string& backend) {
  const PdSplit split = parsePdSplit(text, backend);
  QString error = lwb::ui::MainWindow::pdSplitError(split.prefill, split.decode, backend);
  if (error.isEmpty()) return split;
  if (error.startsWith(QLatin1String("P:D "))) error.remove(0, 4);  // "9:1: …", named as the flag below
  throw UsageError("--pd " + error.toStdString());
}

}  // namespace lwb::app
