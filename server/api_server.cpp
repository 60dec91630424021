// ApiServer: httplib setup (limits, timeouts, threads), authentication, error bodies
// and the serving thread's lifecycle.
#include "server/api_server.h"

#include <sys/socket.h>

#include <filesystem>
#include <thread>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "server/server_context.h"

namespace lwb::server {
namespace {

std::string defaultModelName(const EngineLoop& loop) {
  std::filesystem::path dir = loop.model()->dir;
  if (dir.filename().empty()) dir = dir.parent_path();
  return dir.filename().string();
}

// Equal-time comparison, so the key cannot be guessed byte by byte from response times.
bool sameKey(const std::string& a, const std::string& b) {
  unsigned diff = unsigned(a.size() ^ b.size());
  for (size_t i = 0; i < a.size(); ++i) diff |= unsigned(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

httplib::Server::HandlerResponse authenticate(const ServerContext& ctx, const httplib::Request& req,
                                              httplib::Response& res) {
  if (ctx.options.apiKey.empty() || req.path.rfind("/v1", 0) != 0) return httplib::Server::HandlerResponse::Unhandled;
  if (sameKey(req.get_header_value("Authorization"), "Bearer " + ctx.options.apiKey))
    return httplib::Server::HandlerResponse::Unhandled;
  sendError(res, unauthorized());
  return httplib::Server::HandlerResponse::Handled;
}

// Statuses httplib sets itself (no route, body too large, malformed request) get a JSON body.
httplib::Server::HandlerResponse errorBody(const ServerContext& ctx, const httplib::Request& req,
                                           httplib::Response& res) {
  if (!res.body.empty() || res.is_chunked_content_provider_) return httplib::Server::HandlerResponse::Unhandled;
  if (res.status == 404) sendError(res, notFound("Not Found: " + req.method + " " + req.path));
  else if (res.status == 413) sendError(res, payloadTooLarge(ctx.options.maxBodyBytes));
  else sendError(res, ApiError{res.status, "HTTP error " + std::to_string(res.status), "BadRequestError", {}});
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

struct ApiServer::Impl {
  EngineLoop& loop;
  ServerMetrics metrics;
  RequestHub hub;
  ServerContext ctx;
  httplib::Server http;
  std::thread thread;
  int port = 0;
  int listenFd = -1;  // captured when httplib creates it, to widen its backlog
  std::unique_ptr<KvProducer> kvProducer;
  std::unique_ptr<KvConsumer> kvConsumer;
  int kvPort = 0;

  Impl(EngineLoop& l, ServerOptions o)
      : loop(l),
        metrics(l.maxModelLen()),
        hub(l, metrics),
        ctx{l, hub, metrics, std::move(o), {}} {
    ctx.modelName = ctx.options.servedModelName.empty() ? defaultModelName(l) : ctx.options.servedModelName;
    const KvTransferConfig kv = l.config().kvTransfer;
    if (kv.tcp() && kv.kvRole == "kv_producer") kvProducer = std::make_unique<KvProducer>(l, kv, ctx.options.kvConnector);
    if (kv.tcp() && kv.kvRole == "kv_consumer") kvConsumer = std::make_unique<KvConsumer>(l, kv, ctx.options.kvConnector);
    ctx.kvProducer = kvProducer.get();
    ctx.kvConsumer = kvConsumer.get();
  }
  void configure();
};

void ApiServer::Impl::configure() {
  const ServerOptions& o = ctx.options;
  const int threads = o.numThreads;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  http.set_payload_max_length(o.maxBodyBytes);
  http.set_socket_options([this](socket_t fd) {
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);  // restart without TIME_WAIT trouble
    listenFd = fd;
  });
  http.set_read_timeout(o.readTimeoutSeconds, 0);
  http.set_write_timeout(o.writeTimeoutSeconds, 0);
  http.set_keep_alive_timeout(o.keepAliveSeconds);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return authenticate(ctx, req, res);
  });
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) { return errorBody(ctx, req, res); }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    sendError(res, ApiError{500, what, "InternalServerError", {}});
  });
  addInfoRoutes(http, ctx);
  addCompletionRoutes(http, ctx);
}

ApiServer::ApiServer(EngineLoop& loop, ServerOptions options)
    : impl_(std::make_unique<Impl>(loop, std::move(options))) {
  impl_->configure();
}

ApiServer::~ApiServer() { stop(); }

int ApiServer::start() {
  Impl& d = *impl_;
  check(!d.thread.joinable(), "ApiServer: already serving on " + address());
  // A simulated engine's tokens are stand-ins and its clock virtual: nothing for a client.
  const auto snap = d.ctx.loop.snapshot();
  check(!snap || snap->device.backend != "sim",
        "the API serves a real engine; this one is simulated (" + (snap ? snap->device.name : std::string()) +
            "): its tokens are stand-ins and its clock is virtual");
  const ServerOptions& o = d.ctx.options;
  const bool bound = o.port == 0 ? (d.port = d.http.bind_to_any_port(o.host)) > 0
                                 : d.http.bind_to_port(o.host, o.port) && (d.port = o.port) > 0;
  check(bound, "cannot listen on " + o.host + ":" + std::to_string(o.port) +
                   " (address in use, not a local address, or not permitted)");
  // httplib listens with a backlog of 5: a burst of clients (64 streams connecting at
  // once) would overflow it and see their connections dropped. Linux lets us widen it.
  if (d.listenFd >= 0) ::listen(d.listenFd, SOMAXCONN);
  if (d.kvProducer) d.kvPort = d.kvProducer->start();
  d.ctx.stopping = false;
  d.thread = std::thread([&d] { d.http.listen_after_bind(); });
  for (int i = 0; i < 5000 && !d.http.is_running(); ++i)  // bounded: stop() must see it running
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return d.port;
}

void ApiServer::stop() {
  Impl& d = *impl_;
  if (!d.thread.joinable()) return;
  d.ctx.stopping = true;
  d.hub.abortOpen();  // waiting handlers and streams see their requests finish
  // Bounded grace so every stream can send its "abort" chunk and [DONE] before the
  // sockets close.
  for (int i = 0; i < 500 && (d.hub.numOpen() > 0 || d.ctx.numStreams > 0); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  d.http.stop();
  d.thread.join();
  if (d.kvProducer) d.kvProducer->stop();  // after the routes: no offer comes later
}

bool ApiServer::isRunning() const { return impl_->thread.joinable() && impl_->http.is_running(); }

std::string ApiServer::address() const {
  const std::string& host = impl_->ctx.options.host;
  return "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(impl_->port);
}

const std::string& ApiServer::modelName() const { return impl_->ctx.modelName; }
const ServerMetrics& ApiServer::metrics() const { return impl_->metrics; }
size_t ApiServer::numOpenRequests() const { return impl_->hub.numOpen(); }
int ApiServer::kvPort() const { return impl_->kvPort; }
int ApiServer::numKvTransfersHeld() const { return impl_->kvProducer ? impl_->kvProducer->numHeld() : 0; }
int64_t ApiServer::numKvDroppedConnections() const {
  return impl_->kvProducer ? impl_->kvProducer->numDroppedConnections() : 0;
}

}  // namespace lwb::server
