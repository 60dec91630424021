#include "server/api_error.h"

namespace lwb::server {

nlohmann::json ApiError::toJson() const {
  nlohmann::json e = {{"message", message}, {"type", type}, {"code", status}};
  e["param"] = param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param);
  return {{"error", e}};
}

ApiError badRequest(const std::string& message, const std::string& param) {
  return {400, message, "BadRequestError", param};
}

ApiError notFound(const std::string& message) { return {404, message, "NotFoundError", {}}; }

ApiError unauthorized() {
  return {401, "missing or wrong API key: send 'Authorization: Bearer <key>'", "AuthenticationError", {}};
}

ApiError payloadTooLarge(size_t limit) {
  return {413, "request body exceeds " + std::to_string(limit) + " bytes", "RequestEntityTooLarge", {}};
}

}  // namespace lwb::server
