#include "ui/remote/remote_run_views.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>

#include <tuple>

#include "engine/metrics/export.h"
#include "engine/metrics/trace.h"
#include "remote/remote_report.h"
#include "ui/charts/latency_chart.h"
#include "ui/charts/timeline_chart.h"
#include "ui/models/requests_table_model.h"
#include "ui/panels/latency_panel.h"
#include "ui/panels/requests_panel.h"
#include "ui/panels/runs_panel.h"
#include "ui/remote/remote_load.h"
#include "ui/remote/remote_load_panel.h"
#include "ui/remote/remote_session.h"

namespace lwb::ui {

namespace {

QDockWidget* addDock(QMainWindow* w, QWidget* content, const QString& title, const char* name) {
  auto* dock = new QDockWidget(title, w);
  dock->setObjectName(QString::fromLatin1(name));
  dock->setWidget(content);
  w->addDockWidget(Qt::BottomDockWidgetArea, dock);
  return dock;
}

QString writeAtomically(const QString& path, const std::string& text) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  f.write(text.data(), qint64(text.size()));
  if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

}  // namespace

RemoteRunViews::RemoteRunViews(QMainWindow* window)
    : QObject(window), window_(window), load_(new RemoteLoad(this)) {
  loadPanel_ = new RemoteLoadPanel(load_, window);
  requests_ = new RequestsPanel(load_, window);
  latency_ = new LatencyPanel(load_, window);
  runs_ = new RunsPanel(load_, window);
  requests_->model()->setClientSide(true);
  latency_->timeline()->setClientSide(true);
  QDockWidget* first = addDock(window, loadPanel_, tr("Load generator"), "dock.remote.load");
  using Dock = std::tuple<QWidget*, QString, const char*>;
  const Dock docks[] = {{requests_, tr("Requests"), "dock.remote.requests"},
                        {latency_, tr("Latency"), "dock.remote.latency"},
                        {latency_->timeline(), tr("Request timeline"), "dock.remote.timeline"},
                        {runs_, tr("Runs: compare"), "dock.remote.runs"}};
  for (const auto& [content, title, name] : docks) window->tabifyDockWidget(first, addDock(window, content, title, name));
  first->raise();
  connect(load_, &RunSource::frameReady, latency_, &LatencyPanel::onFrame);
  connect(load_, &RunSource::frameReady, requests_, &RequestsPanel::onFrame);
  connect(requests_, &RequestsPanel::requestSelected, latency_->timeline(), &TimelineChart::setSelectedRequest);
  connect(load_, &RunSource::runReset, this, [this] {
    latency_->chart()->clear();
    latency_->timeline()->clear();
  });
}

void RemoteRunViews::addMenu(QMenuBar* bar) {
  QMenu* menu = bar->addMenu(tr("&Run"));
  menu->addAction(tr("&Save load run…"), this, &RemoteRunViews::askSaveRun);
  menu->addAction(tr("&Open run to compare…"), this, &RemoteRunViews::askOpenRun);
  menu->addAction(tr("&Export requests…"), this, &RemoteRunViews::askExport);
}

void RemoteRunViews::setSession(RemoteSession* session, const remote::ClientOptions& client) {
  load_->setServer(client);
  load_->setModel(session->status().model);
  connect(session, &RemoteSession::statusChanged, load_, [this](const RemoteStatus& s) {
    if (!s.model.isEmpty()) load_->setModel(s.model);
  });
}

QString RemoteRunViews::saveRun(const QString& path) const {
  if (!load_->lastRun()) return tr("No load run has ended yet: nothing to save.");
  return writeAtomically(path, remote::remoteBenchJson(*load_->lastRun()).dump(2) + "\n");
}

QString RemoteRunViews::exportRun(const QString& path, const QString& format) const {
  // The engine's exporters, as the in-process window and `bench --endpoint` write them.
  const RunData& run = load_->run();
  const std::vector<RequestTimeline> timelines(run.requests.begin(), run.requests.end());
  if (format == QLatin1String("csv")) return writeAtomically(path, requestsCsv(timelines));
  if (format == QLatin1String("trace")) return writeAtomically(path, chromeTrace(timelines, {}).dump());
  return writeAtomically(path, lwb::runToJson(timelines, {}).dump(1));
}

void RemoteRunViews::askSaveRun() {
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save load run"), QStringLiteral("remote-run.json"),
                                                    tr("Bench JSON (*.json)"));
  if (path.isEmpty()) return;
  if (const QString err = saveRun(path); !err.isEmpty()) QMessageBox::warning(window_, tr("Save failed"), err);
  else window_->statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

void RemoteRunViews::askOpenRun() {
  const QString path = QFileDialog::getOpenFileName(window_, tr("Open run"), {}, tr("Runs and bench JSON (*.json)"));
  if (path.isEmpty()) return;
  if (const QString err = runs_->openRun(1, path); !err.isEmpty()) QMessageBox::warning(window_, tr("Open failed"), err);
  else if (auto* d = window_->findChild<QDockWidget*>(QStringLiteral("dock.remote.runs"))) d->raise();
}

void RemoteRunViews::askExport() {
  QString filter;
  const QString path = QFileDialog::getSaveFileName(
      window_, tr("Export requests"), QStringLiteral("remote-metrics.json"),
      tr("Metrics JSON (*.json);;Requests CSV (*.csv);;Chrome trace (*.trace.json)"), &filter);
  if (path.isEmpty()) return;
  // By the pattern, which translations keep as it is.
  const QString format = filter.contains(QLatin1String("*.csv"))          ? QStringLiteral("csv")
                         : filter.contains(QLatin1String("*.trace.json")) ? QStringLiteral("trace")
                                                                           : QStringLiteral("json");
  if (const QString err = exportRun(path, format); !err.isEmpty()) QMessageBox::warning(window_, tr("Export failed"), err);
  else window_->statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

}  // namespace lwb::ui
