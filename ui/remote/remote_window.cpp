#include "ui/remote/remote_window.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/common/error.h"
#include "ui/remote/remote_load.h"
#include "ui/remote/remote_metrics_chart.h"
#include "ui/remote/remote_server_views.h"
#include "ui/remote/remote_run_views.h"

namespace lwb::ui {

namespace {

constexpr int kMaxAnswerTokens = 256;

QString ms(double seconds) { return seconds < 0 ? QStringLiteral("–") : QString::number(seconds * 1000, 'f', 0) + " ms"; }

}  // namespace

RemoteWindow::RemoteWindow(const RemoteOptions& options, QWidget* parent) : QMainWindow(parent) {
  buildUi();
  buildMenus();
  connectTo(options);
}

RemoteWindow::~RemoteWindow() = default;

void RemoteWindow::buildUi() {
  setWindowTitle(tr("LLM Workbench — remote"));
  resize(1200, 800);
  auto* chatBox = new QWidget(this);
  auto* chatLayout = new QVBoxLayout(chatBox);
  transcript_ = new QPlainTextEdit(chatBox);
  transcript_->setReadOnly(true);
  input_ = new QLineEdit(chatBox);
  input_->setPlaceholderText(tr("Message the server's model (its own chat template applies)"));
  send_ = new QPushButton(tr("Send"), chatBox);
  stop_ = new QPushButton(tr("Stop"), chatBox);
  stop_->setEnabled(false);
  auto* row = new QHBoxLayout;
  row->addWidget(input_, 1);
  row->addWidget(send_);
  row->addWidget(stop_);
  chatLayout->addWidget(transcript_, 1);
  chatLayout->addLayout(row);
  connect(send_, &QPushButton::clicked, this, [this] { sendChat(input_->text()); });
  connect(input_, &QLineEdit::returnPressed, this, [this] { sendChat(input_->text()); });
  connect(stop_, &QPushButton::clicked, this, [this] {
    if (activeChat_ && session_) session_->stopChat(activeChat_);
  });

  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  chart_ = new RemoteMetricsChart(side);
  notExported_ = new QLabel(side);
  notExported_->setWordWrap(true);
  configNote_ = new QLabel(tr("Server configuration, read-only: these are the server's start-up flags "
                              "(change them where the server is started)."),
                           side);
  configNote_->setWordWrap(true);
  config_ = new QTableWidget(0, 3, side);
  config_->setHorizontalHeaderLabels({tr("setting"), tr("value"), tr("reported by")});
  config_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  config_->horizontalHeader()->setStretchLastSection(true);
  config_->verticalHeader()->setVisible(false);
  sideLayout->addWidget(chart_, 3);
  kvEventsLabel_ = new QLabel(side);
  kvEventsLabel_->setWordWrap(true);
  kvEventsLabel_->setVisible(false);
  sideLayout->addWidget(notExported_);
  sideLayout->addWidget(kvEventsLabel_);
  sideLayout->addWidget(configNote_);
  sideLayout->addWidget(config_, 2);

  auto* split = new QSplitter(this);
  split->addWidget(chatBox);
  split->addWidget(side);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  setCentralWidget(split);
  serverLabel_ = new QLabel(this);
  stateLabel_ = new QLabel(this);
  statusBar()->addWidget(serverLabel_, 1);
  statusBar()->addPermanentWidget(stateLabel_);
  serverViews_ = new RemoteServerViews(this, [this] { return kvEvents_.get(); });
  runViews_ = new RemoteRunViews(this);
  auto* kvTimer = new QTimer(this);  // the subscriber's counters are read under its mutex: cheap
  connect(kvTimer, &QTimer::timeout, this, &RemoteWindow::showKvEvents);
  kvTimer->start(250);
}

void RemoteWindow::startKvEvents(const RemoteOptions& options) {
  kvEvents_.reset();
  runViews_->load()->setKvEvents(nullptr);
  kvEventsLabel_->setVisible(!options.kvEventsEndpoint.isEmpty());
  if (options.kvEventsEndpoint.isEmpty()) return;
  remote::KvEventSubscriberOptions o;
  o.endpoint = options.kvEventsEndpoint.toStdString();
  o.replayEndpoint = options.kvEventsReplayEndpoint.toStdString();
  o.replayTimeoutMs = 500;  // stopping the subscriber (GUI thread) waits for a replay at most this long
  auto sub = std::make_shared<remote::KvEventSubscriber>(o);
  try {
    sub->start();  // connects without waiting for the publisher (ZeroMQ connects lazily)
  } catch (const Error& e) {
    kvEventsLabel_->setText(tr("KV events: %1").arg(QString::fromStdString(e.what())));
    return;
  }
  kvEvents_ = std::move(sub);
  runViews_->load()->setKvEvents(kvEvents_);  // its runs' misses are explained by the events
  showKvEvents();
}

void RemoteWindow::showKvEvents() {
  if (!kvEvents_) return;
  const remote::KvEventSubscriberStats s = kvEvents_->stats();
  QString text = tr("KV cache from the server's KV events: %1 cached blocks; %2 batches (last seq %3)")
                     .arg(s.numBlocks)
                     .arg(s.numBatches)
                     .arg(s.lastSeq);
  if (s.numMalformed || s.numMissed)
    text += tr("; %1 malformed, %2 missed").arg(s.numMalformed).arg(s.numMissed);
  if (!s.lastError.empty()) text += tr(" — %1").arg(QString::fromStdString(s.lastError));
  kvEventsLabel_->setText(text);
  kvEventsLabel_->setToolTip(
      tr("The events also explain, for the load runs' prompts, why their tokens missed the prefix cache "
         "(the Requests table): blocks stored then removed are evicted, blocks never stored are cold, "
         "matched by the token ids BlockStored carries. Not known from outside: whether caching is off, "
         "which request's allocation evicted a block, and anything before the subscription or in a "
         "missed batch (counted as cold)."));
}

void RemoteWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Connect…"), this, &RemoteWindow::askForEndpoint);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  runViews_->addMenu(menuBar());
}

void RemoteWindow::askForEndpoint() {
  bool ok = false;
  const QString url = QInputDialog::getText(this, tr("Connect to a server"),
                                            tr("OpenAI-compatible server (vLLM, SGLang, llama.cpp, llm-workbench serve):"),
                                            QLineEdit::Normal, options_.url, &ok);
  if (!ok || url.isEmpty()) return;
  RemoteOptions o = options_;
  o.url = url.trimmed();
  o.servedModelName.clear();  // another server: its own first model
  connectTo(o);
}

bool RemoteWindow::connectTo(const RemoteOptions& options) {
  remote::ClientOptions client;
  client.url = options.url.toStdString();
  client.apiKey = options.apiKey.toStdString();
  client.readTimeoutSeconds = options.readTimeoutSeconds;
  std::unique_ptr<RemoteSession> session;
  try {
    session = std::make_unique<RemoteSession>(client, options.servedModelName);
  } catch (const Error& e) {
    stateLabel_->setText(tr("not connected: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  session_ = std::move(session);  // the old one stops and joins its threads here
  runViews_->setSession(session_.get(), client);
  options_ = options;
  activeChat_ = 0;
  messages_ = nlohmann::json::array();
  stop_->setEnabled(false);
  chart_->clear();
  config_->setRowCount(0);
  serverLabel_->setText(tr("connecting to %1 …").arg(session_->status().address));
  session_->setScrapeInterval(options.scrapeIntervalSeconds);
  connect(session_.get(), &RemoteSession::statusChanged, this, &RemoteWindow::onStatus);
  connect(session_.get(), &RemoteSession::configRead, this, &RemoteWindow::onConfig);
  connect(session_.get(), &RemoteSession::sampled, chart_, &RemoteMetricsChart::addSample);
  connect(session_.get(), &RemoteSession::chatText, this, &RemoteWindow::onChatText);
  connect(session_.get(), &RemoteSession::chatFinished, this, &RemoteWindow::onChatFinished);
  serverViews_->attach(session_.get());
  session_->start();
  startKvEvents(options);
  return true;
}

void RemoteWindow::onStatus(const RemoteStatus& s) {
  serverLabel_->setText(tr("%1 · model %2 · %3")
                            .arg(s.kind.isEmpty() ? tr("server") : s.kind,
                                 s.model.isEmpty() ? tr("(unknown)") : s.model, s.address));
  if (!s.connected)
    stateLabel_->setText(tr("disconnected: %1 — retrying").arg(s.error));
  else if (!s.error.isEmpty())
    stateLabel_->setText(tr("connected; /metrics: %1").arg(s.error));
  else
    stateLabel_->setText(s.numConnects > 1 ? tr("connected (reconnected)") : tr("connected"));
  notExported_->setText(s.notExported.isEmpty()
                            ? tr("The server exports every gauge these views use.")
                            : tr("This server does not export: %1.").arg(s.notExported.join(QStringLiteral(", "))));
}

void RemoteWindow::onConfig(const remote::RemoteServerConfig& c) {
  config_->setRowCount(0);
  for (const auto& e : c.entries) {
    const int r = config_->rowCount();
    config_->insertRow(r);
    config_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(e.key)));
    config_->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(e.value)));
    config_->setItem(r, 2, new QTableWidgetItem(QString::fromStdString(e.source)));
  }
  QStringList notes;
  for (const auto& n : c.notes) notes << QString::fromStdString(n);
  configNote_->setToolTip(notes.join('\n'));
  if (c.entries.empty()) configNote_->setText(tr("The server reports no configuration (%1).").arg(notes.join("; ")));
}

void RemoteWindow::sendChat(const QString& text) {
  if (text.trimmed().isEmpty() || activeChat_ || !session_) return;
  messages_.push_back({{"role", "user"}, {"content", text.toStdString()}});
  transcript_->appendPlainText(tr("You: %1").arg(text));
  transcript_->appendPlainText(tr("Assistant: "));
  input_->clear();
  answer_.clear();
  activeChat_ = session_->sendChat(messages_, kMaxAnswerTokens);
  send_->setEnabled(false);
  stop_->setEnabled(true);
}

void RemoteWindow::onChatText(int id, const QString& text) {
  if (id != activeChat_) return;
  answer_ += text;
  transcript_->moveCursor(QTextCursor::End);
  transcript_->insertPlainText(text);
}

void RemoteWindow::onChatFinished(int id, const RemoteChatResult& r) {
  if (id != activeChat_) return;
  activeChat_ = 0;
  send_->setEnabled(true);
  stop_->setEnabled(false);
  if (r.error.isEmpty()) {
    messages_.push_back({{"role", "assistant"}, {"content", answer_.toStdString()}});
    transcript_->appendPlainText(tr("[TTFT %1, ITL %2, %3 tokens, finish %4]")
                                     .arg(ms(r.ttft), ms(r.meanItl))
                                     .arg(r.completionTokens)
                                     .arg(r.finishReason));
  } else {
    messages_.erase(messages_.size() - 1);  // the question goes again with the next try
    transcript_->appendPlainText(tr("[error: %1]").arg(r.error));
  }
}

QString RemoteWindow::statusText() const { return serverLabel_->text() + QStringLiteral(" | ") + stateLabel_->text(); }
QString RemoteWindow::transcript() const { return transcript_->toPlainText(); }
QString RemoteWindow::notExportedText() const { return notExported_->text(); }
QString RemoteWindow::kvEventsText() const { return kvEventsLabel_->text(); }

}  // namespace lwb::ui
