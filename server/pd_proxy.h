#pragma once
// `llm-workbench proxy`: what vLLM's toy disaggregation proxy does, in front of a
// prefill (kv_producer) and a decode (kv_consumer) `serve` instance. Each
// /v1/completions or /v1/chat/completions request goes first to the prefill instance
// with max_tokens 1, "stream": false and kv_transfer_params {"do_remote_decode": true};
// the kv_transfer_params of its answer then ride with the original request to the decode
// instance, whose answer (a stream too) goes back to the client as it comes. /v1/models
// goes to the decode instance; /health answers 200 once both instances answer theirs,
// 503 naming the one that does not. An instance's error passes through (status and
// body); one that cannot be reached is a 502 in OpenAI's error shape. The client sees one
// ordinary server.
#include <memory>
#include <string>

namespace lwb::server {

struct PdProxyOptions {
  std::string prefillUrl;           // "http://127.0.0.1:8100"
  std::string decodeUrl;            // "http://127.0.0.1:8200"
  std::string host = "127.0.0.1";
  int port = 8000;                  // 0 = an ephemeral port (tests)
  int upstreamTimeoutSeconds = 600; // one instance's answer (a long generation included)
  int connectTimeoutSeconds = 5;
};

class PdProxy {
 public:
  explicit PdProxy(PdProxyOptions options);  // throws lwb::Error naming a bad URL
  ~PdProxy();                                // stop()
  PdProxy(const PdProxy&) = delete;
  PdProxy& operator=(const PdProxy&) = delete;

  int start();  // binds, serves on a background thread; returns the port (throws lwb::Error)
  void stop();
  std::string address() const;  // "http://127.0.0.1:8000"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb::server
