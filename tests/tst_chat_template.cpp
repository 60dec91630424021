// Chat templates: family detection from the Jinja text and exact rendering per family.
#include <QtTest>

#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/model/chat_template.h"

using namespace lwb;

namespace {

// Abridged from the public tokenizer_config.json files of each family.
const char* kLlama2Template =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = "
    "messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}"
    "{% for message in loop_messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + "
    "content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + "
    "eos_token }}{% endif %}{% endfor %}";
const char* kChatMLTemplate =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + "
    "'\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const std::vector<ChatMessage> kConversation = {
    {"system", "SYS"}, {"user", "HI"}, {"assistant", "Hello."}, {"user", "How are you?"}};

}  // namespace

class TestChatTemplate : public QObject {
  Q_OBJECT

 private slots:
  void detectsFamilies() {
    QVERIFY(ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<s>", "</s>").family() ==
            ChatTemplate::Family::Zephyr);
    QVERIFY(ChatTemplate::detect(kLlama2Template, "<s>", "</s>").family() == ChatTemplate::Family::Llama2);
    QVERIFY(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").family() == ChatTemplate::Family::ChatML);
    for (const char* t : {"", "{{ messages }}"}) {
      const ChatTemplate plain = ChatTemplate::detect(t, "<s>", "</s>");
      QVERIFY(plain.family() == ChatTemplate::Family::PlainText);
      QCOMPARE(plain.notice(), std::string("chat template not recognised; using plain 'User:/Assistant:' text"));
    }
    QVERIFY(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").notice().empty());
    QCOMPARE(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").familyName(), std::string("chatml"));
  }

  // The default model's template, rendered as its Jinja would.
  void rendersZephyr() {
    const ChatTemplate t = ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<s>", "</s>");
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true),
             std::string("<s><|system|>\nSYS</s>\n<|user|>\nHI</s>\n<|assistant|>\n"));
    QCOMPARE(t.render({{"user", "HI"}, {"assistant", "Hello."}}, false),
             std::string("<s><|user|>\nHI</s>\n<|assistant|>\nHello.</s>\n"));
    QVERIFY(t.writesBos());
    QVERIFY(t.endOfTurnStrings().empty());
  }

  void rendersLlama2() {
    const ChatTemplate t = ChatTemplate::detect(kLlama2Template, "<s>", "</s>");
    QCOMPARE(t.render(kConversation, true),
             std::string("<s>[INST] <<SYS>>\nSYS\n<</SYS>>\n\nHI [/INST] Hello. </s><s>[INST] How are you? [/INST]"));
    QCOMPARE(t.render({{"user", "  padded  "}}, true), std::string("<s>[INST] padded [/INST]"));
    QVERIFY(t.writesBos());
    QVERIFY_THROWS_EXCEPTION(Error, t.render({{"user", "a"}, {"user", "b"}}, true));
    QVERIFY_THROWS_EXCEPTION(Error, t.render({{"assistant", "a"}}, true));
  }

  void rendersChatML() {
    const ChatTemplate t = ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>");
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true),
             std::string("<|im_start|>system\nSYS<|im_end|>\n<|im_start|>user\nHI<|im_end|>\n<|im_start|>assistant\n"));
    QCOMPARE(t.render({{"user", "HI"}}, false), std::string("<|im_start|>user\nHI<|im_end|>\n"));
    QVERIFY(!t.writesBos());
    QCOMPARE(t.endOfTurnStrings(), std::vector<std::string>{"<|im_end|>"});
  }

  void rendersPlainText() {
    const ChatTemplate t = ChatTemplate::detect("", "<s>", "</s>");
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true), std::string("System: SYS\nUser: HI\nAssistant:"));
    QCOMPARE(t.render({{"user", "HI"}, {"assistant", "Hello."}}, false), std::string("User: HI\nAssistant: Hello.\n"));
    QVERIFY(!t.writesBos());
  }

  void usesTheGivenSpecialSpellings() {
    const ChatTemplate t = ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<bos>", "<eos>");
    QCOMPARE(t.render({{"user", "HI"}}, false), std::string("<bos><|user|>\nHI<eos>\n"));
  }
};

QTEST_GUILESS_MAIN(TestChatTemplate)
#include "tst_chat_template.moc"
