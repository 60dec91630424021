#pragma once
// Reads a vLLM KV-event stream (ZeroMQ PUB: topic, 8-byte sequence number, msgpack
// KVEventBatch; see kv_event_codec.h) on its own thread and keeps the remote engine's
// block map. Gaps in the sequence are filled from the publisher's replay socket when
// one is given (vLLM's ROUTER protocol: send the first missing sequence number, get
// [seq, payload] messages until seq -1); at start it asks for everything buffered, so a
// subscriber that joins late still learns the blocks stored before. Malformed messages
// are counted and described in stats(), never thrown from the thread.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "remote/remote_block_map.h"
#include "remote/remote_prefix_miss.h"
#include "wire/zmq_socket.h"

namespace lwb::remote {

struct KvEventSubscriberOptions {
  std::string endpoint;        // the publisher's address: "tcp://gpu-box:5557"
  std::string replayEndpoint;  // its replay (ROUTER) address; "" = none
  std::string topic;           // a prefix filter; "" = every topic
  bool bind = false;           // bind instead (a publisher with a non-wildcard address connects)
  int replayTimeoutMs = 2000;  // longest wait for one replay message
};

struct KvEventSubscriberStats {
  int64_t numBatches = 0;      // applied
  int64_t lastSeq = -1;
  int64_t numMalformed = 0;    // messages skipped because they did not decode
  int64_t numMissed = 0;       // batches lost: a gap the replay could not fill
  int64_t numReplayed = 0;     // batches applied from the replay socket
  int numBlocks = 0;           // in the map now
  std::string lastError;       // "" while all is well
};

class KvEventSubscriber {
 public:
  explicit KvEventSubscriber(KvEventSubscriberOptions options);
  ~KvEventSubscriber();  // stop()
  KvEventSubscriber(const KvEventSubscriber&) = delete;
  KvEventSubscriber& operator=(const KvEventSubscriber&) = delete;

  // Opens the sockets (throws lwb::Error naming a bad address) and starts the thread.
  void start();
  void stop();
  std::string boundEndpoint() const;  // with bind: the address, wildcard port resolved

  RemoteBlockMap blockMap() const;  // a copy, consistent with stats().lastSeq
  KvEventSubscriberStats stats() const;
  // What the events received so far say about the full blocks of a prompt about to be sent.
  RemotePromptLookup lookupPrompt(const std::vector<int>& promptIds) const;

 private:
  struct Sockets;
  void run(std::unique_ptr<Sockets> sockets);
  void handle(Sockets& s, const ZmqMessage& message);
  void fillGap(Sockets& s, int64_t upTo);
  void applyPayload(int64_t seq, const std::vector<uint8_t>& payload, bool replayed);
  void noteError(const std::string& message, bool malformed);

  KvEventSubscriberOptions options_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::string boundEndpoint_;
  mutable std::mutex mu_;  // map_, index_ and stats_
  RemoteBlockMap map_;
  RemotePrefixIndex index_;
  KvEventSubscriberStats stats_;
};

}  // namespace lwb::remote
