// The kernels' instruction set (see cpu_isa.h).
#include "kernels/cpu/cpu_isa.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tn::cpu {
namespace {

Isa widest_on_this_cpu() {
  __builtin_cpu_init();
  bool fma = __builtin_cpu_supports("fma");
  if (fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return Isa::Avx512;
  if (fma && __builtin_cpu_supports("avx2")) return Isa::Avx2;
  return Isa::Base;
}

Isa choose() {
  Isa cpu = widest_on_this_cpu();
  const char* env = std::getenv("ATEN_CPU_CAPABILITY");
  if (!env) return cpu;
  Isa asked;
  if (std::strcmp(env, "avx512") == 0) {
    asked = Isa::Avx512;
  } else if (std::strcmp(env, "avx2") == 0) {
    asked = Isa::Avx2;
  } else if (std::strcmp(env, "default") == 0) {
    asked = Isa::Base;
  } else {
    std::fprintf(stderr, "torchnative: ignoring invalid value for ATEN_CPU_CAPABILITY: %s\n", env);
    return cpu;
  }
  return asked < cpu ? asked : cpu;
}

// ONEDNN_MAX_CPU_ISA's value (oneDNN's spellings, any case: SSE41, AVX, AVX2, AVX2_VNNI...,
// AVX512_CORE..., AVX10_1_512..., DEFAULT), or the CPU's widest where it is unset or unknown.
Isa choose_onednn() {
  Isa cpu = widest_on_this_cpu();
  const char* env = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (!env) env = std::getenv("DNNL_MAX_CPU_ISA");
  if (!env) return cpu;
  std::string v(env);
  for (char& ch : v) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  auto starts = [&](const char* p) { return v.rfind(p, 0) == 0; };
  Isa asked;
  if (starts("AVX512") || starts("AVX10")) {
    asked = Isa::Avx512;
  } else if (starts("AVX2")) {
    asked = Isa::Avx2;
  } else if (v == "SSE41" || v == "AVX") {
    asked = Isa::Base;
  } else {
    return cpu;
  }
  return asked < cpu ? asked : cpu;
}

}  // namespace

Isa onednn_isa() {
  static const Isa chosen = choose_onednn();
  return chosen;
}

Isa isa() {
  static const Isa chosen = choose();
  return chosen;
}

Isa avx2_registered_isa() { return isa() == Isa::Avx512 ? Isa::Avx2 : isa(); }

bool cpu_runs(Isa want) {
  static const Isa cpu = widest_on_this_cpu();
  return want <= cpu;
}

const char* isa_name(Isa i) {
  switch (i) {
    case Isa::Avx512:
      return "AVX512";
    case Isa::Avx2:
      return "AVX2";
    case Isa::Base:
      break;
  }
  return "DEFAULT";
}

}  // namespace tn::cpu
