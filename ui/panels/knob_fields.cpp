#include "ui/panels/knob_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>

#include <algorithm>
#include <climits>

#include "ui/language.h"

namespace lwb::ui {

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }
}  // namespace

bool knobInMiB(const Knob& k) { return k.unit == "bytes"; }

QString knobHelp(const Knob& k) { return translated("Knobs", k.help); }

QString knobExpectation(const Knob& k) {
  switch (k.kind) {
    case KnobKind::Bool:
      return QObject::tr("on or off");
    case KnobKind::Real:
      return QObject::tr("a number in (%1, %2]").arg(k.realMin).arg(k.realMax);
    case KnobKind::Choice: {
      QStringList choices;
      for (std::string_view c : k.choices) choices << qs(c);
      return QObject::tr("one of %1").arg(choices.join(QStringLiteral(", ")));
    }
    case KnobKind::Json:
      return QObject::tr("a JSON object ({} or null = off)");
    case KnobKind::Text:
      return QObject::tr("text");
    case KnobKind::Int:
      break;
  }
  QString s = (k.powerOfTwo ? QObject::tr("a power of two in %1..%2") : QObject::tr("an integer in %1..%2"))
                  .arg(k.min)
                  .arg(k.max);
  if (!k.zeroMeaning.empty()) s += QObject::tr(" (0 = %1)").arg(translated("Knobs", k.zeroMeaning));
  return s;
}

QString knobTooltip(const Knob& k) {
  return QObject::tr("%1.\nAccepts %2.").arg(knobHelp(k), knobExpectation(k)) +
         (k.structural()       ? QObject::tr("\nStructural: applies with a rebuild of the KV cache.")
          : k.structuralWhen ? QObject::tr("\nLive: applies at the next step; %1 rebuilds the KV cache.")
                                   .arg(translated("Knobs", k.whenStructural))
                             : QObject::tr("\nLive: applies at the next step."));
}

QWidget* makeKnobField(const Knob& k, QWidget* parent) {
  if (k.kind == KnobKind::Bool) return new QCheckBox(parent);
  if (k.kind == KnobKind::Json || k.kind == KnobKind::Text) {  // JSON: empty = off
    auto* edit = new QLineEdit(parent);
    if (k.kind == KnobKind::Json) edit->setPlaceholderText(QObject::tr("off"));
    edit->setClearButtonEnabled(k.kind == KnobKind::Json);
    return edit;
  }
  if (k.kind == KnobKind::Choice || (k.kind == KnobKind::Int && k.powerOfTwo)) {
    auto* box = new QComboBox(parent);
    if (k.kind == KnobKind::Choice)
      for (std::string_view c : k.choices) box->addItem(qs(c), qs(c));
    else
      for (int64_t v = k.min; v <= k.max; v *= 2) box->addItem(QString::number(v), qlonglong(v));
    return box;
  }
  if (k.kind == KnobKind::Real || knobInMiB(k)) {
    auto* d = new QDoubleSpinBox(parent);
    if (knobInMiB(k)) {
      d->setRange(double(k.min) / kKnobMiB, double(k.max) / kKnobMiB);
      d->setDecimals(0);
      d->setSuffix(QObject::tr(" MiB"));
      d->setSpecialValueText(translated("Knobs", k.zeroLabel));
    } else {
      d->setRange(k.realMin + 0.01, k.realMax);  // (min, max]: the smallest step above min
      d->setDecimals(2);
      d->setSingleStep(0.05);
    }
    return d;
  }
  auto* s = new QSpinBox(parent);
  s->setRange(int(std::max<int64_t>(k.min, INT_MIN)), int(std::min<int64_t>(k.max, INT_MAX)));
  if (k.min == 0) s->setSpecialValueText(translated("Knobs", k.zeroLabel));
  s->setAccelerated(true);
  return s;
}

void showKnobValue(const Knob& k, QWidget* f, const KnobValue& v) {
  if (auto* box = qobject_cast<QCheckBox*>(f)) return box->setChecked(std::get<bool>(v));
  if (auto* edit = qobject_cast<QLineEdit*>(f)) return edit->setText(QString::fromStdString(std::get<std::string>(v)));
  if (auto* combo = qobject_cast<QComboBox*>(f)) {
    const QVariant data = k.kind == KnobKind::Choice ? QVariant(QString::fromStdString(std::get<std::string>(v)))
                                                     : QVariant(qlonglong(std::get<int64_t>(v)));
    if (const int i = combo->findData(data); i >= 0) combo->setCurrentIndex(i);
    return;
  }
  if (auto* d = qobject_cast<QDoubleSpinBox*>(f))
    return d->setValue(knobInMiB(k) ? double(std::get<int64_t>(v)) / kKnobMiB : std::get<double>(v));
  if (auto* s = qobject_cast<QSpinBox*>(f)) s->setValue(int(std::get<int64_t>(v)));
}

}  // namespace lwb::ui
