#include "engine/model/model.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/translate.h"
#include "engine/model/json_file.h"
#include "engine/model/generation_config.h"
#include "engine/model/gguf.h"
#include "engine/model/gguf_llama.h"
#include "engine/model/gguf_tokenizer.h"

namespace lwb {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kDefaultModelName = "austen-chat-11m";
constexpr const char* kDraftModelName = "austen-chat-draft";

template <typename T>
void readNumber(const json& j, const char* key, std::optional<T>* out, const fs::path& file) {
  if (!j.contains(key) || j[key].is_null()) return;
  const bool ok = std::is_integral_v<T> ? j[key].is_number_integer() : j[key].is_number();
  check(ok, file.string() + ": field '" + key + "' is " + j[key].dump() + ", expected a number");
  *out = j[key].get<T>();
}

GenerationDefaults readGenerationDefaults(const fs::path& file) {
  GenerationDefaults g;
  const auto j = readOptionalJson(file);
  if (!j) return g;
  readNumber(*j, "temperature", &g.temperature, file);
  readNumber(*j, "top_p", &g.topP, file);
  readNumber(*j, "min_p", &g.minP, file);
  readNumber(*j, "repetition_penalty", &g.repetitionPenalty, file);
  readNumber(*j, "top_k", &g.topK, file);
  readNumber(*j, "max_new_tokens", &g.maxNewTokens, file);
  if (j->contains("eos_token_id") && !(*j)["eos_token_id"].is_null()) {
    const json& e = (*j)["eos_token_id"];
    const json list = e.is_array() ? e : json::array({e});
    for (const json& id : list) {
      check(id.is_number_integer() && id.get<long long>() >= 0,
            file.string() + ": field 'eos_token_id' is " + e.dump() + ", expected a token id or a list of ids");
      g.eosTokenIds.push_back(id.get<int>());
    }
  }
  return g;
}

// MemAvailable from /proc/meminfo in bytes; 0 when unknown.
size_t memAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

std::string mib(size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

void checkFitsInMemory(const WeightStore& store) {
  const size_t needed = store.totalBytes();
  const size_t available = memAvailableBytes();
  check(available == 0 || needed <= available,
        store.describeLocation() + ": the weights need " + mib(needed) + " of memory, only " + mib(available) +
            " is available (MemAvailable in /proc/meminfo)");
}

void checkVocab(const ModelConfig& config, const Tokenizer& tok, const fs::path& dir) {
  check(tok.vocabSize() <= config.vocabSize,
        (dir / "config.json").string() + ": vocab_size " + std::to_string(config.vocabSize) +
            " is smaller than the tokenizer's " + std::to_string(tok.vocabSize()) + " pieces");
  check(config.bosTokenId < config.vocabSize, (dir / "config.json").string() + ": bos_token_id " +
                                                  std::to_string(config.bosTokenId) + " is not below vocab_size " +
                                                  std::to_string(config.vocabSize));
}

void report(const LoadProgress& progress, double fraction, const std::string& stage) {
  if (progress) progress(fraction, stage);
}

}  // namespace

std::vector<int> Model::stopTokenIds() const {
  std::vector<int> ids = config.eosTokenIds;
  ids.insert(ids.end(), generationDefaults.eosTokenIds.begin(), generationDefaults.eosTokenIds.end());
  for (const std::string& s : tokenizer ? chatTemplate.endOfTurnStrings() : std::vector<std::string>()) {
    const std::vector<int> t = tokenizer->encodeWithSpecials(s);
    if (t.size() == 1) ids.push_back(t[0]);  // only strings that are one token can stop on an id
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<int> Model::encodePrompt(const std::string& text) const {
  return encodeWithDefaultSpecials(*tokenizer, tokenizerSettings, text, config.bosTokenId);
}

std::vector<int> Model::encodeChat(const std::vector<ChatMessage>& messages, bool addGenerationPrompt,
                                   const nlohmann::json& chatTemplateKwargs) const {
  return encodeRenderedChat(*tokenizer, tokenizerSettings,
                            chatTemplate.render(messages, addGenerationPrompt, chatTemplateKwargs), config.bosTokenId);
}

std::shared_ptr<const Model> loadModel(const std::string& dirArg, const LoadProgress& progress) {
  if (isGgufFile(dirArg)) return loadGgufModel(dirArg, progress);
  const fs::path dir = fs::absolute(dirArg).lexically_normal();
  check(fs::is_directory(dir), dir.string() + ": model folder not found");
  auto model = std::make_shared<Model>();
  model->dir = dir.string();

  report(progress, 0.0, LWB_TRANSLATE_NOOP("ModelLoad", "reading config.json"));
  model->config = loadModelConfig((dir / "config.json").string());
  model->generationDefaults = readGenerationDefaults(dir / "generation_config.json");
  validateGenerationDefaults(model->generationDefaults, (dir / "generation_config.json").string());

  report(progress, 0.1, LWB_TRANSLATE_NOOP("ModelLoad", "loading the tokenizer"));
  TokenizerFiles tokenizerFiles = loadTokenizerFiles(dir.string());
  model->tokenizerSettings = tokenizerFiles.settings;
  model->tokenizer = std::move(tokenizerFiles.tokenizer);
  model->tokenizerPath = tokenizerFiles.tokenizerPath;
  model->chatTemplate = tokenizerFiles.chatTemplate;
  checkVocab(model->config, *model->tokenizer, dir);

  report(progress, 0.3, LWB_TRANSLATE_NOOP("ModelLoad", "mapping weights"));
  model->weights = WeightStore::openFolder(dir.string());
  checkFitsInMemory(*model->weights);
  report(progress, 0.8, LWB_TRANSLATE_NOOP("ModelLoad", "checking tensor shapes"));
  model->llama = LlamaWeights::bind(*model->weights, model->config);
  report(progress, 1.0, LWB_TRANSLATE_NOOP("ModelLoad", "ready"));
  return model;
}

std::shared_ptr<const Model> loadGgufModel(const std::string& pathArg, const LoadProgress& progress) {
  const fs::path path = fs::absolute(pathArg).lexically_normal();
  auto model = std::make_shared<Model>();
  model->dir = path.string();
  report(progress, 0.0, LWB_TRANSLATE_NOOP("ModelLoad", "reading the GGUF header"));
  std::unique_ptr<GgufFile> file = GgufFile::open(path.string());
  model->config = ggufModelConfig(*file);
  report(progress, 0.1, LWB_TRANSLATE_NOOP("ModelLoad", "loading the tokenizer"));
  TokenizerFiles tokenizerFiles = ggufTokenizerFiles(*file);
  model->tokenizerSettings = tokenizerFiles.settings;
  model->tokenizer = std::move(tokenizerFiles.tokenizer);
  model->tokenizerPath = tokenizerFiles.tokenizerPath;
  model->chatTemplate = tokenizerFiles.chatTemplate;
  check(model->tokenizer->vocabSize() <= model->config.vocabSize,
        path.string() + ": the vocabulary size " + std::to_string(model->config.vocabSize) +
            " is smaller than the tokenizer's " + std::to_string(model->tokenizer->vocabSize()) + " tokens");
  report(progress, 0.3, LWB_TRANSLATE_NOOP("ModelLoad", "mapping weights"));
  const bool unpermute = ggufPermutesQk(*file);
  const ModelConfig config = model->config;
  model->weights = WeightStore::fromGguf(std::move(file), config, unpermute);
  checkFitsInMemory(*model->weights);
  report(progress, 0.8, LWB_TRANSLATE_NOOP("ModelLoad", "checking tensor shapes"));
  model->llama = LlamaWeights::bind(*model->weights, model->config);
  report(progress, 1.0, LWB_TRANSLATE_NOOP("ModelLoad", "ready"));
  return model;
}

std::shared_ptr<const Model> loadModelConfigOnly(const std::string& pathArg) {
  const fs::path path = fs::absolute(pathArg).lexically_normal();
  auto model = std::make_shared<Model>();
  model->dir = path.string();
  if (isGgufFile(pathArg)) {
    std::unique_ptr<GgufFile> file = GgufFile::open(path.string());
    model->config = ggufModelConfig(*file);
    TokenizerFiles tokenizerFiles = ggufTokenizerFiles(*file);
    model->tokenizerSettings = tokenizerFiles.settings;
    model->tokenizer = std::move(tokenizerFiles.tokenizer);
    model->tokenizerPath = tokenizerFiles.tokenizerPath;
    model->chatTemplate = tokenizerFiles.chatTemplate;
    return model;
  }
  const bool isDir = fs::is_directory(path);
  const fs::path dir = isDir ? path : path.parent_path();
  const fs::path config = isDir ? dir / "config.json" : path;
  check(fs::is_regular_file(config), pathArg + ": no config.json there (the sim backend needs a model's config.json)");
  model->dir = dir.string();
  model->config = loadModelConfig(config.string());
  model->generationDefaults = readGenerationDefaults(dir / "generation_config.json");
  validateGenerationDefaults(model->generationDefaults, (dir / "generation_config.json").string());
  if (fs::is_regular_file(dir / "tokenizer.json") || fs::is_regular_file(dir / "tokenizer.model")) {
    TokenizerFiles tokenizerFiles = loadTokenizerFiles(dir.string());
    model->tokenizerSettings = tokenizerFiles.settings;
    model->tokenizer = std::move(tokenizerFiles.tokenizer);
    model->tokenizerPath = tokenizerFiles.tokenizerPath;
    model->chatTemplate = tokenizerFiles.chatTemplate;
    checkVocab(model->config, *model->tokenizer, dir);
  }
  return model;
}

std::string executableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  check(!ec, std::string("cannot read /proc/self/exe: ") + ec.message());
  return exe.parent_path().string();
}

namespace {

// build/bin, build/tests and build/bench are siblings, and <prefix>/bin sits next to
// <prefix>/share: the same relative path works from all of them. "" when absent.
std::string bundledModelDir(const std::string& name, fs::path* lookedIn) {
  const std::string suffix = std::string(LWB_SHARE_SUBDIR) + "/models/" + name;
  *lookedIn = (fs::path(executableDir()) / ".." / suffix).lexically_normal();
  return fs::is_regular_file(*lookedIn / "config.json") ? lookedIn->string() : std::string();
}

}  // namespace

std::string defaultModelDir() {
  if (const char* env = std::getenv("LWB_MODEL_DIR"); env && *env) {
    check(fs::is_regular_file(fs::path(env) / "config.json"),
          std::string("LWB_MODEL_DIR=") + env + " has no config.json (unset it to use the default model)");
    return fs::absolute(env).lexically_normal().string();
  }
  fs::path candidate;
  if (std::string dir = bundledModelDir(kDefaultModelName, &candidate); !dir.empty()) return dir;
  throw Error("default model " + std::string(kDefaultModelName) + " not found; looked in " + candidate.string() +
              " (set LWB_MODEL_DIR to a model folder)");
}

std::string bundledDraftModelDir() {
  fs::path candidate;
  if (std::string dir = bundledModelDir(kDraftModelName, &candidate); !dir.empty()) return dir;
  throw Error("draft model " + std::string(kDraftModelName) + " not found; looked in " + candidate.string());
}

}  // namespace lwb
