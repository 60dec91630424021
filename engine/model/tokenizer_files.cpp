#include "engine/model/tokenizer_files.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "engine/common/error.h"
#include "engine/model/json_file.h"
#include "engine/model/gguf_tokenizer.h"
#include "engine/model/hf_tokenizer.h"

namespace lwb {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Special tokens are written as "<s>" or as an AddedToken object {"content": "<s>", ...}.
std::string tokenSpelling(const json& j, const char* key, const std::string& fallback, const std::string& file) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  const json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  throw Error(file + ": field '" + key + "' is " + v.dump() + ", expected a string or {\"content\": ...}");
}

// chat_template is a string, or a list of {"name", "template"} of which "default" is used.
std::string chatTemplateText(const json& j, const std::string& file) {
  if (!j.contains("chat_template") || j["chat_template"].is_null()) return "";
  const json& v = j["chat_template"];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array())
    for (const json& t : v)
      if (t.is_object() && t.value("name", "") == "default" && t.contains("template") && t["template"].is_string())
        return t["template"].get<std::string>();
  throw Error(file + ": field 'chat_template' is neither a string nor a list with a \"default\" template");
}

void readFlag(const json& j, const char* key, bool* out, const std::string& file) {
  if (!j.contains(key) || j[key].is_null()) return;
  check(j[key].is_boolean(), file + ": field '" + key + "' is " + j[key].dump() + ", expected true or false");
  *out = j[key].get<bool>();
}

// The classes whose fast tokenizers rebuild their post-processor from add_bos_token /
// add_eos_token (transformers' LlamaTokenizerFast and GemmaTokenizerFast and subclasses).
bool isLlamaOrGemmaClass(const std::string& cls) {
  for (const char* prefix : {"LlamaTokenizer", "CodeLlamaTokenizer", "GemmaTokenizer"})
    if (cls == prefix || cls == std::string(prefix) + "Fast") return true;
  return false;
}

}  // namespace

TokenizerSettings readTokenizerSettings(const std::string& file) {
  TokenizerSettings s;
  const auto j = readOptionalJson(file);
  if (!j) return s;
  readFlag(*j, "add_bos_token", &s.addBosToken, file);
  readFlag(*j, "add_eos_token", &s.addEosToken, file);
  s.bosToken = tokenSpelling(*j, "bos_token", s.bosToken, file);
  s.eosToken = tokenSpelling(*j, "eos_token", s.eosToken, file);
  s.chatTemplate = chatTemplateText(*j, file);
  if (j->contains("tokenizer_class") && (*j)["tokenizer_class"].is_string())
    s.tokenizerClass = (*j)["tokenizer_class"].get<std::string>();
  return s;
}

bool usesConfigSpecialFlags(const Tokenizer& tokenizer, const TokenizerSettings& settings) {
  return tokenizer.kind() == TokenizerKind::SentencePiece || isLlamaOrGemmaClass(settings.tokenizerClass);
}

std::vector<int> encodeWithDefaultSpecials(const Tokenizer& tokenizer, const TokenizerSettings& settings,
                                           std::string_view text, int bosId) {
  std::vector<int> ids = tokenizer.encode(text);
  if (!usesConfigSpecialFlags(tokenizer, settings)) return tokenizer.addDefaultSpecials(std::move(ids));
  const int bos = bosId >= 0 ? bosId : tokenizer.bosId();
  if (settings.addBosToken && bos >= 0) ids.insert(ids.begin(), bos);
  if (settings.addEosToken && tokenizer.eosId() >= 0) ids.push_back(tokenizer.eosId());
  return ids;
}

std::vector<int> encodeRenderedChat(const Tokenizer& tokenizer, const TokenizerSettings& settings,
                                    std::string_view rendered, int bosId) {
  std::vector<int> ids = tokenizer.encodeWithSpecials(rendered);
  if (tokenizer.kind() != TokenizerKind::SentencePiece) return ids;
  const int bos = bosId >= 0 ? bosId : tokenizer.bosId();
  // The template may already write BOS; never add a second one.
  if (settings.addBosToken && bos >= 0 && (ids.empty() || ids.front() != bos)) ids.insert(ids.begin(), bos);
  return ids;
}

TokenizerFiles loadTokenizerFiles(const std::string& dirArg) {
  if (isGgufFile(dirArg)) return ggufTokenizerFiles(*GgufFile::open(fs::absolute(dirArg).lexically_normal().string()));
  const fs::path dir = fs::absolute(dirArg).lexically_normal();
  check(fs::is_directory(dir), dir.string() + ": model folder not found");
  TokenizerFiles files;
  files.settings = readTokenizerSettings((dir / "tokenizer_config.json").string());
  const fs::path json = dir / "tokenizer.json", model = dir / "tokenizer.model";
  check(fs::exists(json) || fs::exists(model),
        model.string() + ": tokenizer file not found (a tokenizer.json or tokenizer.model is required)");
  files.tokenizerPath = (fs::exists(json) ? json : model).string();
  if (fs::exists(json)) {
    auto hf = HfTokenizer::load(files.tokenizerPath);
    // tokenizer_config.json names BOS and EOS; a name the vocabulary lacks leaves none.
    const int bos = hf->pieceToId(files.settings.bosToken), eos = hf->pieceToId(files.settings.eosToken);
    hf->setBosEos(bos >= 0 ? bos : hf->bosId(), eos);
    files.tokenizer = std::move(hf);
  } else {
    files.tokenizer = Tokenizer::load(files.tokenizerPath);
  }
  // Newer Hugging Face folders keep the template in chat_template.jinja, which wins.
  if (const fs::path jinjaFile = dir / "chat_template.jinja"; fs::is_regular_file(jinjaFile)) {
    std::ifstream in(jinjaFile, std::ios::binary);
    files.settings.chatTemplate.assign(std::istreambuf_iterator<char>(in), {});
    check(!in.bad(), jinjaFile.string() + ": cannot read");
  }
  files.chatTemplate = ChatTemplate::detect(files.settings.chatTemplate, files.settings.bosToken, files.settings.eosToken);
  return files;
}

}  // namespace lwb
