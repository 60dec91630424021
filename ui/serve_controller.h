#pragma once
// What the window needs to serve the HTTP API on its engine (Engine ▸ Serve API…). ui/
// and server/ are sibling layers that include nothing of each other, and a view must not
// own a server: the window drives this interface, app/ implements it with the
// OpenAI-compatible server of `llm-workbench serve` (app/api_serve_controller.h) and
// hands it to MainWindow (WindowOptions::serveController).
#include <memory>
#include <string>

namespace lwb {
class EngineLoop;
}

namespace lwb::ui {

struct ServeOptions {
  std::string apiKey;  // "" = no authentication; else every /v1 route needs Bearer
};

class ServeController {
 public:
  virtual ~ServeController() = default;
  // Serves `loop` (kept alive while serving) on host:port (0 = a free port), after
  // stopping what was served before. Returns "" or why it could not start (then nothing
  // is served).
  virtual std::string start(std::shared_ptr<EngineLoop> loop, const std::string& host, int port,
                            const ServeOptions& options) = 0;
  virtual void stop() = 0;  // no-op when not serving
  virtual bool isRunning() const = 0;
  virtual std::string address() const = 0;  // "http://127.0.0.1:8000"; "" when not serving
};

}  // namespace lwb::ui
