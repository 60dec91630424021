#pragma once
// A model folder in Hugging Face layout, loaded: config, weights (mmapped), tokenizer,
// tokenizer_config.json and generation_config.json (both optional).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/chat_template.h"
#include "engine/model/llama_weights.h"
#include "engine/model/model_config.h"
#include "engine/model/safetensors.h"
#include "engine/model/tokenizer.h"
#include "engine/model/tokenizer_files.h"

namespace lwb {

// generation_config.json: sampling defaults, as vLLM reads them.
struct GenerationDefaults {
  std::optional<float> temperature, topP, minP, repetitionPenalty;
  std::optional<int> topK, maxNewTokens;
  std::vector<int> eosTokenIds;
};

struct Model {
  std::string dir;  // absolute path (of the folder, or of the .gguf file)
  ModelConfig config;
  TokenizerSettings tokenizerSettings;
  GenerationDefaults generationDefaults;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string tokenizerPath;  // tokenizer.json, else tokenizer.model
  ChatTemplate chatTemplate;
  std::unique_ptr<WeightStore> weights;
  LlamaWeights llama;

  // Every id that ends generation: config/generation_config eos ids and the ids of the
  // template's end-of-turn strings.
  std::vector<int> stopTokenIds() const;
  // Prompt text → ids with the special tokens added by default (encodeWithDefaultSpecials).
  std::vector<int> encodePrompt(const std::string& text) const;
  // Messages → ids through the chat template (BOS written once); extra template
  // variables as vLLM's chat_template_kwargs (e.g. {"enable_thinking": false}).
  std::vector<int> encodeChat(const std::vector<ChatMessage>& messages, bool addGenerationPrompt,
                              const nlohmann::json& chatTemplateKwargs = nlohmann::json::object()) const;
};

// stage in [0,1] and a short description; called from the loading thread.
using LoadProgress = std::function<void(double fraction, const std::string& stage)>;

// Loads and validates everything; throws lwb::Error naming the file and the problem.
// Checks that the weights fit in available memory before touching them. `dir` is a
// Hugging Face folder or a .gguf file (loadGgufModel).
std::shared_ptr<const Model> loadModel(const std::string& dir, const LoadProgress& progress = {});
// A GGUF file (gguf_model.cpp): config, tokenizer and chat template from its metadata,
// tensors mmapped in their stored types. Model::dir is the file's absolute path.
std::shared_ptr<const Model> loadGgufModel(const std::string& path, const LoadProgress& progress = {});

// A model for the sim backend, without weights: a folder's config.json (or the file
// itself, or a .gguf file's header) and generation_config.json, plus the tokenizer and
// chat template when the folder has them; without them, prompts are token ids only
// (Model::tokenizer is null). Throws lwb::Error naming the file and the field.
std::shared_ptr<const Model> loadModelConfigOnly(const std::string& path);

// The default model's folder: next to the executable (build tree: <bin>/../share/
// llm-workbench/models/<name>, installed: <prefix>/share/llm-workbench/models/<name>).
// Throws lwb::Error listing every place it looked.
std::string defaultModelDir();
// The default model's speculative-decoding draft (austen-chat-draft), bundled beside it
// and found the same way (LWB_MODEL_DIR does not apply). Throws lwb::Error naming where.
std::string bundledDraftModelDir();
std::string executableDir();

}  // namespace lwb
