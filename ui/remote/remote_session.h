#pragma once
// The window's side of remote mode: one OpenAI-compatible server (vLLM, SGLang,
// llama.cpp's server, `llm-workbench serve`) watched and driven without ever blocking the
// GUI thread. A monitor thread connects (GET /v1/models), reads the server's
// configuration, scrapes /metrics about once a second and reconnects by itself after a
// failure; chats stream from /v1/chat/completions on their own threads. Everything
// reaches the GUI thread as queued signals.
#include <QObject>
#include <QString>

#include <memory>

#include <nlohmann/json.hpp>

#include "remote/metrics_scraper.h"
#include "remote/openai_client.h"
#include "remote/remote_metrics.h"
#include "remote/server_config.h"

namespace lwb::ui {

struct RemoteStatus {
  QString address;        // "http://127.0.0.1:8000"
  QString kind;           // "vllm", "sglang", "llama.cpp", "unknown"
  QString model;          // the served model name in use
  bool connected = false;
  QString error;          // the last failure ("" while connected and well)
  int numConnects = 0;    // successful (re)connections
  QStringList notExported;  // what this server's /metrics does not say
};

struct RemoteChatResult {
  QString text;
  QString error;          // "" = complete
  QString finishReason;
  double ttft = -1;       // seconds, client side; -1 without a token
  double meanItl = -1;    // seconds between chunks; -1 with fewer than two
  int completionTokens = -1;
};

class RemoteSession : public QObject {
  Q_OBJECT
 public:
  // `servedModelName` empty: the first model GET /v1/models lists. Throws lwb::Error for
  // a malformed URL (nothing is contacted here).
  RemoteSession(const remote::ClientOptions& client, const QString& servedModelName, QObject* parent = nullptr);
  // Returns at once: the threads are told to stop and let go of this object; one stuck
  // in a network call ends when its timeout does, without posting anything.
  ~RemoteSession() override;

  void start();               // the monitor thread
  RemoteStatus status() const;
  remote::RemoteServerConfig config() const;
  void setScrapeInterval(double seconds);  // default 1 s (tests go faster)

  // Streams one answer to `messages` (OpenAI's chat shape); returns its id at once.
  int sendChat(const nlohmann::json& messages, int maxTokens);
  void stopChat(int id);

 signals:
  void statusChanged(const lwb::ui::RemoteStatus& status);
  void configRead(const lwb::remote::RemoteServerConfig& config);
  void sampled(const lwb::remote::ServerSample& sample);  // time: seconds since start()
  // Every good scrape whole (counters too), for views that plot their differences.
  void scraped(double time, const lwb::remote::RemoteServerState& state);
  void chatText(int id, const QString& text);
  void chatFinished(int id, const lwb::ui::RemoteChatResult& result);

 public:
  struct Shared;  // what the threads hold: they may outlive this object

 private:
  std::shared_ptr<Shared> d_;
  bool started_ = false;
};

}  // namespace lwb::ui

Q_DECLARE_METATYPE(lwb::ui::RemoteStatus)
Q_DECLARE_METATYPE(lwb::ui::RemoteChatResult)
Q_DECLARE_METATYPE(lwb::remote::ServerSample)
Q_DECLARE_METATYPE(lwb::remote::RemoteServerConfig)
Q_DECLARE_METATYPE(lwb::remote::RemoteServerState)
