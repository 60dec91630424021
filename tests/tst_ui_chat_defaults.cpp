// The chat panel's line of sampling defaults: each value with its source, the model's
// generation_config.json or the chat's built-in settings.
#include <QtTest>

#include "engine/model/model.h"
#include "ui/panels/chat_panel.h"

using namespace lwb;
using namespace lwb::ui;

class TestUiChatDefaults : public QObject {
  Q_OBJECT
 private slots:
  void namesTheSourceOfEveryDefault() {
    GenerationDefaults g;
    g.temperature = 0.6f;
    g.topK = 20;
    const SamplingDefaults d = samplingDefaults(g, ChatConversation::builtInSampling());
    QCOMPARE(ChatPanel::describeDefaults(d),
             QString("temperature 0.6, top_k 20 (model's generation_config.json) · top_p 0.95, min_p 0, "
                     "repetition_penalty 1, max_tokens 160 (built in)"));
  }

  void withoutGenerationConfigEverythingIsBuiltIn() {
    const SamplingDefaults d = samplingDefaults(GenerationDefaults{}, ChatConversation::builtInSampling());
    QCOMPARE(ChatPanel::describeDefaults(d), QString("temperature 0.7, top_p 0.95, top_k off, min_p 0, "
                                                     "repetition_penalty 1, max_tokens 160 (built in)"));
  }
};

QTEST_MAIN(TestUiChatDefaults)
#include "tst_ui_chat_defaults.moc"
