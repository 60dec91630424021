// The speculative-decoding views: the dock's off state, charts and warning on scripted
// frames; the chat's draft marking on scripted deltas (ranges, merging, the final flush,
// HTML, saved form) and, against a real engine with n-gram speculation, following the
// deltas the engine sent.
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "common/random_model.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/charts/spec_decode_chart.h"
#include "ui/charts/spec_position_chart.h"
#include "ui/panels/chat_conversation.h"
#include "ui/panels/draft_marks.h"
#include "ui/panels/spec_decode_panel.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

TokenDelta delta(std::string text, std::vector<size_t> ends, std::vector<bool> draft) {
  TokenDelta d;
  d.id = 1;
  d.newText = std::move(text);
  d.newTokenIds.assign(ends.size(), 7);
  d.textEnds = std::move(ends);
  d.fromDraft = std::move(draft);
  return d;
}

constexpr const char* kNgram4 = R"({"method": "ngram", "num_speculative_tokens": 4})";

// A tick at `time`: `numSteps` steps with one verification of 4 draft tokens each, of
// which `accepted` were accepted; the snapshot carries `totals`.
Frame tick(double time, const char* spec, int numSteps, int accepted, const SpecDecodeCounts& totals = {}) {
  auto s = std::make_shared<EngineSnapshot>();
  s->time = time;
  s->config.speculative = parseSpeculativeConfig(spec);
  s->totals.specDecode = totals;
  Frame f;
  f.snapshot = s;
  f.snapshotChanged = true;
  for (int i = 0; i < numSteps; ++i) {
    StepRecord r;
    r.startTime = time;
    r.numSpecDrafts = 1;
    r.numSpecTokens = 4;
    r.numAcceptedSpecTokens = accepted;
    f.steps.push_back(r);
  }
  return f;
}

// For a human to look at, as tst_ui_window does: $LWB_TEST_ARTIFACTS/NAME.png.
void saveShot(QWidget& w, const QString& name) {
  w.resize(720, 520);
  w.show();
  QTest::qWait(150);  // queued replots
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w.grab().save(dir + "/" + name + ".png", "PNG"));
}

bool shownLabelContains(const QWidget& w, const QString& text) {
  for (auto* l : w.findChildren<QLabel*>())
    if (!l->isHidden() && l->text().contains(text)) return true;
  return false;
}

}  // namespace

class TestUiSpecDecode : public QObject {
  Q_OBJECT
 private slots:
  void marksFollowScriptedDeltas() {
    DraftMarks m;
    m.add(0, 0, delta("The cat sat", {3, 7, 11}, {true, true, false}));  // two drafts, then the target's token
    m.add(0, 11, delta(" on the", {3, 7}, {true, false}));
    QCOMPARE(m.ranges(0), (DraftMarks::Ranges{{0, 7}, {11, 14}}));
    QCOMPARE(m.numDraftTokens(0), 3);
    QCOMPARE(m.numTokens(0), 5);
    // A stop inside the drafts: the last token is a draft and owns the final flush.
    m.add(2, 4, delta("xyz!!", {3}, {true}));
    QCOMPARE(m.ranges(2), (DraftMarks::Ranges{{4, 9}}));
    // Without per-token text ends (another source) nothing is marked; tokens still count.
    TokenDelta bare = delta("abc", {}, {});
    bare.newTokenIds = {5, 6};
    m.add(4, 0, bare);
    QVERIFY(m.ranges(4).empty());
    QCOMPARE(m.numTokens(4), 2);
    QVERIFY(m.ranges(9).empty());
  }

  void marksRenderAsTintedSpans() {
    const QColor tint(0x12, 0x34, 0x56);
    QCOMPARE(DraftMarks::html("The cat sat on the", {{0, 7}, {11, 14}}, tint),
             QString("<span style='background-color:#123456'>The cat</span> sat"
                     "<span style='background-color:#123456'> on</span> the"));
    QCOMPARE(DraftMarks::html("a<b>\nc", {}, tint), QString("a&lt;b&gt;<br>c"));
    QCOMPARE(DraftMarks::html("ab", {{1, 50}}, tint), QString("a<span style='background-color:#123456'>b</span>"));
    QVERIFY(DraftMarks::tint() != theme::kBase && DraftMarks::tint() != theme::kVerify);
  }

  void marksSurviveTheSavedChat() {
    DraftMarks m;
    m.add(3, 0, delta("The cat sat", {3, 7, 11}, {true, true, false}));
    DraftMarks back;
    back.fromJson(3, m.toJson(3));
    QCOMPARE(back.ranges(3), m.ranges(3));
    QCOMPARE(back.numDraftTokens(3), 2);
    QCOMPARE(back.numTokens(3), 3);
    QVERIFY(m.toJson(1).isEmpty());
    // Ranges out of order, empty or negative are dropped, not trusted.
    QJsonObject bad{{"ranges", QJsonArray{QJsonArray{5, 9}, QJsonArray{2, 4}, QJsonArray{9, 9}, QJsonArray{-1, 3}}}};
    back.fromJson(5, bad);
    QCOMPARE(back.ranges(5), (DraftMarks::Ranges{{5, 9}}));
  }

  void viewSaysWhenSpeculationIsOff() {
    SpecDecodePanel panel;
    panel.onFrame(tick(1.0, "", 0, 0));
    QVERIFY(!panel.speculationOn());
    QVERIFY(shownLabelContains(panel, "speculative_config"));
    QVERIFY(shownLabelContains(panel, "is off"));
    panel.onFrame(tick(2.0, kNgram4, 0, 0));
    QVERIFY(panel.speculationOn());
    QVERIFY(!shownLabelContains(panel, "is off"));
    QTRY_VERIFY(panel.summaryText().contains("ngram, k = 4"));  // text refreshes a few times a second
  }

  void viewChartsAcceptanceAndPositions() {
    SpecDecodePanel panel;
    QStatusBar bar;  // where the window puts the warning label
    bar.addPermanentWidget(panel.statusLabel());
    SpecDecodeCounts totals;
    for (int i = 0; i < 10; ++i) totals.observe(4, i % 2 ? 4 : 1);  // positions: 10, 5, 5, 5
    panel.onFrame(tick(1.0, kNgram4, 10, 2, totals));
    QCOMPARE(panel.chart()->numPoints(), 1);
    QCOMPARE(panel.chart()->monitor().acceptanceRate(), 0.5);
    QCOMPARE(panel.chart()->monitor().meanAcceptanceLength(), 3.0);
    QCOMPARE(panel.positions()->values(), (std::vector<double>{100, 50, 50, 50}));
    panel.onFrame(tick(1.1, kNgram4, 0, 0, totals));  // no verifications: no point
    QCOMPARE(panel.chart()->numPoints(), 1);
    QVERIFY(!panel.warningShown());
    QVERIFY(panel.statusLabel()->isHidden());
  }

  void viewWarnsWhenAcceptanceLengthFallsTowardsOne() {
    SpecDecodePanel panel;
    QStatusBar bar;
    bar.addPermanentWidget(panel.statusLabel());
    panel.onFrame(tick(1.0, kNgram4, int(SpecDecodeMonitor::kMinDrafts) - 1, 0));
    QVERIFY2(!panel.warningShown(), "too few verifications to judge");
    panel.onFrame(tick(2.0, kNgram4, 1, 0));
    QVERIFY(panel.warningShown());
    QVERIFY(!panel.statusLabel()->isHidden());
    QVERIFY(panel.statusLabel()->text().contains("1.00"));
    QVERIFY(panel.warningText().contains("below 1.3"));
    QVERIFY(shownLabelContains(panel, "costs more than it gains"));
    saveShot(panel, "spec-decode-warning");
    // A speculative_config change judges the new settings afresh.
    Frame change = tick(3.0, R"({"method": "ngram", "num_speculative_tokens": 2})", 0, 0);
    ConfigChangedEvent c;
    c.oldConfig.speculative = parseSpeculativeConfig(kNgram4);
    c.newConfig.speculative = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 2})");
    c.time = 3.0;
    change.configChanges.push_back(c);
    panel.onFrame(change);
    QVERIFY(!panel.warningShown());
    QVERIFY(panel.statusLabel()->isHidden());
    panel.onFrame(tick(4.0, kNgram4, 200, 3));  // mean length 4: pays
    QVERIFY(!panel.warningShown());
  }

  void chatMarksFollowEngineDeltas();
};

// A random model that falls into loops (peaked logits), n-gram speculation, greedy: the
// chat's marks count exactly the deltas' accepted drafts and cover their text.
void TestUiSpecDecode::chatMarksFollowEngineDeltas() {
  QTemporaryDir dir;
  RandomModelSpec spec;
  spec.scale = 1.0f;
  spec.maxPositionEmbeddings = 512;
  auto model = loadModel(writeRandomLlamaModel(dir.filePath("m").toStdString(), spec));
  EngineConfig config;
  config.executor.backend = "cpu";
  config.executor.numThreads = 1;
  config.speculative = parseSpeculativeConfig(R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 1, "prompt_lookup_max": 3})");
  EngineBridge bridge;
  bridge.attach(model, std::make_shared<EngineLoop>(model, config));
  ChatConversation chat(&bridge);
  SamplingParams greedy = ChatConversation::builtInSampling();
  greedy.temperature = 0;
  greedy.maxTokens = 80;
  chat.setSamplingDefaults(greedy);
  std::vector<TokenDelta> seen;
  connect(&bridge, &EngineBridge::frameReady, this, [&](const Frame& f) {
    for (const auto& d : f.deltas)
      if (d.id == chat.activeRequest()) seen.push_back(d);
    chat.onFrame(f);
  });
  chat.setInput("abc abc abc abc abc abc");
  QVERIFY(chat.send());
  QTRY_VERIFY_WITH_TIMEOUT(!chat.busy(), 60000);
  const size_t turn = chat.messages().size() - 1;
  int drafts = 0, tokens = 0;
  std::string draftText;
  for (const auto& d : seen) {
    tokens += int(d.newTokenIds.size());
    QCOMPARE(d.textEnds.size(), d.newTokenIds.size());
    for (size_t i = 0; i < d.fromDraft.size(); ++i) {
      drafts += d.fromDraft[i];
      const size_t begin = i ? d.textEnds[i - 1] : 0, end = i + 1 == d.fromDraft.size() ? d.newText.size() : d.textEnds[i];
      if (d.fromDraft[i]) draftText += d.newText.substr(begin, end - begin);
    }
  }
  qInfo("%d of %d tokens from accepted drafts", drafts, tokens);
  QVERIFY2(drafts > 0, "a looping greedy answer should get n-gram drafts accepted");
  QCOMPARE(chat.draftMarks().numDraftTokens(turn), drafts);
  QCOMPARE(chat.draftMarks().numTokens(turn), tokens);
  std::string marked;
  const std::string& answer = chat.messages()[turn].content;
  for (const auto& [b, e] : chat.draftMarks().ranges(turn)) marked += answer.substr(b, e - b);
  QCOMPARE(marked, draftText);
  QVERIFY(chat.marksDrafts());
  saveShot(chat, "chat-draft-marks");
  QVERIFY(chat.toJson().value("messages").toArray().last().toObject().contains("draft_marks"));
}

QTEST_MAIN(TestUiSpecDecode)
#include "tst_ui_spec_decode.moc"
