#pragma once
// Parsing JSON text. nlohmann json's parser is a template that each file calling
// json::parse compiles again, seconds per file, once per kind of input. The project parses
// through these functions only, so it is compiled once, in json.cpp, from a string_view.
// They throw, and report, exactly what nlohmann::json::parse does.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

namespace lwb {

// The document in `text`; throws nlohmann::json::parse_error on invalid JSON.
nlohmann::json parseJson(std::string_view text);
// The same, keeping each object's keys in their order in the text.
nlohmann::ordered_json parseOrderedJson(std::string_view text);
// The document, or a value whose is_discarded() is true when `text` is not valid JSON.
nlohmann::json parseJsonOrDiscarded(std::string_view text);

// The JSON document in the file at `path`; throws lwb::Error naming the file when it
// cannot be read or is not valid JSON.
nlohmann::json readJsonFile(const std::filesystem::path& path);

}  // namespace lwb
