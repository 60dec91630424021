#include "engine/common/json.h"

#include <fstream>
#include <sstream>

#include "engine/common/error.h"

namespace lwb {

nlohmann::json parseJson(std::string_view text) { return nlohmann::json::parse(text.begin(), text.end()); }

nlohmann::ordered_json parseOrderedJson(std::string_view text) {
  return nlohmann::ordered_json::parse(text.begin(), text.end());
}

nlohmann::json parseJsonOrDiscarded(std::string_view text) {
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

nlohmann::json readJsonFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path.string() + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return parseJson(ss.str());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not valid JSON: " + e.what());
  }
}

}  // namespace lwb
