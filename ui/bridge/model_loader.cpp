#include "ui/bridge/model_loader.h"

#include <QPointer>
#include <QThread>

#include "engine/common/translate.h"
#include "engine/model/model.h"
#include "ui/language.h"

namespace lwb::ui {

ModelLoader::ModelLoader(QObject* parent) : QObject(parent) {}

ModelLoader::~ModelLoader() {
  if (thread_) thread_->wait();
}

bool ModelLoader::start(const QString& dir, const EngineConfig& config, const std::optional<PdConfig>& pd) {
  if (thread_) return false;
  QPointer<ModelLoader> self(this);
  const std::string path = dir.toStdString();
  thread_ = QThread::create([self, path, config, pd, dir] {
    auto report = [self](double f, const std::string& stage) {
      QMetaObject::invokeMethod(self, [self, f, s = translated("ModelLoad", stage)] {
        if (self) emit self->progress(f, s);
      }, Qt::QueuedConnection);
    };
    try {
      // The sim backend runs no weights: a config.json (and a tokenizer when there) is enough.
      std::shared_ptr<const Model> model =
          config.executor.backend == "sim" ? loadModelConfigOnly(path) : loadModel(path, report);
      report(0.95, LWB_TRANSLATE_NOOP("ModelLoad", "starting the engine"));
      auto loop = pd ? std::make_shared<EngineLoop>(model, *pd) : std::make_shared<EngineLoop>(model, config);
      QMetaObject::invokeMethod(self, [self, model, loop] {
        if (self) emit self->loaded(model, loop);
      }, Qt::QueuedConnection);
    } catch (const std::exception& e) {
      QMetaObject::invokeMethod(self, [self, dir, msg = QString::fromStdString(e.what())] {
        if (self) emit self->failed(dir, msg);
      }, Qt::QueuedConnection);
    }
  });
  thread_->setParent(this);  // deleted with the loader even if deleteLater never runs
  connect(thread_, &QThread::finished, this, [this] {
    thread_->deleteLater();
    thread_ = nullptr;
  });
  thread_->start();
  return true;
}

}  // namespace lwb::ui
