#pragma once
// vLLM's KV-cache event publisher for `llm-workbench serve --kv-events-config JSON`:
// the engine's BlockStored / BlockRemoved / AllBlocksCleared batches go out on a
// ZeroMQ PUB socket as (topic, 8-byte big-endian sequence number, msgpack KVEventBatch),
// the last `buffer_steps` batches stay available on an optional ROUTER replay socket,
// exactly as vllm/distributed/kv_events.py's ZmqEventPublisher does, so tools that
// consume vLLM's events consume these. Its own thread; no Qt, no HTTP.
#include <cstdint>
#include <memory>
#include <string>

namespace lwb {
class EngineLoop;
}

namespace lwb::server {

// vLLM's KVEventsConfig (the JSON of --kv-events-config), same field names and defaults.
struct KvEventsConfig {
  bool enableKvCacheEvents = false;
  std::string publisher = "null";          // "zmq" | "null"; "zmq" when enabled and not given
  std::string endpoint = "tcp://*:5557";   // bind with a wildcard, else connect (vLLM's rule)
  std::string replayEndpoint;              // "" = no replay socket
  int bufferSteps = 10000;                 // batches kept for replay
  int hwm = 100000;                        // the PUB socket's send high-water mark
  int maxQueueSize = 100000;               // batches waiting for the publisher thread
  std::string topic;
  bool active() const { return enableKvCacheEvents && publisher == "zmq"; }
};
// Throws lwb::Error naming the field or the JSON error (unknown fields are errors).
KvEventsConfig parseKvEventsConfig(const std::string& json);

class KvEventPublisher {
 public:
  KvEventPublisher(EngineLoop& loop, KvEventsConfig config);
  ~KvEventPublisher();  // stop()
  KvEventPublisher(const KvEventPublisher&) = delete;
  KvEventPublisher& operator=(const KvEventPublisher&) = delete;

  // Opens the sockets (throws lwb::Error naming the address) and starts publishing.
  void start();
  void stop();
  std::string endpoint() const;        // bound address (wildcard port resolved) or the one connected to
  std::string replayEndpoint() const;  // bound address; "" without replay
  int64_t numPublished() const;        // batches sent; the last one's seq is this − 1
  int64_t numEngineDropped() const;    // batches the engine's stream dropped (a slow publisher)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lwb::server
