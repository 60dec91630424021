#include "remote/kv_event_subscriber.h"

#include <zmq.h>

#include "engine/common/error.h"

namespace lwb::remote {

struct KvEventSubscriber::Sockets {
  ZmqContext ctx;
  ZmqSocket sub{ctx, ZMQ_SUB};
  std::unique_ptr<ZmqSocket> replay;  // DEALER to the publisher's ROUTER
};

KvEventSubscriber::KvEventSubscriber(KvEventSubscriberOptions options) : options_(std::move(options)) {}

KvEventSubscriber::~KvEventSubscriber() { stop(); }

void KvEventSubscriber::start() {
  check(!thread_.joinable(), "KV event subscriber: already started");
  check(!options_.endpoint.empty(), "KV event subscriber: no endpoint (expected e.g. tcp://host:5557)");
  auto s = std::make_unique<Sockets>();
  s->sub.setOption(ZMQ_SUBSCRIBE, options_.topic);
  if (options_.bind) {
    s->sub.bind(options_.endpoint);
    boundEndpoint_ = s->sub.lastEndpoint();
  } else {
    s->sub.connect(options_.endpoint);
  }
  if (!options_.replayEndpoint.empty()) {
    s->replay = std::make_unique<ZmqSocket>(s->ctx, ZMQ_DEALER);
    s->replay->connect(options_.replayEndpoint);
  }
  stop_ = false;
  thread_ = std::thread([this, sockets = std::move(s)]() mutable { run(std::move(sockets)); });
}

void KvEventSubscriber::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string KvEventSubscriber::boundEndpoint() const { return boundEndpoint_; }

RemoteBlockMap KvEventSubscriber::blockMap() const {
  std::lock_guard lock(mu_);
  return map_;
}

KvEventSubscriberStats KvEventSubscriber::stats() const {
  std::lock_guard lock(mu_);
  KvEventSubscriberStats out = stats_;
  out.numBlocks = map_.numBlocks();
  return out;
}

void KvEventSubscriber::run(std::unique_ptr<Sockets> s) {
  try {
    if (s->replay) fillGap(*s, -1);  // whatever the publisher buffered before we came
    while (!stop_) {
      auto message = s->sub.receive(100);
      if (message) handle(*s, *message);
    }
  } catch (const std::exception& e) {  // a socket failed: report, end the thread
    noteError(std::string("KV event subscriber stopped: ") + e.what(), false);
  }
}

void KvEventSubscriber::handle(Sockets& s, const ZmqMessage& m) {
  if (m.size() != 3) {
    noteError("KV event message: expected 3 frames (topic, seq, payload), found " + std::to_string(m.size()), true);
    return;
  }
  int64_t seq = 0;
  try {
    seq = decodeSeq(m[1]);
  } catch (const Error& e) {
    noteError(e.what(), true);
    return;
  }
  int64_t last;
  {
    std::lock_guard lock(mu_);
    last = stats_.lastSeq;
  }
  if (seq <= last) return;  // replayed already
  if (seq > last + 1) fillGap(s, seq);
  applyPayload(seq, m[2], false);
}

// Asks the replay socket for every batch after the last one applied and applies those
// before `upTo` (-1: all it has). What it cannot supply counts as missed.
void KvEventSubscriber::fillGap(Sockets& s, int64_t upTo) {
  int64_t last;
  {
    std::lock_guard lock(mu_);
    last = stats_.lastSeq;
  }
  if (s.replay) {
    s.replay->send({{}, encodeSeq(last + 1)});
    for (;;) {
      auto reply = s.replay->receive(options_.replayTimeoutMs);
      if (!reply) {
        noteError("KV event replay: no answer from " + options_.replayEndpoint + " within " +
                      std::to_string(options_.replayTimeoutMs) + " ms",
                  false);
        break;
      }
      if (reply->size() != 3 || reply->at(1).size() != 8) {
        noteError("KV event replay: expected (empty, seq, payload), found " + std::to_string(reply->size()) +
                      " frames",
                  true);
        continue;
      }
      const int64_t seq = decodeSeq(reply->at(1));
      if (seq < 0) break;  // end of the replay
      const int64_t now = [this] {
        std::lock_guard lock(mu_);
        return stats_.lastSeq;
      }();
      if (seq > now && (upTo < 0 || seq < upTo)) applyPayload(seq, reply->at(2), true);
    }
  }
  if (upTo < 0) return;
  std::lock_guard lock(mu_);
  if (stats_.lastSeq < upTo - 1) {
    stats_.numMissed += upTo - 1 - stats_.lastSeq;
    stats_.lastError = "KV events " + std::to_string(stats_.lastSeq + 1) + ".." + std::to_string(upTo - 1) +
                       " were missed: the block map may be incomplete";
  }
}

void KvEventSubscriber::applyPayload(int64_t seq, const std::vector<uint8_t>& payload, bool replayed) {
  RemoteKvBatch batch;
  std::string error;
  try {
    batch = decodeKvEventBatch(payload);
  } catch (const Error& e) {
    error = "KV event batch " + std::to_string(seq) + ": " + e.what();
  }
  std::lock_guard lock(mu_);
  stats_.lastSeq = seq;
  if (!error.empty()) {
    ++stats_.numMalformed;
    stats_.lastError = error;
    return;
  }
  map_.apply(batch);
  index_.apply(batch);
  ++stats_.numBatches;
  stats_.numReplayed += replayed ? 1 : 0;
}

RemotePromptLookup KvEventSubscriber::lookupPrompt(const std::vector<int>& promptIds) const {
  std::lock_guard lock(mu_);
  return index_.lookup(promptIds);
}

void KvEventSubscriber::noteError(const std::string& message, bool malformed) {
  std::lock_guard lock(mu_);
  stats_.lastError = message;
  stats_.numMalformed += malformed ? 1 : 0;
}

}  // namespace lwb::remote
