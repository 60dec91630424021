#pragma once
// The tokenizer side of a model folder, without weights: tokenizer.json (preferred, as
// Hugging Face does) or tokenizer.model, tokenizer_config.json (special tokens, chat
// template, add_bos_token/add_eos_token, tokenizer_class), chat_template.jinja. Used by loadModel and by
// `llm-workbench tokenize`.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/chat_template.h"
#include "engine/model/tokenizer.h"

namespace lwb {

struct TokenizerSettings {  // tokenizer_config.json
  bool addBosToken = true;
  bool addEosToken = false;
  std::string bosToken = "<s>", eosToken = "</s>";
  std::string chatTemplate;    // "" when absent
  std::string tokenizerClass;  // "" when absent
};

// Reads tokenizer_config.json (absent: defaults). Throws lwb::Error naming the file and
// field on bad values.
TokenizerSettings readTokenizerSettings(const std::string& file);

// Plain text with the special tokens added by default, as Hugging Face's
// AutoTokenizer.encode and vLLM's /tokenize: tokenizer.json's post-processor, except
// that Llama- and Gemma-class tokenizers (and SentencePiece files) take
// add_bos_token/add_eos_token from tokenizer_config.json. `bosId` overrides the
// tokenizer's BOS (config.json's bos_token_id) when >= 0.
std::vector<int> encodeWithDefaultSpecials(const Tokenizer& tokenizer, const TokenizerSettings& settings,
                                           std::string_view text, int bosId = -1);
// A rendered chat template → ids. tokenizer.json: exactly what the template wrote, as
// apply_chat_template does; SentencePiece: BOS added when add_bos_token says so and the
// template did not write it.
std::vector<int> encodeRenderedChat(const Tokenizer& tokenizer, const TokenizerSettings& settings,
                                    std::string_view rendered, int bosId = -1);
// Whether add_bos_token/add_eos_token decide the special tokens (see above).
bool usesConfigSpecialFlags(const Tokenizer& tokenizer, const TokenizerSettings& settings);

struct TokenizerFiles {
  std::string tokenizerPath;  // the file the tokenizer came from
  TokenizerSettings settings;
  std::unique_ptr<Tokenizer> tokenizer;
  ChatTemplate chatTemplate;

  std::vector<int> encodePrompt(std::string_view text) const {
    return encodeWithDefaultSpecials(*tokenizer, settings, text);
  }
  std::vector<int> encodeChat(const std::vector<ChatMessage>& messages, bool addGenerationPrompt,
                              const nlohmann::json& chatTemplateKwargs = nlohmann::json::object()) const {
    return encodeRenderedChat(*tokenizer, settings, chatTemplate.render(messages, addGenerationPrompt, chatTemplateKwargs));
  }
};

// Throws lwb::Error naming the folder when it has neither tokenizer.json nor
// tokenizer.model, or naming the file and field when one is malformed. A .gguf file
// instead of a folder: its tokenizer.ggml.* (gguf_tokenizer.h).
TokenizerFiles loadTokenizerFiles(const std::string& dir);

}  // namespace lwb
