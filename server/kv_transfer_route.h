#pragma once
// The P/D side of /v1/completions and /v1/chat/completions (TcpConnector,
// kv_connector_tcp.h), as vLLM's disaggregation proxy drives it: a request whose
// kv_transfer_params say do_remote_decode is prefilled here and answered with the
// params a consumer needs; one that says do_remote_prefill has its prompt's blocks
// pulled from the producer before it is submitted.
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "server/api_request.h"

namespace lwb::server {

struct ServerContext;

enum class KvTransferStep {
  None,
  Prefill,  // do_remote_decode: prefill here, hold the blocks, answer with the params
  Decode,   // do_remote_prefill: pull the blocks, then decode here
};

// Throws ApiError (400) when the params ask for a role this server was not started in.
KvTransferStep kvTransferStep(const ServerContext& ctx, const ApiRequest& request);

// A KV hold in this server's pool, let go once the request is admitted (its first update
// came) or, at the latest, when this object goes.
class KvHoldRelease {
 public:
  KvHoldRelease(ServerContext& ctx, int64_t holdId) : ctx_(ctx), holdId_(holdId) {}
  ~KvHoldRelease();
  KvHoldRelease(const KvHoldRelease&) = delete;
  KvHoldRelease& operator=(const KvHoldRelease&) = delete;

 private:
  ServerContext& ctx_;
  int64_t holdId_;
};

// The consumer's pull before submitting `input`: stamps its arrival (TTFT includes the
// transfer) and its kv_transfer_bytes/_time. Throws ApiError (kv_connector_tcp.h).
std::shared_ptr<KvHoldRelease> pullRemotePrefill(ServerContext& ctx, const ApiRequest& request, RequestInput& input);

// The producer's offer once the prefill finished: the answer's kv_transfer_params.
nlohmann::json offerRemoteDecode(ServerContext& ctx, const std::vector<int>& promptTokenIds);

}  // namespace lwb::server
