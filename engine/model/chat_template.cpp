#include "engine/model/chat_template.h"

#include "engine/common/error.h"

namespace lwb {

namespace {

bool contains(const std::string& text, const char* marker) { return text.find(marker) != std::string::npos; }

// Jinja's str.strip(): leading and trailing whitespace.
std::string strip(const std::string& s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string capitalized(std::string role) {
  if (!role.empty() && role[0] >= 'a' && role[0] <= 'z') role[0] = char(role[0] - 'a' + 'A');
  return role;
}

// The default model's template:
//   {{ bos_token }}{% for message in messages %}{{ '<|' + message['role'] + '|>\n' +
//   message['content'] + eos_token + '\n' }}{% endfor %}{% if add_generation_prompt %}
//   {{ '<|assistant|>\n' }}{% endif %}
std::string renderZephyr(const std::vector<ChatMessage>& messages, bool addGenerationPrompt, const std::string& bos,
                         const std::string& eos) {
  std::string out = bos;
  for (const ChatMessage& m : messages) out += "<|" + m.role + "|>\n" + m.content + eos + "\n";
  if (addGenerationPrompt) out += "<|assistant|>\n";
  return out;
}

// Hugging Face's Llama-2 chat template: an optional system message folded into the first
// user turn inside <<SYS>>, user/assistant strictly alternating, contents stripped.
std::string renderLlama2(const std::vector<ChatMessage>& messages, const std::string& bos, const std::string& eos) {
  size_t first = 0;
  std::string system;
  bool hasSystem = !messages.empty() && messages[0].role == "system";
  if (hasSystem) {
    system = messages[0].content;
    first = 1;
  }
  std::string out;
  for (size_t i = first; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    const bool expectUser = (i - first) % 2 == 0;
    check((m.role == "user") == expectUser && (m.role == "user" || m.role == "assistant"),
          "chat template (llama-2): conversation roles must alternate user/assistant/user/...; message " +
              std::to_string(i) + " has role '" + m.role + "'");
    std::string content = m.content;
    if (i == first && hasSystem) content = "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + m.content;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "lit" + std::string&&.
    if (m.role == "user") out.append(bos).append("[INST] ").append(strip(content)).append(" [/INST]");
    else out.append(" ").append(strip(content)).append(" ").append(eos);
  }
  return out;
}

std::string renderChatML(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) {
  std::string out;
  for (const ChatMessage& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  if (addGenerationPrompt) out += "<|im_start|>assistant\n";
  return out;
}

std::string renderPlain(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) {
  std::string out;
  for (const ChatMessage& m : messages) out += capitalized(m.role) + ": " + m.content + "\n";
  if (addGenerationPrompt) out += "Assistant:";
  return out;
}

}  // namespace

ChatTemplate ChatTemplate::detect(const std::string& chatTemplate, const std::string& bosToken,
                                  const std::string& eosToken) {
  ChatTemplate t;
  t.bos_ = bosToken;
  t.eos_ = eosToken;
  if (contains(chatTemplate, "<|im_start|>")) t.family_ = Family::ChatML;
  else if (contains(chatTemplate, "<|user|>") || contains(chatTemplate, "<|assistant|>")) t.family_ = Family::Zephyr;
  else if (contains(chatTemplate, "[INST]")) t.family_ = Family::Llama2;
  else t.notice_ = "chat template not recognised; using plain 'User:/Assistant:' text";
  return t;
}

std::string ChatTemplate::familyName() const {
  switch (family_) {
    case Family::Zephyr: return "zephyr";
    case Family::Llama2: return "llama-2";
    case Family::ChatML: return "chatml";
    case Family::PlainText: return "plain";
  }
  return "plain";
}

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) const {
  switch (family_) {
    case Family::Zephyr: return renderZephyr(messages, addGenerationPrompt, bos_, eos_);
    case Family::Llama2: return renderLlama2(messages, bos_, eos_);
    case Family::ChatML: return renderChatML(messages, addGenerationPrompt);
    case Family::PlainText: return renderPlain(messages, addGenerationPrompt);
  }
  return renderPlain(messages, addGenerationPrompt);
}

bool ChatTemplate::writesBos() const { return family_ == Family::Zephyr || family_ == Family::Llama2; }

std::vector<std::string> ChatTemplate::endOfTurnStrings() const {
  if (family_ == Family::ChatML) return {"<|im_end|>"};
  return {};
}

}  // namespace lwb
