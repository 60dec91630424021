#pragma once
// Chat dock: conversations in tabs (+ to add, × to close). Every conversation is
// autosaved (debounced) to AppDataLocation/conversations.json with an atomic write and
// restored on the next start. Above the tabs, the sampling defaults in force and where
// each came from: the model's generation_config.json (vLLM's --generation-config auto) or
// the chat's built-in values.
#include <QTimer>
#include <QWidget>

#include "engine/model/generation_config.h"
#include "ui/panels/chat_conversation.h"
#include "ui/bridge/frame.h"

class QLabel;
class QTabWidget;

namespace lwb::ui {

class EngineBridge;
class ChatConversation;

class ChatPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChatPanel(EngineBridge* bridge, QWidget* parent = nullptr);
  ~ChatPanel() override;

  void onFrame(const Frame& frame);
  ChatConversation* current() const;
  ChatConversation* conversation(int i) const;
  int count() const;
  ChatConversation* addConversation();
  static QString storagePath();
  bool saveNow();  // atomic write; false on failure
  const SamplingDefaults& samplingDefaults() const { return defaults_; }
  // "temperature 0.7 · top_k 20 (generation_config.json) | max_tokens 160 (built in)"
  static QString describeDefaults(const SamplingDefaults& d);

 private:
  void restore();
  void closeTab(int index);
  void followModel();


  EngineBridge* bridge_;
  QTabWidget* tabs_;
  QLabel* defaultsLabel_;
  SamplingDefaults defaults_{ChatConversation::builtInSampling(), {}};
  const void* defaultsModel_ = nullptr;  // the model defaults_ were taken from
  QTimer saveTimer_;
  int nextNumber_ = 1;
};

}  // namespace lwb::ui
