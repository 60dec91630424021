#pragma once
// The remote window's load and run views, as docks: Load generator, Requests, Latency,
// Request timeline and Runs — the in-process window's panels, fed by RemoteLoad (the
// client's records of a load run) through the same RunSource interface — and a Run menu:
// save the last load run with `bench --endpoint`'s JSON keys (the Runs view opens it
// beside local runs and `bench --json` files), open a run to compare, export the
// session's requests as JSON, CSV or a Chrome trace.
#include <QObject>

#include "remote/openai_client.h"

class QMainWindow;
class QMenuBar;

namespace lwb::ui {

class LatencyPanel;
class RemoteLoad;
class RemoteLoadPanel;
class RemoteSession;
class RequestsPanel;
class RunsPanel;

class RemoteRunViews : public QObject {
  Q_OBJECT
 public:
  explicit RemoteRunViews(QMainWindow* window);  // adds the docks to `window`
  void addMenu(QMenuBar* bar);
  // A new session (File ▸ Connect…): the views start over; the model follows its status.
  void setSession(RemoteSession* session, const remote::ClientOptions& client);

  // Each returns "" or a readable error naming the file.
  QString saveRun(const QString& path) const;      // the last load run, bench --endpoint's keys
  QString exportRun(const QString& path, const QString& format) const;  // "json" | "csv" | "trace"

  RemoteLoad* load() const { return load_; }
  RemoteLoadPanel* loadPanel() const { return loadPanel_; }
  RequestsPanel* requests() const { return requests_; }
  LatencyPanel* latency() const { return latency_; }
  RunsPanel* runs() const { return runs_; }

 private:
  void askSaveRun();
  void askExport();
  void askOpenRun();

  QMainWindow* window_;
  RemoteLoad* load_;
  RemoteLoadPanel* loadPanel_;
  RequestsPanel* requests_;
  LatencyPanel* latency_;
  RunsPanel* runs_;
};

}  // namespace lwb::ui
