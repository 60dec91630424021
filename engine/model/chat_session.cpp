#include "engine/model/chat_session.h"

#include <algorithm>

#include "engine/common/error.h"

namespace lwb {

void ChatSession::addUser(std::string text) { turns_.push_back({ChatTurn::Role::User, std::move(text), {}}); }

void ChatSession::addNotice(std::string text) { turns_.push_back({ChatTurn::Role::Notice, std::move(text), {}}); }

void ChatSession::beginAnswer() { turns_.push_back({ChatTurn::Role::Assistant, {}, {}}); }

const ChatTurn* ChatSession::lastAnswer() const {
  for (auto it = turns_.rbegin(); it != turns_.rend(); ++it)
    if (it->role == ChatTurn::Role::Assistant) return &*it;
  return nullptr;
}

ChatTurn& ChatSession::answer() {
  for (auto it = turns_.rbegin(); it != turns_.rend(); ++it)
    if (it->role == ChatTurn::Role::Assistant) return *it;
  throw Error("chat: no answer is being streamed");
}

void ChatSession::appendAnswer(const std::string& text) { answer().content += text; }

void ChatSession::finishAnswer(std::string stats) { answer().stats = std::move(stats); }

void ChatSession::removeLast() {
  if (!turns_.empty()) turns_.pop_back();
}

void ChatSession::restore(std::vector<ChatTurn> turns, size_t firstTurn, const std::string& interruptedStats) {
  turns_ = std::move(turns);
  firstTurn_ = std::min(firstTurn, numUserTurns());
  if (!turns_.empty() && turns_.back().role == ChatTurn::Role::Assistant && turns_.back().stats.empty())
    turns_.back().stats = interruptedStats;
}

size_t ChatSession::numUserTurns() const {
  return size_t(std::count_if(turns_.begin(), turns_.end(),
                              [](const ChatTurn& t) { return t.role == ChatTurn::Role::User; }));
}

std::vector<ChatMessage> ChatSession::history(size_t firstTurn) const {
  std::vector<ChatMessage> out;
  if (system_.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back({"system", system_});
  size_t turn = 0;
  for (const ChatTurn& t : turns_) {
    if (t.role == ChatTurn::Role::User) ++turn;
    if (turn <= firstTurn || t.role == ChatTurn::Role::Notice) continue;
    out.push_back({chatRoleName(t.role), t.content});
  }
  return out;
}

std::optional<ChatSession::FittedPrompt> ChatSession::fit(const Encoder& encode, int maxModelLen,
                                                          int maxTokens) const {
  const size_t numTurns = numUserTurns();
  for (size_t first = firstTurn_; first < numTurns; ++first) {
    std::vector<int> ids = encode(history(first));
    const int left = maxModelLen - int(ids.size());
    if (left >= std::min(maxTokens, kMinAnswerTokens)) {
      const int dropped = int(first - firstTurn_);
      return FittedPrompt{std::move(ids), dropped, std::max(1, std::min(maxTokens, left))};
    }
  }
  return std::nullopt;
}

std::string chatRoleName(ChatTurn::Role role) {
  switch (role) {
    case ChatTurn::Role::User: return "user";
    case ChatTurn::Role::Assistant: return "assistant";
    case ChatTurn::Role::Notice: return "notice";
  }
  return "notice";
}

ChatTurn::Role chatRoleFromName(const std::string& name) {
  for (auto r : {ChatTurn::Role::User, ChatTurn::Role::Assistant, ChatTurn::Role::Notice})
    if (chatRoleName(r) == name) return r;
  throw Error("chat: role '" + name + "'; expected user, assistant or notice");
}

}  // namespace lwb
