#include "common/bundled_model.h"

#include "common/cli_runner.h"

namespace lwb::test {

std::shared_ptr<const Model> bundledModel() {
  static const std::shared_ptr<const Model> model = [] {
    const QString dir = defaultModelInBuildTree();
    return dir.isEmpty() ? std::shared_ptr<const Model>() : loadModel(dir.toStdString());
  }();
  return model;
}

EngineConfig cpuTestConfig() {
  EngineConfig c;
  c.executor.backend = "cpu";
  c.executor.numThreads = 1;
  return c;
}

}  // namespace lwb::test
