#pragma once
// The SIMD instruction set the CPU kernels use. It is chosen once per executor; results
// are bit-identical across batch shapes and thread counts for one ISA, and may differ
// in the last bits between ISAs.
#include <string>
#include <vector>

namespace lwb {

// Avx512Bf16: AVX-512 with AVX512_BF16, where the GEMMs over bf16 weights take their
// activations rounded to bf16 (vdpbf16ps, twice the multiply-adds of an f32 FMA); every
// other kernel, and the GEMMs over other weights, as Avx512. Its results for bf16 weights
// are therefore not Avx512's (the activations are rounded), and are batch-invariant.
enum class Isa { Scalar, Avx2, Avx512, Avx512Bf16 };

// "scalar", "AVX2", "AVX-512", "AVX-512 BF16"
const char* isaName(Isa isa);
bool isaSupported(Isa isa);
// Every ISA this CPU can run, best last.
std::vector<Isa> supportedIsas();
// The best supported ISA, unless LWB_CPU_ISA (scalar | avx2 | avx512 | avx512bf16) asks
// for a supported lower one.
Isa detectIsa();

// Whether the CPU is AMD's (CPUID vendor "AuthenticAMD"): where one ISA's kernels measured
// fastest with different tiles on AMD's and Intel's cores, they choose by it (results are
// the same either way).
bool isAmdCpu();

}  // namespace lwb
