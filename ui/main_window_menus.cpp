// MainWindow: menus and the file actions behind them (export, runs).
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <qcustomplot.h>

#include "engine/config/knobs.h"
#include "engine/metrics/export.h"
#include "engine/metrics/trace.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/bridge/run_export.h"
#include "ui/bridge/sweep_export.h"
#include "ui/charts/batch_chart.h"
#include "ui/charts/capacity_chart.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/prefix_cache_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/language.h"
#include "ui/main_window.h"

#include "lessons/lessons.h"
#include "ui/panels/lessons_panel.h"
#include "ui/models/recent_models.h"
#include "ui/panels/capacity_panel.h"
#include "ui/panels/knobs_panel.h"
#include "ui/panels/kv_panel.h"
#include "ui/panels/latency_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/panels/serve_dialog.h"
#include "ui/panels/spec_decode_panel.h"

namespace lwb::ui {

namespace {
// View ▸ Language: System / English / 日本語, saved for the next start (translators are
// installed before the window is built). Each language is named in itself.
void addLanguageMenu(QMenu* view, QWidget* window) {
  QMenu* menu = view->addMenu(MainWindow::tr("&Language"));
  menu->setObjectName(QStringLiteral("menu.language"));
  auto* group = new QActionGroup(menu);
  const std::pair<QString, QString> choices[] = {{QStringLiteral("system"), MainWindow::tr("System")},
                                                 {QStringLiteral("en"), QStringLiteral("English")},
                                                 {QStringLiteral("ja"), QStringLiteral("日本語")}};
  for (const auto& [choice, label] : choices) {
    QAction* a = menu->addAction(label);
    a->setCheckable(true);
    a->setChecked(choice == savedLanguage());
    a->setData(choice);
    group->addAction(a);
  }
  QObject::connect(group, &QActionGroup::triggered, window, [window](QAction* a) {
    saveLanguage(a->data().toString());
    auto* box = new QMessageBox(QMessageBox::Information, MainWindow::tr("Language"),
                                MainWindow::tr("The language changes when LLM Workbench starts again."),
                                QMessageBox::Ok, window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  });
}
}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open model folder…"), QKeySequence::Open, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Hugging Face model folder"));
    if (!dir.isEmpty()) openModel(dir);
  });
  file->addAction(tr("Open &GGUF file…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a GGUF model file"), {}, tr("GGUF models (*.gguf)"));
    if (!path.isEmpty()) openModel(path);
  });
  QAction* simulate = file->addAction(tr("&Simulate…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this,
                                      &MainWindow::showSimulateDialog);
  simulate->setToolTip(tr("Run the real scheduler and KV cache on a virtual clock for simulated hardware (H100, "
                          "A100, …) and a model's config.json: GPU-scale serving, every figure predicted"));
  recentMenu_ = file->addMenu(tr("Open &recent"));
  recentMenu_->setObjectName(QStringLiteral("menu.recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);  // another window may have added
  fillRecentMenu();
  file->addSeparator();
  file->addAction(tr("&Export metrics…"), this, &MainWindow::exportMetrics);
  QMenu* png = file->addMenu(tr("Export chart as &PNG"));
  const std::pair<QString, QWidget*> charts[] = {
      {tr("Batch composition"), batch_},       {tr("KV block map"), kv_},
      {tr("Prefix cache"), prefix_},           {tr("Latency over time"), latency_->chart()},
      {tr("Request timeline"), latency_->timeline()}, {tr("Run comparison"), runs_},
      {tr("Speculative decoding"), spec_},   {tr("Capacity"), capacity_->chart()},
      {tr("Whole window"), this}};
  for (const auto& [name, widget] : charts) {
    QWidget* w = widget;
    const QString n = name;
    png->addAction(name, this, [this, w, n] { exportPng(w, n); });
  }
  file->addSeparator();
  file->addAction(tr("&Save run…"), QKeySequence::Save, this, &MainWindow::saveRun);
  file->addAction(tr("Open &run…"), this, &MainWindow::openRun);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->setToolTipsVisible(true);
  for (auto* d : docks_) view->addAction(d->toggleViewAction());
  view->addSeparator();
  // Docks with a shortcut: they sit behind a tab (the speculative-decoding warning points here).
  QAction* goSpec = view->addAction(tr("Show &speculative decoding"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this, [this] {
    auto* d = findChild<QDockWidget*>(QStringLiteral("dock.spec"));
    d->show();
    d->raise();
  });
  goSpec->setToolTip(tr("Acceptance rate over time and per draft position (speculative_config)"));
  QAction* goCapacity = view->addAction(tr("Show &capacity"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] {
    auto* d = findChild<QDockWidget*>(QStringLiteral("dock.capacity"));
    d->show();
    d->raise();
  });
  goCapacity->setToolTip(tr("How many requests per second this engine serves within SLOs: sweep the request rate "
                            "(or a knob) for p99 TTFT and ITL, goodput and the saturation point"));
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
  view->addSeparator();
  addLanguageMenu(view, this);

  QMenu* engine = menuBar()->addMenu(tr("&Engine"));
  QMenu* backend = engine->addMenu(tr("&Backend"));
  backendGroup_ = new QActionGroup(this);
  for (std::string_view name : findKnob(knob::kBackend)->choices) {
    QAction* a = backend->addAction(QString::fromUtf8(name.data(), int(name.size())));
    a->setCheckable(true);
    a->setChecked(options_.knobs.executor.backend == name);
    backendGroup_->addAction(a);
    connect(a, &QAction::triggered, this, [this, a] {
      if (!bridge_->attached()) return;
      EngineConfig c = bridge_->config();
      c.executor.backend = a->text().toStdString();
      if (!knobs_->apply(c)) statusBar()->showMessage(knobs_->errorText(), 8000);
    });
  }
  pauseAction_ = engine->addAction(tr("&Pause"));
  pauseAction_->setCheckable(true);
  pauseAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Space), QKeySequence(Qt::Key_Pause)});
  pauseAction_->setToolTip(tr("Stop stepping the engine to inspect the charts; requests keep their state"));
  connect(pauseAction_, &QAction::toggled, this, [this](bool on) {
    bridge_->setPaused(on);
  });
  speedMenu_ = engine->addMenu(tr("Simulation &speed"));
  speedMenu_->setToolTip(tr("How fast a simulated engine's virtual clock runs against the wall clock"));
  speedMenu_->setToolTipsVisible(true);
  speedGroup_ = new QActionGroup(this);
  for (const auto& [label, speed] : {std::pair{tr("&1× (real time)"), 1.0}, std::pair{tr("1&0×"), 10.0},
                                     std::pair{tr("&As fast as possible"), 0.0}}) {
    QAction* a = speedMenu_->addAction(label);
    a->setCheckable(true);
    a->setData(speed);
    a->setChecked(speed == 1.0);
    speedGroup_->addAction(a);
    const double chosen = speed;  // a lambda cannot capture a structured binding (C++20, clang)
    connect(a, &QAction::triggered, this, [this, chosen] {
      simSpeed_ = chosen;
      if (simulated()) bridge_->loop()->setSimulationSpeed(chosen);
    });
  }
  speedMenu_->setEnabled(false);
  auto* pdAction = engine->addAction(tr("Prefill/&decode disaggregation…"), this, &MainWindow::showPdDialog);
  pdAction->setToolTip(tr("Run the model as a prefill instance and a decode instance, the KV cache copied "
                          "between them; Prefill / decode shows both"));
  engine->addAction(tr("&Reset"), this, [this] {
    if (!bridge_->attached()) return;
    resetHistory();
    statusBar()->showMessage(tr("Aborted all requests and cleared the history"), 5000);
  });
  if (options_.serveController) {  // app/ gives one; the server is not ui/'s to own
    auto* serve = new ServeSwitch(bridge_, options_.serveController, this);
    serve->setObjectName(QStringLiteral("serveSwitch"));
    engine->addAction(tr("Serve &API…"), serve, &ServeSwitch::showDialog);
    statusBar()->addPermanentWidget(serve->statusLabel());
  }

  QMenu* lessonMenu = menuBar()->addMenu(tr("&Lessons"));
  lessonMenu->setToolTipsVisible(true);
  for (const Lesson& l : lwb::lessons()) {
    const QString name = QString::fromStdString(l.name);
    QAction* a = lessonMenu->addAction(name, this, [this, name] {
      auto* d = findChild<QDockWidget*>(QStringLiteral("dock.lessons"));
      d->show();
      d->raise();
      lessons_->selectLesson(name);
    });
    a->setToolTip(lessonText(l.question));
  }
  lessonMenu->actions().front()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    QMessageBox::information(this, tr("Keyboard shortcuts"),
                             tr("<table>"
                                "<tr><td><b>Ctrl+Enter</b></td><td>send the chat message</td></tr>"
                                "<tr><td><b>Esc</b></td><td>stop the answer (abort)</td></tr>"
                                "<tr><td><b>Ctrl+Space</b> / Pause</td><td>pause / resume the engine</td></tr>"
                                "<tr><td><b>Ctrl+O</b></td><td>open a model folder</td></tr>"
                                "<tr><td><b>Ctrl+Shift+M</b></td><td>simulate GPU-scale serving</td></tr>"
                                "<tr><td><b>Ctrl+L</b></td><td>the lessons (guided experiments)</td></tr>"
                                "<tr><td><b>Ctrl+S</b></td><td>save the run</td></tr>"
                                "<tr><td><b>Ctrl+Shift+D</b></td><td>show the speculative-decoding view</td></tr>"
                                "<tr><td><b>Ctrl+Shift+C</b></td><td>show the capacity view (goodput sweeps)</td></tr>"
                                "<tr><td><b>Ctrl+Q</b></td><td>quit</td></tr>"
                                "<tr><td>drag / wheel</td><td>pan / zoom a chart's time axis</td></tr>"
                                "<tr><td>double-click</td><td>follow live data again</td></tr></table>"));
  });
  help->addAction(tr("&About"), this, [this] {
    QMessageBox::about(this, tr("About LLM Workbench"),
                       tr("<b>LLM Workbench %1</b><p>Runs a real LLM engine and shows what a serving engine does "
                          "inside: continuous batching, chunked prefill, the paged KV cache, prefix caching, "
                          "preemption, and their effect on TTFT and inter-token latency. Knob and metric names "
                          "follow vLLM.</p><p>GPL-3.0-or-later. Charts by QCustomPlot.</p>")
                           .arg(QStringLiteral(LWB_VERSION)));
  });
}

void MainWindow::exportMetrics() {
  QString filter;
  // The chosen filter tells the format; compared with the same (translated) texts.
  const QString requestsFilter = tr("Requests CSV (*.csv)"), stepsFilter = tr("Steps CSV (*.csv)"),
                traceFilter = tr("Chrome trace (*.trace.json)");
  QString path = QFileDialog::getSaveFileName(this, tr("Export metrics"), QStringLiteral("metrics.json"),
                                              QStringList{tr("Metrics JSON (*.json)"), requestsFilter, stepsFilter, traceFilter}
                                                  .join(QStringLiteral(";;")),
                                              &filter);
  if (path.isEmpty()) return;
  // The engine's exporters: vLLM metric names, the same files `bench` writes.
  const RunData& run = bridge_->run();
  const std::vector<RequestTimeline> timelines(run.requests.begin(), run.requests.end());
  const std::vector<StepRecord> steps(run.steps.begin(), run.steps.end());
  try {
    if (filter == requestsFilter) writeTextFile(path.toStdString(), requestsCsv(timelines));
    else if (filter == stepsFilter) writeTextFile(path.toStdString(), stepsCsv(steps));
    else if (filter == traceFilter)
      writeTextFile(path.toStdString(), chromeTrace(timelines, steps).dump());
    else writeTextFile(path.toStdString(), lwb::runToJson(timelines, steps).dump(1));
  } catch (const std::exception& e) {
    showError(tr("Export failed"), QString::fromUtf8(e.what()));
    return;
  }
  statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::exportPng(QWidget* w, const QString& name) {
  QString path = QFileDialog::getSaveFileName(this, tr("Export %1 as PNG").arg(name),
                                              name.toLower().replace(QLatin1Char(' '), QLatin1Char('-')) + ".png",
                                              tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  auto* chart = qobject_cast<TimeChart*>(w);
  const bool ok = chart ? chart->plot()->savePng(path, 0, 0, 2.0) : w->grab().save(path, "PNG");
  if (!ok) showError(tr("Export failed"), tr("Cannot write %1").arg(path));
}

void MainWindow::saveRun() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save run"), QStringLiteral("run.json"), tr("Workbench runs (*.json)"));
  if (path.isEmpty()) return;
  if (QString err = saveRunJson(bridge_->run(), path); !err.isEmpty()) showError(tr("Save failed"), err);
  else statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

void MainWindow::openRun() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open run"), {}, tr("Workbench runs and sweeps (*.json)"));
  if (path.isEmpty()) return;
  const bool sweep = isSweepFile(path);  // a Capacity sweep opens there, as B
  if (QString err = sweep ? capacity_->openSweep(1, path) : runs_->openRun(1, path); !err.isEmpty()) {
    showError(tr("Open failed"), err);
    return;
  }
  if (auto* d = findChild<QDockWidget*>(sweep ? QStringLiteral("dock.capacity") : QStringLiteral("dock.runs"))) {
    d->show();
    d->raise();
  }
}

// One entry per recent model, newest first, numbered for the keyboard; the full path in
// the tooltip and the action's data.
void MainWindow::fillRecentMenu() {
  recentMenu_->clear();
  const QStringList paths = RecentModels::paths();
  for (int i = 0; i < paths.size(); ++i) {
    const QString path = paths[i];
    const QFileInfo info(path);
    QString label = tr("%1 — %2").arg(info.fileName(), info.absolutePath()).replace('&', QStringLiteral("&&"));
    if (i < 9) label.prepend(QStringLiteral("&%1 ").arg(i + 1));
    QAction* a = recentMenu_->addAction(label, this, [this, path] { openRecent(path); });
    a->setData(path);
    a->setToolTip(path);
  }
  if (paths.isEmpty()) recentMenu_->addAction(tr("No recent models"))->setEnabled(false);
  recentMenu_->addSeparator();
  QAction* clear = recentMenu_->addAction(tr("&Clear list"), this, [this] {
    RecentModels::clear();
    fillRecentMenu();
  });
  clear->setEnabled(!paths.isEmpty());
}

void MainWindow::openRecent(const QString& path) {
  if (!QFileInfo::exists(path)) {
    RecentModels::remove(path);
    fillRecentMenu();
    showError(tr("Model not found"), tr("%1\n\nno longer exists; it was removed from the recent models.").arg(path));
    return;
  }
  openModel(path);
}

}  // namespace lwb::ui
