// The knob form is built from the knob table: its rows are exactly the table's knobs in
// order, each field has the table's range and the help text as its tooltip, structural
// knobs sit under the "rebuild" heading, and every knob survives form → config → form.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <climits>

#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/panels/knobs_panel.h"

using namespace lwb;
using namespace lwb::ui;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }

KnobValue otherValue(const Knob& k) {
  const KnobValue d = k.get(EngineConfig{});
  switch (k.kind) {
    case KnobKind::Bool:
      return !std::get<bool>(d);
    case KnobKind::Real:
      return 0.5;
    case KnobKind::Choice:
      return std::string(k.choices.back());
    case KnobKind::Text:
      return std::get<std::string>(d) + "-other";
    case KnobKind::Json: {  // the canonical text, as the getter writes it
      EngineConfig c;
      if (k.name == knob::kKvTransferConfig)
        k.set(c, std::string(R"({"kv_connector": "PdInProcessConnector", "kv_connector_extra_config": {"link": "roce"}})"));
      else
        k.set(c, std::string(R"({"model": "/m/draft", "num_speculative_tokens": 3})"));
      return k.get(c);
    }
    case KnobKind::Int:
      break;
  }
  return std::get<int64_t>(d) == k.max ? k.min : k.max;
}

}  // namespace

class TestUiKnobs : public QObject {
  Q_OBJECT

 private slots:
  void formShowsExactlyTheTable() {
    EngineBridge bridge;
    KnobsPanel panel(&bridge);
    QFormLayout* form = panel.findChild<QFormLayout*>();
    QVERIFY(form != nullptr);
    QStringList rows, headings;
    bool underStructural = false;
    for (int r = 0; r < form->rowCount(); ++r) {
      if (auto* span = form->itemAt(r, QFormLayout::SpanningRole); span && span->widget()) {
        headings << qobject_cast<QLabel*>(span->widget())->text();
        underStructural = true;
        continue;
      }
      auto* label = form->itemAt(r, QFormLayout::LabelRole);
      auto* text = label ? qobject_cast<QLabel*>(label->widget()) : nullptr;
      if (!text || text->text().isEmpty()) continue;  // the defaults note
      rows << text->text();
      const Knob* k = findKnob(text->text().toStdString());
      QVERIFY2(k != nullptr, qPrintable(text->text()));
      QCOMPARE(underStructural, k->structural());
    }
    QStringList table;
    for (const Knob& k : knobTable()) table << qs(k.name);
    QCOMPARE(rows, table);
    QCOMPARE(panel.knobNames(), table);
    QCOMPARE(headings.size(), 1);
    QVERIFY(headings[0].contains("rebuild"));
  }

  void fieldsCarryTheTablesRangeAndHelp() {
    EngineBridge bridge;
    KnobsPanel panel(&bridge);
    for (const Knob& k : knobTable()) {
      QWidget* f = panel.field(qs(k.name));
      QVERIFY2(f != nullptr, k.flag.c_str());
      QVERIFY2(f->toolTip().contains(qs(k.help)), k.flag.c_str());
      QVERIFY2(f->toolTip().contains(k.structural() ? "rebuild" : "next step"), k.flag.c_str());
      if (auto* s = qobject_cast<QSpinBox*>(f)) {
        QCOMPARE(qint64(s->minimum()), k.min);
        QCOMPARE(qint64(s->maximum()), std::min<int64_t>(k.max, INT_MAX));
      } else if (auto* c = qobject_cast<QComboBox*>(f); c && k.kind == KnobKind::Choice) {
        QCOMPARE(c->count(), int(k.choices.size()));
      } else if (auto* d = qobject_cast<QDoubleSpinBox*>(f); d && k.kind == KnobKind::Real) {
        QVERIFY(d->minimum() > k.realMin && d->maximum() == k.realMax);
      }
    }
  }

  void everyKnobSurvivesTheForm() {
    EngineBridge bridge;
    KnobsPanel panel(&bridge);
    for (const Knob& k : knobTable()) {
      EngineConfig c;
      k.set(c, otherValue(k));
      panel.showConfig(c);
      const EngineConfig back = panel.collect();
      QVERIFY2(k.get(back) == k.get(c), k.flag.c_str());
      QCOMPARE(describeChange(c, back), std::string("no change"));
    }
  }

  // speculative_config is a line edit: bad text is refused with the field named, the
  // tooltip says when a change rebuilds.
  void speculativeConfigIsALineEdit() {
    EngineBridge bridge;
    KnobsPanel panel(&bridge);
    auto* edit = qobject_cast<QLineEdit*>(panel.field(qs(knob::kSpeculativeConfig)));
    QVERIFY(edit != nullptr);
    QVERIFY(edit->toolTip().contains("draft model"));
    QVERIFY(edit->text().isEmpty());  // off
    edit->setText(R"({"method": "ngram", "num_speculative_tokens": 99})");
    try {
      panel.collect();
      QFAIL("accepted num_speculative_tokens 99");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("num_speculative_tokens is 99"), e.what());
    }
    edit->setText(R"({"method": "ngram", "num_speculative_tokens": 2})");
    QCOMPARE(panel.collect().speculative.numSpeculativeTokens, 2);
  }
};

QTEST_MAIN(TestUiKnobs)
#include "tst_ui_knobs.moc"
