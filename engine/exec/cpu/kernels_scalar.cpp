// Portable kernels (W = 1): every sum runs in plain index order with separate multiply
// and add. Also the dispatcher cpuKernels().
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/common/error.h"
#include "engine/exec/cpu/attend_row.h"
#include "engine/exec/cpu/kernels.h"

namespace lwb {
namespace {

template <DType D>
inline float weightAt(const void* base, size_t i) {
  if constexpr (D == DType::F32) return static_cast<const float*>(base)[i];
  else if constexpr (D == DType::BF16) return bf16ToFloat(static_cast<const uint16_t*>(base)[i]);
  else return f16ToFloat(static_cast<const uint16_t*>(base)[i]);
}

// Running sums of one row against one panel, k = 0..K-1 in order, acc[j] = acc[j] + x·w.
template <DType D>
void panelSums(const float* x, const void* panel, size_t K, float* acc) {
  for (size_t k = 0; k < K; ++k) {
    const float xk = x[k];
    for (int j = 0; j < kPanel; ++j) {
      const float p = xk * weightAt<D>(panel, k * kPanel + size_t(j));
      acc[j] = acc[j] + p;
    }
  }
}

// BF16 panels hold k pairs (layout in kernels.h): the 32-bit lane of column j holds k and
// k + 1, each half moved to the top is its f32 value. Per pair, k's product is added
// before k + 1's: the same order as above.
template <>
void panelSums<DType::BF16>(const float* x, const void* panel, size_t K, float* acc) {
  auto toFloat = [](uint32_t bits) {
    float w;
    std::memcpy(&w, &bits, 4);
    return w;
  };
  const char* lanes = static_cast<const char*>(panel);
  for (size_t k = 0; k < K; k += 2, lanes += 4 * kPanel) {
    uint32_t lane[kPanel];
    std::memcpy(lane, lanes, sizeof lane);
    const float x0 = x[k];
    for (int j = 0; j < kPanel; ++j) {
      const float p = x0 * toFloat(lane[j] << 16);
      acc[j] = acc[j] + p;
    }
    if (k + 1 == K) break;  // an odd K's last k: the pad half is not used
    const float x1 = x[k + 1];
    for (int j = 0; j < kPanel; ++j) {
      const float p = x1 * toFloat(lane[j] & 0xffff0000u);
      acc[j] = acc[j] + p;
    }
  }
}

// One panel at a time over the block's rows (the panel stays in L1/L2): 16 running sums
// per row, each updated in k order (the j loop may be vectorised; it stays elementwise).
template <DType D>
void gemmBlockT(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  const size_t panelElems = size_t(packedK(D, a.K)) * kPanel;
  for (int c = col0; c < col0 + numCols; c += kPanel) {
    const void* panel = static_cast<const char*>(a.w) + size_t(c / kPanel) * panelElems * (D == DType::F32 ? 4 : 2);
    const int width = col0 + numCols - c < kPanel ? col0 + numCols - c : kPanel;
    for (int r = row0; r < row0 + numRows; ++r) {
      float acc[kPanel] = {};
      panelSums<D>(a.x + size_t(r) * a.ldx, panel, size_t(a.K), acc);
      for (int j = 0; j < width; ++j) a.y[size_t(r) * a.ldy + size_t(c + j)] = acc[j];
    }
  }
}

void gemmBlock(const GemmArgs& a, int row0, int numRows, int col0, int numCols) {
  forWeightDType(a.wtype, [&]<DType D>() { gemmBlockT<D>(a, row0, numRows, col0, numCols); });
}

float dot(const float* a, const float* b, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float p = a[i] * b[i];
    acc = acc + p;
  }
  return acc;
}

void axpy(float alpha, const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) {
    const float p = alpha * x[i];
    y[i] = y[i] + p;
  }
}

float expAndSum(float* s, int n, float max) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    s[i] = std::exp(s[i] - max);
    sum = sum + s[i];
  }
  return sum;
}

void siluMul(const float* gate, const float* up, float* out, int n) {
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    const float e = std::exp(-std::fabs(g));
    const float sigmoid = (g < 0.0f ? e : 1.0f) / (1.0f + e);
    out[i] = g * sigmoid * up[i];
  }
}

// A cached K/V element as f32: T = float, uint16_t holding bf16, or an FP8 code (all
// widened exactly; FP8 through a table of its 256 values).
inline float kvValue(float x) { return x; }
inline float kvValue(uint16_t x) { return bf16ToFloat(x); }
inline float kvValue(Fp8E4m3 x) {
  static const float* table = fp8E4m3Values();
  return table[x.bits];
}
inline float kvValue(Fp8E5m2 x) {
  static const float* table = fp8E5m2Values();
  return table[x.bits];
}

template <typename T>
void attendRowT(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  const size_t lds = scoreStride(n);
  const int bs = kv.blockSize;
  for (int g = 0; g < G; ++g) {
    float* sg = scratch + size_t(g) * lds;
    const float* qg = q + size_t(g) * size_t(d);
    for (int j = 0; j < n; ++j) {
      const T* kt = static_cast<const T*>(kv.k) + size_t(kv.blockTable[j / bs]) * kv.kBlockStride + size_t(j % bs);
      float acc = 0.0f;
      for (int i = 0; i < d; ++i) {
        const float p = qg[i] * kvValue(kt[size_t(i) * size_t(bs)]);
        acc = acc + p;
      }
      sg[j] = acc * scale;
    }
    float max = sg[0];
    for (int j = 1; j < n; ++j) max = sg[j] > max ? sg[j] : max;
    const float invSum = 1.0f / expAndSum(sg, n, max);
    float* o = out + size_t(g) * size_t(d);
    std::fill(o, o + d, 0.0f);
    for (int j = 0; j < n; ++j) {  // o += p_j · V_j, elementwise as axpy
      const T* vj = static_cast<const T*>(kv.v) + size_t(kv.blockTable[j / bs]) * kv.vBlockStride + size_t(j % bs) * kv.ldv;
      for (int i = 0; i < d; ++i) {
        const float p = sg[j] * kvValue(vj[i]);
        o[i] = o[i] + p;
      }
    }
    for (int i = 0; i < d; ++i) o[i] *= invSum;
  }
}

void attendRow(const float* q, int G, int d, const PagedKv& kv, int n, float scale, float* scratch, float* out) {
  forKvElement(kv.type, [&]<typename T>() { attendRowT<T>(q, G, d, kv, n, scale, scratch, out); });
}

template <typename T>
struct ScalarWiden {
  static void run(const T* p, size_t n, float* dst) {
    for (size_t i = 0; i < n; ++i) dst[i] = kvValue(p[i]);
  }
};

void widenKv(DType type, const void* src, size_t n, float* dst) { detail::widenKvAs<ScalarWiden>(type, src, n, dst); }

}  // namespace

const CpuKernels& scalarKernels() {
  static const CpuKernels k{Isa::Scalar, &gemmBlock, &dot,    &axpy, &expAndSum, &siluMul, &attendRow,
                            nullptr /* panelGroup */, &widenKv};
  return k;
}

const CpuKernels& cpuKernels(Isa isa) {
  check(isaSupported(isa), std::string("CPU kernels: ") + isaName(isa) + " is not supported by this CPU");
  switch (isa) {
    case Isa::Avx512Bf16: return avx512Bf16Kernels();
    case Isa::Avx512: return avx512Kernels();
    case Isa::Avx2: return avx2Kernels();
    case Isa::Scalar: break;
  }
  return scalarKernels();
}

}  // namespace lwb
