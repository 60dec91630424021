// ChatSession without a window: the history the template sees (system first, notices
// left out, dropped turns left out), fitting into max_model_len by dropping the oldest
// user turns, the max_tokens cap, and restoring a saved conversation.
#include <QtTest>

#include <sstream>

#include "engine/common/error.h"
#include "engine/model/chat_session.h"

using namespace lwb;

namespace {

// One token per message for the role, one per word of content: lengths easy to count.
std::vector<int> wordEncoder(const std::vector<ChatMessage>& messages) {
  std::vector<int> ids;
  for (const ChatMessage& m : messages) {
    ids.push_back(m.role == "system" ? 1 : m.role == "user" ? 2 : 3);
    std::istringstream words(m.content);
    for (std::string w; words >> w;) ids.push_back(int(w.size()) + 10);
  }
  return ids;
}

std::vector<std::string> roles(const std::vector<ChatMessage>& messages) {
  std::vector<std::string> out;
  for (const ChatMessage& m : messages) out.push_back(m.role);
  return out;
}

ChatSession twoTurns() {
  ChatSession s;
  s.setSystemPrompt("be brief");                // 3 tokens
  s.addUser("one two three four");              // 5
  s.beginAnswer();
  s.appendAnswer("five six");                   // 3
  s.finishAnswer("TTFT 1 ms");
  s.addNotice("a notice is never sent");
  s.addUser("seven eight");                     // 3
  return s;
}

}  // namespace

class TestChatSession : public QObject {
  Q_OBJECT
 private slots:
  void historyHasSystemFirstAndNoNotices() {
    const ChatSession s = twoTurns();
    QCOMPARE(roles(s.history(0)), (std::vector<std::string>{"system", "user", "assistant", "user"}));
    QCOMPARE(roles(s.history(1)), (std::vector<std::string>{"system", "user"}));
    QCOMPARE(s.history(1).back().content, std::string("seven eight"));
    ChatSession blank;
    blank.setSystemPrompt(" \n\t");
    blank.addUser("hi");
    QCOMPARE(roles(blank.history(0)), (std::vector<std::string>{"user"}));
  }

  void fitKeepsEverythingWhenItFits() {
    const ChatSession s = twoTurns();
    auto f = s.fit(wordEncoder, 100, 50);
    QVERIFY(f);
    QCOMPARE(int(f->ids.size()), 14);
    QCOMPARE(f->numDroppedTurns, 0);
    QCOMPARE(f->maxTokens, 50);
  }

  // 14 tokens with both turns, 6 with the last alone; the answer needs min(max_tokens, 16).
  void fitDropsTheOldestTurns() {
    ChatSession s = twoTurns();
    auto f = s.fit(wordEncoder, 22, 16);
    QVERIFY(f);
    QCOMPARE(f->numDroppedTurns, 1);
    QCOMPARE(int(f->ids.size()), 6);
    QCOMPARE(f->maxTokens, 16);
    QCOMPARE(s.firstTurn(), size_t(0));  // fit() alone changes nothing
    s.commitFit(*f);
    QCOMPARE(s.firstTurn(), size_t(1));
    QCOMPARE(roles(s.history(s.firstTurn())), (std::vector<std::string>{"system", "user"}));
    // A bound exactly at the limit fits: 14 + 16 = 30.
    QCOMPARE(twoTurns().fit(wordEncoder, 30, 16)->numDroppedTurns, 0);
    QCOMPARE(twoTurns().fit(wordEncoder, 29, 16)->numDroppedTurns, 1);
  }

  void maxTokensIsCappedToTheWindowLeft() {
    auto f = twoTurns().fit(wordEncoder, 20, 100);  // 6 tokens: 14 left, at least 16 needed
    QVERIFY(!f);
    f = twoTurns().fit(wordEncoder, 25, 100);  // only the last turn fits: 19 left
    QVERIFY(f);
    QCOMPARE(f->numDroppedTurns, 1);
    QCOMPARE(f->maxTokens, 19);
    f = twoTurns().fit(wordEncoder, 10, 2);  // a small max_tokens needs only itself
    QVERIFY(f);
    QCOMPARE(f->maxTokens, 2);
  }

  void aMessageTooLongAloneDoesNotFit() {
    ChatSession s;
    s.addUser("a b c d e f g h i j");
    QVERIFY(!s.fit(wordEncoder, 12, 4));
    s.removeLast();
    QVERIFY(s.empty());
  }

  void restoreMarksAnInterruptedAnswer() {
    ChatSession s;
    s.restore({{ChatTurn::Role::User, "q", {}}, {ChatTurn::Role::Assistant, "half an ans", {}}}, 7, "interrupted");
    QCOMPARE(s.turns().back().stats, std::string("interrupted"));
    QCOMPARE(s.firstTurn(), size_t(1));  // clamped to the user turns there are
    s.restore({{ChatTurn::Role::User, "q", {}}, {ChatTurn::Role::Assistant, "done", "TTFT"}}, 0, "interrupted");
    QCOMPARE(s.turns().back().stats, std::string("TTFT"));
  }

  void answersNeedAnAssistantTurn() {
    ChatSession s;
    s.addUser("q");
    QVERIFY(s.lastAnswer() == nullptr);
    QVERIFY_THROWS_EXCEPTION(Error, s.appendAnswer("x"));
    QVERIFY_THROWS_EXCEPTION(Error, s.finishAnswer("x"));
    s.beginAnswer();
    s.addNotice("shown while the answer streams");
    s.appendAnswer("still ");
    s.appendAnswer("the answer");
    s.finishAnswer("done");
    QCOMPARE(s.lastAnswer()->content, std::string("still the answer"));
    QCOMPARE(s.lastAnswer()->stats, std::string("done"));
    QVERIFY(s.turns().back().role == ChatTurn::Role::Notice);
  }

  void roleNamesRoundTrip() {
    for (auto r : {ChatTurn::Role::User, ChatTurn::Role::Assistant, ChatTurn::Role::Notice})
      QVERIFY(chatRoleFromName(chatRoleName(r)) == r);
    try {
      chatRoleFromName("tool");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("'tool'") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestChatSession)
#include "tst_chat_session.moc"
