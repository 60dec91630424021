#include "engine/model/chat_template.h"

#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/jinja/template.h"

namespace lwb {

namespace {

bool contains(const std::string& text, const char* marker) { return text.find(marker) != std::string::npos; }

std::string capitalized(std::string role) {
  if (!role.empty() && role[0] >= 'a' && role[0] <= 'z') role[0] = char(role[0] - 'a' + 'A');
  return role;
}

// The fallback when there is no usable template.
std::string renderPlain(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) {
  std::string out;
  for (const ChatMessage& m : messages) out += capitalized(m.role) + ": " + m.content + "\n";
  if (addGenerationPrompt) out += "Assistant:";
  return out;
}

const char* const kPlainNotice = "using plain 'User:/Assistant:' text";

nlohmann::ordered_json messagesJson(const std::vector<ChatMessage>& messages) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ChatMessage& m : messages) out.push_back({{"role", m.role}, {"content", m.content}});
  return out;
}

// Markers that end a turn in the common families; EOS itself always stops generation.
std::vector<std::string> endOfTurnMarkers(const std::string& text, const std::string& eos) {
  std::vector<std::string> out;
  for (const char* m : {"<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", "<|eom_id|>"})
    if (contains(text, m) && eos != m) out.push_back(m);
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
  t.endOfTurn_ = endOfTurnMarkers(chatTemplate, eosToken);
  if (chatTemplate.empty()) {
    t.parseNotice_ = std::string("model has no chat template; ") + kPlainNotice;
    return t;
  }
  try {
    t.jinja_ = std::make_shared<const jinja::Template>(chatTemplate);
  } catch (const Error& e) {
    t.parseNotice_ = std::string("chat template not usable (") + e.what() + "); " + kPlainNotice;
    return t;
  }
  try {
    const std::string probe = t.renderStrict(messagesJson({{"user", "x"}}), true);
    t.writesBos_ = !bosToken.empty() && probe.rfind(bosToken, 0) == 0;
  } catch (const Error&) {
    t.writesBos_ = false;  // a template that rejects a lone user turn; render() will say so
  }
  return t;
}

std::string ChatTemplate::familyName() const {
  switch (family_) {
    case Family::Zephyr: return "zephyr";
    case Family::Llama2: return "llama-2";
    case Family::ChatML: return "chatml";
    case Family::PlainText: return jinja_ ? "jinja" : "plain";
  }
  return "plain";
}

std::string ChatTemplate::notice() const {
  if (!parseNotice_.empty()) return parseNotice_;
  std::lock_guard<std::mutex> lock(renderNotice_->mutex);
  return renderNotice_->text;
}

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt) const {
  return render(messages, addGenerationPrompt, nlohmann::json::object());
}

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages, bool addGenerationPrompt,
                                 const nlohmann::json& extraVariables) const {
  if (!jinja_) return renderPlain(messages, addGenerationPrompt);
  std::string text, failure;
  try {
    // Round-trip through text: the interpreter takes insertion-ordered JSON.
    text = renderStrict(messagesJson(messages), addGenerationPrompt,
                        parseOrderedJson(extraVariables.is_null() ? "{}" : extraVariables.dump()));
  } catch (const Error& e) {
    failure = std::string("chat template failed (") + e.what() + "); " + kPlainNotice;
    text = renderPlain(messages, addGenerationPrompt);
  }
  std::lock_guard<std::mutex> lock(renderNotice_->mutex);
  renderNotice_->text = failure;
  return text;
}

std::string ChatTemplate::renderStrict(const nlohmann::ordered_json& messages, bool addGenerationPrompt,
                                       const nlohmann::ordered_json& extraVariables,
                                       const nlohmann::ordered_json& tools) const {
  if (!jinja_) throw Error(parseNotice_);
  check(extraVariables.is_object(), "chat template kwargs must be a JSON object, got " + extraVariables.dump());
  // The variables Hugging Face's apply_chat_template passes; kwargs may override them.
  nlohmann::ordered_json vars = {{"messages", messages}, {"tools", tools}, {"documents", nullptr},
                                 {"add_generation_prompt", addGenerationPrompt}, {"bos_token", bos_},
                                 {"eos_token", eos_}};
  for (auto it = extraVariables.begin(); it != extraVariables.end(); ++it) vars[it.key()] = it.value();
  return jinja_->render(vars);
}

bool ChatTemplate::readsVariable(const std::string& name) const { return jinja_ && jinja_->readsVariable(name); }

bool ChatTemplate::writesBos() const { return writesBos_; }

std::vector<std::string> ChatTemplate::endOfTurnStrings() const { return endOfTurn_; }

}  // namespace lwb
