// Each CUDA kernel against a CPU computation on random inputs, in bf16 and f16, over
// several sizes (odd ones and head dims that are not multiples of 32 included), through
// the plugin's lwb_cuda_test_kernel entry. The cases and CPU references live in
// engine/exec/cuda/testing/kernel_parity.h, shared with `bench_cuda --kernels` (the
// device check's Qt-free build). Skips (with the loader's reason) where there is no CUDA
// device or the plugin is not built; tools/device-check.sh counts a skip as a failure.
#include <QtTest>

#include <string>

#include "engine/exec/cuda/testing/kernel_parity.h"
#include "engine/exec/cuda_loader.h"

namespace {

const lwb::cudaplugin::Plugin* plugin(std::string* reason) {
  const lwb::cudaplugin::Plugin* p = lwb::cudaplugin::openUsablePlugin(0, reason);
  if (p && !p->testKernel) {
    *reason = "the CUDA plugin has no lwb_cuda_test_kernel";
    return nullptr;
  }
  return p;
}

void addRows(const char* kernel) {
  QTest::addColumn<int>("index");
  const std::vector<lwb::devcheck::KernelCase> cases = lwb::devcheck::kernelCases();
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].kernel == kernel) QTest::newRow(cases[i].name.c_str()) << int(i);
}

void runRow() {
  QFETCH(int, index);
  std::string skipReason;
  const lwb::cudaplugin::Plugin* p = plugin(&skipReason);
  if (!p) QSKIP(skipReason.c_str());
  const std::string error = lwb::devcheck::runKernelCase(p->testKernel, lwb::devcheck::kernelCases()[size_t(index)]);
  QVERIFY2(error.empty(), error.c_str());
}

}  // namespace

class TestCudaKernels : public QObject {
  Q_OBJECT

 private slots:
  void embedding_data() { addRows("embedding"); }
  void embedding() { runRow(); }
  void addRmsNorm_data() { addRows("add_rmsnorm"); }
  void addRmsNorm() { runRow(); }
  void swiGlu_data() { addRows("swiglu"); }
  void swiGlu() { runRow(); }
  void ropeCache_data() { addRows("rope_cache"); }
  void ropeCache() { runRow(); }
  void attention_data() { addRows("attention"); }
  void attention() { runRow(); }
  void gemm_data() { addRows("gemm"); }
  void gemm() { runRow(); }

  // Runs without a device: every case names a kernel the plugin knows and the shapes
  // the attention cases use are ones the plugin accepts.
  void casesAreWellFormed() {
    for (const lwb::devcheck::KernelCase& c : lwb::devcheck::kernelCases()) {
      QVERIFY2(!c.dims.empty(), c.name.c_str());
      if (c.kernel == "attention") {
        QVERIFY2(c.dims.size() >= 7 && c.dims.size() % 2 == 1, c.name.c_str());
        QVERIFY2(c.dims[2] % 8 == 0 && c.dims[0] % c.dims[1] == 0, c.name.c_str());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestCudaKernels)
#include "tst_cuda_kernels.moc"
