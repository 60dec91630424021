#include "ui/remote/remote_server_views.h"

#include <QDockWidget>
#include <QMainWindow>

#include "ui/remote/remote_counters_chart.h"
#include "ui/remote/remote_knobs_panel.h"
#include "ui/remote/remote_session.h"

namespace lwb::ui {

namespace {
QDockWidget* addDock(QMainWindow* window, QWidget* view, const QString& title, const QString& objectName) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(objectName);  // saveState() needs it
  dock->setWidget(view);
  window->addDockWidget(Qt::RightDockWidgetArea, dock);
  return dock;
}
}  // namespace

RemoteServerViews::RemoteServerViews(QMainWindow* window, RemoteKvPanel::Source kvEvents)
    : QObject(window),
      counters_(new RemoteCountersChart(window)),
      kvPanel_(new RemoteKvPanel(std::move(kvEvents), window)),
      knobs_(new RemoteKnobsPanel(window)) {
  auto* batch = addDock(window, counters_, tr("Server batches and prefix cache"), QStringLiteral("remoteCounters"));
  auto* kv = addDock(window, kvPanel_, tr("Server KV blocks"), QStringLiteral("remoteKvBlocks"));
  auto* knobs = addDock(window, knobs_, tr("Server knobs (read-only)"), QStringLiteral("remoteKnobs"));
  window->tabifyDockWidget(batch, kv);
  window->tabifyDockWidget(kv, knobs);
  batch->raise();
}

void RemoteServerViews::attach(RemoteSession* session) {
  counters_->clear();
  kvPanel_->clear();
  knobs_->clear();
  if (!session) return;
  connect(session, &RemoteSession::configRead, this, &RemoteServerViews::onConfig);
  connect(session, &RemoteSession::scraped, this, &RemoteServerViews::onState);
}

void RemoteServerViews::onConfig(const remote::RemoteServerConfig& config) {
  knobs_->showServerConfig(config);
  const remote::ServerConfigEntry* blocks = config.find("num_gpu_blocks");
  bool ok = false;
  const int n = blocks ? QString::fromStdString(blocks->value).toInt(&ok) : 0;
  kvPanel_->setNumPoolBlocks(ok ? n : 0);
}

void RemoteServerViews::onState(double time, const remote::RemoteServerState& state) {
  counters_->addState(time, state);
  kvPanel_->setKvUsage(state.kvCacheUsage);
}

}  // namespace lwb::ui
