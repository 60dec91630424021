#include "engine/model/json_file.h"

#include <fstream>
#include <sstream>

#include "engine/common/error.h"

namespace lwb {

std::optional<nlohmann::json> readOptionalJson(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path.string() + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    nlohmann::json j = nlohmann::json::parse(ss.str());
    check(j.is_object(), path.string() + ": must be a JSON object, found " + std::string(j.type_name()));
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not valid JSON: " + e.what());
  }
}

}  // namespace lwb
