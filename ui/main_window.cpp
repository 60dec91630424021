#include "ui/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QFileInfo>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <cstdio>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/model_loader.h"
#include "ui/bridge/pd_compare.h"
#include "ui/charts/batch_chart.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/prefix_cache_chart.h"
#include "ui/charts/simulated_banner.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/recent_models.h"
#include "ui/panels/capacity_panel.h"
#include "ui/panels/chat_conversation.h"
#include "ui/panels/chat_panel.h"
#include "ui/panels/knobs_panel.h"
#include "ui/panels/kv_block_map.h"
#include "ui/panels/kv_panel.h"
#include "ui/panels/latency_panel.h"
#include "lessons/lessons.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/pd_panel.h"
#include "ui/panels/requests_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/panels/simulate_dialog.h"
#include "ui/panels/spec_decode_panel.h"
#include "ui/theme.h"

// Q_INIT_RESOURCE must not be used inside a namespace; the .qrc lives in the static lwb_ui.
static void initUiResources() { Q_INIT_RESOURCE(resources); }

namespace lwb::ui {

MainWindow::MainWindow(const WindowOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options), bridge_(new EngineBridge(this)), loader_(new ModelLoader(this)) {
  initUiResources();
  setWindowTitle(tr("LLM Workbench"));
  // A copy of packaging/icons/llm-workbench.svg (the .deb installs that one for the
  // desktop entry); the application icon also covers dialogs.
  const QIcon icon(QStringLiteral(":/icons/llm-workbench.svg"));
  setWindowIcon(icon);
  if (QApplication::windowIcon().isNull()) QApplication::setWindowIcon(icon);
  setDockNestingEnabled(true);
  setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks | GroupedDragging);
  buildDocks();
  buildMenus();
  buildStatusBar();
  defaultLayout();
  defaultState_ = saveState(kStateVersion);

  QSettings settings;
  const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 900);
  if (!options.restoreLayout || !restoreGeometry(settings.value("window/geometry").toByteArray()))
    resize(std::min(1400, avail.width() * 95 / 100), std::min(900, avail.height() * 95 / 100));
  needSizing_ = !(options.restoreLayout && restoreState(settings.value("window/state").toByteArray(), kStateVersion));

  connect(bridge_, &EngineBridge::frameReady, this, &MainWindow::onFrame);
  connect(bridge_, &EngineBridge::engineAttached, this, &MainWindow::onEngineAttached);
  connect(requests_, &RequestsPanel::requestSelected, this, [this](RequestId id) {
    kv_->map()->setSelectedRequest(id);
    latency_->timeline()->setSelectedRequest(id);
  });
  connect(loader_, &ModelLoader::progress, this, [this](double f, const QString& stage) {
    loadProgress_->setVisible(true);
    loadProgress_->setValue(int(f * 100));
    loadProgress_->setFormat(stage + QStringLiteral(" %p%"));
  });
  connect(loader_, &ModelLoader::loaded, this,
          [this](std::shared_ptr<const Model> model, std::shared_ptr<EngineLoop> loop) {
            loadProgress_->setVisible(false);
            RecentModels::add(QString::fromStdString(model->dir));  // only models that loaded
            fillRecentMenu();
            bridge_->attach(std::move(model), std::move(loop));
          });
  connect(loader_, &ModelLoader::failed, this, [this](const QString& dir, const QString& message) {
    loadProgress_->setVisible(false);
    showError(tr("Could not load the model"), tr("%1\n\n%2").arg(dir, message));
  });

  QString dir = options.modelDir;
  if (dir.isEmpty()) {
    try {
      dir = QString::fromStdString(defaultModelDir());
    } catch (const std::exception& e) {
      showError(tr("No default model"), QString::fromUtf8(e.what()) + tr("\n\nUse File ▸ Open model folder…"));
    }
  }
  pdSplit_[0] = options.pdPrefill;
  pdSplit_[1] = options.pdDecode;
  if (!dir.isEmpty()) openModel(dir);
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addDock(QWidget* w, const QString& title, const QString& objectName, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);  // saveState() keys the layout by object name
  dock->setWidget(w);
  addDockWidget(area, dock);
  docks_ << dock;
  return dock;
}

void MainWindow::buildDocks() {
  chat_ = new ChatPanel(bridge_, this);
  load_ = new LoadPanel(bridge_, this);
  knobs_ = new KnobsPanel(bridge_, this);
  batch_ = new BatchChart(this);
  kv_ = new KvPanel(this);
  prefix_ = new PrefixCacheChart(this);
  latency_ = new LatencyPanel(bridge_, this);
  requests_ = new RequestsPanel(bridge_, this);
  runs_ = new RunsPanel(bridge_, this);
  spec_ = new SpecDecodePanel(this);
  lessons_ = new LessonsPanel(bridge_, load_, runs_, this);
  connect(lessons_, &LessonsPanel::resetRequested, this, &MainWindow::resetHistory);
  capacity_ = new CapacityPanel(bridge_, this);
  pd_ = new PdPanel(this);
  pdCompare_ = new PdCompare(this);
  setUpPd();
  addDock(chat_, tr("Chat"), "dock.chat", Qt::LeftDockWidgetArea);
  addDock(knobs_, tr("Scheduler knobs"), "dock.knobs", Qt::LeftDockWidgetArea);
  addDock(load_, tr("Load generator"), "dock.load", Qt::LeftDockWidgetArea);
  addDock(batch_, tr("Batch composition per step"), "dock.batch", Qt::RightDockWidgetArea);
  addDock(kv_, tr("KV block map"), "dock.kv", Qt::RightDockWidgetArea);
  addDock(latency_, tr("Latency"), "dock.latency", Qt::RightDockWidgetArea);
  addDock(prefix_, tr("Prefix cache"), "dock.prefix", Qt::RightDockWidgetArea);
  addDock(spec_, tr("Speculative decoding"), "dock.spec", Qt::RightDockWidgetArea);
  addDock(requests_, tr("Requests"), "dock.requests", Qt::RightDockWidgetArea);
  addDock(runs_, tr("Runs: compare"), "dock.runs", Qt::RightDockWidgetArea);
  addDock(lessons_, tr("Lessons"), "dock.lessons", Qt::LeftDockWidgetArea);
  addDock(latency_->timeline(), tr("Request timeline"), "dock.timeline", Qt::RightDockWidgetArea);
  addDock(capacity_, tr("Capacity"), "dock.capacity", Qt::RightDockWidgetArea);
  addDock(pd_, tr("Prefill / decode"), "dock.pd", Qt::RightDockWidgetArea);
}

// Left: chat over knobs | load | runs | lessons (tabs). Right, a 2 × 2 grid:
// batch+capacity (tabs) | KV map on top, latency+prefix cache+speculative decoding (tabs) |
// requests+request timeline (tabs) below. Tabbing the less used views keeps every plot
// tall enough to read at 1400 × 900.
void MainWindow::defaultLayout() {
  auto dock = [this](const char* name) { return findChild<QDockWidget*>(QString::fromLatin1(name)); };
  for (auto* d : docks_) {
    d->setFloating(false);
    d->show();
  }
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
  addDockWidget(Qt::LeftDockWidgetArea, dock("dock.chat"));
  splitDockWidget(dock("dock.chat"), dock("dock.knobs"), Qt::Vertical);
  tabifyDockWidget(dock("dock.knobs"), dock("dock.load"));
  tabifyDockWidget(dock("dock.load"), dock("dock.runs"));
  tabifyDockWidget(dock("dock.runs"), dock("dock.lessons"));
  addDockWidget(Qt::RightDockWidgetArea, dock("dock.batch"));
  splitDockWidget(dock("dock.batch"), dock("dock.latency"), Qt::Vertical);
  splitDockWidget(dock("dock.batch"), dock("dock.kv"), Qt::Horizontal);
  splitDockWidget(dock("dock.latency"), dock("dock.requests"), Qt::Horizontal);
  tabifyDockWidget(dock("dock.latency"), dock("dock.prefix"));
  tabifyDockWidget(dock("dock.prefix"), dock("dock.spec"));
  tabifyDockWidget(dock("dock.requests"), dock("dock.timeline"));
  tabifyDockWidget(dock("dock.batch"), dock("dock.capacity"));
  tabifyDockWidget(dock("dock.capacity"), dock("dock.pd"));
  dock(disaggregated() ? "dock.pd" : "dock.batch")->raise();
  dock("dock.latency")->raise();
  dock("dock.requests")->raise();
  dock("dock.load")->raise();
}

// Proportions need the final window size, so this runs once the window is shown.
void MainWindow::sizeDocks() {
  auto dock = [this](const char* name) { return findChild<QDockWidget*>(QString::fromLatin1(name)); };
  const int w = width(), h = height() - menuBar()->height() - statusBar()->height();
  const int left = std::clamp(w * 30 / 100, 340, 460), right = w - left;
  resizeDocks({dock("dock.chat"), dock("dock.batch")}, {left, right}, Qt::Horizontal);
  resizeDocks({dock("dock.chat"), dock("dock.knobs")}, {h * 58 / 100, h * 42 / 100}, Qt::Vertical);
  resizeDocks({dock("dock.batch"), dock("dock.latency")}, {h * 48 / 100, h * 52 / 100}, Qt::Vertical);
  resizeDocks({dock("dock.batch"), dock("dock.kv")}, {right * 58 / 100, right * 42 / 100}, Qt::Horizontal);
  resizeDocks({dock("dock.latency"), dock("dock.requests")}, {right * 50 / 100, right * 50 / 100}, Qt::Horizontal);
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (needSizing_) {
    needSizing_ = false;
    QTimer::singleShot(0, this, &MainWindow::sizeDocks);
  }
}

void MainWindow::resetLayout() {
  restoreState(defaultState_, kStateVersion);
  defaultLayout();
  sizeDocks();
}

void MainWindow::buildStatusBar() {
  modelLabel_ = new QLabel(tr("no model"), this);
  deviceLabel_ = new QLabel(this);
  speedLabel_ = new QLabel(this);
  kvLabel_ = new QLabel(this);
  queueLabel_ = new QLabel(this);
  loadProgress_ = new QProgressBar(this);
  loadProgress_->setMaximumWidth(260);
  loadProgress_->setVisible(false);
  speedLabel_->setToolTip(tr("Output tokens per second, all requests, over the last second"));
  kvLabel_->setToolTip(tr("vllm:kv_cache_usage_perc: KV blocks in use"));
  queueLabel_->setToolTip(tr("Requests running (in the batch) and waiting (queued or preempted)"));
  // Permanent widgets: temporary messages (left) never hide them.
  statusBar()->addPermanentWidget(loadProgress_);
  statusBar()->addPermanentWidget(modelLabel_);
  statusBar()->addPermanentWidget(deviceLabel_);
  statusBar()->addPermanentWidget(speedLabel_);
  statusBar()->addPermanentWidget(kvLabel_);
  statusBar()->addPermanentWidget(queueLabel_);
  statusBar()->addPermanentWidget(spec_->statusLabel());  // shown only while speculation does not pay
}

void MainWindow::openModel(const QString& dir) {
  EngineConfig config = bridge_->attached() ? bridge_->config() : options_.knobs;
  if (!bridge_->attached()) {
    // A pool small enough that the block map shows every block and load can fill it.
    if (options_.demo) config.numGpuBlocksOverride = 1024;
    // The command line's --backend sim simulates the model given (at 1× speed).
    if (config.executor.backend == "sim") return loadEngine(dir, config);
  }
  // Opening a model means running it: a simulation's knobs go back to a real backend.
  if (config.executor.backend == "sim") config.executor.backend = "auto";
  loadEngine(dir, config);
}

void MainWindow::openSimulation(const QString& modelPath, const EngineConfig& config, double speed) {
  simSpeed_ = speed;
  loadEngine(modelPath, config);
}

bool MainWindow::simulated() const {
  const auto s = bridge_->lastSnapshot();
  return bridge_->attached() && s && s->device.backend == "sim";
}

void MainWindow::showSimulateDialog() {
  EngineConfig base = bridge_->attached() ? bridge_->config() : options_.knobs;
  auto* dialog = new SimulateDialog(base, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    openSimulation(dialog->modelPath(), dialog->config(), dialog->speed());
  });
  dialog->open();
}

void MainWindow::loadEngine(const QString& dir, const EngineConfig& config) {
  std::optional<PdConfig> pd;
  if (pdSplit_[0] > 0) pd = makePdConfig(config, pdSplit_[0], pdSplit_[1]);
  if (!loader_->start(dir, config, pd)) {
    showError(tr("Busy"), tr("A model is already loading."));
    return;
  }
  loadProgress_->setVisible(true);
  loadProgress_->setValue(0);
  modelLabel_->setText(tr("loading %1…").arg(QFileInfo(dir).fileName()));
}

void MainWindow::onEngineAttached() {
  batch_->clear();
  prefix_->clear();
  latency_->chart()->clear();
  latency_->timeline()->clear();
  kv_->clear();
  spec_->clear();
  speedT0_ = -1;
  const Model* model = bridge_->model();
  if (model)
    modelLabel_->setText(tr("<b>%1</b> · %2 · %3 M params · %4 layers · %5")
                             .arg(QFileInfo(QString::fromStdString(model->dir)).fileName())
                             .arg(QString::fromStdString(model->config.architecture))
                             .arg(double(model->config.numParameters()) / 1e6, 0, 'f', 1)
                             .arg(model->config.numHiddenLayers)
                             .arg(model->tokenizer ? tr("%1 tokenizer").arg(QString::fromStdString(
                                                         tokenizerKindName(model->tokenizer->kind())))
                                                   : tr("no tokenizer (token ids)")));
  if (auto s = bridge_->lastSnapshot()) updateStatus(*s);
  showSimulated();
  onPdAttached();
  if (backendGroup_ && bridge_->attached())
    for (auto* a : backendGroup_->actions())
      a->setChecked(a->text() == QString::fromStdString(bridge_->config().executor.backend));
  if (options_.demo) QTimer::singleShot(200, this, &MainWindow::startDemo);
}

void MainWindow::resetHistory() {
  if (!bridge_->attached()) return;
  bridge_->abortAll();
  bridge_->clearHistory();
  batch_->clear();
  prefix_->clear();
  latency_->chart()->clear();
  latency_->timeline()->clear();
  spec_->clear();
}

// --demo: the first lesson, so the first minute shows the batch chart, the KV map and the
// latency views moving with a finding at the end; then a light shared-prefix load and a
// short chat keep the views going. --measure-seconds instead runs a saturating load.
void MainWindow::startDemo() {
  if (options_.measureSeconds > 0) {
    // Saturating, as `llm-workbench bench --num-prompts 400 --input-len 128
    // --output-len 64 --ignore-eos` (rate inf): compare its output_throughput.
    WorkloadOptions w;
    w.numPrompts = 400;
    w.inputLen = 128;
    w.outputLen = 64;
    w.ignoreEos = true;
    load_->setOptions(w);
    load_->start();
    startMeasurement();
    return;
  }
  if (lessons_->running()) return;
  auto* d = findChild<QDockWidget*>(QStringLiteral("dock.lessons"));
  d->show();
  d->raise();
  lessons_->selectLesson(QString::fromStdString(lwb::lessons().front().name));
  if (!lessons_->start(1.0)) return startDemoLoad();
  connect(lessons_, &LessonsPanel::finished, this, &MainWindow::startDemoLoad, Qt::SingleShotConnection);
}

void MainWindow::startDemoLoad() {
  WorkloadOptions w;
  // Keeps going while the window is open; a simulated engine takes the whole plan at once
  // (stamped with virtual arrival times), so there it is ten minutes' worth.
  w.numPrompts = simulated() ? 1800 : 100000;
  w.requestRate = 3;
  w.inputLen = 64;
  w.rangeRatio = 0.5;
  w.outputLen = 96;
  w.sharedPrefixLen = 192;
  w.numPrefixGroups = 2;
  w.ignoreEos = true;
  load_->setOptions(w);
  load_->start();
  if (auto* c = chat_->current(); c && !simulated() && !c->busy() && c->messages().empty()) {
    c->setInput(QStringLiteral("Tell me about Mr. Darcy."));  // the model's input: it speaks English
    c->send();
  }
}

// Output tokens per engine second while the window is open, from the load's start until
// it is done or --measure-seconds have passed; printed to stderr, then the window closes.
void MainWindow::startMeasurement() {
  auto s0 = bridge_->snapshot();
  measureStart_ = s0->time;
  measureTokens0_ = s0->totals.generatedTokens;
  auto report = [this] {
    if (measureStart_ < 0) return;
    auto s = bridge_->snapshot();
    const double dt = s->time - measureStart_;
    const int64_t n = s->totals.generatedTokens - measureTokens0_;
    std::fprintf(stderr, "gui_output_throughput_tok_s=%.1f over %.2f s (%lld tokens, window open)\n",
                 dt > 0 ? double(n) / dt : 0.0, dt, static_cast<long long>(n));
    measureStart_ = -1;
    close();
  };
  connect(load_, &LoadPanel::runningChanged, this, [report](bool running) {
    if (!running) report();
  });
  QTimer::singleShot(int(options_.measureSeconds * 1000), this, report);
}

void MainWindow::onFrame(const Frame& frame) {
  chat_->onFrame(frame);
  load_->onFrame(frame);
  knobs_->onFrame(frame);
  batch_->onFrame(frame);
  kv_->onFrame(frame);
  prefix_->onFrame(frame);
  spec_->onFrame(frame);
  latency_->onFrame(frame);
  requests_->onFrame(frame);
  pd_->onFrame(frame);
  for (const auto& e : frame.errors) statusBar()->showMessage(tr("Engine error: %1").arg(QString::fromStdString(e.message)), 8000);
  for (const auto& c : frame.configChanges)
    statusBar()->showMessage(tr("Knobs: %1").arg(QString::fromStdString(c.description)), 5000);
  if (frame.snapshotChanged) {
    statusSnapshot_ = frame.snapshot;
    statusRefresh_.request();
  }
}

namespace {
// " · weights Q4_K 96 MiB": how the executor holds the Linear weights (when it says).
QString weightsText(const DeviceInfo& d) {
  if (d.weightType.empty()) return {};
  return QObject::tr(" · weights %1 %2 MiB")
      .arg(QString::fromStdString(d.weightType))
      .arg(double(d.weightBytes) / (1024.0 * 1024.0), 0, 'f', 0);
}
}  // namespace

// A simulated engine: every chart and the status bar say so, chat is off (no weights run)
// and the speed of its virtual clock can be changed.
void MainWindow::showSimulated() {
  const bool sim = simulated();
  shownSimulated_ = sim;
  QString banner;
  if (sim) {
    const auto s = bridge_->lastSnapshot();
    banner = tr("SIMULATED · %1 · %2")
                 .arg(QString::fromStdString(s->device.name).remove(QStringLiteral(" (simulated)")),
                      QFileInfo(QString::fromStdString(bridge_->model()->dir)).fileName());
    bridge_->loop()->setSimulationSpeed(simSpeed_);
    for (auto* a : speedGroup_->actions()) a->setChecked(a->data().toDouble() == simSpeed_);
  }
  setSimulatedBanner(this, banner);
  capacity_->engineChanged(sim);  // its sweeps carry their own mark
  kv_->setSimulatedNote(banner);
  pd_->setSimulatedNote(banner);
  speedMenu_->setEnabled(sim);
  chat_->setEnabled(!sim);
  chat_->setToolTip(sim ? tr("Chat is off in a simulated engine: it runs no weights, so its tokens are stand-ins. "
                             "The load generator and every view work.")
                        : QString());
  setWindowTitle(sim ? tr("LLM Workbench — SIMULATED") : tr("LLM Workbench"));
}

void MainWindow::updateStatus(const EngineSnapshot& s) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  // Engine ▸ Backend or the knobs switched between a real backend and sim.
  if ((s.device.backend == "sim") != shownSimulated_) showSimulated();
  if (s.device.backend == "sim")
    deviceLabel_->setText(tr("<b style=\"color:%1\">SIMULATED</b> · %2 (%3 GiB per device) · predicted times")
                              .arg(theme::htmlColor(theme::kMarker), QString::fromStdString(s.device.name))
                              .arg(double(s.device.totalMemory) / gib, 0, 'f', 0));
  else
    deviceLabel_->setText(tr("%1 · %2 (%3 GiB)")
                              .arg(QString::fromStdString(s.device.backend), QString::fromStdString(s.device.name))
                              .arg(double(s.device.totalMemory) / gib, 0, 'f', 1) +
                          weightsText(s.device));
  if (speedT0_ < 0 || s.time < speedT0_) {
    speedT0_ = s.time;
    speedTokens0_ = s.totals.generatedTokens;
  } else if (s.time - speedT0_ >= 1.0) {
    const double tokensPerSecond = double(s.totals.generatedTokens - speedTokens0_) / (s.time - speedT0_);
    speedLabel_->setText(tr("%1 tok/s").arg(tokensPerSecond, 0, 'f', 0));
    speedT0_ = s.time;
    speedTokens0_ = s.totals.generatedTokens;
  }
  int used = 0;
  for (const auto& b : s.kvBlocks) used += b.kind == KvBlockInfo::Kind::Owned;
  kvLabel_->setText(tr("KV %1%").arg(s.kvBlocks.empty() ? 0.0 : 100.0 * used / double(s.kvBlocks.size()), 0, 'f', 1));
  queueLabel_->setText(tr("running %1 · waiting %2%3").arg(s.numRunning).arg(s.numWaiting)
                           .arg(pauseAction_ && pauseAction_->isChecked() ? tr(" · PAUSED") : QString()));
}

void MainWindow::showError(const QString& title, const QString& text) {
  lastError_ = text;
  statusBar()->showMessage(title, 10000);
  // Non-modal, so a failed load never blocks the event loop (or a test).
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (options_.restoreLayout) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState(kStateVersion));
  }
  chat_->saveNow();
  load_->stop();
  QMainWindow::closeEvent(e);
}

}  // namespace lwb::ui
