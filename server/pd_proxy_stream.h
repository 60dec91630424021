#pragma once
// The proxy's streamed leg (pd_proxy.h): the decode instance's server-sent events
// relayed to the client chunk by chunk as they arrive.
#include <string>

#include <httplib.h>

namespace lwb::server {

// An instance's non-200 answer, passed through to the client as it came.
struct UpstreamAnswer {
  int status = 0;
  std::string body;
};

// POSTs `body` to `path` on the instance at `upstreamUrl` and answers `res` with what comes back: the
// stream itself once the instance answers 200; its status and body otherwise; a 502
// when it cannot be reached. A client that hangs up ends the upstream request (the
// instance then aborts it).
struct UpstreamTimeouts {
  int connectSeconds = 5;
  int readSeconds = 600;
};
void relayStream(const std::string& upstreamUrl, UpstreamTimeouts timeouts, const std::string& path,
                 const httplib::Headers& headers, const std::string& body, httplib::Response& res);

}  // namespace lwb::server
