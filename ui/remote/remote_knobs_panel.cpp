#include "ui/remote/remote_knobs_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/panels/knob_fields.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }
}  // namespace

RemoteKnobsPanel::RemoteKnobsPanel(QWidget* parent) : QWidget(parent) {
  note_ = new QLabel(tr("<b>The server's start-up flags, read-only.</b> The server was started with these; "
                        "change them where it is started. Only what the server reports is filled in "
                        "(vLLM: vllm:cache_config_info on /metrics; llama.cpp: /props); the rest is unknown."),
                     this);
  note_->setWordWrap(true);
  problems_ = new QLabel(this);
  problems_->setWordWrap(true);
  problems_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kPreempt)));
  form_ = new QFormLayout;
  form_->setLabelAlignment(Qt::AlignRight);
  for (const Knob& k : knobTable()) addRow(k);

  auto* inner = new QWidget(this);
  auto* innerLayout = new QVBoxLayout(inner);
  innerLayout->addLayout(form_);
  innerLayout->addWidget(problems_);
  innerLayout->addStretch();
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(note_);
  layout->addWidget(scroll, 1);
  clear();
}

void RemoteKnobsPanel::addRow(const Knob& k) {
  auto* label = new QLabel(qs(k.name), this);
  label->setStyleSheet(QStringLiteral("font-family: monospace;"));
  auto* cell = new QWidget(this);
  auto* row = new QHBoxLayout(cell);
  row->setContentsMargins(0, 0, 0, 0);
  QWidget* field = makeKnobField(k, cell);
  field->setEnabled(false);  // the server's flag: nothing here changes it
  auto* value = new QLabel(cell);
  value->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  row->addWidget(field);
  row->addWidget(value, 1);
  const QString tip = knobTooltip(k) + tr("\nHere: the remote server's start-up flag (read-only).");
  label->setToolTip(tip);
  field->setToolTip(tip);
  form_->addRow(label, cell);
  rows_.push_back({&k, field, value});
}

void RemoteKnobsPanel::showRow(Row& row, const remote::ServerKnobValue* v) {
  row.field->setVisible(v != nullptr);
  if (!v) {
    row.value->setText(tr("unknown: the server does not report it"));
    return;
  }
  showKnobValue(*row.knob, row.field, v->value);
  row.value->setText(tr("%1 — %2").arg(QString::fromStdString(v->text), QString::fromStdString(v->source)));
}

void RemoteKnobsPanel::showServerConfig(const remote::RemoteServerConfig& config) {
  remote::ServerKnobs knobs = remote::knobsFromServerConfig(config);
  known_ = std::move(knobs.known);
  for (Row& row : rows_) {
    auto it = known_.find(std::string(row.knob->name));
    showRow(row, it == known_.end() ? nullptr : &it->second);
  }
  QStringList problems;
  for (const auto& p : knobs.problems) problems << QString::fromStdString(p);
  problems_->setText(problems.join('\n'));
}

void RemoteKnobsPanel::clear() { showServerConfig({}); }

const RemoteKnobsPanel::Row* RemoteKnobsPanel::find(const QString& knobName) const {
  for (const Row& r : rows_)
    if (qs(r.knob->name) == knobName) return &r;
  return nullptr;
}

QWidget* RemoteKnobsPanel::field(const QString& knobName) const {
  const Row* r = find(knobName);
  return r ? r->field : nullptr;
}

bool RemoteKnobsPanel::isKnown(const QString& knobName) const { return known_.count(knobName.toStdString()) > 0; }

QString RemoteKnobsPanel::valueText(const QString& knobName) const {
  const Row* r = find(knobName);
  return r ? r->value->text() : QString();
}

QString RemoteKnobsPanel::noteText() const { return note_->text(); }

}  // namespace lwb::ui
