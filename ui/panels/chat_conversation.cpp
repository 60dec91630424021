#include "ui/panels/chat_conversation.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <numeric>

#include "engine/common/error.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/models/prefix_miss_text.h"
#include "ui/theme.h"

namespace lwb::ui {

ChatConversation::ChatConversation(EngineBridge* bridge, QWidget* parent) : QWidget(parent), bridge_(bridge) {
  system_ = new QPlainTextEdit(this);
  system_->setPlaceholderText(tr("System prompt (sent first: a stable system prompt is what the prefix cache reuses)"));
  // The model's input, not the window's text: the bundled model was trained in English.
  system_->setPlainText(QStringLiteral("You are a helpful assistant who answers in the style of Jane Austen."));
  system_->setMaximumHeight(46);
  system_->setToolTip(tr("Sent at the start of every prompt. Because it never changes, its KV blocks are "
                         "computed once and then found in the prefix cache (see 'cached' below each answer)."));
  transcript_ = new QTextBrowser(this);
  transcript_->setOpenLinks(false);
  setupTranscriptMenu();
  tokens_ = new QTextBrowser(this);
  tokens_->setVisible(false);
  tokens_->setToolTip(tr("The first thing a server does: the prompt, rendered with the chat template and "
                         "split into tokens (piece and id). Special tokens mark the roles."));
  input_ = new QPlainTextEdit(this);
  input_->setPlaceholderText(tr("Type a message — Ctrl+Enter to send, Esc to stop"));
  input_->setMaximumHeight(60);

  send_ = new QPushButton(tr("Send"), this);
  send_->setToolTip(tr("Send (Ctrl+Enter)"));
  send_->setDefault(true);
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setToolTip(tr("Abort the answer (Esc): the engine frees its KV blocks at the next step"));
  stop_->setEnabled(false);
  tokensButton_ = new QToolButton(this);
  tokensButton_->setText(tr("Prompt as tokens"));
  tokensButton_->setCheckable(true);
  tokensButton_->setChecked(false);
  tokensButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tokensButton_->setArrowType(Qt::RightArrow);
  tokensButton_->setToolTip(tr("Show or hide the last prompt as tokens: what the engine actually receives"));

  temperature_ = new QDoubleSpinBox(this);
  temperature_->setRange(0, 2);
  temperature_->setSingleStep(0.1);
  temperature_->setValue(samplingBase_.temperature);
  temperature_->setToolTip(tr("temperature: 0 = greedy (always the most likely token); higher = more varied"));
  topP_ = new QDoubleSpinBox(this);
  topP_->setRange(0.01, 1);
  topP_->setSingleStep(0.05);
  topP_->setValue(samplingBase_.topP);
  topP_->setToolTip(tr("top_p: sample only from the smallest set of tokens whose probabilities add up to this"));
  maxTokens_ = new QSpinBox(this);
  maxTokens_->setRange(1, 4096);
  maxTokens_->setValue(samplingBase_.maxTokens);
  maxTokens_->setToolTip(tr("max_tokens: the answer stops after this many tokens (finish reason 'length')"));
  seed_ = new QSpinBox(this);
  seed_->setRange(-1, 1000000);
  seed_->setValue(-1);
  seed_->setSpecialValueText(tr("random"));
  seed_->setToolTip(tr("seed: the same seed and prompt give the same answer"));

  thinking_ = new QCheckBox(tr("enable thinking"), this);
  thinking_->setChecked(true);
  thinking_->setToolTip(tr("enable_thinking, passed to the chat template (vLLM's chat_template_kwargs): off, the "
                           "model answers without writing its reasoning first (Qwen 3 style templates)"));
  thinking_->setVisible(false);

  // Two rows so the chat column stays narrow.
  auto* sampling = new QGridLayout;
  int cell = 0;
  auto addField = [&](const QString& label, QWidget* w) {
    auto* l = new QLabel(label, this);
    l->setToolTip(w->toolTip());
    l->setStyleSheet(QStringLiteral("font-family: monospace;"));
    sampling->addWidget(l, cell / 2, (cell % 2) * 2, Qt::AlignRight);
    sampling->addWidget(w, cell / 2, (cell % 2) * 2 + 1);
    ++cell;
  };
  addField(QStringLiteral("temperature"), temperature_);
  addField(QStringLiteral("top_p"), topP_);
  addField(QStringLiteral("max_tokens"), maxTokens_);
  addField(QStringLiteral("seed"), seed_);
  sampling->addWidget(tokensButton_, 0, 4, 2, 1);
  sampling->addWidget(thinking_, 2, 0, 1, 4);
  sampling->setColumnStretch(1, 1);
  sampling->setColumnStretch(3, 1);

  auto* buttons = new QVBoxLayout;
  buttons->addWidget(send_);
  buttons->addWidget(stop_);
  auto* inputRow = new QHBoxLayout;
  inputRow->addWidget(input_, 1);
  inputRow->addLayout(buttons);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(transcript_);
  split->addWidget(tokens_);
  split->setStretchFactor(0, 3);  // when shown, the tokens take about a quarter
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(system_);
  layout->addWidget(split, 1);
  layout->addLayout(sampling);
  layout->addLayout(inputRow);

  connect(send_, &QPushButton::clicked, this, &ChatConversation::send);
  connect(stop_, &QPushButton::clicked, this, &ChatConversation::stop);
  connect(tokensButton_, &QToolButton::toggled, this, &ChatConversation::setShowTokens);
  connect(system_, &QPlainTextEdit::textChanged, this, &ChatConversation::changed);
  for (auto seq : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
    auto* sc = new QShortcut(seq, this, this, [this] { send(); });
    sc->setContext(Qt::WidgetWithChildrenShortcut);
  }
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, &ChatConversation::stop);
  esc->setContext(Qt::WidgetWithChildrenShortcut);
  connect(bridge_, &EngineBridge::engineAttached, this, &ChatConversation::updateTemplateOptions);
  connect(thinking_, &QCheckBox::toggled, this, &ChatConversation::changed);
  updateTemplateOptions();
  render();
}

void ChatConversation::updateTemplateOptions() {
  const Model* model = bridge_->model();
  thinking_->setVisible(model && model->chatTemplate.readsVariable("enable_thinking"));
}

nlohmann::json ChatConversation::templateKwargs() const {
  if (thinking_->isHidden()) return nlohmann::json::object();
  return {{"enable_thinking", thinking_->isChecked()}};
}

QString ChatConversation::systemPrompt() const { return system_->toPlainText(); }
void ChatConversation::setSystemPrompt(const QString& s) { system_->setPlainText(s); }
void ChatConversation::setInput(const QString& s) { input_->setPlainText(s); }

// The history through the chat template, oldest turns dropped to fit max_model_len.
std::optional<ChatSession::FittedPrompt> ChatConversation::fitPrompt() {
  const Model* model = bridge_->model();
  session_.setSystemPrompt(systemPrompt().toStdString());
  const nlohmann::json kwargs = templateKwargs();
  auto encode = [&](const std::vector<ChatMessage>& m) { return model->encodeChat(m, true, kwargs); };
  return session_.fit(encode, bridge_->maxModelLen(), maxTokens_->value());
}

bool ChatConversation::send() {
  const QString text = input_->toPlainText().trimmed();
  if (text.isEmpty() || busy()) return false;
  if (!bridge_->attached()) {
    notice(tr("No model is loaded yet."));
    return false;
  }
  session_.addUser(text.toStdString());
  auto fitted = fitPrompt();
  if (!fitted) {
    session_.removeLast();
    notice(tr("The message alone is longer than max_model_len (%1 tokens).").arg(bridge_->maxModelLen()));
    return false;
  }
  if (!submit(*fitted)) return false;
  if (fitted->numDroppedTurns > 0) {
    session_.commitFit(*fitted);
    notice(tr("The conversation outgrew max_model_len: dropped the oldest %n turn(s); the system prompt is kept.",
              nullptr, fitted->numDroppedTurns));
  }
  // A template that failed (or did not parse) gives plain text: the chat says so once.
  const QString templateNotice = QString::fromStdString(bridge_->model()->chatTemplate.notice());
  if (templateNotice != lastTemplateNotice_ && !templateNotice.isEmpty()) notice(templateNotice);
  lastTemplateNotice_ = templateNotice;
  lastPrompt_ = fitted->ids;
  session_.beginAnswer();
  input_->clear();
  setBusy(true);
  render();
  renderTokens();
  emit changed();
  return true;
}

// Submits through the bridge; on refusal the user turn is taken back and a notice says why.
bool ChatConversation::submit(const ChatSession::FittedPrompt& prompt) {
  RequestInput in;
  in.promptTokenIds = prompt.ids;
  in.sampling = samplingBase_;  // top_k, min_p, repetition_penalty: the model's defaults
  in.sampling.temperature = float(temperature_->value());
  in.sampling.topP = float(topP_->value());
  in.sampling.maxTokens = prompt.maxTokens;
  if (seed_->value() >= 0) in.sampling.seed = uint64_t(seed_->value());
  in.tag = windowTitle().isEmpty() ? "chat" : windowTitle().toStdString();
  try {
    active_ = bridge_->submit(std::move(in));
    return true;
  } catch (const std::exception& e) {
    session_.removeLast();
    notice(tr("The engine refused the request: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
}

void ChatConversation::stop() {
  if (busy()) bridge_->abort(active_);
}

void ChatConversation::setBusy(bool busy) {
  send_->setEnabled(!busy);
  stop_->setEnabled(busy);
  if (!busy) active_ = -1;
}

void ChatConversation::notice(const QString& text) {
  session_.addNotice(text.toStdString());
  render();
  emit changed();
}

void ChatConversation::onFrame(const Frame& frame) {
  if (!busy()) return;
  bool grew = false;
  for (const auto& d : frame.deltas) {
    if (d.id != active_) continue;
    marks_.add(session_.turns().size() - 1, session_.lastAnswer()->content.size(), d);  // the answer is the last turn
    if (d.newText.empty()) continue;
    session_.appendAnswer(d.newText);
    grew = true;
  }
  for (const auto& f : frame.finished)
    if (f.timeline.id == active_) {
      finish(f);
      return;
    }
  if (grew) {
    render();
    emit changed();  // the answer so far is saved too: a kill mid-answer keeps it
  }
}

void ChatConversation::finish(const RequestFinishedEvent& e) {
  const auto& t = e.timeline;
  QStringList parts;
  if (auto ttft = t.ttft()) parts << tr("TTFT %1 ms").arg(*ttft * 1000, 0, 'f', 1);
  const auto gaps = t.itls();
  if (!gaps.empty())
    parts << tr("ITL %1 ms").arg(1000 * std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size()), 0, 'f', 1);
  if (auto d = t.decodeTime(); d && *d > 0 && t.numOutputTokens > 1)
    parts << tr("%1 tok/s").arg((t.numOutputTokens - 1) / *d, 0, 'f', 1);
  parts << prefixMissSentence(t);
  parts << tr("%n output token(s)", "", t.numOutputTokens);
  parts << tr("finish: %1").arg(QString::fromStdString(finishReasonName(t.finishReason)));
  if (!t.error.empty()) parts << QString::fromStdString(t.error);
  if (session_.lastAnswer()->content.empty() && t.finishReason == FinishReason::Abort)
    session_.appendAnswer(tr("(stopped)").toStdString());
  session_.finishAnswer(parts.join(QStringLiteral(" · ")).toStdString());
  setBusy(false);
  render();
  emit changed();
}

SamplingParams ChatConversation::builtInSampling() {
  SamplingParams p;
  p.temperature = 0.7f;
  p.topP = 0.95f;
  p.maxTokens = 160;
  return p;
}

void ChatConversation::setSamplingDefaults(const SamplingParams& defaults) {
  samplingBase_ = defaults;
  temperature_->setValue(defaults.temperature);
  topP_->setValue(defaults.topP);
  maxTokens_->setValue(defaults.maxTokens);
}

QJsonObject ChatConversation::toJson() const {
  QJsonArray msgs;
  for (size_t i = 0; i < session_.turns().size(); ++i) {
    const ChatTurn& m = session_.turns()[i];
    msgs.append(QJsonObject{{"role", QString::fromStdString(chatRoleName(m.role))},
                            {"content", QString::fromStdString(m.content)},
                            {"stats", QString::fromStdString(m.stats)}, {"draft_marks", marks_.toJson(i)}});
  }
  return QJsonObject{{"title", windowTitle()},     {"system", systemPrompt()},
                     {"messages", msgs},           {"first_turn", qint64(session_.firstTurn())},
                     {"temperature", temperature_->value()}, {"top_p", topP_->value()},
                     {"max_tokens", maxTokens_->value()},    {"seed", seed_->value()},
                     {"enable_thinking", thinking_->isChecked()}, {"mark_drafts", markDrafts_}};
}

void ChatConversation::fromJson(const QJsonObject& o) {
  setWindowTitle(o.value("title").toString(windowTitle()));
  system_->setPlainText(o.value("system").toString(systemPrompt()));
  std::vector<ChatTurn> turns;
  marks_.clear();
  for (const auto& v : o.value("messages").toArray()) {
    const auto m = v.toObject();
    try {
      turns.push_back({chatRoleFromName(m.value("role").toString().toStdString()),
                       m.value("content").toString().toStdString(), m.value("stats").toString().toStdString()});
      marks_.fromJson(turns.size() - 1, m.value("draft_marks").toObject());  // absent in older chats
    } catch (const Error&) {  // a role this version does not know: not shown
    }
  }
  // An answer saved while it was still streaming (the app closed or was killed) keeps
  // its text and says so.
  session_.restore(std::move(turns), size_t(o.value("first_turn").toInteger()),
                   tr("interrupted: the workbench closed before this answer finished").toStdString());
  temperature_->setValue(o.value("temperature").toDouble(temperature_->value()));
  topP_->setValue(o.value("top_p").toDouble(topP_->value()));
  maxTokens_->setValue(o.value("max_tokens").toInt(maxTokens_->value()));
  seed_->setValue(o.value("seed").toInt(seed_->value()));
  thinking_->setChecked(o.value("enable_thinking").toBool(thinking_->isChecked()));
  markDrafts_ = o.value("mark_drafts").toBool(markDrafts_);  // no changed(): nothing new to save
  markDraftsAction_->setChecked(markDrafts_);
  render();
}

}  // namespace lwb::ui
