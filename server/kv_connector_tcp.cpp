#include "server/kv_connector_tcp.h"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <future>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/engine_loop.h"
#include "engine/exec/executor.h"
#include "engine/kv/block_pool.h"
#include "engine/kv/kv_cache_manager.h"
#include "server/api_error.h"
#include "server/kv_transfer_frame.h"

namespace lwb::server {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double nowSeconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

void logLine(const std::string& line) {
  std::fprintf(stderr, "INFO kv_transfer: %s\n", line.c_str());
  std::fflush(stderr);
}

// Runs fn on the engine's thread and waits (bounded) for its result.
template <typename T>
T onEngine(EngineLoop& loop, std::function<T(Engine&)> fn, double timeoutSeconds) {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> result = promise->get_future();
  loop.runOnEngine([promise, fn](Engine& e) {
    try {
      promise->set_value(fn(e));
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  });
  if (result.wait_for(std::chrono::duration<double>(timeoutSeconds)) != std::future_status::ready)
    throw Error("kv transfer: the engine did not answer within " + std::to_string(int(timeoutSeconds)) + " s");
  return result.get();
}

ApiError badGateway(const std::string& message) { return ApiError{502, message, "BadGatewayError", {}}; }

}  // namespace

std::vector<uint64_t> promptBlockHashes(const std::vector<int>& tokens, int blockSize) {
  std::vector<uint64_t> out;
  uint64_t parent = 0;
  for (size_t i = 0; blockSize > 0 && (i + 1) * size_t(blockSize) < tokens.size(); ++i) {
    parent = hashBlockTokens(parent, tokens.data() + i * size_t(blockSize), blockSize);
    out.push_back(parent);
  }
  return out;
}

// ---- producer ----

KvProducer::KvProducer(EngineLoop& loop, KvTransferConfig config, KvConnectorOptions options)
    : loop_(loop), config_(std::move(config)), options_(options) {}

KvProducer::~KvProducer() { stop(); }

int KvProducer::start() {
  listenFd_ = listenTcp(config_.kvIp, config_.kvPort, &port_);
  check(listenFd_ >= 0, std::string(knob::kKvTransferConfig) + ": the kv_producer cannot listen on " + config_.kvIp + ":" +
                            std::to_string(config_.kvPort) + " (kv_ip, kv_port: address in use or not local)");
  stop_ = false;
  thread_ = std::thread([this] { serve(); });
  return port_;
}

void KvProducer::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  thread_.join();
  closeSocket(listenFd_);
  listenFd_ = -1;
  std::map<uint64_t, Held> left;
  {
    std::lock_guard lock(mu_);
    left.swap(held_);
  }
  for (const auto& entry : left) {
    const int64_t hold = -int64_t(entry.first);
    loop_.runOnEngine([hold](Engine& e) { e.releaseKvHold(hold); });
  }
}

int KvProducer::numHeld() const {
  std::lock_guard lock(mu_);
  return int(held_.size());
}

int64_t KvProducer::numDroppedConnections() const { return numDropped_; }

json KvProducer::offer(const std::vector<int>& tokens) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = nextId_++;
  }
  const int64_t hold = -int64_t(id);
  Held h = onEngine<Held>(
      loop_,
      [tokens, hold](Engine& e) {
        Held got;
        got.blockSize = e.kvBlockSize();
        const int n = int(e.cachedPrefixBlockIds(tokens).size());
        if (n == 0) return got;
        std::optional<KvImport> kept = e.importKvPrefix(hold, tokens, n);  // all cached: a hold, no copy
        if (kept && kept->numNew() == 0) got.blockIds = kept->blockIds;
        else if (kept) e.releaseKvHold(hold);
        got.hashes = promptBlockHashes(tokens, got.blockSize);
        got.hashes.resize(got.blockIds.size());
        return got;
      },
      options_.ioTimeoutSeconds);
  h.deadline = nowSeconds() + options_.holdTimeoutSeconds;
  json params = {{"do_remote_prefill", true},  {"do_remote_decode", false},
                 {"remote_request_id", id},    {"remote_host", config_.kvIp},
                 {"remote_port", port_},       {"remote_block_ids", h.blockIds},
                 {"remote_num_blocks", h.blockIds.size()}};
  if (!h.blockIds.empty()) {
    std::lock_guard lock(mu_);
    held_[id] = std::move(h);
  }
  return params;
}

void KvProducer::releaseHold(uint64_t id) {
  const int64_t hold = -int64_t(id);
  loop_.runOnEngine([hold](Engine& e) { e.releaseKvHold(hold); });
}

void KvProducer::expire() {
  const double now = nowSeconds();
  std::vector<uint64_t> gone;
  {
    std::lock_guard lock(mu_);
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->second.deadline > now) {
        ++it;
        continue;
      }
      gone.push_back(it->first);
      it = held_.erase(it);
    }
  }
  for (uint64_t id : gone) {
    logLine("transfer " + std::to_string(id) + " was never pulled; its blocks are released");
    releaseHold(id);
  }
}

// One connection at a time: loopback, one consumer. The poll's timeout paces expiry.
void KvProducer::serve() {
  while (!stop_) {
    pollfd p{listenFd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    expire();
    if (ready <= 0 || !(p.revents & POLLIN)) continue;
    const int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    setSocketTimeouts(fd, options_.ioTimeoutSeconds);
    try {
      serveConnection(fd);
    } catch (const std::exception& e) {
      ++numDropped_;
      logLine(std::string("dropped a connection: ") + e.what());
    }
    closeSocket(fd);
  }
}

void KvProducer::serveConnection(int fd) {
  const KvFrame pull = receiveKvFrame(fd);
  if (pull.type != KvFrameType::Pull) {
    KvFrame err{KvFrameType::Error, pull.requestId, 0, 0, {}, "expected a Pull frame (type 1)"};
    sendKvFrame(fd, err);
    throw Error("kv transfer: a frame of type " + std::to_string(int(pull.type)) + " where a Pull was expected");
  }
  Held h;
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(pull.requestId);
    if (it != held_.end()) {
      h = std::move(it->second);
      held_.erase(it);
    }
  }
  if (h.blockIds.empty()) {
    KvFrame err{KvFrameType::Error, pull.requestId, 0, 0, {},
                "no blocks held for transfer " + std::to_string(pull.requestId) +
                    " (never offered, already pulled, or released after " +
                    std::to_string(int(options_.holdTimeoutSeconds)) + " s)"};
    sendKvFrame(fd, err);
    return;
  }
  const int64_t hold = -int64_t(pull.requestId);
  const std::vector<int> ids = h.blockIds;
  KvFrame blocks{KvFrameType::Blocks, pull.requestId, 0, uint32_t(h.blockSize), h.hashes, {}};
  // The read and the release in one engine call: the hold ends whatever happens next.
  blocks.data = onEngine<std::string>(
      loop_,
      [ids, hold](Engine& e) {
        const size_t per = e.executor().kvBytesPerBlock(e.kvBlockSize());
        std::string data(per * ids.size(), '\0');
        for (size_t i = 0; i < ids.size(); ++i) e.executor().readKvBlock(ids[i], data.data() + i * per);
        e.releaseKvHold(hold);
        return data;
      },
      options_.ioTimeoutSeconds);
  blocks.blockBytes = uint32_t(blocks.data.size() / ids.size());
  sendKvFrame(fd, blocks);
}

// ---- consumer ----

KvConsumer::KvConsumer(EngineLoop& loop, KvTransferConfig config, KvConnectorOptions options)
    : loop_(loop), config_(std::move(config)), options_(options) {}

int64_t KvConsumer::nextHoldId() { return -(++nextHold_); }

void KvConsumer::release(int64_t holdId) {
  loop_.runOnEngine([holdId](Engine& e) { e.releaseKvHold(holdId); });
}

namespace {

struct PullTarget {
  std::string host;
  int port = 0;
  uint64_t id = 0;
  int numBlocks = 0;
};

PullTarget targetOf(const json& params, const KvTransferConfig& config) {
  auto bad = [](const std::string& key, const json& v, const std::string& expected) {
    return badRequest("kv_transfer_params." + key + ": " + v.dump() + "; expected " + expected,
                      "kv_transfer_params");
  };
  PullTarget t{config.kvIp, config.kvPort, 0, 0};
  if (params.contains("remote_host") && !params["remote_host"].is_null()) {
    if (!params["remote_host"].is_string()) throw bad("remote_host", params["remote_host"], "a string");
    t.host = params["remote_host"].get<std::string>();
  }
  if (params.contains("remote_port") && !params["remote_port"].is_null()) {
    const json& p = params["remote_port"];
    if (!p.is_number_integer() || p.get<int64_t>() < 1 || p.get<int64_t>() > 65535)
      throw bad("remote_port", p, "an integer in 1..65535");
    t.port = p.get<int>();
  }
  const json id = params.value("remote_request_id", json());
  if (id.is_number_unsigned()) t.id = id.get<uint64_t>();
  else if (id.is_string() && !id.get<std::string>().empty() &&
           id.get<std::string>().find_first_not_of("0123456789") == std::string::npos)
    t.id = std::stoull(id.get<std::string>());
  else throw bad("remote_request_id", id, "the producer's id (an unsigned integer)");
  const json n = params.value("remote_num_blocks", json(-1));
  if (!n.is_number_integer()) throw bad("remote_num_blocks", n, "an integer");
  t.numBlocks = n.get<int>();
  return t;
}

}  // namespace

KvPulled KvConsumer::pull(const json& params, const std::vector<int>& tokens, int64_t holdId) {
  const auto start = Clock::now();
  const PullTarget t = targetOf(params, config_);
  KvPulled out;
  if (t.numBlocks == 0) return out;  // the prompt fills no whole block: nothing to move
  const std::string where = t.host + ":" + std::to_string(t.port);
  int fd = -1;
  const auto giveUp = start + std::chrono::duration<double>(options_.connectTimeoutSeconds);
  while ((fd = connectTcp(t.host, t.port)) < 0 && Clock::now() < giveUp)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (fd < 0)
    throw badGateway("kv transfer: cannot reach the prefill instance's KV connector at " + where + " (retried for " +
                     std::to_string(int(options_.connectTimeoutSeconds)) + " s)");
  KvFrame got;
  try {
    setSocketTimeouts(fd, options_.ioTimeoutSeconds);
    sendKvFrame(fd, KvFrame{KvFrameType::Pull, t.id, 0, 0, {}, {}});
    got = receiveKvFrame(fd);
  } catch (const std::exception& e) {
    closeSocket(fd);
    throw badGateway(std::string(e.what()) + " (from the prefill instance at " + where + ")");
  }
  closeSocket(fd);
  if (got.type == KvFrameType::Error)
    throw badGateway("kv transfer: the prefill instance at " + where + " answered: " + got.data);
  if (got.type != KvFrameType::Blocks || got.requestId != t.id)
    throw badGateway("kv transfer: the prefill instance at " + where + " answered transfer " +
                     std::to_string(got.requestId) + " with a frame of type " + std::to_string(int(got.type)) +
                     "; expected Blocks for " + std::to_string(t.id));
  std::vector<uint64_t> mine = promptBlockHashes(tokens, int(got.blockSize));
  if (got.numBlocks() > mine.size() || !std::equal(got.hashes.begin(), got.hashes.end(), mine.begin()))
    throw badGateway("kv transfer: the " + std::to_string(got.numBlocks()) +
                     " blocks received do not carry this prompt's prefix hashes (another prompt, model or "
                     "block size on the prefill instance?)");
  const int numBlocks = int(got.numBlocks());
  auto frame = std::make_shared<KvFrame>(std::move(got));
  // Writes the blocks when the pool has room; 0 = no room now, -1 = never (too small).
  auto tryImport = [frame, tokens, holdId, numBlocks](Engine& e) -> int {
    const size_t per = e.executor().kvBytesPerBlock(e.kvBlockSize());
    check(e.kvBlockSize() == int(frame->blockSize) && per == frame->blockBytes,
          "kv transfer: the prefill instance's blocks (" + std::to_string(frame->blockSize) + " tokens, " +
              std::to_string(frame->blockBytes) + " bytes) differ from this pool's (" +
              std::to_string(e.kvBlockSize()) + " tokens, " + std::to_string(per) + " bytes)");
    if (numBlocks > e.numKvBlocks()) return -1;
    std::optional<KvImport> imported = e.importKvPrefix(holdId, tokens, numBlocks);
    if (!imported) return 0;
    for (size_t i = 0; i < imported->blockIds.size(); ++i)
      if (imported->isNew[i]) e.executor().writeKvBlock(imported->blockIds[i], frame->data.data() + i * per);
    return 1;
  };
  const auto importGiveUp = Clock::now() + std::chrono::duration<double>(options_.importTimeoutSeconds);
  for (;;) {
    int r;
    try {
      r = onEngine<int>(loop_, tryImport, options_.ioTimeoutSeconds);
    } catch (const std::exception& e) {
      throw badGateway(e.what());
    }
    if (r == 1) break;
    if (r < 0 || Clock::now() >= importGiveUp)
      throw ApiError{503,
                     "kv transfer: the decode instance's KV pool has no room for the prompt's " +
                         std::to_string(numBlocks) + " blocks" +
                         (r < 0 ? " (the pool is smaller)" :
                                  " (waited " + std::to_string(int(options_.importTimeoutSeconds)) + " s)"),
                     "ServiceUnavailableError", {}};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  out.numBlocks = numBlocks;
  out.bytes = int64_t(frame->data.size());
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace lwb::server
