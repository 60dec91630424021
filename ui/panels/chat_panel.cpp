#include "ui/panels/chat_panel.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/panels/chat_conversation.h"

namespace lwb::ui {

ChatPanel::ChatPanel(EngineBridge* bridge, QWidget* parent)
    : QWidget(parent), bridge_(bridge), tabs_(new QTabWidget(this)), defaultsLabel_(new QLabel(this)) {
  defaultsLabel_->setWordWrap(true);
  defaultsLabel_->setToolTip(tr("Sampling settings a new chat starts with, and what the chat sends for top_k, "
                                "min_p and repetition_penalty. As vLLM's --generation-config auto: the model "
                                "folder's generation_config.json where it gives a value, else the built-in one."));
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
  layout->addWidget(defaultsLabel_);
  layout->addWidget(tabs_);
  saveTimer_.setSingleShot(true);
  saveTimer_.setInterval(500);
  connect(&saveTimer_, &QTimer::timeout, this, &ChatPanel::saveNow);
  restore();
  if (tabs_->count() == 0) addConversation();
  followModel();
}

ChatPanel::~ChatPanel() {
  if (saveTimer_.isActive()) saveNow();
}

QString ChatPanel::storagePath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/conversations.json");
}

ChatConversation* ChatPanel::addConversation() {
  auto* c = new ChatConversation(bridge_, tabs_);
  c->setSamplingDefaults(defaults_.params);
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
  followModel();
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

// A newly opened model brings its own defaults: every idle tab takes them. Tabs restored
// at start keep their saved settings (the first model is the one they were saved with).
void ChatPanel::followModel() {
  const Model* model = bridge_ ? bridge_->model() : nullptr;
  if (model == defaultsModel_) return;
  const bool restoredStart = defaultsModel_ == nullptr;
  defaultsModel_ = model;
  defaults_ = model ? lwb::samplingDefaults(model->generationDefaults, ChatConversation::builtInSampling())
                    : SamplingDefaults{ChatConversation::builtInSampling(), {}};
  defaultsLabel_->setText(tr("Sampling defaults: %1").arg(describeDefaults(defaults_)));
  for (int i = 0; i < tabs_->count(); ++i)
    if (!conversation(i)->busy() && !(restoredStart && !conversation(i)->messages().empty()))
      conversation(i)->setSamplingDefaults(defaults_.params);
}

QString ChatPanel::describeDefaults(const SamplingDefaults& d) {
  const SamplingParams& p = d.params;
  const std::pair<const char*, QString> fields[] = {
      {"temperature", QString::number(double(p.temperature))},  {"top_p", QString::number(double(p.topP))},
      {"top_k", p.topK > 0 ? QString::number(p.topK) : QStringLiteral("off")},
      {"min_p", QString::number(double(p.minP))},              {"repetition_penalty", QString::number(double(p.repetitionPenalty))},
      {"max_tokens", QString::number(p.maxTokens)}};
  QStringList fromModel, builtIn;
  for (const auto& [name, value] : fields)
    (d.isFromModel(name) ? fromModel : builtIn) << QStringLiteral("%1 %2").arg(QLatin1String(name), value);
  QStringList parts;
  if (!fromModel.isEmpty()) parts << tr("%1 (model's generation_config.json)").arg(fromModel.join(QStringLiteral(", ")));
  if (!builtIn.isEmpty()) parts << tr("%1 (built in)").arg(builtIn.join(QStringLiteral(", ")));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace lwb::ui
