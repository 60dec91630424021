#pragma once
// The remote window's views of the server's inside, each a dock: batches and prefix
// cache from its counters (RemoteCountersChart), its KV blocks from its KV events
// (RemoteKvPanel), its knobs read-only (RemoteKnobsPanel). They are fed by the window's
// RemoteSession (queued signals) and read the KV-event subscriber on a timer, so none of
// them waits on the network.
#include <QObject>

#include "remote/remote_metrics.h"
#include "remote/server_config.h"
#include "ui/remote/remote_kv_panel.h"

class QMainWindow;

namespace lwb::ui {

class RemoteCountersChart;
class RemoteKnobsPanel;
class RemoteSession;

class RemoteServerViews : public QObject {
  Q_OBJECT
 public:
  // Adds the docks to `window`; `kvEvents` says which subscriber is current (it changes
  // when the window reconnects).
  RemoteServerViews(QMainWindow* window, RemoteKvPanel::Source kvEvents);

  // A new session (connect or reconnect to another server): the views start empty.
  void attach(RemoteSession* session);

  RemoteCountersChart* counters() const { return counters_; }
  RemoteKvPanel* kvPanel() const { return kvPanel_; }
  RemoteKnobsPanel* knobs() const { return knobs_; }

 private:
  void onConfig(const remote::RemoteServerConfig& config);
  void onState(double time, const remote::RemoteServerState& state);

  RemoteCountersChart* counters_;
  RemoteKvPanel* kvPanel_;
  RemoteKnobsPanel* knobs_;
};

}  // namespace lwb::ui
