#pragma once
// Model folders hold optional JSON files (config.json, generation_config.json,
// tokenizer_config.json): one reader for all of them.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

namespace lwb {

// nullopt when `path` does not exist; a file that cannot be read, is not valid JSON or
// is not an object throws lwb::Error naming the file.
std::optional<nlohmann::json> readOptionalJson(const std::filesystem::path& path);

}  // namespace lwb
