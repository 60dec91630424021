// PdProxy: the two-step request flow, /health, /v1/models, pass-through of errors.
#include "server/pd_proxy.h"

#include <sys/socket.h>

#include <thread>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "server/pd_proxy_stream.h"
#include "server/server_context.h"

namespace lwb::server {
namespace {

using nlohmann::json;

// "http://host:port" (no path): httplib's client takes it whole.
std::string checkedUrl(const std::string& url, const char* which) {
  const bool ok = url.rfind("http://", 0) == 0 && url.size() > 7 && url.find('/', 7) == std::string::npos;
  check(ok, std::string("--") + which + " '" + url + "': expected http://HOST:PORT (no path)");
  return url;
}

ApiError unreachable(const std::string& which, const std::string& url, const std::string& why) {
  return ApiError{502, "the " + which + " instance at " + url + " did not answer: " + why, "BadGatewayError", {}};
}

}  // namespace

struct PdProxy::Impl {
  PdProxyOptions o;
  httplib::Server http;
  std::thread thread;
  int port = 0;

  httplib::Client client(const std::string& url, int readSeconds) const {
    httplib::Client c(url);
    c.set_connection_timeout(o.connectTimeoutSeconds, 0);
    c.set_read_timeout(readSeconds, 0);
    c.set_write_timeout(readSeconds, 0);
    return c;
  }
  httplib::Headers forwardHeaders(const httplib::Request& req) const {
    httplib::Headers h;
    if (req.has_header("Authorization")) h.emplace("Authorization", req.get_header_value("Authorization"));
    return h;
  }
  void health(httplib::Response& res);
  void models(const httplib::Request& req, httplib::Response& res);
  void completion(const httplib::Request& req, httplib::Response& res);
  // The prefill step: the answer's kv_transfer_params, or an error the client gets.
  json prefill(const httplib::Request& req, json body);
  void configure();
};

void PdProxy::Impl::health(httplib::Response& res) {
  std::string down;
  for (const auto& [name, url] : {std::pair<std::string, std::string>{"prefill", o.prefillUrl}, {"decode", o.decodeUrl}}) {
    httplib::Client c = client(url, 5);
    const httplib::Result r = c.Get("/health");
    if (!r || r->status != 200)
      down += (down.empty() ? "" : "; ") + name + " instance at " + url + " " +
              (r ? "answered " + std::to_string(r->status) : "is unreachable (" + httplib::to_string(r.error()) + ")");
  }
  if (down.empty()) return void(res.status = 200);
  sendError(res, ApiError{503, "not ready: " + down, "ServiceUnavailableError", {}});
}

void PdProxy::Impl::models(const httplib::Request& req, httplib::Response& res) {
  httplib::Client c = client(o.decodeUrl, o.upstreamTimeoutSeconds);
  const httplib::Result r = c.Get("/v1/models", forwardHeaders(req));
  if (!r) return sendError(res, unreachable("decode", o.decodeUrl, httplib::to_string(r.error())));
  res.status = r->status;
  res.set_content(r->body, r->get_header_value("Content-Type").empty() ? "application/json"
                                                                        : r->get_header_value("Content-Type"));
}

json PdProxy::Impl::prefill(const httplib::Request& req, json body) {
  body["max_tokens"] = 1;  // as vLLM's proxy: the prefill instance samples one token
  if (body.contains("max_completion_tokens")) body["max_completion_tokens"] = 1;
  body.erase("min_tokens");
  body["stream"] = false;
  body.erase("stream_options");
  body["kv_transfer_params"] = {{"do_remote_decode", true}, {"do_remote_prefill", false}};
  httplib::Client c = client(o.prefillUrl, o.upstreamTimeoutSeconds);
  const httplib::Result r = c.Post(req.path.c_str(), forwardHeaders(req), body.dump(), "application/json");
  if (!r) throw unreachable("prefill", o.prefillUrl, httplib::to_string(r.error()));
  if (r->status != 200) throw UpstreamAnswer{r->status, r->body};
  const json answer = parseJsonOrDiscarded(r->body);
  if (answer.is_discarded() || !answer.contains("kv_transfer_params") || !answer["kv_transfer_params"].is_object())
    throw ApiError{502,
                   "the prefill instance at " + o.prefillUrl +
                       " answered without kv_transfer_params (is it a serve with kv_role kv_producer?)",
                   "BadGatewayError", {}};
  return answer["kv_transfer_params"];
}

void PdProxy::Impl::completion(const httplib::Request& req, httplib::Response& res) {
  try {
    json body = parseJsonOrDiscarded(req.body);
    if (body.is_discarded() || !body.is_object()) throw badRequest("the request body must be a JSON object");
    body["kv_transfer_params"] = prefill(req, body);
    const bool stream = body.contains("stream") && body["stream"].is_boolean() && body["stream"].get<bool>();
    if (stream)
      return relayStream(o.decodeUrl, {o.connectTimeoutSeconds, o.upstreamTimeoutSeconds}, req.path,
                         forwardHeaders(req), body.dump(), res);
    httplib::Client c = client(o.decodeUrl, o.upstreamTimeoutSeconds);
    const httplib::Result r = c.Post(req.path.c_str(), forwardHeaders(req), body.dump(), "application/json");
    if (!r) throw unreachable("decode", o.decodeUrl, httplib::to_string(r.error()));
    res.status = r->status;
    res.set_content(r->body, "application/json");
  } catch (const UpstreamAnswer& u) {
    res.status = u.status;
    res.set_content(u.body, "application/json");
  } catch (const ApiError& e) {
    sendError(res, e);
  }
}

void PdProxy::Impl::configure() {
  http.new_task_queue = [] { return new httplib::ThreadPool(64); };
  http.set_read_timeout(o.upstreamTimeoutSeconds, 0);
  http.set_write_timeout(o.upstreamTimeoutSeconds, 0);
  http.set_socket_options([](socket_t fd) {
    const int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
  http.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) { models(req, res); });
  for (const char* path : {"/v1/completions", "/v1/chat/completions"})
    http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { completion(req, res); });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty() && res.status == 404) sendError(res, notFound("Not Found: " + req.method + " " + req.path));
  });
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
}

PdProxy::PdProxy(PdProxyOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
  checkedUrl(impl_->o.prefillUrl, "prefill");
  checkedUrl(impl_->o.decodeUrl, "decode");
  impl_->configure();
}

PdProxy::~PdProxy() { stop(); }

int PdProxy::start() {
  Impl& d = *impl_;
  check(!d.thread.joinable(), "proxy: already serving on " + address());
  const bool bound = d.o.port == 0 ? (d.port = d.http.bind_to_any_port(d.o.host)) > 0
                                   : d.http.bind_to_port(d.o.host, d.o.port) && (d.port = d.o.port) > 0;
  check(bound, "proxy: cannot listen on " + d.o.host + ":" + std::to_string(d.o.port) +
                   " (address in use, not a local address, or not permitted)");
  d.thread = std::thread([&d] { d.http.listen_after_bind(); });
  for (int i = 0; i < 5000 && !d.http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return d.port;
}

void PdProxy::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->http.stop();
  impl_->thread.join();
}

std::string PdProxy::address() const {
  const std::string& host = impl_->o.host;
  return "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(impl_->port);
}

}  // namespace lwb::server
