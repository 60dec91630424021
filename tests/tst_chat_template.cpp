// Chat templates: rendering through the Jinja interpreter, family detection, the
// plain-text fallback (with a notice) when a template does not parse or fails.
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>

#include "common/random_model.h"
#include "engine/common/error.h"
#include "engine/common/json.h"
#include "engine/model/chat_template.h"
#include "engine/model/model.h"

using namespace lwb;

namespace {

// Hugging Face's Llama-2 chat template (meta-llama/Llama-2-7b-chat-hf).
const char* kLlama2Template =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = "
    "messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}"
    "{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + "
    "'\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}"
    "{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";
const char* kChatMLTemplate =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + "
    "'\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
const char* kThinkingTemplate =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}";

const std::vector<ChatMessage> kConversation = {
    {"system", "SYS"}, {"user", "HI"}, {"assistant", "Hello."}, {"user", "How are you?"}};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

class TestChatTemplate : public QObject {
  Q_OBJECT

 private slots:
  void detectsFamilies() {
    QVERIFY(ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<s>", "</s>").family() ==
            ChatTemplate::Family::Zephyr);
    QVERIFY(ChatTemplate::detect(kLlama2Template, "<s>", "</s>").family() == ChatTemplate::Family::Llama2);
    QVERIFY(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").family() == ChatTemplate::Family::ChatML);
    QVERIFY(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").notice().empty());
    QCOMPARE(ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").familyName(), std::string("chatml"));
    // Any template the interpreter parses renders through it, recognised family or not.
    const ChatTemplate other = ChatTemplate::detect("{{ messages | map(attribute='content') | join('/') }}", "<s>", "</s>");
    QVERIFY(other.usesJinja());
    QCOMPARE(other.familyName(), std::string("jinja"));
    QCOMPARE(other.render({{"user", "a"}, {"assistant", "b"}}, true), std::string("a/b"));
  }

  void noTemplateMeansPlainTextWithNotice() {
    const ChatTemplate t = ChatTemplate::detect("", "<s>", "</s>");
    QVERIFY(!t.usesJinja());
    QVERIFY(t.family() == ChatTemplate::Family::PlainText);
    QCOMPARE(t.notice(), std::string("model has no chat template; using plain 'User:/Assistant:' text"));
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true), std::string("System: SYS\nUser: HI\nAssistant:"));
    QCOMPARE(t.render({{"user", "HI"}, {"assistant", "Hello."}}, false), std::string("User: HI\nAssistant: Hello.\n"));
    QVERIFY(!t.writesBos());
  }

  // A construct the interpreter does not support: plain text, and the notice names the
  // line and the construct.
  void unsupportedTemplateFallsBackAndSaysWhy() {
    const ChatTemplate t = ChatTemplate::detect("{{ bos_token }}\n{% include 'other.jinja' %}", "<s>", "</s>");
    QVERIFY(!t.usesJinja());
    QVERIFY2(t.notice().find("template line 2") != std::string::npos, t.notice().c_str());
    QVERIFY2(t.notice().find("include") != std::string::npos, t.notice().c_str());
    QCOMPARE(t.render({{"user", "HI"}}, true), std::string("User: HI\nAssistant:"));
    QVERIFY_THROWS_EXCEPTION(Error, t.renderStrict(nlohmann::ordered_json::array(), true));
  }

  // The default model's template renders exactly as it always has.
  void rendersZephyr() {
    const ChatTemplate t = ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<s>", "</s>");
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true),
             std::string("<s><|system|>\nSYS</s>\n<|user|>\nHI</s>\n<|assistant|>\n"));
    QCOMPARE(t.render({{"user", "HI"}, {"assistant", "Hello."}}, false),
             std::string("<s><|user|>\nHI</s>\n<|assistant|>\nHello.</s>\n"));
    QVERIFY(t.writesBos());
    QVERIFY(t.endOfTurnStrings().empty());
  }

  void bundledModelTemplateIsTheZephyrOne() {
    const auto config = lwb::parseJson(
        readFile(LWB_SOURCE_DIR "/resources/models/austen-chat-11m/tokenizer_config.json"));
    const ChatTemplate t = ChatTemplate::detect(config["chat_template"], config["bos_token"], config["eos_token"]);
    QVERIFY(t.usesJinja());
    QCOMPARE(t.render(kConversation, true),
             std::string("<s><|system|>\nSYS</s>\n<|user|>\nHI</s>\n<|assistant|>\nHello.</s>\n"
                         "<|user|>\nHow are you?</s>\n<|assistant|>\n"));
  }

  void rendersLlama2() {
    const ChatTemplate t = ChatTemplate::detect(kLlama2Template, "<s>", "</s>");
    QCOMPARE(t.render(kConversation, true),
             std::string("<s>[INST] <<SYS>>\nSYS\n<</SYS>>\n\nHI [/INST] Hello. </s><s>[INST] How are you? [/INST]"));
    QCOMPARE(t.render({{"user", "  padded  "}}, true), std::string("<s>[INST] padded [/INST]"));
    QVERIFY(t.writesBos());
    QVERIFY(t.notice().empty());
  }

  // raise_exception in the template: the chat gets plain text and a notice, never a
  // silently wrong prompt; the notice clears on the next good render.
  void failingRenderFallsBackWithNotice() {
    const ChatTemplate t = ChatTemplate::detect(kLlama2Template, "<s>", "</s>");
    QCOMPARE(t.render({{"user", "a"}, {"user", "b"}}, true), std::string("User: a\nUser: b\nAssistant:"));
    QVERIFY2(t.notice().find("Conversation roles must alternate") != std::string::npos, t.notice().c_str());
    QVERIFY2(t.notice().find("template line 1") != std::string::npos, t.notice().c_str());
    QVERIFY_THROWS_EXCEPTION(Error, t.renderStrict({{{"role", "assistant"}, {"content", "a"}}}, true));
    t.render({{"user", "a"}}, true);
    QVERIFY(t.notice().empty());
  }

  void rendersChatML() {
    const ChatTemplate t = ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>");
    QCOMPARE(t.render({{"system", "SYS"}, {"user", "HI"}}, true),
             std::string("<|im_start|>system\nSYS<|im_end|>\n<|im_start|>user\nHI<|im_end|>\n<|im_start|>assistant\n"));
    QCOMPARE(t.render({{"user", "HI"}}, false), std::string("<|im_start|>user\nHI<|im_end|>\n"));
    QVERIFY(!t.writesBos());
    QCOMPARE(t.endOfTurnStrings(), std::vector<std::string>{"<|im_end|>"});
  }

  void extraVariablesReachTheTemplate() {
    const ChatTemplate t = ChatTemplate::detect(kThinkingTemplate, "", "<|im_end|>");
    QVERIFY(t.readsVariable("enable_thinking"));
    QVERIFY(!t.readsVariable("tools"));
    QVERIFY(!ChatTemplate::detect(kChatMLTemplate, "<s>", "</s>").readsVariable("enable_thinking"));
    const std::string on = t.render({{"user", "q"}}, true);
    const std::string off = t.render({{"user", "q"}}, true, {{"enable_thinking", false}});
    QCOMPARE(on, std::string("<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n"));
    QCOMPARE(off, on + "<think>\n\n</think>\n\n");
    QCOMPARE(t.render({{"user", "q"}}, true, {{"enable_thinking", true}}), on);
    // EOS is not an extra end-of-turn string.
    QVERIFY(t.endOfTurnStrings().empty());
  }

  void llama3EndsTurnsWithEotId() {
    const ChatTemplate t = ChatTemplate::detect(
        "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content | trim }}<|eot_id|>{% endfor %}",
        "<|begin_of_text|>", "<|end_of_text|>");
    QCOMPARE(t.endOfTurnStrings(), std::vector<std::string>{"<|eot_id|>"});
    QVERIFY(!t.writesBos());
  }

  // Newer Hugging Face folders: chat_template.jinja next to tokenizer_config.json wins.
  void loadsChatTemplateJinjaFile() {
    QTemporaryDir tmp;
    const std::string dir = writeRandomLlamaModel(tmp.path().toStdString(), RandomModelSpec{});
    std::ofstream(dir + "/chat_template.jinja") << "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}\n";
    const auto model = loadModel(dir);
    QVERIFY(model->chatTemplate.usesJinja());
    QCOMPARE(model->chatTemplate.render({{"user", "HI"}}, true), std::string("[user] HI\n"));
  }

  void usesTheGivenSpecialSpellings() {
    const ChatTemplate t = ChatTemplate::detect(RandomModelSpec::zephyrChatTemplate(), "<bos>", "<eos>");
    QCOMPARE(t.render({{"user", "HI"}}, false), std::string("<bos><|user|>\nHI<eos>\n"));
  }
};

QTEST_GUILESS_MAIN(TestChatTemplate)
#include "tst_chat_template.moc"
