// Qwen2/Qwen3 in the CUDA executor without a GPU: the q/k/v finishing kernel
// (kernels.cu ropeCacheKernel: + q/k/v biases, per-head RMSNorm of q and k, RoPE, K/V
// into the cache) emulated on the CPU with the kernel's own arithmetic — one warp per
// head, lane-strided sums of squares added by a butterfly, the angle rounded to float —
// and checked two ways:
//   1. through devcheck::kernelCases()' rope_cache cases (the ones bench_cuda --kernels
//      and tst_cuda_kernels run on a device) against their float64 reference, so the
//      reference the device check trusts is itself checked here;
//   2. against the CPU executor's own functions (addBias order, rmsNormRow per head,
//      ropeAngles, applyRope: what CpuExecutor::finishQkv runs) on the same inputs.
// The emulation is a model of the kernel, not the kernel: the kernel itself is checked
// on a device by the same rope_cache cases.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/common/dtype.h"
#include "engine/exec/cpu/norm_rope.h"
#include "engine/exec/cuda/testing/kernel_parity.h"

using namespace lwb;

namespace {

constexpr int kWarp = 32;

float roundTo(int dtype, float v) { return dtype == LWB_CUDA_F16 ? f16ToFloat(floatToF16(v)) : bf16ToFloat(floatToBf16(v)); }

// warpSum's butterfly (__shfl_xor_sync with offsets 16, 8, 4, 2, 1): every lane ends
// with the same sum, added in this order.
float butterflySum(std::vector<float> lanes) {
  for (int o = kWarp / 2; o > 0; o /= 2) {
    std::vector<float> next(lanes.size());
    for (int l = 0; l < kWarp; ++l) next[size_t(l)] = lanes[size_t(l)] + lanes[size_t(l ^ o)];
    lanes = next;
  }
  return lanes[0];
}

struct HeadInputs {
  const float* x;      // the head's GEMM output, already rounded to the activation type
  const float* bias;   // the head's bias, or null
  const float* norm;   // RMSNorm weight [d], or null
  float eps;
};

// One warp of ropeCacheKernel on one head: out[d] (fp32, before any rounding to T).
std::vector<float> emulateHead(const HeadInputs& in, int d, int pos, const float* invFreq) {
  auto value = [&](int i) { return in.bias ? in.x[i] + in.bias[i] : in.x[i]; };
  float inv = 1.f;
  if (in.norm) {
    std::vector<float> lanes(kWarp, 0.f);
    for (int lane = 0; lane < kWarp; ++lane)
      for (int i = lane; i < d; i += kWarp) lanes[size_t(lane)] += value(i) * value(i);
    inv = 1.f / std::sqrt(butterflySum(lanes) / float(d) + in.eps);
  }
  const int half = d / 2;
  std::vector<float> out(static_cast<size_t>(d));
  for (int i = 0; i < half; ++i) {
    volatile float angle = float(pos) * invFreq[i];  // __fmul_rn
    const float c = float(std::cos(double(angle))), s = float(std::sin(double(angle)));
    float a = value(i), b = value(i + half);
    if (in.norm) a = a * inv * in.norm[i], b = b * inv * in.norm[i + half];
    out[size_t(i)] = a * c - b * s;
    out[size_t(i + half)] = b * c + a * s;
  }
  return out;
}

// lwb_cuda_test_kernel's "rope_cache" with the kernel emulated (the other kernels are
// not emulated here).
int emulatedTestKernel(const LwbCudaKernelTest* t, char* error, size_t errorSize) {
  if (std::strcmp(t->kernel, "rope_cache") != 0) {
    std::snprintf(error, errorSize, "not emulated: %s", t->kernel);
    return 1;
  }
  const int rows = int(t->dims[0]), heads = int(t->dims[1]), kvHeads = int(t->dims[2]), d = int(t->dims[3]);
  const int numSlots = int(t->dims[4]), qSize = heads * d, kvSize = kvHeads * d, width = qSize + 2 * kvSize;
  const auto* qkvIn = static_cast<const float*>(t->in[0]);
  const auto* positions = static_cast<const int32_t*>(t->in[1]);
  const auto* cacheSlots = static_cast<const int32_t*>(t->in[2]);
  const auto* invFreq = static_cast<const float*>(t->in[3]);
  const auto* bias = static_cast<const float*>(t->in[4]);
  const auto *qNorm = static_cast<const float*>(t->in[5]), *kNorm = static_cast<const float*>(t->in[6]);
  std::vector<float> qkv(qkvIn, qkvIn + size_t(rows) * width);
  for (float& v : qkv) v = roundTo(t->dtype, v);  // uploaded as T
  std::fill(t->out[0], t->out[0] + size_t(rows) * qSize, NAN);  // the plugin poisons outputs
  std::fill(t->out[1], t->out[1] + size_t(numSlots) * kvSize, NAN);
  std::fill(t->out[2], t->out[2] + size_t(numSlots) * kvSize, NAN);
  for (int r = 0; r < rows; ++r) {
    const float* src = qkv.data() + size_t(r) * width;
    const int slot = cacheSlots[r];
    for (int h = 0; h < heads + kvHeads; ++h) {
      const bool isQ = h < heads;
      if (!isQ && slot < 0) continue;
      const HeadInputs in{src + h * d, bias ? bias + h * d : nullptr, isQ ? qNorm : kNorm, float(t->scalars[0])};
      const std::vector<float> out = emulateHead(in, d, positions[r], invFreq);
      float* dst = isQ ? t->out[0] + size_t(r) * qSize + h * d : t->out[1] + size_t(slot) * kvSize + (h - heads) * d;
      for (int i = 0; i < d; ++i) dst[i] = isQ ? out[size_t(i)] : roundTo(t->dtype, out[size_t(i)]);
    }
    if (slot < 0) continue;
    for (int i = 0; i < kvSize; ++i) {
      const int col = qSize + kvSize + i;
      t->out[2][size_t(slot) * kvSize + i] = bias ? roundTo(t->dtype, src[col] + bias[col]) : src[col];
    }
  }
  return 0;
}

std::vector<float> uniform(size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

class TestCudaQkvEmulation : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void ropeCacheCases_data() {
    QTest::addColumn<int>("index");
    const std::vector<devcheck::KernelCase> cases = devcheck::kernelCases();
    for (size_t i = 0; i < cases.size(); ++i)
      if (cases[i].kernel == "rope_cache") QTest::newRow(cases[i].name.c_str()) << int(i);
  }
  // The emulated kernel against the float64 reference the device check uses.
  void ropeCacheCases() {
    QFETCH(int, index);
    const devcheck::KernelCase c = devcheck::kernelCases()[size_t(index)];
    const std::string why = devcheck::runKernelCase(emulatedTestKernel, c);
    QVERIFY2(why.empty(), why.c_str());
  }

  // The reference must be able to fail: a bias the kernel forgot is caught.
  void referenceCatchesMissingBias() {
    auto noBias = [](const LwbCudaKernelTest* t, char* e, size_t n) {
      LwbCudaKernelTest copy = *t;
      copy.in[4] = nullptr;
      return emulatedTestKernel(&copy, e, n);
    };
    const std::string why = devcheck::runKernelCase(noBias, {"rope_cache", "bf16 qwen2", LWB_CUDA_BF16, {3, 4, 2, 64, 8, 0, 2}});
    QVERIFY2(why.find("q[") != std::string::npos, why.c_str());
  }

  // Per head: the emulated kernel against the CPU executor's finishQkv pieces (bias
  // added, rmsNormRow over the head, ropeAngles + applyRope), Qwen2.5-0.5B's and
  // Qwen3-0.6B's head shapes, positions up to 40,000.
  void headMatchesCpuExecutor_data() {
    QTest::addColumn<int>("d");
    QTest::addColumn<bool>("withBias");
    QTest::addColumn<bool>("withNorm");
    QTest::newRow("qwen2 d64 bias") << 64 << true << false;
    QTest::newRow("qwen3 d128 norm") << 128 << false << true;
    QTest::newRow("d80 bias+norm") << 80 << true << true;
    QTest::newRow("llama d64") << 64 << false << false;
  }
  void headMatchesCpuExecutor() {
    QFETCH(int, d);
    QFETCH(bool, withBias);
    QFETCH(bool, withNorm);
    const float eps = 1e-6f;
    std::vector<float> invFreq;
    for (int i = 0; i < d / 2; ++i) invFreq.push_back(float(1 / std::pow(1e6, 2.0 * i / d)));
    const std::vector<float> normW = uniform(size_t(d), 2, 0.5f, 2.f);
    const WeightVector w{normW.data(), DType::F32, d};
    std::vector<float> cosv(size_t(d / 2)), sinv(size_t(d / 2));
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> x = uniform(size_t(d), 10 + unsigned(trial), -4.f, 4.f);
      for (float& v : x) v = bf16ToFloat(floatToBf16(v));
      const std::vector<float> bias = uniform(size_t(d), 100 + unsigned(trial), -20.f, 20.f);
      const int pos = trial * 797;
      const HeadInputs in{x.data(), withBias ? bias.data() : nullptr, withNorm ? normW.data() : nullptr, eps};
      const std::vector<float> got = emulateHead(in, d, pos, invFreq.data());
      std::vector<float> cpu = x;  // CpuExecutor::finishQkv on one head
      if (withBias)
        for (int i = 0; i < d; ++i) cpu[size_t(i)] += bias[size_t(i)];
      if (withNorm) rmsNormRow(cpu.data(), w, eps, cpu.data());
      ropeAngles(pos, invFreq, cosv.data(), sinv.data());
      applyRope(cpu.data(), 1, d, cosv.data(), sinv.data());
      double scale = 0;
      for (float v : cpu) scale = std::max(scale, double(std::fabs(v)));
      for (int i = 0; i < d; ++i)  // the CPU sums squares in double, the kernel in float
        QVERIFY2(std::fabs(got[size_t(i)] - cpu[size_t(i)]) <= 2e-6 * scale,
                 qPrintable(QString("trial %1, element %2: %3 vs %4").arg(trial).arg(i).arg(got[size_t(i)]).arg(cpu[size_t(i)])));
    }
  }
};

QTEST_GUILESS_MAIN(TestCudaQkvEmulation)
#include "tst_cuda_qkv_emulation.moc"
