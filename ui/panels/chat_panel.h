#pragma once
// Chat dock: conversations in tabs (+ to add, × to close). Every conversation is
// autosaved (debounced) to AppDataLocation/conversations.json with an atomic write and
// restored on the next start.
#include <QTimer>
#include <QWidget>

#include "ui/bridge/frame.h"

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

 private:
  void restore();
  void closeTab(int index);

  EngineBridge* bridge_;
  QTabWidget* tabs_;
  QTimer saveTimer_;
  int nextNumber_ = 1;
};

}  // namespace lwb::ui
