#include "engine/exec/cpu/cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace lwb {

const char* isaName(Isa isa) {
  switch (isa) {
    case Isa::Scalar: return "scalar";
    case Isa::Avx2: return "AVX2";
    case Isa::Avx512: return "AVX-512";
  }
  return "?";
}

bool isaSupported(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::Scalar: return true;
    case Isa::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    case Isa::Avx512:
      return isaSupported(Isa::Avx2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  }
  return false;
#else
  return isa == Isa::Scalar;
#endif
}

std::vector<Isa> supportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512})
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
  return isaSupported(asked) ? asked : best;
}

}  // namespace lwb
