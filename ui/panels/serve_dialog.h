#pragma once
// Engine ▸ Serve API…: the window serves the OpenAI-compatible HTTP API too (the same
// server as `llm-workbench serve`) on the engine the views show, so API traffic appears
// in every view (tagged "api") and knob changes apply to it live. ServeSwitch turns
// serving on and off through a ServeController (ui/serve_controller.h, implemented in
// app/) and keeps its status-bar label; ServeDialog asks for host, port, key and on/off.
#include <QDialog>
#include <QObject>
#include <memory>

#include "ui/serve_controller.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace lwb::ui {

class EngineBridge;

struct ServeSettings {
  bool enabled = false;
  QString host = QStringLiteral("127.0.0.1");
  int port = 8000;
  QString apiKey;
};

class ServeDialog : public QDialog {
  Q_OBJECT
 public:
  ServeDialog(const ServeSettings& current, QWidget* parent = nullptr);
  ServeSettings settings() const;

 private:
  QCheckBox* enabled_;
  QLineEdit* host_;
  QSpinBox* port_;
  QLineEdit* apiKey_;
};

class ServeSwitch : public QObject {
  Q_OBJECT
 public:
  ServeSwitch(EngineBridge* bridge, std::shared_ptr<ServeController> controller, QWidget* window);
  ~ServeSwitch() override;  // stops serving
  QLabel* statusLabel() const { return label_; }
  void showDialog();
  // Starts or stops serving; returns "" or the reason it could not start.
  QString apply(const ServeSettings& settings);
  QString address() const;  // "" when not serving

 private:
  void restartOnNewEngine();
  void updateLabel();

  EngineBridge* bridge_;
  std::shared_ptr<ServeController> controller_;
  QWidget* window_;
  QLabel* label_;
  ServeSettings settings_;
};

}  // namespace lwb::ui
