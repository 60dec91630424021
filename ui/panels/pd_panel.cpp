#include "ui/panels/pd_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/charts/batch_chart.h"
#include "ui/panels/kv_panel.h"
#include "ui/theme.h"

namespace lwb::ui {

PdPanel::PdPanel(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout;
  grid->setContentsMargins(0, 0, 0, 0);
  const QString titles[2] = {tr("Prefill instance (P)"), tr("Decode instance (D)")};
  const QString tips[2] = {
      tr("Runs each prompt with max_tokens 1, as vLLM's disaggregation proxy sends it; its KV blocks are then "
         "copied to the decode instance."),
      tr("Receives each prompt's KV blocks (a prefix-cache hit), computes only the last partial block and "
         "decodes.")};
  const QString selectorTips[2] = {
      tr("Which prefill instance this side shows: a new request goes to the one with the fewest prompt tokens "
         "still to compute."),
      tr("Which decode instance this side shows: a prefilled request goes to the one with the most free KV "
         "blocks. The window's Batch composition per step and KV block map docks show decode instance 1.")};
  for (int side = 0; side < 2; ++side) {
    title_[side] = new QLabel(QStringLiteral("<b>%1</b>").arg(titles[side]), this);
    title_[side]->setToolTip(tips[side]);
    selector_[side] = new QComboBox(this);
    selector_[side]->setToolTip(selectorTips[side]);
    selector_[side]->setVisible(false);
    batch_[side] = new BatchChart(this);
    kv_[side] = new KvPanel(this);
    grid->addWidget(title_[side], 0, side);
    grid->addWidget(selector_[side], 1, side);
    grid->addWidget(batch_[side], 2, side);
    grid->addWidget(kv_[side], 3, side);
    connect(selector_[side], &QComboBox::currentIndexChanged, this,
            [this, side](int index) { selectInstance(Side(side), index); });
  }
  grid->setRowStretch(2, 3);
  grid->setRowStretch(3, 2);
  hint_ = new QLabel(tr("A colocated engine is running. Engine ▸ Prefill/decode disaggregation… starts a "
                        "prefill/decode pair; its two instances show here."),
                     this);
  hint_->setWordWrap(true);
  compare_ = new QPushButton(tr("Compare with colocated chunked prefill"), this);
  compare_->setToolTip(tr("Runs the load generator's workload twice off the window's engine: on this P/D "
                          "pair and on the colocated design on the same hardware (one instance on the same "
                          "threads with chunked prefill; on the simulator, as many colocated instances as "
                          "the pair has GPUs). Both runs land in Runs: compare."));
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  auto* row = new QHBoxLayout;
  row->addWidget(compare_);
  row->addWidget(status_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(hint_);
  layout->addLayout(row);
  layout->addLayout(grid, 1);
  connect(compare_, &QPushButton::clicked, this, &PdPanel::compareRequested);
  setPairAttached(false);
}

void PdPanel::setPairAttached(bool attached, std::shared_ptr<const EngineSnapshot> snapshot) {
  hint_->setVisible(!attached);
  compare_->setEnabled(attached);
  if (!attached) clear();
  last_ = attached ? std::move(snapshot) : nullptr;
  const EngineSnapshot* s = last_.get();
  updateSelector(Prefill, s ? int(s->prefillInstances.size()) : 0);
  updateSelector(Decode, s ? int(s->decodeInstances.size()) : 0);
}

void PdPanel::clear() {
  for (int side = 0; side < 2; ++side) {
    batch_[side]->clear();
    kv_[side]->clear();
    source_[side] = derived_[side] = nullptr;
  }
  last_ = nullptr;
}

// A pair of another shape: one entry per instance, the selection back on instance 1.
void PdPanel::updateSelector(Side side, int numInstances) {
  QComboBox* box = selector_[side];
  if (box->count() == numInstances) return;
  const QSignalBlocker block(box);
  box->clear();
  for (int i = 1; i <= numInstances; ++i)
    box->addItem(side == Prefill ? tr("Prefill instance %1 of %2").arg(i).arg(numInstances)
                                 : tr("Decode instance %1 of %2").arg(i).arg(numInstances));
  box->setVisible(numInstances > 1);
  selectInstance(side, 0);
}

// The chart starts over with the new instance's steps; the map redraws now from the
// pair's latest snapshot (an idle engine sends no new one).
void PdPanel::selectInstance(Side side, int index) {
  if (index < 0) return;
  batch_[side]->setInstance(index);
  source_[side] = derived_[side] = nullptr;
  if (!last_) return;
  Frame redraw;
  redraw.snapshot = instanceSnapshot(side, last_);
  redraw.snapshotChanged = true;
  kv_[side]->onFrame(redraw);
}

void PdPanel::setSimulatedNote(const QString& text) {
  for (auto* kv : kv_) kv->setSimulatedNote(text);
}

// The snapshot as the selected instance's own: its pool and counts in the fields the KV
// panel reads. Built once per snapshot and side.
std::shared_ptr<const EngineSnapshot> PdPanel::instanceSnapshot(Side side,
                                                                const std::shared_ptr<const EngineSnapshot>& s) {
  if (s == source_[side]) return derived_[side];
  const auto& instances = side == Prefill ? s->prefillInstances : s->decodeInstances;
  const int index = std::clamp(selector_[side]->currentIndex(), 0, std::max(0, int(instances.size()) - 1));
  auto p = std::make_shared<EngineSnapshot>();
  p->step = s->step;
  p->time = s->time;
  p->config = s->config;
  p->device = s->device;
  p->paused = s->paused;
  if (size_t(index) < instances.size()) {
    p->kvBlocks = instances[size_t(index)].kvBlocks;
    p->numRunning = instances[size_t(index)].numRunning;
    p->numWaiting = instances[size_t(index)].numWaiting;
    p->totals.preemptions = instances[size_t(index)].numPreemptions;
  }
  source_[side] = s;
  derived_[side] = std::move(p);
  return derived_[side];
}

void PdPanel::onFrame(const Frame& frame) {
  if (!frame.snapshot || !frame.snapshot->disaggregated) return;
  last_ = frame.snapshot;
  updateSelector(Prefill, int(frame.snapshot->prefillInstances.size()));
  updateSelector(Decode, int(frame.snapshot->decodeInstances.size()));
  for (int side = 0; side < 2; ++side) {
    Frame own;
    own.steps = side == Prefill ? frame.prefillSteps : frame.steps;
    own.configChanges = frame.configChanges;
    own.snapshot = instanceSnapshot(Side(side), frame.snapshot);
    own.snapshotChanged = frame.snapshotChanged;
    batch_[side]->onFrame(own);
    kv_[side]->onFrame(own);
  }
}

}  // namespace lwb::ui
