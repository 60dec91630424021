#pragma once
// One conversation, without a window: the system prompt, the turns, and fitting the
// templated history into max_model_len by dropping the oldest user turns (the system
// prompt stays). The chat tab renders it; any front-end can drive it.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/chat_template.h"

namespace lwb {

struct ChatTurn {
  enum class Role { User, Assistant, Notice };  // a notice is shown, never sent
  Role role = Role::User;
  std::string content;
  std::string stats;  // assistant: the metrics line once finished
};

class ChatSession {
 public:
  // Chat messages (system first) → prompt token ids, e.g. Model::encodeChat with a
  // generation prompt.
  using Encoder = std::function<std::vector<int>(const std::vector<ChatMessage>&)>;
  // The answer keeps at least this many of max_model_len free when history is fitted.
  static constexpr int kMinAnswerTokens = 16;

  struct FittedPrompt {
    std::vector<int> ids;
    int numDroppedTurns = 0;  // user turns dropped now, beyond those dropped before
    int maxTokens = 1;        // the asked max_tokens, capped to what is left of the window
  };

  void setSystemPrompt(std::string text) { system_ = std::move(text); }
  const std::string& systemPrompt() const { return system_; }
  const std::vector<ChatTurn>& turns() const { return turns_; }
  bool empty() const { return turns_.empty(); }
  size_t firstTurn() const { return firstTurn_; }

  void addUser(std::string text);
  void addNotice(std::string text);
  void beginAnswer();                       // an empty assistant turn to stream into
  // The newest assistant turn (notices may follow it); throws lwb::Error when none.
  void appendAnswer(const std::string& text);
  void finishAnswer(std::string stats);
  const ChatTurn* lastAnswer() const;       // nullptr when there is none
  void removeLast();                        // undo addUser when the request was refused
  // Restores saved turns; an assistant turn without stats (saved mid-answer) gets
  // `interruptedStats`.
  void restore(std::vector<ChatTurn> turns, size_t firstTurn, const std::string& interruptedStats);

  // The messages the template sees: the system prompt, then user/assistant turns from
  // user turn `firstTurn` on.
  std::vector<ChatMessage> history(size_t firstTurn) const;
  // Encodes the history, dropping the oldest turns until the prompt plus
  // min(maxTokens, kMinAnswerTokens) fits maxModelLen; nullopt when even the last user
  // turn alone does not fit.
  std::optional<FittedPrompt> fit(const Encoder& encode, int maxModelLen, int maxTokens) const;
  // Makes the turns dropped by `fitted` permanent (the next fit starts after them).
  void commitFit(const FittedPrompt& fitted) { firstTurn_ += size_t(fitted.numDroppedTurns); }

 private:
  size_t numUserTurns() const;
  ChatTurn& answer();

  std::string system_;
  std::vector<ChatTurn> turns_;
  size_t firstTurn_ = 0;  // user turns before this were dropped to fit max_model_len
};

std::string chatRoleName(ChatTurn::Role role);  // "user", "assistant", "notice"
// Throws lwb::Error naming the value and the expected ones.
ChatTurn::Role chatRoleFromName(const std::string& name);

}  // namespace lwb
