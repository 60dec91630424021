#pragma once
// Loads a model folder and builds its EngineLoop off the GUI thread, reporting progress.
// The outcome arrives as loaded() or failed() on the GUI thread; a failure leaves
// whatever was running untouched.
#include <QObject>
#include <QString>
#include <memory>

#include "engine/engine_loop.h"

class QThread;

namespace lwb::ui {

class ModelLoader : public QObject {
  Q_OBJECT
 public:
  explicit ModelLoader(QObject* parent = nullptr);
  ~ModelLoader() override;  // waits for a load in progress

  // Ignored (returns false) while another load runs. `pd` set: the loop runs a
  // prefill/decode pair of it (its decode config is `config`'s).
  bool start(const QString& dir, const EngineConfig& config, const std::optional<PdConfig>& pd = std::nullopt);
  bool busy() const { return thread_ != nullptr; }

 signals:
  void progress(double fraction, const QString& stage);
  void loaded(std::shared_ptr<const lwb::Model> model, std::shared_ptr<lwb::EngineLoop> loop);
  void failed(const QString& dir, const QString& message);

 private:
  QThread* thread_ = nullptr;
};

}  // namespace lwb::ui
