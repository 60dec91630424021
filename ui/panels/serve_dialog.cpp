#include "ui/panels/serve_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSpinBox>

#include "server/api_server.h"
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

ServeController::ServeController(EngineBridge* bridge, QWidget* window)
    : QObject(window), bridge_(bridge), window_(window), label_(new QLabel) {
  label_->setToolTip(tr("OpenAI-compatible API served by this window (Engine ▸ Serve API…)"));
  label_->hide();
  connect(bridge_, &EngineBridge::engineAttached, this, &ServeController::restartOnNewEngine);
}

ServeController::~ServeController() { server_.reset(); }

QString ServeController::apply(const ServeSettings& s) {
  server_.reset();
  loop_.reset();
  settings_ = s;
  QString error;
  if (s.enabled && bridge_->sharedLoop()) {
    server::ServerOptions o;
    o.host = s.host.toStdString();
    o.port = s.port;
    o.apiKey = s.apiKey.toStdString();
    try {
      loop_ = bridge_->sharedLoop();
      server_ = std::make_unique<server::ApiServer>(*loop_, o);
      server_->start();
    } catch (const std::exception& e) {
      server_.reset();
      loop_.reset();
      settings_.enabled = false;
      error = QString::fromStdString(e.what());
    }
  }
  updateLabel();
  return error;
}

QString ServeController::address() const {
  return server_ ? QString::fromStdString(server_->address()) : QString();
}

void ServeController::showDialog() {
  ServeDialog dialog(settings_, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  const QString error = apply(dialog.settings());
  if (!error.isEmpty()) QMessageBox::warning(window_, tr("Serve API"), error);
}

// A new model means a new EngineLoop: serve it with the same settings.
void ServeController::restartOnNewEngine() {
  if (settings_.enabled) apply(settings_);
}

void ServeController::updateLabel() {
  label_->setVisible(server_ != nullptr);
  if (server_) label_->setText(tr("API: %1/v1").arg(address()));
}

}  // namespace lwb::ui
