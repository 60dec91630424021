#include "ui/panels/pd_panel.h"

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
  for (int side = 0; side < 2; ++side) {
    title_[side] = new QLabel(QStringLiteral("<b>%1</b>").arg(titles[side]), this);
    title_[side]->setToolTip(tips[side]);
    batch_[side] = new BatchChart(this);
    kv_[side] = new KvPanel(this);
    grid->addWidget(title_[side], 0, side);
    grid->addWidget(batch_[side], 1, side);
    grid->addWidget(kv_[side], 2, side);
  }
  grid->setRowStretch(1, 3);
  grid->setRowStretch(2, 2);
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

void PdPanel::setPairAttached(bool attached) {
  hint_->setVisible(!attached);
  compare_->setEnabled(attached);
  if (!attached) clear();
}

void PdPanel::clear() {
  for (int side = 0; side < 2; ++side) {
    batch_[side]->clear();
    kv_[side]->clear();
  }
  source_ = derived_ = nullptr;
}

void PdPanel::setSimulatedNote(const QString& text) {
  for (auto* kv : kv_) kv->setSimulatedNote(text);
}

// The snapshot as the prefill instance's own: its pool and counts in the fields the KV
// panel reads. Built once per snapshot.
std::shared_ptr<const EngineSnapshot> PdPanel::prefillSnapshot(const std::shared_ptr<const EngineSnapshot>& s) {
  if (s == source_) return derived_;
  auto p = std::make_shared<EngineSnapshot>();
  p->step = s->step;
  p->time = s->time;
  p->config = s->config;
  p->device = s->device;
  p->paused = s->paused;
  p->kvBlocks = s->prefillKvBlocks;
  p->numRunning = s->prefillRunning;
  p->numWaiting = s->prefillWaiting;
  source_ = s;
  derived_ = std::move(p);
  return derived_;
}

void PdPanel::onFrame(const Frame& frame) {
  if (!frame.snapshot || !frame.snapshot->disaggregated) return;
  Frame prefill;
  prefill.steps = frame.prefillSteps;
  prefill.configChanges = frame.configChanges;
  prefill.snapshot = prefillSnapshot(frame.snapshot);
  prefill.snapshotChanged = frame.snapshotChanged;
  batch_[Prefill]->onFrame(prefill);
  kv_[Prefill]->onFrame(prefill);
  batch_[Decode]->onFrame(frame);
  kv_[Decode]->onFrame(frame);
}

}  // namespace lwb::ui
