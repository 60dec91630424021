#pragma once
// The window's ServeController (ui/serve_controller.h): the OpenAI-compatible server of
// `llm-workbench serve` (server/api_server.h) on the window's engine, so API traffic shows
// in every view (tagged "api"). In app/ because ui/ must include nothing from server/.
#include <memory>
#include <string>

#include "ui/serve_controller.h"

namespace lwb::server {
class ApiServer;
}

namespace lwb::app {

class ApiServeController : public ui::ServeController {
 public:
  ApiServeController();
  ~ApiServeController() override;  // stop()

  std::string start(std::shared_ptr<EngineLoop> loop, const std::string& host, int port,
                    const ui::ServeOptions& options) override;
  void stop() override;
  bool isRunning() const override;
  std::string address() const override;

 private:
  std::shared_ptr<EngineLoop> loop_;  // kept alive while the server holds it
  std::unique_ptr<server::ApiServer> server_;
};

}  // namespace lwb::app
