#include "server/kv_transfer_route.h"

#include <chrono>

#include "engine/config/knobs.h"
#include "server/kv_connector_tcp.h"
#include "server/server_context.h"

namespace lwb::server {
namespace {

bool flag(const nlohmann::json& params, const char* key) {
  const nlohmann::json v = params.value(key, nlohmann::json());
  if (v.is_null()) return false;
  if (!v.is_boolean())
    throw badRequest("kv_transfer_params." + std::string(key) + ": " + v.dump() + "; expected true or false",
                     "kv_transfer_params");
  return v.get<bool>();
}

std::string notStarted(const char* role) {
  return "--" + findKnob(knob::kKvTransferConfig)->flag + " of kv_connector TcpConnector, kv_role " + role + ")";
}

}  // namespace

KvTransferStep kvTransferStep(const ServerContext& ctx, const ApiRequest& r) {
  if (!r.kvTransferParams.is_object()) return KvTransferStep::None;
  const bool decodeElsewhere = flag(r.kvTransferParams, "do_remote_decode");
  const bool prefilledElsewhere = flag(r.kvTransferParams, "do_remote_prefill");
  if (decodeElsewhere && prefilledElsewhere)
    throw badRequest("kv_transfer_params: do_remote_decode and do_remote_prefill are both true; expected one",
                     "kv_transfer_params");
  if (decodeElsewhere) {
    if (!ctx.kvProducer)
      throw badRequest("kv_transfer_params.do_remote_decode: this server is not a kv_producer (start it with " +
                           notStarted("kv_producer"), "kv_transfer_params");
    if (r.stream)
      throw badRequest("kv_transfer_params.do_remote_decode: expected \"stream\": false (the prefill step answers "
                       "once)", "stream");
    return KvTransferStep::Prefill;
  }
  if (prefilledElsewhere) {
    if (!ctx.kvConsumer)
      throw badRequest("kv_transfer_params.do_remote_prefill: this server is not a kv_consumer (start it with " +
                           notStarted("kv_consumer"), "kv_transfer_params");
    return KvTransferStep::Decode;
  }
  return KvTransferStep::None;
}

KvHoldRelease::~KvHoldRelease() {
  if (ctx_.kvConsumer) ctx_.kvConsumer->release(holdId_);
}

std::shared_ptr<KvHoldRelease> pullRemotePrefill(ServerContext& ctx, const ApiRequest& r, RequestInput& input) {
  input.arrival = std::chrono::steady_clock::now();
  const int64_t hold = ctx.kvConsumer->nextHoldId();
  const KvPulled got = ctx.kvConsumer->pull(r.kvTransferParams, input.promptTokenIds, hold);
  input.kvTransferBytes = got.bytes;
  input.kvTransferTime = got.seconds;
  if (got.numBlocks == 0) return nullptr;
  return std::make_shared<KvHoldRelease>(ctx, hold);
}

nlohmann::json offerRemoteDecode(ServerContext& ctx, const std::vector<int>& promptTokenIds) {
  return ctx.kvProducer->offer(promptTokenIds);
}

}  // namespace lwb::server
