#pragma once
// Chat templates: tokenizer_config.json's chat_template rendered by our Jinja interpreter
// (engine/model/jinja) exactly as Hugging Face's apply_chat_template renders it. When the
// template cannot be parsed or fails on a conversation, the chat falls back to plain
// "User:/Assistant:" text and says so in notice() — never a silently wrong prompt.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lwb {

namespace jinja {
class Template;
}

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

class ChatTemplate {
 public:
  // The family the template text resembles; it names the template in the GUI and gives
  // the end-of-turn strings. Rendering goes through the interpreter for all of them.
  enum class Family {
    Zephyr,    // <|system|>\n...</s>\n<|user|>\n...</s>\n<|assistant|>\n (also the default model)
    Llama2,    // <s>[INST] <<SYS>>\n...\n<</SYS>>\n\n... [/INST] ... </s>
    ChatML,    // <|im_start|>user\n...<|im_end|>\n<|im_start|>assistant\n
    PlainText  // any other template, or none
  };

  // `chatTemplate` is tokenizer_config.json's chat_template ("" when absent).
  // bos/eos are the special-token spellings ("<s>", "</s>").
  static ChatTemplate detect(const std::string& chatTemplate, const std::string& bosToken,
                             const std::string& eosToken);

  Family family() const { return family_; }
  std::string familyName() const;
  // True when a Jinja template parsed and renders prompts (false: plain-text fallback).
  bool usesJinja() const { return jinja_ != nullptr; }
  // Non-empty when plain text is used: no template, a template that did not parse, or
  // (after a render() that fell back) the error of the last failed render.
  std::string notice() const;
  // Rendered text containing special-token spellings; tokenize it with
  // Tokenizer::encodeWithSpecials (no extra BOS: the template writes it). Template
  // errors fall back to plain text and set notice().
  std::string render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) const;
  // The same with extra template variables (vLLM's chat_template_kwargs, e.g.
  // {"enable_thinking": false}).
  std::string render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt,
                     const nlohmann::json& extraVariables) const;
  // OpenAI-style messages (content may be a list of parts, tool_calls, ...) and tools
  // (null for none), without fallback: throws lwb::Error naming the template line.
  std::string renderStrict(const nlohmann::ordered_json& messages, bool addGenerationPrompt,
                           const nlohmann::ordered_json& extraVariables = nlohmann::ordered_json::object(),
                           const nlohmann::ordered_json& tools = nullptr) const;
  // Whether the template reads a variable, e.g. "enable_thinking" (Qwen 3).
  bool readsVariable(const std::string& name) const;
  // Whether render() output starts with the BOS spelling.
  bool writesBos() const;
  // Strings that end an assistant turn besides EOS (e.g. "<|im_end|>", "<|eot_id|>").
  std::vector<std::string> endOfTurnStrings() const;

 private:
  Family family_ = Family::PlainText;
  std::string bos_, eos_, parseNotice_;
  std::vector<std::string> endOfTurn_;
  std::shared_ptr<const jinja::Template> jinja_;
  bool writesBos_ = false;
  struct RenderNotice {  // shared by copies; set from whichever thread renders
    std::mutex mutex;
    std::string text;
  };
  std::shared_ptr<RenderNotice> renderNotice_ = std::make_shared<RenderNotice>();
};

}  // namespace lwb
