#pragma once
// An error the API answers with: HTTP status plus OpenAI's error object
// {"error": {"message", "type", "param", "code"}}.
#include <string>

#include <nlohmann/json.hpp>

namespace lwb::server {

struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "BadRequestError";  // vLLM's spelling of OpenAI's error types
  std::string param;                     // the offending field, "" when none
  nlohmann::json toJson() const;
};

ApiError badRequest(const std::string& message, const std::string& param = {});
ApiError notFound(const std::string& message);
ApiError unauthorized();
ApiError payloadTooLarge(size_t limit);

}  // namespace lwb::server
