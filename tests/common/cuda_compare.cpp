#include "common/cuda_compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "engine/exec/cuda_loader.h"
#include "engine/model/model.h"

namespace lwb::test {

std::unique_ptr<Executor> cudaFor(std::shared_ptr<const Model> model, std::string* reason) {
  return tryCreateCudaExecutor(std::move(model), ExecutorOptions{}, reason);
}

std::vector<int> randomTokens(int n, int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<size_t>(n));
  for (int& id : ids) id = int(rng() % unsigned(vocab));
  return ids;
}

void compareLogits(const std::vector<float>& cpu, const std::vector<float>& cuda, int vocab, double relTol) {
  QCOMPARE(cuda.size(), cpu.size());
  double scale = 0, maxDiff = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    QVERIFY2(std::isfinite(cuda[i]), "non-finite CUDA logit");
    scale = std::max(scale, double(std::fabs(cpu[i])));
    maxDiff = std::max(maxDiff, double(std::fabs(cpu[i] - cuda[i])));
  }
  QVERIFY2(maxDiff <= relTol * std::max(scale, 1.0),
           qPrintable(QString("max |cuda - cpu| %1 at logit scale %2").arg(maxDiff).arg(scale)));
  for (size_t row = 0; row < cpu.size() / size_t(vocab); ++row) {
    const float* c = cpu.data() + row * size_t(vocab);
    const float* g = cuda.data() + row * size_t(vocab);
    std::vector<float> sorted(c, c + vocab);
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<float>());
    if (sorted[0] - sorted[1] < 4 * maxDiff) continue;  // near-tie: either may win
    QCOMPARE(int(std::max_element(g, g + vocab) - g), int(std::max_element(c, c + vocab) - c));
  }
}

std::shared_ptr<const Model> randomModel(const QTemporaryDir& tmp, const RandomModelSpec& spec) {
  return loadModel(writeRandomLlamaModel(tmp.filePath("model").toStdString(), spec));
}

}  // namespace lwb::test
