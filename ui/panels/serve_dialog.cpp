#include "ui/panels/serve_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSpinBox>

#include "ui/bridge/engine_bridge.h"

namespace lwb::ui {

ServeDialog::ServeDialog(const ServeSettings& current, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Serve API"));
  enabled_ = new QCheckBox(tr("Serve the OpenAI-compatible API and /metrics"));
  enabled_->setChecked(current.enabled);
  host_ = new QLineEdit(current.host);
  host_->setToolTip(tr("127.0.0.1 accepts connections from this machine only"));
  port_ = new QSpinBox;
  port_->setRange(0, 65535);
  port_->setValue(current.port);
  port_->setToolTip(tr("0 picks a free port"));
  apiKey_ = new QLineEdit(current.apiKey);
  apiKey_->setPlaceholderText(tr("none: no authentication"));
  apiKey_->setToolTip(tr("When set, /v1 routes require 'Authorization: Bearer <key>'"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* form = new QFormLayout(this);
  form->addRow(enabled_);
  form->addRow(tr("Host"), host_);
  form->addRow(tr("Port"), port_);
  form->addRow(tr("API key"), apiKey_);
  form->addRow(buttons);
}

ServeSettings ServeDialog::settings() const {
  return {enabled_->isChecked(), host_->text().trimmed(), port_->value(), apiKey_->text()};
}

ServeSwitch::ServeSwitch(EngineBridge* bridge, std::shared_ptr<ServeController> controller, QWidget* window)
    : QObject(window), bridge_(bridge), controller_(std::move(controller)), window_(window), label_(new QLabel) {
  label_->setToolTip(tr("OpenAI-compatible API served by this window (Engine ▸ Serve API…)"));
  label_->hide();
  connect(bridge_, &EngineBridge::engineAttached, this, &ServeSwitch::restartOnNewEngine);
}

ServeSwitch::~ServeSwitch() { controller_->stop(); }

QString ServeSwitch::apply(const ServeSettings& s) {
  controller_->stop();
  settings_ = s;
  QString error;
  if (s.enabled && bridge_->sharedLoop()) {
    const std::string why =
        controller_->start(bridge_->sharedLoop(), s.host.toStdString(), s.port, {s.apiKey.toStdString()});
    if (!why.empty()) {
      settings_.enabled = false;
      error = QString::fromStdString(why);
    }
  }
  updateLabel();
  return error;
}

QString ServeSwitch::address() const { return QString::fromStdString(controller_->address()); }

void ServeSwitch::showDialog() {
  ServeDialog dialog(settings_, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  const QString error = apply(dialog.settings());
  if (!error.isEmpty()) QMessageBox::warning(window_, tr("Serve API"), error);
}

// A new model means a new EngineLoop: serve it with the same settings.
void ServeSwitch::restartOnNewEngine() {
  if (settings_.enabled) apply(settings_);
}

void ServeSwitch::updateLabel() {
  label_->setVisible(controller_->isRunning());
  if (controller_->isRunning()) label_->setText(tr("API: %1/v1").arg(address()));
}

}  // namespace lwb::ui
