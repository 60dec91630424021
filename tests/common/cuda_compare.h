#pragma once
// What the CUDA backend tests (tst_cuda_executor, tst_cuda_engine) share: a CUDA
// executor or the loader's reason for skipping, random models and tokens, and the
// comparison of CUDA logits with the CPU executor's. Built everywhere (no CUDA needed:
// the plugin is dlopen()ed); without a device the tests skip with the reason.
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "common/random_model.h"
#include "engine/exec/executor.h"

namespace lwb {
struct Model;
}

namespace lwb::test {

// A CUDA executor for `model`, or null and the reason there is none.
std::unique_ptr<Executor> cudaFor(std::shared_ptr<const Model> model, std::string* reason);

// Declares `ex`, a CUDA executor for `model`, or skips the test with the reason.
#define REQUIRE_CUDA(ex, model)                 \
  std::string skipReason;                       \
  auto ex = lwb::test::cudaFor(model, &skipReason); \
  if (!ex) QSKIP(skipReason.c_str())

std::vector<int> randomTokens(int n, int vocab, unsigned seed);

// |cuda - cpu| small against the logits' scale, and the same argmax where the CPU's
// winner is clear. QtTest failures.
void compareLogits(const std::vector<float>& cpu, const std::vector<float>& cuda, int vocab, double relTol);

// A random model written under `tmp` and loaded.
std::shared_ptr<const Model> randomModel(const QTemporaryDir& tmp, const RandomModelSpec& spec);

}  // namespace lwb::test
