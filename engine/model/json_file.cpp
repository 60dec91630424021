#include "engine/model/json_file.h"

#include "engine/common/error.h"
#include "engine/common/json.h"

namespace lwb {

std::optional<nlohmann::json> readOptionalJson(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  nlohmann::json j = readJsonFile(path);
  check(j.is_object(), path.string() + ": must be a JSON object, found " + std::string(j.type_name()));
  return j;
}

}  // namespace lwb
