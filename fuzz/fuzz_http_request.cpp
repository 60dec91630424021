// Any bytes as a /v1/completions and a /v1/chat/completions body: parsing either
// accepts them or throws ApiError (a 400 with a message); nothing else may escape. An
// accepted body is then tokenized for a small random model, which may only refuse with
// ApiError or lwb::Error (a template the messages do not fit).
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/model/model.h"
#include "server/api_request.h"

namespace {
const lwb::Model& model() {
  static std::shared_ptr<const lwb::Model> m = [] {
    const auto dir = std::filesystem::temp_directory_path() / "lwb_fuzz_http_model";
    return lwb::loadModel(lwb::writeRandomLlamaModel(dir.string()));
  }();
  return *m;
}

void tryEndpoint(lwb::server::Endpoint endpoint, std::string_view body) {
  lwb::server::ApiRequest request;
  try {
    request = lwb::server::parseApiRequest(endpoint, body);
  } catch (const lwb::server::ApiError& e) {
    if (e.status != 400 || e.message.empty()) __builtin_trap();
    return;
  }
  try {
    const lwb::RequestInput in = lwb::server::toRequestInput(request, model(), 256);
    if (in.promptTokenIds.empty() || int(in.promptTokenIds.size()) >= 256 || in.sampling.maxTokens < 1) __builtin_trap();
    in.sampling.validate();
  } catch (const lwb::server::ApiError&) {
  } catch (const lwb::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  tryEndpoint(lwb::server::Endpoint::Completions, body);
  tryEndpoint(lwb::server::Endpoint::ChatCompletions, body);
  return 0;
}
