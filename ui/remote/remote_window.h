#pragma once
// The window in remote mode (`llm-workbench --endpoint URL`, or File ▸ Connect…): chat
// with the server's model over /v1/chat/completions, its gauges over time, its
// configuration read-only, and a status bar with server kind, model and address. It
// talks to the network only through RemoteSession's threads, so a dead or slow server
// never freezes it; the session reconnects by itself.
//
// With a KV-event address (vLLM's --kv-events-config endpoint) it also keeps the
// server's prefix-cache block map from those events and shows its counts.
//
// Docks show the server's inside as far as it exports it (RemoteServerViews): batches
// and prefix cache from its counters, the drawn block map, its knobs read-only. The
// load generator, requests table, latency and timeline views and saved runs are
// RemoteRunViews' docks (the in-process window's panels, fed by the client's records).
#include <QMainWindow>

#include <memory>

#include "remote/kv_event_subscriber.h"
#include "ui/remote/remote_session.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace lwb::ui {

class RemoteMetricsChart;
class RemoteServerViews;
class RemoteRunViews;

struct RemoteOptions {
  QString url;
  QString apiKey;
  QString servedModelName;
  double scrapeIntervalSeconds = 1.0;
  double readTimeoutSeconds = 60;  // a chat stream silent this long is reported stalled
  QString kvEventsEndpoint;        // vLLM's KV-event PUB address; "" = no event-fed block map
  QString kvEventsReplayEndpoint;  // its replay address ("" = none)
};

class RemoteWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit RemoteWindow(const RemoteOptions& options, QWidget* parent = nullptr);
  ~RemoteWindow() override;

  // Replaces the session with one for `options.url` (File ▸ Connect…); a malformed URL
  // is shown in the status bar and the old session stays.
  bool connectTo(const RemoteOptions& options);
  void sendChat(const QString& text);

  // For tests: what the user sees.
  RemoteSession* session() const { return session_.get(); }
  QString statusText() const;
  QString transcript() const;
  QTableWidget* configTable() const { return config_; }
  RemoteMetricsChart* chart() const { return chart_; }
  QString notExportedText() const;
  QString kvEventsText() const;
  // The event-fed block map (nullptr without an event address).
  const remote::KvEventSubscriber* kvEvents() const { return kvEvents_.get(); }
  RemoteServerViews* serverViews() const { return serverViews_; }
  RemoteRunViews* runViews() const { return runViews_; }

 private:
  void buildUi();
  void buildMenus();
  void onStatus(const RemoteStatus& s);
  void onConfig(const remote::RemoteServerConfig& c);
  void onChatText(int id, const QString& text);
  void onChatFinished(int id, const RemoteChatResult& r);
  void askForEndpoint();
  void startKvEvents(const RemoteOptions& options);
  void showKvEvents();

  RemoteOptions options_;
  std::unique_ptr<RemoteSession> session_;
  QLabel *serverLabel_, *stateLabel_, *notExported_, *configNote_;
  QPlainTextEdit* transcript_;
  QLineEdit* input_;
  QPushButton *send_, *stop_;
  QTableWidget* config_;
  RemoteMetricsChart* chart_;
  RemoteRunViews* runViews_;
  QLabel* kvEventsLabel_;
  RemoteServerViews* serverViews_;
  std::shared_ptr<remote::KvEventSubscriber> kvEvents_;  // shared with a load run going on
  nlohmann::json messages_ = nlohmann::json::array();
  int activeChat_ = 0;
  QString answer_;
};

}  // namespace lwb::ui
