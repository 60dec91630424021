#include "ui/panels/capacity_panel.h"

#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "engine/bench/bench_setting.h"
#include "engine/common/error.h"
#include "engine/config/knobs.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/sweep_export.h"
#include "ui/bridge/sweep_runner.h"
#include "ui/charts/capacity_chart.h"
#include "ui/charts/simulated_banner.h"
#include "ui/panels/knob_fields.h"
#include "ui/panels/workload_form.h"
#include "ui/theme.h"

namespace lwb::ui {

namespace {

constexpr int kMaxValues = 64;  // a sweep is a curve, not a grid search

QString qs(const std::string& s) { return QString::fromStdString(s); }

// What each engine kind can sweep in seconds: a simulated GPU serves thousands of
// requests a second of wall time; the CPU engine shares the cores with the live one.
struct Defaults {
  WorkloadOptions workload;
  const char* values;
  const char* goodput;
};

Defaults defaultsFor(bool simulated) {
  Defaults d;
  WorkloadOptions& w = d.workload;
  w.sharedPrefixLen = 0;
  w.ignoreEos = true;
  w.rangeRatio = 0.5;
  if (simulated) {
    w.numPrompts = 1000;
    w.inputLen = 512;
    w.outputLen = 128;
    d.values = "4,8,16,32,48,64";
    d.goodput = "ttft:500 tpot:50";
  } else {
    w.numPrompts = 32;
    w.inputLen = 64;
    w.outputLen = 32;
    d.values = "8,16,32,64,128";
    d.goodput = "ttft:200 tpot:30";
  }
  return d;
}

// As the window marks a simulated engine: "SIMULATED · NVIDIA H100 SXM5 80GB · llama-3-8b".
QString sweepBanner(const Sweep& s) {
  const QString device = qs(s.device).section(QStringLiteral(": "), 1, -1).remove(QStringLiteral(" (simulated)"));
  return QObject::tr("SIMULATED · %1 · %2").arg(device, QFileInfo(qs(s.model)).fileName());
}

}  // namespace

CapacityPanel::CapacityPanel(EngineBridge* bridge, QWidget* parent)
    : QWidget(parent), bridge_(bridge), runner_(new SweepRunner(this)), chart_(new CapacityChart(this)) {
  auto* formHost = new QWidget(this);
  buildForm(formHost);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(formHost);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // Narrow enough that a docked view leaves the chart most of the width; the form scrolls.
  scroll->setMinimumWidth(240);
  scroll->setMaximumWidth(formHost->sizeHint().width() + 24);

  title_ = new QLabel(this);
  lesson_ = new QLabel(this);
  lesson_->setWordWrap(true);
  lesson_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  lesson_->setToolTip(tr("What the sweeps say, from their numbers: where the knee is, which SLO breaks first, and "
                         "what A's setting bought against B's"));
  auto* words = new QScrollArea(this);  // a few lines tall; the chart takes the rest
  words->setWidget(lesson_);
  words->setWidgetResizable(true);
  words->setFrameShape(QFrame::NoFrame);
  words->setMinimumHeight(fontMetrics().lineSpacing() * 3 + 6);
  words->setMaximumHeight(fontMetrics().lineSpacing() * 6 + 6);
  auto* right = new QWidget(this);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(title_);
  rightLayout->addWidget(chart_, 1);
  rightLayout->addWidget(words);

  split_ = new QSplitter(Qt::Horizontal, this);
  split_->addWidget(scroll);
  split_->addWidget(right);
  split_->setStretchFactor(0, 0);
  split_->setStretchFactor(1, 1);
  connect(split_, &QSplitter::splitterMoved, this, [this] { userSplit_ = true; });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split_);

  connect(runner_, &SweepRunner::progress, this, [this](int done, int total) {
    progress_->setMaximum(std::max(1, total));
    progress_->setValue(done);
    const int perPoint = numValues_ > 0 ? std::max(1, total / numValues_) : 1;
    progress_->setFormat(tr("value %1 of %2 · %3 / %4 requests")
                             .arg(std::min(numValues_, done / perPoint + 1)).arg(numValues_).arg(done).arg(total));
  });
  connect(runner_, &SweepRunner::pointFinished, this, &CapacityPanel::onPoint);
  connect(runner_, &SweepRunner::done, this, &CapacityPanel::onDone);
  names_[0] = names_[1] = tr("(none)");
  engineChanged(false);
  redraw();
}

void CapacityPanel::buildForm(QWidget* host) {
  key_ = new QComboBox(host);
  key_->addItem(qs(std::string(bench_key::kRequestRate)));
  key_->setItemData(0, tr("Poisson arrival rate (req/s): the sweep that finds the saturation point"), Qt::ToolTipRole);
  key_->addItem(qs(std::string(bench_key::kMaxConcurrency)));
  key_->setItemData(1, tr("vLLM's max_concurrency: at most this many requests in flight, a client-side cap"),
                    Qt::ToolTipRole);
  for (const Knob& k : knobTable()) {
    if (k.kind == KnobKind::Json) continue;  // an object per value: sweep it from the command line
    key_->addItem(qs(std::string(k.name)));
    key_->setItemData(key_->count() - 1, knobHelp(k), Qt::ToolTipRole);
  }
  key_->setToolTip(tr("What the sweep varies: the workload's request_rate or max_concurrency, or any knob of the "
                      "table (each value on a fresh engine with the window's other knobs)"));
  values_ = new QLineEdit(host);
  values_->setToolTip(tr("The swept values, comma-separated; one benchmark run each, with the same seeded workload "
                         "(request_rate: req/s or inf; a switch: on, off)"));
  goodput_ = new QLineEdit(host);
  goodput_->setPlaceholderText(QStringLiteral("ttft:500 tpot:50"));
  goodput_->setToolTip(tr("<p>The SLOs, in vLLM's --goodput syntax: ttft, tpot, e2el in milliseconds.</p>"
                          "<p><b>Goodput</b> is the completed requests per second that met every one; the "
                          "<b>saturation point</b> is the largest request rate at which at least 90 % of the "
                          "completed requests did. Empty: no SLOs, throughput only.</p>"));
  concurrency_ = new QSpinBox(host);
  concurrency_->setRange(0, 1 << 20);
  concurrency_->setSpecialValueText(tr("no limit"));
  concurrency_->setToolTip(tr("max_concurrency: at most this many requests in flight, as vllm bench serve's "
                              "flag; a request due while the limit is reached waits, timed from when it is sent"));
  workload_ = new WorkloadForm(tr("Stop the sweep; the values finished so far stay"), host);
  workload_->setButtonTexts(tr("Run sweep"),
                            tr("One benchmark per value on fresh engines with a copy of this window's knobs and "
                               "model, off the GUI thread; the engine the window shows keeps serving"),
                            tr("Cancel"));
  QFormLayout* form = workload_->layout();
  const std::pair<QString, QWidget*> rows[] = {{tr("sweep"), key_},
                                               {tr("values"), values_},
                                               {tr("goodput"), goodput_},
                                               {qs(std::string(bench_key::kMaxConcurrency)), concurrency_}};
  int row = 0;
  for (const auto& [name, field] : rows) {  // above the workload's own rows
    auto* label = new QLabel(name, host);
    label->setToolTip(field->toolTip());
    label->setStyleSheet(QStringLiteral("font-family: monospace;"));
    form->insertRow(row++, label, field);
  }
  progress_ = new QProgressBar(host);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  status_ = new QLabel(host);
  status_->setWordWrap(true);
  auto* openA = new QPushButton(tr("Open A…"), host);
  auto* openB = new QPushButton(tr("Open B…"), host);
  auto* save = new QPushButton(tr("Save A…"), host);
  openA->setToolTip(tr("Show a saved sweep as A (this view's files, or `llm-workbench bench --sweep --json` output, "
                       "also from --backend sim or --endpoint)"));
  openB->setToolTip(tr("Overlay a saved sweep as B: another knob setting, or local against simulated or remote"));
  save->setToolTip(tr("Save sweep A as JSON, the format `llm-workbench bench --sweep --json` writes"));
  auto* files = new QHBoxLayout;
  files->addWidget(openA);
  files->addWidget(openB);
  files->addWidget(save);
  auto* layout = new QVBoxLayout(host);
  layout->setContentsMargins(0, 0, 4, 0);
  layout->addWidget(workload_);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addLayout(files);
  layout->addStretch();

  connect(workload_, &WorkloadForm::startClicked, this, &CapacityPanel::start);
  connect(workload_, &WorkloadForm::stopClicked, this, &CapacityPanel::cancel);
  connect(key_, &QComboBox::currentTextChanged, this, [this](const QString& key) {  // the swept field is the values'
    concurrency_->setEnabled(key != qs(std::string(bench_key::kMaxConcurrency)));
    workload_->setRateEnabled(key != qs(std::string(bench_key::kRequestRate)));
  });
  workload_->setRateEnabled(false);  // request_rate is swept first
  auto pick = [this](int slot) {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open sweep"), {}, tr("Sweeps (*.json)"));
    if (path.isEmpty()) return;
    if (const QString err = openSweep(slot, path); !err.isEmpty()) QMessageBox::warning(this, tr("Open sweep"), err);
  };
  connect(openA, &QPushButton::clicked, this, [pick] { pick(0); });
  connect(openB, &QPushButton::clicked, this, [pick] { pick(1); });
  connect(save, &QPushButton::clicked, this, [this] {
    if (!sweeps_[0]) return setStatus(tr("No sweep A to save yet."), true);
    const QString path = QFileDialog::getSaveFileName(this, tr("Save sweep"), QStringLiteral("sweep.json"), tr("Sweeps (*.json)"));
    if (path.isEmpty()) return;
    if (const QString err = saveSweep(0, path); !err.isEmpty()) QMessageBox::warning(this, tr("Save sweep"), err);
    else setStatus(tr("Saved %1").arg(path));
  });
}

// Until the user drags the divider: the form a third of the width (at least 240 px, at
// most what it needs), the chart the rest, whether docked narrow or floating wide.
void CapacityPanel::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (!userSplit_) QTimer::singleShot(0, this, &CapacityPanel::fitSplit);
}

void CapacityPanel::fitSplit() {
  if (userSplit_) return;
  const int width = split_->width(), form = std::clamp(width / 3, 240, split_->widget(0)->maximumWidth());
  split_->setSizes({form, width - form});
}

void CapacityPanel::setSweptKey(const QString& key) { key_->setCurrentText(key); }
void CapacityPanel::setValues(const QString& text) { values_->setText(text); }
void CapacityPanel::setGoodput(const QString& spec) { goodput_->setText(spec); }
void CapacityPanel::setMaxConcurrency(int n) { concurrency_->setValue(n); }
void CapacityPanel::setWorkload(const WorkloadOptions& w) { workload_->setOptions(w); }
bool CapacityPanel::running() const { return runner_->running(); }

std::optional<GoodputSlo> CapacityPanel::goodput() const {
  const std::string spec = goodput_->text().trimmed().toStdString();
  if (spec.empty()) return std::nullopt;
  try {
    return parseGoodput(spec);
  } catch (const Error& e) {
    std::string message = e.what();
    if (message.rfind("--", 0) == 0) message.erase(0, 2);  // the field, not the flag: "goodput itl:5: ..."
    throw Error(message);
  }
}

bool CapacityPanel::start() {
  if (running()) return false;
  const std::shared_ptr<const Model> model = bridge_->sharedModel();
  SweepRequest request;
  try {
    check(bridge_->attached() && model, tr("No engine yet: open a model, or File ▸ Simulate…").toStdString());
    request.model = model;
    request.key = key_->currentText().toStdString();
    request.base = {workload_->options(), bridge_->config(), concurrency_->value(), goodput()};
    request.base.workload.validate();
    for (const QString& v : values_->text().split(QLatin1Char(','))) {
      const std::string value = v.trimmed().toStdString();
      check(!value.empty(), tr("values '%1': an empty value").arg(values_->text()).toStdString());
      BenchSetting s = request.base;  // every value checked before the first run
      try {
        applySetting(s, request.key, value);
      } catch (const Error& e) {
        throw Error(request.key + " = " + value + ": " + e.what());
      }
      request.values.push_back(normalizeSweepValue(value));
    }
    check(request.values.size() <= size_t(kMaxValues),
          tr("values: %1 of them; at most %2").arg(request.values.size()).arg(kMaxValues).toStdString());
  } catch (const std::exception& e) {
    error_ = QString::fromUtf8(e.what());
    setStatus(error_, true);
    return false;
  }
  error_.clear();
  for (int slot = 0; slot < 2; ++slot) stashed_[slot] = {sweeps_[slot], names_[slot]};
  if (sweeps_[0]) setSweep(1, sweeps_[0], names_[0]);  // the last sweep stays, as B
  numValues_ = int(request.values.size());
  runningName_ = tr("this window · %1 · %2").arg(QFileInfo(qs(model->dir)).fileName(),
                                                  QTime::currentTime().toString(QStringLiteral("HH:mm")));
  runner_->start(std::move(request));
  sweeps_[0].reset();
  names_[0] = runningName_ + tr(" (running)");
  redraw();
  workload_->setRunning(true);
  progress_->setValue(0);
  setStatus(tr("Sweeping %1 over %n value(s)…", "", numValues_).arg(key_->currentText()));
  emit runningChanged(true);
  return true;
}

void CapacityPanel::cancel() {
  if (running()) runner_->cancel();
}

void CapacityPanel::onPoint() {
  sweeps_[0] = runner_->sweep();
  redraw();
}

void CapacityPanel::onDone() {
  workload_->setRunning(false);
  const int numDone = int(runner_->sweep().points.size());
  if (numDone > 0) sweeps_[0] = runner_->sweep();
  names_[0] = runningName_;
  switch (runner_->outcome()) {
    case SweepRunner::Outcome::Finished:
      setStatus(tr("Done: %n value(s).", "", numDone));
      break;
    case SweepRunner::Outcome::Cancelled:
      names_[0] += tr(" (cancelled)");
      setStatus(tr("Cancelled after %1 of %n value(s).", "", numValues_).arg(numDone));
      break;
    case SweepRunner::Outcome::Failed:
    case SweepRunner::Outcome::None:
      names_[0] += tr(" (failed)");
      error_ = runner_->errorText();
      setStatus(error_, true);
      break;
  }
  if (numDone == 0)  // nothing to show: A and B as they were
    for (int slot = 0; slot < 2; ++slot) std::tie(sweeps_[slot], names_[slot]) = stashed_[slot];
  redraw();
  emit runningChanged(false);
  emit sweepDone();
}

void CapacityPanel::setSweep(int slot, std::optional<Sweep> sweep, const QString& name) {
  sweeps_[slot] = std::move(sweep);
  names_[slot] = sweeps_[slot] ? name : tr("(none)");
  redraw();
}

QString CapacityPanel::openSweep(int slot, const QString& path) {
  Sweep s;
  if (QString err = openSweepJson(path, &s); !err.isEmpty()) return err;
  setSweep(slot, std::move(s), QFileInfo(path).fileName());
  return {};
}

QString CapacityPanel::saveSweep(int slot, const QString& path) const {
  if (!sweeps_[slot]) return tr("No sweep %1 to save").arg(slot == 0 ? "A" : "B");
  return saveSweepJson(*sweeps_[slot], path);
}

QString CapacityPanel::lesson() const { return lesson_->text(); }
QString CapacityPanel::status() const { return status_->text(); }

void CapacityPanel::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(QStringLiteral("color: %1;").arg(theme::htmlColor(error ? theme::kPreempt : theme::kMutedText)));
}

void CapacityPanel::redraw() {
  const Sweep* a = sweeps_[0] ? &*sweeps_[0] : nullptr;
  const Sweep* b = sweeps_[1] ? &*sweeps_[1] : nullptr;
  chart_->setSweeps(a, b);
  title_->setText(tr("<b style='color:%1'>A</b>: %2 &nbsp; <b style='color:%3'>B</b>: %4")
                      .arg(theme::htmlColor(theme::kRunA), names_[0].toHtmlEscaped(), theme::htmlColor(theme::kRunB),
                           names_[1].toHtmlEscaped()));
  QStringList words;
  if (a) words << tr("<b>A</b>: %1").arg(qs(sweepLesson(*a)).toHtmlEscaped());
  if (b) words << tr("<b>B</b>: %1").arg(qs(sweepLesson(*b)).toHtmlEscaped());
  if (a && b) words << qs(sweepComparison(*a, *b)).toHtmlEscaped();
  lesson_->setText(words.isEmpty() ? tr("Run a sweep, or open one: the knee, the SLO that breaks first and the "
                                        "saturation point appear here.")
                                   : words.join(QStringLiteral("<br>")));
  applyBanner();
}

// A sweep's figures are predictions when it ran on the simulator, whatever engine the
// window shows now; with no sweep shown, the chart keeps the window's mark.
void CapacityPanel::applyBanner() {
  QString marks[2];
  for (int slot = 0; slot < 2; ++slot)
    if (sweeps_[slot] && sweeps_[slot]->simulated()) marks[slot] = sweepBanner(*sweeps_[slot]);
  QString text = marks[0].isEmpty() ? marks[1] : marks[0];
  if (sweeps_[0] && sweeps_[1] && marks[0] != marks[1])  // say which: one measured, or two simulations
    text = (marks[0].isEmpty() ? QString() : tr("A: %1").arg(marks[0])) +
           (marks[0].isEmpty() || marks[1].isEmpty() ? QString() : QStringLiteral("  |  ")) +
           (marks[1].isEmpty() ? QString() : tr("B: %1").arg(marks[1]));
  if (sweeps_[0] || sweeps_[1]) setSimulatedBanner(chart_->plot(), text);
}

void CapacityPanel::engineChanged(bool simulated) {
  if (simulatedDefaults_ != simulated && !running()) {
    simulatedDefaults_ = simulated;
    const Defaults d = defaultsFor(simulated);
    workload_->setOptions(d.workload);
    values_->setText(QString::fromLatin1(d.values));
    goodput_->setText(QString::fromLatin1(d.goodput));
    setStatus(simulated ? tr("A simulated engine: a sweep of thousands of requests takes seconds.")
                        : tr("A real engine: the sweep shares the cores with the live engine, so keep it small "
                             "(or pause the engine)."));
  }
  applyBanner();
}

}  // namespace lwb::ui
