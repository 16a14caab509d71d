// Checks the inlined SLEEF functions (csrc/kernels/cpu/sleef_expf.h, sleef_tanhf.h) against
// Debian's libsleef on every float bit pattern (2^32 inputs, NaN payloads included), at both
// widths; prints the mismatches of each (0 expected). Not part of the build: run it when either
// header changes, on a machine with AVX-512F (about 4 minutes):
//   g++ -O2 -ffp-contract=off -I csrc tools/sleef_check.cpp -lsleef -o /tmp/sleef_check
//   /tmp/sleef_check
#include <cstdint>
#include <cstdio>

#include "kernels/cpu/sleef_expf.h"
#include "kernels/cpu/sleef_tanhf.h"

extern "C" {
__attribute__((target("avx512f"))) __m512 Sleef_expf16_u10avx512f(__m512);
__attribute__((target("avx2,fma"))) __m256 Sleef_expf8_u10avx2(__m256);
__attribute__((target("avx512f"))) __m512 Sleef_tanhf16_u10avx512f(__m512);
__attribute__((target("avx2,fma"))) __m256 Sleef_tanhf8_u10avx2(__m256);
}

namespace {

template <typename F, typename G>
__attribute__((target("avx512f"))) void check16(const char* name, F ours, G theirs) {
  uint64_t bad = 0;
  uint32_t first = 0;
  alignas(64) uint32_t in[16];
  for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 16) {
    for (int j = 0; j < 16; ++j) in[j] = static_cast<uint32_t>(base + j);
    const __m512 x = _mm512_load_ps(reinterpret_cast<const float*>(in));
    const __mmask16 ne = _mm512_cmpneq_epi32_mask(_mm512_castps_si512(ours(x)),
                                                  _mm512_castps_si512(theirs(x)));
    if (ne && !bad) first = static_cast<uint32_t>(base + __builtin_ctz(ne));
    bad += __builtin_popcount(ne);
  }
  std::printf("%s: %llu mismatches (first input 0x%08x)\n", name,
              static_cast<unsigned long long>(bad), first);
}

template <typename F, typename G>
__attribute__((target("avx2,fma"))) void check8(const char* name, F ours, G theirs) {
  uint64_t bad = 0;
  uint32_t first = 0;
  alignas(32) uint32_t in[8];
  for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 8) {
    for (int j = 0; j < 8; ++j) in[j] = static_cast<uint32_t>(base + j);
    const __m256 x = _mm256_load_ps(reinterpret_cast<const float*>(in));
    const __m256i eq = _mm256_cmpeq_epi32(_mm256_castps_si256(ours(x)),
                                          _mm256_castps_si256(theirs(x)));
    const int ne = ~_mm256_movemask_ps(_mm256_castsi256_ps(eq)) & 0xff;
    if (ne && !bad) first = static_cast<uint32_t>(base + __builtin_ctz(ne));
    bad += __builtin_popcount(ne);
  }
  std::printf("%s: %llu mismatches (first input 0x%08x)\n", name,
              static_cast<unsigned long long>(bad), first);
}

}  // namespace

int main() {
  using namespace tn::vec::inl;
  check16("expf16", [](__m512 x) __attribute__((target("avx512f"))) { return expf16(x); },
          Sleef_expf16_u10avx512f);
  check8("expf8", [](__m256 x) __attribute__((target("avx2,fma"))) { return expf8(x); },
         Sleef_expf8_u10avx2);
  check16("tanhf16", [](__m512 x) __attribute__((target("avx512f"))) { return tanhf16(x); },
          Sleef_tanhf16_u10avx512f);
  check8("tanhf8", [](__m256 x) __attribute__((target("avx2,fma"))) { return tanhf8(x); },
         Sleef_tanhf8_u10avx2);
}
