#pragma once
// One chat tab: an editable system prompt, the transcript (streamed as tokens arrive),
// sampling settings, Send (Ctrl+Enter) / Stop (Esc), per-answer metrics and a view of
// the prompt as tokens. The whole history goes through the model's chat template; when
// it outgrows max_model_len the oldest turns are dropped (the system prompt stays).
// Answer text that came from accepted speculative drafts is tinted (a toggle in the
// transcript's context menu).
#include <QJsonObject>
#include <QWidget>
#include <optional>

#include "engine/model/chat_session.h"
#include "engine/sample/sampling_params.h"
#include "ui/bridge/frame.h"
#include "ui/panels/draft_marks.h"

class QPlainTextEdit;
class QTextBrowser;
class QPushButton;
class QDoubleSpinBox;
class QSpinBox;
class QToolButton;
class QLabel;
class QCheckBox;
class QAction;

namespace lwb::ui {

class EngineBridge;

class ChatConversation : public QWidget {
  Q_OBJECT
 public:
  ChatConversation(EngineBridge* bridge, QWidget* parent = nullptr);

  void onFrame(const Frame& frame);
  bool busy() const { return active_ >= 0; }
  RequestId activeRequest() const { return active_; }
  const std::vector<ChatTurn>& messages() const { return session_.turns(); }
  QString systemPrompt() const;
  void setSystemPrompt(const QString& s);
  void setInput(const QString& s);
  QJsonObject toJson() const;
  void fromJson(const QJsonObject& o);
  std::vector<int> lastPromptIds() const { return lastPrompt_; }
  // The "Prompt as tokens" panel: collapsed by default so the transcript gets the height.
  bool showsTokens() const;
  // Sampling for what the tab does not show (top_k, min_p, repetition_penalty) and the
  // starting values of what it does; ChatPanel sets the model's generation_config here.
  void setSamplingDefaults(const SamplingParams& defaults);
  static SamplingParams builtInSampling();  // the chat's own: temperature 0.7, top_p 0.95, 160 tokens
  bool marksDrafts() const { return markDrafts_; }
  const DraftMarks& draftMarks() const { return marks_; }  // keyed by index in messages()

 public slots:
  bool send();  // false (with a notice in the chat) when nothing could be submitted
  void stop();
  void setShowTokens(bool show);
  void setMarkDrafts(bool on);

 signals:
  void changed();  // content changed: autosave

 private:
  std::optional<ChatSession::FittedPrompt> fitPrompt();
  bool submit(const ChatSession::FittedPrompt& prompt);
  void finish(const RequestFinishedEvent& e);
  void render();
  void renderTokens();
  void setBusy(bool busy);
  void notice(const QString& text);
  void setupTranscriptMenu();
  QString draftLegend(size_t turn) const;
  void updateTemplateOptions();  // the thinking toggle shows when the template reads enable_thinking
  nlohmann::json templateKwargs() const;

  EngineBridge* bridge_;
  QPlainTextEdit *system_, *input_;
  QTextBrowser *transcript_, *tokens_;
  QPushButton *send_, *stop_;
  QToolButton* tokensButton_;
  QCheckBox* thinking_;
  QString lastTemplateNotice_;
  QDoubleSpinBox *temperature_, *topP_;
  QSpinBox *maxTokens_, *seed_;
  SamplingParams samplingBase_ = builtInSampling();
  ChatSession session_;  // the system prompt lives in system_ and is copied in before each fit
  std::vector<int> lastPrompt_;
  RequestId active_ = -1;
  DraftMarks marks_;
  bool markDrafts_ = true;
  QAction* markDraftsAction_ = nullptr;
};

}  // namespace lwb::ui
