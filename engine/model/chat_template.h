#pragma once
// Chat templates for the common families, detected from tokenizer_config.json's
// chat_template (a Jinja string we recognise rather than execute).
#include <string>
#include <vector>

namespace lwb {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

class ChatTemplate {
 public:
  enum class Family {
    Zephyr,    // <|system|>\n...</s>\n<|user|>\n...</s>\n<|assistant|>\n (also the default model)
    Llama2,    // <s>[INST] <<SYS>>\n...\n<</SYS>>\n\n... [/INST] ... </s>
    ChatML,    // <|im_start|>user\n...<|im_end|>\n<|im_start|>assistant\n
    PlainText  // fallback: "System: ...\nUser: ...\nAssistant:"
  };

  // `chatTemplate` is tokenizer_config.json's chat_template ("" when absent).
  // bos/eos are the special-token spellings ("<s>", "</s>").
  static ChatTemplate detect(const std::string& chatTemplate, const std::string& bosToken,
                             const std::string& eosToken);

  Family family() const { return family_; }
  std::string familyName() const;
  // Non-empty when the template was not recognised and plain text is used.
  const std::string& notice() const { return notice_; }
  // Rendered text containing special-token spellings; tokenize it with
  // Tokenizer::encodeWithSpecials (no extra BOS: the template writes it).
  std::string render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) const;
  // Whether render() output starts with the BOS spelling.
  bool writesBos() const;
  // Extra strings that end an assistant turn (e.g. "<|im_end|>"), besides EOS.
  std::vector<std::string> endOfTurnStrings() const;

 private:
  Family family_ = Family::PlainText;
  std::string bos_, eos_, notice_;
};

}  // namespace lwb
