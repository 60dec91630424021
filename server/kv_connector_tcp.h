#pragma once
// TcpConnector: P/D disaggregation across two `serve` processes, in the manner of vLLM's
// KV connectors, over loopback (a mechanism to watch on one machine, not a distributed
// system). kv_transfer_config names it and this side's role:
//
//  - kv_producer (the prefill instance) listens on kv_ip:kv_port. After a request sent
//    with kv_transfer_params {"do_remote_decode": true} is prefilled, offer() holds the
//    full blocks of its prompt in the pool (a KV hold, so nothing evicts them) and
//    returns the kv_transfer_params of the answer. A Pull for that id reads the blocks,
//    releases the hold and sends them; a hold never pulled is released after
//    holdTimeoutSeconds.
//  - kv_consumer (the decode instance) gets those params with the original request
//    (do_remote_prefill), pulls the blocks (connecting retries until
//    connectTimeoutSeconds, so either process may start first), checks their prefix
//    hashes against its own prompt, writes them into free blocks of its pool under a
//    hold (waiting, bounded, while the pool is full), and registers them under the same
//    hashes: the request's admission then finds them as a prefix-cache hit and computes
//    only the prompt's last, partial block. The route releases the hold once the
//    request is admitted.
//
// The frames are in kv_transfer_frame.h. Engine state is touched only on the engine's
// thread (EngineLoop::runOnEngine).
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "engine/config/kv_transfer_config.h"

namespace lwb {
class EngineLoop;
}

namespace lwb::server {

struct KvConnectorOptions {
  double holdTimeoutSeconds = 120;    // producer: blocks nobody pulled are let go after this
  double connectTimeoutSeconds = 60;  // consumer: how long it retries reaching the producer
  double ioTimeoutSeconds = 30;       // one frame's send or receive; the engine's answer
  double importTimeoutSeconds = 30;   // consumer: how long a request waits for room in the pool
};

class KvProducer {
 public:
  KvProducer(EngineLoop& loop, KvTransferConfig config, KvConnectorOptions options);
  ~KvProducer();  // stop()
  KvProducer(const KvProducer&) = delete;
  KvProducer& operator=(const KvProducer&) = delete;

  // Listens on kv_ip:kv_port; returns the bound port. Throws lwb::Error naming the address.
  int start();
  void stop();  // closes the listener, joins its thread, releases every hold
  // Holds the prompt's cached full blocks for a consumer; the answer's kv_transfer_params.
  nlohmann::json offer(const std::vector<int>& promptTokenIds);
  int numHeld() const;             // offered, not yet pulled or expired
  int64_t numDroppedConnections() const;  // malformed frames, peers gone mid-transfer

 private:
  struct Held {
    std::vector<int> blockIds;
    std::vector<uint64_t> hashes;
    int blockSize = 0;
    double deadline = 0;  // steady-clock seconds
  };
  void serve();
  void serveConnection(int fd);
  void expire();
  void releaseHold(uint64_t id);

  EngineLoop& loop_;
  KvTransferConfig config_;
  KvConnectorOptions options_;
  int listenFd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> numDropped_{0};
  std::thread thread_;
  mutable std::mutex mu_;
  uint64_t nextId_ = 1;
  std::map<uint64_t, Held> held_;
};

// What one pull brought.
struct KvPulled {
  int numBlocks = 0;
  int64_t bytes = 0;     // block data received
  double seconds = 0;    // connect + pull + write into the pool
};

class KvConsumer {
 public:
  KvConsumer(EngineLoop& loop, KvTransferConfig config, KvConnectorOptions options);

  // Pulls the blocks `params` (the producer's kv_transfer_params) name and holds them in
  // this engine's pool under `holdId` (an id no request uses). Throws ApiError: 400 for
  // bad params, 502 when the producer is unreachable or its answer is wrong, 503 when
  // the pool had no room in time.
  KvPulled pull(const nlohmann::json& params, const std::vector<int>& promptTokenIds, int64_t holdId);
  void release(int64_t holdId);  // on the engine thread, asynchronously
  int64_t nextHoldId();          // negative: never a request's id

 private:
  EngineLoop& loop_;
  KvTransferConfig config_;
  KvConnectorOptions options_;
  std::atomic<int64_t> nextHold_{0};
};

// The prompt's full blocks' prefix-cache chain hashes, as the engines compute them; the
// last token is left out (the consumer computes it), as an admission's lookup does.
std::vector<uint64_t> promptBlockHashes(const std::vector<int>& tokens, int blockSize);

}  // namespace lwb::server
