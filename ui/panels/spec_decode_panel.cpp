#include "ui/panels/spec_decode_panel.h"

#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "engine/config/knobs.h"
#include "ui/charts/spec_decode_chart.h"
#include "ui/charts/spec_position_chart.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QLabel* wrappedLabel(QWidget* parent) {
  auto* l = new QLabel(parent);
  l->setWordWrap(true);
  l->setTextFormat(Qt::RichText);
  l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);
  return l;
}

QString knobName() { return QString::fromUtf8(knob::kSpeculativeConfig.data(), int(knob::kSpeculativeConfig.size())); }
}  // namespace

SpecDecodePanel::SpecDecodePanel(QWidget* parent)
    : QWidget(parent), chart_(new SpecDecodeChart(this)), positions_(new SpecPositionChart(this)) {
  offLabel_ = wrappedLabel(this);
  offLabel_->setText(
      tr("<b>Speculative decoding is off.</b> Turn it on with the <code>%1</code> knob (Scheduler knobs), "
         "e.g. <code>{\"method\": \"ngram\", \"num_speculative_tokens\": 4, \"prompt_lookup_max\": 4}</code> "
         "(prompt lookup) or <code>{\"model\": \"…/austen-chat-draft\", \"num_speculative_tokens\": 3}</code> "
         "(a draft model); on the command line <code>--speculative-config '{…}'</code>.")
          .arg(knobName()));
  summaryLabel_ = wrappedLabel(this);
  summaryLabel_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kMutedText)));
  summaryLabel_->setToolTip(tr("Acceptance rate = accepted / draft tokens; mean acceptance length = 1 + accepted / "
                               "verifications (tokens a request gains per target step), as vLLM reports them"));
  warningLabel_ = wrappedLabel(this);
  warningLabel_->setStyleSheet(QStringLiteral("color: %1; border: 1px solid %1; padding: 3px;")
                                   .arg(theme::htmlColor(theme::kBudget)));
  warningLabel_->setVisible(false);
  statusLabel_ = new QLabel(this);
  statusLabel_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kBudget)));
  statusLabel_->setVisible(false);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_);
  split->addWidget(positions_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  layout->addWidget(offLabel_);
  layout->addWidget(warningLabel_);
  layout->addWidget(summaryLabel_);
  layout->addWidget(split, 1);
}

void SpecDecodePanel::clear() {
  chart_->clear();
  updateWarning();
  refresh_.request();
}

void SpecDecodePanel::onFrame(const Frame& frame) {
  chart_->onFrame(frame);
  if (frame.snapshotChanged && frame.snapshot) {
    snapshot_ = frame.snapshot;
    updateSpeculation(snapshot_->config.speculative);
  }
  updateWarning();
  if (frame.snapshotChanged || !frame.steps.empty()) refresh_.request();
}

// The text and the bars, a few times a second.
void SpecDecodePanel::refresh() {
  if (warning_) updateWarningText();
  if (!snapshot_) return;
  updateSummary(*snapshot_);
  positions_->setCounts(snapshot_->totals.specDecode, on_ ? snapshot_->config.speculative.numSpeculativeTokens : 0);
}

void SpecDecodePanel::updateSpeculation(const SpeculativeConfig& config) {
  on_ = config.enabled();
  offLabel_->setVisible(!on_);
}

QString SpecDecodePanel::summaryText() const { return summaryLabel_->text(); }

void SpecDecodePanel::updateSummary(const EngineSnapshot& s) {
  const SpeculativeConfig& c = s.config.speculative;
  QString method = QString::fromStdString(specMethodName(c.method));
  if (c.method == SpecMethod::DraftModel) method += QStringLiteral(" ") + QFileInfo(QString::fromStdString(c.model)).fileName();
  const SpecDecodeCounts& t = s.totals.specDecode;
  const SpecDecodeMonitor& m = chart_->monitor();
  QString text = on_ ? tr("%1, k = %2").arg(method).arg(c.numSpeculativeTokens) : tr("off");
  if (m.numDrafts() > 0)
    text += tr(" · last %1 verifications: acceptance %2%, mean length %3")
                .arg(m.numDrafts())
                .arg(100.0 * m.acceptanceRate(), 0, 'f', 1)
                .arg(m.meanAcceptanceLength(), 0, 'f', 2);
  if (t.numDrafts > 0)
    text += tr(" · since the engine started: %1 verifications, acceptance %2%, mean length %3")
                .arg(t.numDrafts)
                .arg(100.0 * t.acceptanceRate(), 0, 'f', 1)
                .arg(t.meanAcceptanceLength(), 0, 'f', 2);
  summaryLabel_->setText(text.toHtmlEscaped());
}

QString SpecDecodePanel::warningText() const {
  const SpecDecodeMonitor& m = chart_->monitor();
  return tr("Speculation costs more than it gains: the mean acceptance length is %1 over the last %2 "
            "verifications (warning below %3). Each verification spends the drafts' positions of the token "
            "budget (and, with a draft model, its passes) to gain %4 tokens beyond the one a plain step makes. "
            "Try a smaller num_speculative_tokens, another method, or turn %5 off.")
      .arg(m.meanAcceptanceLength(), 0, 'f', 2)
      .arg(m.numDrafts())
      .arg(SpecDecodeMonitor::kWarnBelow, 0, 'f', 1)
      .arg(m.meanAcceptanceLength() - 1.0, 0, 'f', 2)
      .arg(knobName());
}

void SpecDecodePanel::updateWarningText() {
  const QString text = warningText();
  warningLabel_->setText(QStringLiteral("⚠ ") + text.toHtmlEscaped());
  statusLabel_->setText(tr("⚠ speculation: mean acceptance length %1").arg(chart_->monitor().meanAcceptanceLength(), 0, 'f', 2));
  statusLabel_->setToolTip(text);
}

// Shows or hides the warning at once when the rule's verdict changes; its numbers follow
// in refresh().
void SpecDecodePanel::updateWarning() {
  const bool warn = chart_->monitor().warning();
  if (warn == warning_) return;
  warning_ = warn;
  if (warn) updateWarningText();
  warningLabel_->setVisible(warn);
  // Shown only once the window has moved it into its status bar; inside the panel it
  // would sit on top of the layout.
  statusLabel_->setVisible(warn && statusLabel_->parentWidget() != this);
}

}  // namespace lwb::ui
