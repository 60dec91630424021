#include "ui/remote/remote_session.h"

#include <QCoreApplication>

#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "engine/common/error.h"
#include "remote/remote_metrics.h"

namespace lwb::ui {

using nlohmann::json;

// Shared by the session (GUI thread) and its detached threads. `session` is cleared by
// the destructor under `mu`, and every post happens under `mu`: nothing is posted to a
// destroyed object (Qt drops events already posted to it).
struct RemoteSession::Shared {
  remote::ClientOptions client;
  QString servedModelName;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::atomic<double> interval{1.0};
  mutable std::mutex mu;
  std::condition_variable wake;
  RemoteSession* session = nullptr;
  bool stopping = false;
  RemoteStatus status;
  remote::RemoteServerConfig config;
  std::map<int, std::shared_ptr<std::atomic<bool>>> chats;  // id → cancel flag
  int nextChat = 1;

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
  void post(std::function<void(RemoteSession*)> f) {
    std::lock_guard lock(mu);
    if (!session) return;
    RemoteSession* s = session;
    QMetaObject::invokeMethod(s, [s, f = std::move(f)] { f(s); }, Qt::QueuedConnection);
  }
  void publishStatus() {
    RemoteStatus st;
    {
      std::lock_guard lock(mu);
      st = status;
    }
    post([st](RemoteSession* s) { emit s->statusChanged(st); });
  }
  void fail(const QString& error) {
    {
      std::lock_guard lock(mu);
      status.connected = false;
      status.error = error;
    }
    publishStatus();
  }
  bool stopped() const {
    std::lock_guard lock(mu);
    return stopping;
  }
};

namespace {

using Shared = std::shared_ptr<RemoteSession::Shared>;

// Short timeouts for the monitor: a dead server must not hold a reconnect for long.
remote::ClientOptions monitorOptions(remote::ClientOptions o) {
  o.connectTimeoutSeconds = std::min(o.connectTimeoutSeconds, 2.0);
  o.readTimeoutSeconds = std::min(o.readTimeoutSeconds, 5.0);
  return o;
}

// The views' figures this server leaves out, in words the panels can show as they are.
QStringList notExported(const remote::RemoteServerState& s) {
  QStringList out;
  if (!s.numRunning || !s.numWaiting) out << QCoreApplication::translate("RemoteSession", "running / waiting requests");
  if (!s.kvCacheUsage) out << QCoreApplication::translate("RemoteSession", "KV cache usage");
  if (!s.prefixCacheHits && !s.prefixCacheHitRate) out << QCoreApplication::translate("RemoteSession", "prefix cache hits");
  if (!s.numPreemptions) out << QCoreApplication::translate("RemoteSession", "preemptions");
  if (!s.numIterations) out << QCoreApplication::translate("RemoteSession", "engine steps");
  return out;
}

RemoteChatResult chatResult(const remote::StreamResult& s) {
  RemoteChatResult r;
  r.text = QString::fromStdString(s.text);
  r.error = QString::fromStdString(s.error);
  r.finishReason = QString::fromStdString(s.finishReason);
  if (!s.chunkTimes.empty()) r.ttft = s.chunkTimes.front() - s.sendTime;
  if (s.chunkTimes.size() >= 2) r.meanItl = (s.chunkTimes.back() - s.chunkTimes.front()) / double(s.chunkTimes.size() - 1);
  r.completionTokens = s.completionTokens.value_or(-1);
  return r;
}

// GET /v1/models and the configuration; false (the reason in the status) on failure.
bool connectOnce(const Shared& d, remote::OpenAiClient& client) {
  std::vector<std::string> models;
  try {
    models = client.listModels();
  } catch (const std::exception& e) {
    d->fail(QString::fromStdString(e.what()));
    return false;
  }
  remote::RemoteServerConfig config = remote::fetchServerConfig(client);
  {
    std::lock_guard lock(d->mu);
    d->status.connected = true;
    d->status.model = !d->servedModelName.isEmpty() ? d->servedModelName
                      : models.empty()              ? QString()
                                                    : QString::fromStdString(models.front());
    d->status.error.clear();
    ++d->status.numConnects;
    d->config = config;
  }
  d->post([config](RemoteSession* s) { emit s->configRead(config); });
  d->publishStatus();
  return true;
}

void scrapeOnce(const Shared& d, remote::OpenAiClient& client) {
  std::string why;
  const double t = d->now();
  const auto text = client.fetchMetrics(&why);
  remote::RemoteServerState state;
  QString error;
  if (!text) {
    try {
      client.listModels();  // it answers, only without /metrics (llama.cpp without --metrics)?
    } catch (const std::exception& e) {
      return d->fail(QString::fromStdString(e.what()));  // down: reconnect from scratch
    }
    error = QString::fromStdString(why);
  } else {
    try {
      state = remote::readServerState(remote::parsePrometheusText(*text, client.endpoint().url() + "/metrics"));
    } catch (const Error& e) {
      error = QString::fromStdString(e.what());  // malformed: say so, stay connected
    }
  }
  {
    std::lock_guard lock(d->mu);
    d->status.error = error;
    d->status.kind = QString::fromStdString(remote::serverKindName(state.kind));
    d->status.notExported = notExported(state);  // all of it without /metrics
  }
  d->publishStatus();
  if (!error.isEmpty()) return;
  const remote::ServerSample sample{t, state.numRunning, state.numWaiting, state.kvCacheUsage, std::nullopt};
  d->post([sample](RemoteSession* s) { emit s->sampled(sample); });
  d->post([t, state](RemoteSession* s) { emit s->scraped(t, state); });
}

void monitor(Shared d) {
  remote::OpenAiClient client(monitorOptions(d->client));
  while (!d->stopped()) {
    bool connected;
    {
      std::lock_guard lock(d->mu);
      connected = d->status.connected;
    }
    if (connected || connectOnce(d, client)) scrapeOnce(d, client);
    std::unique_lock lock(d->mu);
    d->wake.wait_for(lock, std::chrono::duration<double>(d->interval.load()), [&] { return d->stopping; });
  }
}

void runChat(Shared d, int id, json body, std::shared_ptr<std::atomic<bool>> cancel) {
  remote::OpenAiClient client(d->client);
  const auto onText = [&d, id](const std::string& text) {
    const QString piece = QString::fromStdString(text);
    d->post([id, piece](RemoteSession* s) { emit s->chatText(id, piece); });
  };
  const RemoteChatResult result =
      chatResult(client.streamChat(std::move(body), [&d] { return d->now(); }, onText, cancel.get()));
  {
    std::lock_guard lock(d->mu);
    d->chats.erase(id);
  }
  d->post([id, result](RemoteSession* s) { emit s->chatFinished(id, result); });
}

}  // namespace

RemoteSession::RemoteSession(const remote::ClientOptions& client, const QString& servedModelName, QObject* parent)
    : QObject(parent), d_(std::make_shared<Shared>()) {
  qRegisterMetaType<RemoteStatus>();
  qRegisterMetaType<RemoteChatResult>();
  qRegisterMetaType<remote::ServerSample>();
  qRegisterMetaType<remote::RemoteServerConfig>();
  qRegisterMetaType<remote::RemoteServerState>();
  d_->client = client;
  d_->servedModelName = servedModelName;
  d_->status.address = QString::fromStdString(remote::parseEndpoint(client.url).url());
  d_->session = this;
}

RemoteSession::~RemoteSession() {
  {
    std::lock_guard lock(d_->mu);
    d_->session = nullptr;
    d_->stopping = true;
    for (auto& [id, cancel] : d_->chats) *cancel = true;
  }
  d_->wake.notify_all();
}

void RemoteSession::start() {
  if (started_) return;
  started_ = true;
  std::thread([d = d_] { monitor(d); }).detach();
}

RemoteStatus RemoteSession::status() const {
  std::lock_guard lock(d_->mu);
  return d_->status;
}

remote::RemoteServerConfig RemoteSession::config() const {
  std::lock_guard lock(d_->mu);
  return d_->config;
}

void RemoteSession::setScrapeInterval(double seconds) { d_->interval = std::max(seconds, 0.05); }

int RemoteSession::sendChat(const json& messages, int maxTokens) {
  std::lock_guard lock(d_->mu);
  const int id = d_->nextChat++;
  json body = {{"model", d_->status.model.toStdString()}, {"messages", messages}, {"max_tokens", maxTokens}};
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  d_->chats[id] = cancel;
  std::thread([d = d_, id, body = std::move(body), cancel] { runChat(d, id, body, cancel); }).detach();
  return id;
}

void RemoteSession::stopChat(int id) {
  std::lock_guard lock(d_->mu);
  if (auto it = d_->chats.find(id); it != d_->chats.end()) *it->second = true;
}

}  // namespace lwb::ui
