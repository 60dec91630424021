#include "server/kv_event_publisher.h"

#include <zmq.h>

#include <atomic>
#include <cstdio>
#include <deque>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/engine_loop.h"
#include "wire/kv_event_codec.h"
#include "wire/zmq_socket.h"

namespace lwb::server {

using nlohmann::json;
using remote::ZmqSocket;

namespace {

template <typename T>
T field(const json& j, const char* name, const char* expected) {
  try {
    return j.at(name).get<T>();
  } catch (const json::exception&) {
    throw Error(std::string("--kv-events-config: \"") + name + "\" is " + j.at(name).dump() + "; expected " + expected);
  }
}

void checkPositive(int v, const char* name) {
  check(v >= 1, std::string("--kv-events-config: \"") + name + "\" is " + std::to_string(v) + "; expected >= 1");
}

}  // namespace

KvEventsConfig parseKvEventsConfig(const std::string& text) {
  json j;
  try {
    j = parseJson(text);
  } catch (const json::exception& e) {
    throw Error(std::string("--kv-events-config: not JSON: ") + e.what());
  }
  check(j.is_object(), "--kv-events-config: expected a JSON object, found " + std::string(j.type_name()));
  KvEventsConfig c;
  bool publisherGiven = false;
  for (const auto& [key, value] : j.items()) {
    if (key == "enable_kv_cache_events") c.enableKvCacheEvents = field<bool>(j, "enable_kv_cache_events", "true or false");
    else if (key == "publisher") {
      c.publisher = field<std::string>(j, "publisher", "\"zmq\" or \"null\"");
      publisherGiven = true;
    }
    else if (key == "endpoint") c.endpoint = field<std::string>(j, "endpoint", "a ZeroMQ address");
    else if (key == "replay_endpoint") c.replayEndpoint = value.is_null() ? "" : field<std::string>(j, "replay_endpoint", "a ZeroMQ address or null");
    else if (key == "buffer_steps") c.bufferSteps = field<int>(j, "buffer_steps", "an integer");
    else if (key == "hwm") c.hwm = field<int>(j, "hwm", "an integer");
    else if (key == "max_queue_size") c.maxQueueSize = field<int>(j, "max_queue_size", "an integer");
    else if (key == "topic") c.topic = field<std::string>(j, "topic", "a string");
    else
      throw Error("--kv-events-config: unknown field \"" + key +
                  "\" (expected enable_kv_cache_events, publisher, endpoint, replay_endpoint, buffer_steps, hwm, "
                  "max_queue_size, topic)");
  }
  if (!publisherGiven && c.enableKvCacheEvents) c.publisher = "zmq";  // vLLM's default when enabled
  check(c.publisher == "zmq" || c.publisher == "null",
        "--kv-events-config: \"publisher\" is \"" + c.publisher + "\"; expected \"zmq\" or \"null\"");
  checkPositive(c.bufferSteps, "buffer_steps");
  checkPositive(c.hwm, "hwm");
  checkPositive(c.maxQueueSize, "max_queue_size");
  return c;
}

struct KvEventPublisher::Impl {
  EngineLoop& loop;
  KvEventsConfig config;
  std::string medium;  // where the blocks live: "GPU" on CUDA, else "CPU"
  std::shared_ptr<KvEventStream> stream;
  std::unique_ptr<remote::ZmqContext> ctx;
  std::unique_ptr<ZmqSocket> pub, replay;
  std::string endpoint, replayEndpoint;
  std::deque<std::pair<int64_t, std::vector<uint8_t>>> buffer;  // (seq, payload) for replay
  std::atomic<int64_t> numPublished{0};
  std::atomic<bool> stop{false};
  std::thread thread;

  Impl(EngineLoop& l, KvEventsConfig c) : loop(l), config(std::move(c)) {}
  void openSockets();
  void run();
  void publish(const KvEventBatch& batch);
  void serviceReplay();
};

void KvEventPublisher::Impl::openSockets() {
  ctx = std::make_unique<remote::ZmqContext>();
  pub = std::make_unique<ZmqSocket>(*ctx, ZMQ_PUB);
  pub->setOption(ZMQ_SNDHWM, config.hwm);
  if (remote::zmqEndpointBinds(config.endpoint)) {
    pub->bind(config.endpoint);
    endpoint = pub->lastEndpoint();
  } else {
    pub->connect(config.endpoint);
    endpoint = config.endpoint;
  }
  if (!config.replayEndpoint.empty()) {
    replay = std::make_unique<ZmqSocket>(*ctx, ZMQ_ROUTER);
    replay->bind(config.replayEndpoint);
    replayEndpoint = replay->lastEndpoint();
  }
}

void KvEventPublisher::Impl::publish(const KvEventBatch& batch) {
  const int64_t seq = numPublished.load();
  std::vector<uint8_t> payload = remote::encodeKvEventBatch(batch, medium, 0);
  const std::string& t = config.topic;
  pub->send({std::vector<uint8_t>(t.begin(), t.end()), remote::encodeSeq(seq), payload});  // PUB drops at its HWM
  buffer.emplace_back(seq, std::move(payload));
  while (buffer.size() > size_t(config.bufferSteps)) buffer.pop_front();
  numPublished = seq + 1;
}

// vLLM's replay protocol: [client, "", start seq] in; [client, "", seq, payload] for each
// buffered batch from there, then [client, "", -1, ""].
void KvEventPublisher::Impl::serviceReplay() {
  while (auto request = replay->receive(0)) {
    if (request->size() != 3 || request->at(2).size() != 8) continue;  // not a replay request
    const std::vector<uint8_t>& client = request->at(0);
    const int64_t start = remote::decodeSeq(request->at(2));
    for (const auto& [seq, payload] : buffer)
      if (seq >= start) replay->send({client, {}, remote::encodeSeq(seq), payload});
    replay->send({client, {}, remote::encodeSeq(-1), {}});
  }
}

void KvEventPublisher::Impl::run() {
  while (!stop) {
    if (replay) serviceReplay();
    for (const KvEventBatch& b : stream->waitAndDrain(std::chrono::milliseconds(20))) publish(b);
  }
  for (const KvEventBatch& b : stream->waitAndDrain(std::chrono::milliseconds(0))) publish(b);  // flush
}

KvEventPublisher::KvEventPublisher(EngineLoop& loop, KvEventsConfig config)
    : impl_(std::make_unique<Impl>(loop, std::move(config))) {}

KvEventPublisher::~KvEventPublisher() { stop(); }

void KvEventPublisher::start() {
  Impl& d = *impl_;
  check(!d.thread.joinable(), "KV event publisher: already started");
  d.openSockets();
  const auto snap = d.loop.snapshot();
  d.medium = snap && snap->device.gpu() ? "GPU" : "CPU";
  d.stream = d.loop.subscribeKvEvents(size_t(d.config.maxQueueSize));
  d.stop = false;
  d.thread = std::thread([&d] {
    try {
      d.run();
    } catch (const std::exception& e) {  // a socket failed: say so once, stop publishing
      std::fprintf(stderr, "ERROR KV event publisher stopped: %s\n", e.what());
    }
  });
}

void KvEventPublisher::stop() {
  Impl& d = *impl_;
  d.stop = true;
  if (d.thread.joinable()) d.thread.join();
  d.stream.reset();  // the engine stops recording
  d.replay.reset();
  d.pub.reset();
  d.ctx.reset();
}

std::string KvEventPublisher::endpoint() const { return impl_->endpoint; }
std::string KvEventPublisher::replayEndpoint() const { return impl_->replayEndpoint; }
int64_t KvEventPublisher::numPublished() const { return impl_->numPublished; }
int64_t KvEventPublisher::numEngineDropped() const { return impl_->stream ? int64_t(impl_->stream->numDropped()) : 0; }

}  // namespace lwb::server
