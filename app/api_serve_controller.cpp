#include "app/api_serve_controller.h"

#include <exception>

#include "server/api_server.h"

namespace lwb::app {

ApiServeController::ApiServeController() = default;

ApiServeController::~ApiServeController() { stop(); }

std::string ApiServeController::start(std::shared_ptr<EngineLoop> loop, const std::string& host, int port,
                                      const ui::ServeOptions& options) {
  stop();
  server::ServerOptions o;
  o.host = host;
  o.port = port;
  o.apiKey = options.apiKey;
  try {
    loop_ = std::move(loop);
    server_ = std::make_unique<server::ApiServer>(*loop_, o);
    server_->start();
  } catch (const std::exception& e) {
    stop();
    return e.what();
  }
  return {};
}

void ApiServeController::stop() {
  server_.reset();  // before the loop it serves
  loop_.reset();
}

bool ApiServeController::isRunning() const { return server_ != nullptr; }

std::string ApiServeController::address() const { return server_ ? server_->address() : std::string(); }

}  // namespace lwb::app
