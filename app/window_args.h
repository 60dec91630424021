#pragma once
// The window's command-line values that the window itself validates (app/cmd_gui.cpp);
// in lwb_app (built with the window) so the tests parse them as the program does.
#include <string>

#include "app/cli/bench_options.h"

namespace lwb::app {

// --pd P:D for the window: parsePdSplit's checks, then the window's own (on the sim at
// most MainWindow::kMaxSimPdInstances per side); a UsageError naming the value if not.
PdSplit parseWindowPdSplit(const std::string& text, const std::string& backend);

}  // namespace lwb::app
