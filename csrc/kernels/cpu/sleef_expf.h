// SLEEF's expf u10 (the function upstream's float32 vector kernels call, through Sleef_expf16 /
// Sleef_expf8) written out as inline vector code, so that a kernel can keep its steps around the
// exponential in registers rather than call out per vector. Include only from files whose
// functions carry the matching target attributes (vec_math.cpp).
// See Note [SLEEF's expf, inlined] (docs/DESIGN_NOTES.md).
#pragma once

#include <immintrin.h>

namespace tn::vec::inl {

constexpr float kExpR = 1.442695040888963407359924681001892137426645954152985934135449406931f;
constexpr float kExpL2U = 0.693145751953125f;  // ln 2's high part (exact in few bits)
constexpr float kExpL2L = 1.428606765330187045e-06f;  // and the rest
constexpr float kExpC[6] = {0.000198527617612853646278381f, 0.00139304355252534151077271f,
                            0.00833336077630519866943359f,  0.0416664853692054748535156f,
                            0.166666671633720397949219f,    0.5f};

__attribute__((target("avx512f"), always_inline)) inline __m512 expf16(__m512 d) {
  const __m512i q = _mm512_cvt_roundps_epi32(_mm512_mul_ps(d, _mm512_set1_ps(kExpR)),
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 qf = _mm512_cvtepi32_ps(q);
  __m512 s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-kExpL2U), d);
  s = _mm512_fmadd_ps(qf, _mm512_set1_ps(-kExpL2L), s);
  __m512 u = _mm512_set1_ps(kExpC[0]);
  for (int k = 1; k < 6; ++k) u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(kExpC[k]));
  u = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));
  const __m512i half = _mm512_srai_epi32(q, 1), bias = _mm512_set1_epi32(0x7f);
  const __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(half, bias), 23));
  const __m512 p2 = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(q, half), bias), 23));
  u = _mm512_mul_ps(_mm512_mul_ps(u, p1), p2);
  const __mmask16 under = _mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_LT_OQ);
  u = _mm512_maskz_mov_ps(static_cast<__mmask16>(~under), u);
  const __mmask16 over = _mm512_cmp_ps_mask(_mm512_set1_ps(100.0f), d, _CMP_LT_OQ);
  return _mm512_mask_blend_ps(over, u, _mm512_set1_ps(__builtin_inff()));
}

__attribute__((target("avx2,fma"), always_inline)) inline __m256 expf8(__m256 d) {
  const __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(d, _mm256_set1_ps(kExpR)));  // MXCSR: even
  const __m256 qf = _mm256_cvtepi32_ps(q);
  __m256 s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-kExpL2U), d);
  s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-kExpL2L), s);
  __m256 u = _mm256_set1_ps(kExpC[0]);
  for (int k = 1; k < 6; ++k) u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(kExpC[k]));
  u = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));
  const __m256i half = _mm256_srai_epi32(q, 1), bias = _mm256_set1_epi32(0x7f);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  const __m256 p2 = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(q, half), bias), 23));
  u = _mm256_mul_ps(_mm256_mul_ps(u, p1), p2);
  u = _mm256_andnot_ps(_mm256_cmp_ps(d, _mm256_set1_ps(-104.0f), _CMP_LT_OQ), u);
  return _mm256_blendv_ps(u, _mm256_set1_ps(__builtin_inff()),
                          _mm256_cmp_ps(_mm256_set1_ps(100.0f), d, _CMP_LT_OQ));
}

}  // namespace tn::vec::inl
