#include "engine/exec/cpu/cpu_isa.h"

#include <cstdlib>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace lwb {

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::Scalar: return "scalar";
    case Isa::Avx2: return "AVX2";
    case Isa::Avx512: return "AVX-512";
    case Isa::Avx512Bf16: return "AVX-512 BF16";
  }
  return "?";
}

namespace {
#if defined(__x86_64__) || defined(__i386__)
// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not know it.
bool hasF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29));
}
// AVX512_BF16 from CPUID leaf 7 subleaf 1 (EAX bit 5), which GCC 12's and clang 14's
// __builtin_cpu_supports do not name alike.
bool hasAvx512Bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 5));
}
#endif
}  // namespace

bool isaSupported(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::Scalar: return true;
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && hasF16c();
    case Isa::Avx512:
      return isaSupported(Isa::Avx2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    case Isa::Avx512Bf16: return isaSupported(Isa::Avx512) && hasAvx512Bf16();
  }
  return false;
#else
  return isa == Isa::Scalar;
#endif
}

std::vector<Isa> supportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16})
    if (isaSupported(isa)) out.push_back(isa);
  return out;
}

Isa detectIsa() {
  const Isa best = supportedIsas().back();
  const char* env = std::getenv("LWB_CPU_ISA");
  if (!env) return best;
  Isa asked = best;
  if (std::strcmp(env, "scalar") == 0) asked = Isa::Scalar;
  else if (std::strcmp(env, "avx2") == 0) asked = Isa::Avx2;
  else if (std::strcmp(env, "avx512") == 0) asked = Isa::Avx512;
  else if (std::strcmp(env, "avx512bf16") == 0) asked = Isa::Avx512Bf16;
  return isaSupported(asked) ? asked : best;
}

bool isAmdCpu() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // The vendor string is EBX, EDX, ECX of leaf 0: "Auth" "enti" "cAMD".
  return __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;
#else
  return false;
#endif
}

}  // namespace lwb
