#include "ui/charts/batch_chart.h"

#include "engine/config/knobs.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
QColor alpha(QColor c, int a) {
  c.setAlpha(a);
  return c;
}
}  // namespace

BatchChart::BatchChart(QWidget* parent)
    : TimeChart(tr("One forward pass per step: decode tokens (one per running request), "
                   "speculative draft tokens to verify and prefill chunks share the token budget."),
                parent) {
  auto* top = rects().first();
  top->axis(QCPAxis::atLeft)->setLabel(tr("tokens / step"));
  decode_ = addLineGraph(top, theme::kDecode, tr("decode"));
  decode_->setLineStyle(QCPGraph::lsStepLeft);
  decode_->setBrush(alpha(theme::kDecode, 150));
  verify_ = addLineGraph(top, theme::kVerify, tr("verification (drafts, stacked)"));
  verify_->setLineStyle(QCPGraph::lsStepLeft);
  verify_->setBrush(alpha(theme::kVerify, 150));
  verify_->setChannelFillGraph(decode_);
  stacked_ = addLineGraph(top, theme::kPrefill, tr("prefill (stacked)"));
  stacked_->setLineStyle(QCPGraph::lsStepLeft);
  stacked_->setBrush(alpha(theme::kPrefill, 150));
  stacked_->setChannelFillGraph(verify_);
  budget_ = addLineGraph(top, theme::kBudget, QString::fromUtf8(knob::kMaxNumBatchedTokens.data(), int(knob::kMaxNumBatchedTokens.size())));
  budget_->setLineStyle(QCPGraph::lsStepLeft);
  budget_->setPen(QPen(theme::kBudget, 1, Qt::DashLine));

  auto* bottom = addAxisRect();
  bottom->axis(QCPAxis::atLeft)->setLabel(tr("requests"));
  bottom->axis(QCPAxis::atRight)->setVisible(true);
  bottom->axis(QCPAxis::atRight)->setTickLabels(true);
  bottom->axis(QCPAxis::atRight)->setLabel(tr("step (ms)"));
  running_ = addLineGraph(bottom, theme::kRunning, tr("running"));
  running_->setLineStyle(QCPGraph::lsStepLeft);
  waiting_ = addLineGraph(bottom, theme::kWaiting, tr("waiting"));
  waiting_->setLineStyle(QCPGraph::lsStepLeft);
  duration_ = addLineGraph(bottom, theme::kDuration, tr("step duration (ms, right)"), true);
  duration_->setLineStyle(QCPGraph::lsNone);
  duration_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDot, theme::kDuration, 2));

  plot()->legend->setVisible(false);
  addLegendInside(top, {decode_, verify_, stacked_, budget_});
  addLegendInside(bottom, {running_, waiting_, duration_});
  plot()->plotLayout()->setRowStretchFactor(0, 3);  // rows: tokens, requests
  plot()->plotLayout()->setRowStretchFactor(1, 2);
  top->axis(QCPAxis::atLeft)->setRange(0, 64);
  bottom->axis(QCPAxis::atLeft)->setRange(0, 8);
  bottom->axis(QCPAxis::atRight)->setRange(0, 10);
}

void BatchChart::addStep(const StepRecord& s) {
  const double t = s.startTime;
  decode_->addData(t, s.numDecodeTokens);
  verify_->addData(t, s.numDecodeTokens + s.numSpecTokens);
  stacked_->addData(t, s.numDecodeTokens + s.numSpecTokens + s.numPrefillTokens);
  budget_->addData(t, s.tokenBudget);
  running_->addData(t, s.numRunning);
  waiting_->addData(t, s.numWaiting);
  duration_->addData(t, s.duration * 1000.0);
  maxTokens_ = std::max<double>(maxTokens_, s.tokenBudget);
  maxSeqs_ = std::max<double>(maxSeqs_, std::max(s.numRunning, s.numWaiting));
  maxMs_ = std::max(maxMs_, s.duration * 1000.0);
}

void BatchChart::setInstance(int index) {
  if (index == instance_) return;
  instance_ = index;
  clear();
}

void BatchChart::onFrame(const Frame& frame) {
  for (const auto& s : frame.steps)
    if (s.instanceIndex == instance_) addStep(s);
  for (const auto& c : frame.configChanges) addKnobMarker(c.time, QString::fromStdString(c.description));
  if (!frame.snapshot) return;
  if (frame.steps.empty() && !frame.snapshotChanged) return;
  dropOldData();
  setNow(frame.snapshot->time);
  // Fit to what is on screen, so a smaller budget after a knob change is still readable.
  auto rs = rects();
  fitToVisible(rs[0]->axis(QCPAxis::atLeft), {stacked_, budget_}, 8);
  fitToVisible(rs[1]->axis(QCPAxis::atLeft), {running_, waiting_}, 4);
  fitToVisible(rs[1]->axis(QCPAxis::atRight), {duration_}, 1);
}

}  // namespace lwb::ui
