#include "ui/panels/knobs_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

QSpinBox* KnobsPanel::spin(int lo, int hi, const QString& special, const QString& tip) {
  auto* s = new QSpinBox(this);
  s->setRange(lo, hi);
  s->setSpecialValueText(special);
  s->setToolTip(tip);
  s->setAccelerated(true);
  return s;
}

void KnobsPanel::addRow(const QString& name, QWidget* field, const QString& tip) {
  auto* label = new QLabel(name, this);
  label->setToolTip(tip);
  field->setToolTip(tip);
  label->setStyleSheet(QStringLiteral("font-family: monospace;"));
  form_->addRow(label, field);
}

KnobsPanel::KnobsPanel(EngineBridge* bridge, QWidget* parent) : QWidget(parent), bridge_(bridge) {
  form_ = new QFormLayout;
  form_->setLabelAlignment(Qt::AlignRight);
  preset_ = new QComboBox(this);
  preset_->addItems({tr("— preset —"), tr("vLLM defaults"), tr("low latency"), tr("high throughput")});
  preset_->setToolTip(tr("Fill the scheduling knobs from a preset; press Apply to send them"));

  maxBatched_ = spin(0, 65536, tr("default"), {});
  addRow("max_num_batched_tokens", maxBatched_,
         tr("Token budget of one step (prefill chunks + decode tokens).\nSmaller → each step is short, so "
            "running requests get their next token sooner (smoother ITL) but long prompts take more steps "
            "(slower TTFT).\nLarger → prompts finish prefill in fewer steps (faster TTFT) but decodes "
            "wait behind big prefill steps (ITL spikes)."));
  maxSeqs_ = spin(0, 1024, tr("default"), {});
  addRow("max_num_seqs", maxSeqs_,
         tr("Most requests in one step. More → higher throughput (decode is memory-bound, so batching "
            "is almost free) but more KV memory in use and more preemption risk."));
  defaultsNote_ = new QLabel(this);
  defaultsNote_->setWordWrap(true);
  defaultsNote_->setToolTip(tr("vLLM's effective defaults depend on the platform: CPU 2048 / 128; GPUs "
                               "2048 / 256, and 8192 / 1024 on GPUs with at least 70 GiB (H100 / H200 "
                               "class, not A100). Set a value to override."));
  form_->addRow(QString(), defaultsNote_);
  chunked_ = new QCheckBox(this);
  addRow("enable_chunked_prefill", chunked_,
         tr("Cut long prompts into chunks that ride along with decodes, so a long prompt never stalls "
            "generation. Off: a prompt must fit the budget whole and runs alone-ish."));
  prefixCaching_ = new QCheckBox(this);
  addRow("enable_prefix_caching", prefixCaching_,
         tr("Reuse KV blocks of identical prompt prefixes (system prompts, shared documents): computed "
            "once, found by hash. Saves prefill compute and TTFT; costs nothing when there is no reuse."));
  longPrefill_ = spin(0, 65536, tr("off"), {});
  addRow("long_prefill_token_threshold", longPrefill_,
         tr("A prompt longer than this counts as long and gets at most this many tokens per step, so "
            "several long prompts cannot starve short ones. 0 = off."));
  policy_ = new QComboBox(this);
  policy_->addItems({"fcfs", "priority"});
  addRow("scheduling_policy", policy_,
         tr("fcfs: first come, first served; preemption takes the newest running request.\npriority: "
            "lower priority value first; preemption takes the lowest priority."));
  reserveFullIsl_ = new QCheckBox(this);
  addRow("scheduler_reserve_full_isl", reserveFullIsl_,
         tr("Admit a waiting request only if KV blocks for its whole prompt (after prefix-cache hits) "
            "are free now, not just for its first chunk.\nOn (vLLM's default) → fewer admissions under "
            "memory pressure, no admit-then-preempt thrashing.\nOff → more requests start, and some are "
            "preempted and recomputed later."));
  maxModelLen_ = spin(0, 1 << 20, tr("model max"), {});
  addRow("max_model_len", maxModelLen_,
         tr("Longest prompt + output accepted. Longer requests are rejected. 0 = the model's "
            "max_position_embeddings."));

  auto* structural = new QLabel(tr("<b>Structural</b> — changing these rebuilds the KV cache"), this);
  structural->setStyleSheet(QStringLiteral("color: %1; margin-top: 6px;").arg(theme::htmlColor(theme::kMarker)));
  form_->addRow(structural);
  blockSize_ = new QComboBox(this);
  for (int b : {1, 2, 4, 8, 16, 32, 64, 128, 256}) blockSize_->addItem(QString::number(b), b);
  addRow("block_size", blockSize_,
         tr("Tokens per KV block. Smaller → less memory wasted in each request's last, partly filled "
            "block and finer prefix sharing; larger → fewer blocks to manage, bigger attention reads."));
  kvMiB_ = new QDoubleSpinBox(this);
  kvMiB_->setRange(0, 1 << 20);
  kvMiB_->setDecimals(0);
  kvMiB_->setSuffix(tr(" MiB"));
  kvMiB_->setSpecialValueText(tr("auto"));
  addRow("kv_cache_memory_bytes", kvMiB_,
         tr("Memory for the KV cache. It bounds how many tokens of context all running requests hold "
            "together; too little → preemptions (recompute) under load. auto = the backend's default."));
  blockOverride_ = spin(0, 10000000, tr("unset"), {});
  addRow("num_gpu_blocks_override", blockOverride_,
         tr("Force the number of KV blocks (overrides the memory budget). Handy to provoke preemption "
            "with a small cache and watch it in the KV map."));
  backend_ = new QComboBox(this);
  backend_->addItems({"auto", "cpu", "cuda"});
  addRow("backend", backend_, tr("Where the forward pass runs. auto = CUDA when a device is present, else CPU."));
  threads_ = spin(0, 512, tr("all cores"), {});
  addRow("threads", threads_, tr("CPU backend: worker threads for the forward pass."));

  auto* apply = new QPushButton(tr("Apply"), this);
  apply->setToolTip(tr("Send the knobs to the engine; the change is marked on every time chart"));
  auto* revert = new QPushButton(tr("Revert"), this);
  revert->setToolTip(tr("Show the knobs the engine is using now"));
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(theme::kPreempt)));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(preset_);
  buttons->addStretch();
  buttons->addWidget(revert);
  buttons->addWidget(apply);

  auto* inner = new QWidget(this);
  auto* innerLayout = new QVBoxLayout(inner);
  innerLayout->addLayout(form_);
  innerLayout->addWidget(error_);
  innerLayout->addStretch();
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(scroll, 1);
  layout->addLayout(buttons);

  connect(apply, &QPushButton::clicked, this, [this] { this->apply(collect()); });
  connect(revert, &QPushButton::clicked, this, [this] {
    if (bridge_->loop()) showConfig(bridge_->loop()->config());
  });
  connect(preset_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
    if (i > 0) showConfig(withPreset(collect(), Preset(i - 1)));
    preset_->setCurrentIndex(0);
  });
  connect(bridge_, &EngineBridge::engineAttached, this, [this] {
    if (bridge_->loop()) showConfig(bridge_->loop()->config());
  });
  showConfig(EngineConfig{});
}

EngineConfig KnobsPanel::withPreset(EngineConfig c, Preset p) {
  const EngineConfig d;
  c.maxNumBatchedTokens = d.maxNumBatchedTokens;
  c.maxNumSeqs = d.maxNumSeqs;
  c.enableChunkedPrefill = d.enableChunkedPrefill;
  c.enablePrefixCaching = d.enablePrefixCaching;
  c.longPrefillTokenThreshold = d.longPrefillTokenThreshold;
  c.schedulingPolicy = d.schedulingPolicy;
  c.schedulerReserveFullIsl = d.schedulerReserveFullIsl;
  if (p == Preset::LowLatency) {
    c.maxNumBatchedTokens = 256;   // short steps: decodes never wait long
    c.maxNumSeqs = 64;
    c.longPrefillTokenThreshold = 128;
  } else if (p == Preset::HighThroughput) {
    c.maxNumBatchedTokens = 8192;  // few, big steps: prefill in one go
    c.maxNumSeqs = 256;
  }
  return c;
}

void KnobsPanel::showBatchDefaults() {
  const auto snap = bridge_->loop() ? bridge_->loop()->snapshot() : nullptr;
  const BatchDefaults d = vllmBatchDefaults(snap ? snap->device : DeviceInfo{});
  maxBatched_->setSpecialValueText(tr("default (%1)").arg(d.maxNumBatchedTokens));
  maxSeqs_->setSpecialValueText(tr("default (%1)").arg(d.maxNumSeqs));
  defaultsNote_->setText(tr("default = %1: %2 tokens, %3 sequences")
                             .arg(QString::fromStdString(d.source))
                             .arg(d.maxNumBatchedTokens)
                             .arg(d.maxNumSeqs));
}

void KnobsPanel::showConfig(const EngineConfig& c) {
  showBatchDefaults();
  maxBatched_->setValue(c.maxNumBatchedTokens);
  maxSeqs_->setValue(c.maxNumSeqs);
  chunked_->setChecked(c.enableChunkedPrefill);
  prefixCaching_->setChecked(c.enablePrefixCaching);
  longPrefill_->setValue(c.longPrefillTokenThreshold);
  policy_->setCurrentIndex(c.schedulingPolicy == SchedulingPolicy::Priority ? 1 : 0);
  maxModelLen_->setValue(c.maxModelLen);
  reserveFullIsl_->setChecked(c.schedulerReserveFullIsl);
  if (const int i = blockSize_->findData(c.blockSize); i >= 0) blockSize_->setCurrentIndex(i);
  kvMiB_->setValue(double(c.kvCacheMemoryBytes) / kMiB);
  blockOverride_->setValue(c.numGpuBlocksOverride);
  backend_->setCurrentText(QString::fromStdString(c.executor.backend));
  threads_->setValue(c.executor.numThreads);
}

EngineConfig KnobsPanel::collect() const {
  EngineConfig c = bridge_->loop() ? bridge_->loop()->config() : EngineConfig{};
  c.maxNumBatchedTokens = maxBatched_->value();
  c.maxNumSeqs = maxSeqs_->value();
  c.enableChunkedPrefill = chunked_->isChecked();
  c.enablePrefixCaching = prefixCaching_->isChecked();
  c.longPrefillTokenThreshold = longPrefill_->value();
  c.schedulingPolicy = policy_->currentIndex() == 1 ? SchedulingPolicy::Priority : SchedulingPolicy::Fcfs;
  c.maxModelLen = maxModelLen_->value();
  c.schedulerReserveFullIsl = reserveFullIsl_->isChecked();
  c.blockSize = blockSize_->currentData().toInt();
  const int64_t bytes = int64_t(kvMiB_->value() * kMiB);
  // Keep the exact byte count when the MiB field was not edited.
  if (std::llabs(bytes - c.kvCacheMemoryBytes) >= int64_t(kMiB / 2)) c.kvCacheMemoryBytes = bytes;
  c.numGpuBlocksOverride = blockOverride_->value();
  c.executor.backend = backend_->currentText().toStdString();
  c.executor.numThreads = threads_->value();
  return c;
}

QString KnobsPanel::errorText() const { return error_->text(); }

bool KnobsPanel::apply(const EngineConfig& c, bool ask) {
  EngineLoop* loop = bridge_->loop();
  if (!loop) return false;
  bool abortInFlight = false;
  if (c.structuralDiffers(loop->config()) && ask) {
    QMessageBox box(QMessageBox::Question, tr("Rebuild the KV cache?"),
                    tr("block_size, the KV budget, the block override, the backend and threads are structural: "
                       "the engine rebuilds its KV cache. Let running requests finish first, or abort them?"),
                    QMessageBox::Cancel, this);
    auto* drain = box.addButton(tr("Drain, then rebuild"), QMessageBox::AcceptRole);
    auto* abort = box.addButton(tr("Abort in-flight"), QMessageBox::DestructiveRole);
    box.exec();
    if (box.clickedButton() != drain && box.clickedButton() != abort) return false;
    abortInFlight = box.clickedButton() == abort;
  }
  try {
    loop->setConfig(c, abortInFlight);
  } catch (const std::exception& e) {
    error_->setText(QString::fromUtf8(e.what()));
    return false;
  }
  error_->clear();
  emit applied(c);
  return true;
}

void KnobsPanel::onFrame(const Frame& frame) {
  if (!frame.configChanges.empty()) showConfig(frame.configChanges.back().newConfig);
  for (const auto& e : frame.errors) error_->setText(QString::fromStdString(e.message));
}

}  // namespace lwb::ui
