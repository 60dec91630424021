#include "ui/panels/chat_panel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/panels/chat_conversation.h"

namespace lwb::ui {

ChatPanel::ChatPanel(EngineBridge* bridge, QWidget* parent) : QWidget(parent), bridge_(bridge), tabs_(new QTabWidget(this)) {
  tabs_->setTabsClosable(true);
  tabs_->setMovable(true);
  tabs_->setDocumentMode(true);
  auto* add = new QToolButton(this);
  add->setText(QStringLiteral("+"));
  add->setToolTip(tr("New conversation"));
  tabs_->setCornerWidget(add, Qt::TopRightCorner);
  connect(add, &QToolButton::clicked, this, [this] { tabs_->setCurrentWidget(addConversation()); });
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &ChatPanel::closeTab);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);
  saveTimer_.setSingleShot(true);
  saveTimer_.setInterval(500);
  connect(&saveTimer_, &QTimer::timeout, this, &ChatPanel::saveNow);
  restore();
  if (tabs_->count() == 0) addConversation();
}

ChatPanel::~ChatPanel() {
  if (saveTimer_.isActive()) saveNow();
}

QString ChatPanel::storagePath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/conversations.json");
}

ChatConversation* ChatPanel::addConversation() {
  auto* c = new ChatConversation(bridge_, tabs_);
  c->setWindowTitle(tr("chat %1").arg(nextNumber_++));
  tabs_->addTab(c, c->windowTitle());
  // Debounced, but not postponed forever: while an answer streams, a save every 500 ms.
  connect(c, &ChatConversation::changed, this, [this] {
    if (!saveTimer_.isActive()) saveTimer_.start();
  });
  return c;
}

void ChatPanel::closeTab(int index) {
  auto* c = conversation(index);
  if (!c) return;
  c->stop();
  tabs_->removeTab(index);
  c->deleteLater();
  if (tabs_->count() == 0) addConversation();
  saveTimer_.start();
}

ChatConversation* ChatPanel::current() const { return qobject_cast<ChatConversation*>(tabs_->currentWidget()); }
ChatConversation* ChatPanel::conversation(int i) const { return qobject_cast<ChatConversation*>(tabs_->widget(i)); }
int ChatPanel::count() const { return tabs_->count(); }

void ChatPanel::onFrame(const Frame& frame) {
  for (int i = 0; i < tabs_->count(); ++i) conversation(i)->onFrame(frame);
}

bool ChatPanel::saveNow() {
  QJsonArray all;
  for (int i = 0; i < tabs_->count(); ++i) all.append(conversation(i)->toJson());
  QDir().mkpath(QFileInfo(storagePath()).absolutePath());
  QSaveFile f(storagePath());
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(QJsonDocument(QJsonObject{{"version", 1}, {"conversations", all}}).toJson(QJsonDocument::Indented));
  return f.commit();
}

void ChatPanel::restore() {
  QFile f(storagePath());
  if (!f.open(QIODevice::ReadOnly)) return;
  const auto doc = QJsonDocument::fromJson(f.readAll());
  for (const auto& v : doc.object().value("conversations").toArray()) {
    auto* c = addConversation();
    c->fromJson(v.toObject());
    tabs_->setTabText(tabs_->indexOf(c), c->windowTitle());
  }
}

}  // namespace lwb::ui
