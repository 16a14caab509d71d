// normal_fill16_avx2 (see random_avx2.h). Compiled for AVX2+FMA through a target attribute and
// called only when has_avx2_fma(); the rest of the build keeps the baseline instruction set.
//
// Why explicit FMAs: upstream compiles its vector log/sincos with GCC at -mfma, which contracts
// some (not all) multiply-add pairs. Reading its object code gave the fused set below; writing
// them out makes our bits independent of our compiler's own contraction choices.
#include "kernels/cpu/random_avx2.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/cpu_isa.h"

namespace tn {

bool has_avx2_fma() {
  return cpu::isa() != cpu::Isa::Base;
}

namespace {

#define TN_AVX2 __attribute__((target("avx2,fma")))

TN_AVX2 inline __m256 splat(float v) { return _mm256_set1_ps(v); }
TN_AVX2 inline __m256 splat_bits(int32_t bits) {
  return _mm256_castsi256_ps(_mm256_set1_epi32(bits));
}

// Natural log of 8 floats (Cephes logf: exponent split, degree-8 polynomial); NaN for x <= 0.
TN_AVX2 inline __m256 log8(__m256 x) {
  const __m256 one = splat(1.0f);
  const __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
  x = _mm256_max_ps(x, splat_bits(0x00800000));  // smallest normal: no denormal exponents
  __m256i expo = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_or_ps(_mm256_and_ps(x, splat_bits(~0x7f800000)), splat(0.5f));
  expo = _mm256_sub_epi32(expo, _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(expo), one);
  // Mantissa below sqrt(1/2): use 2m - 1 and one exponent less.
  const __m256 small = _mm256_cmp_ps(x, splat(0.707106781186547524f), _CMP_LT_OS);
  const __m256 extra = _mm256_and_ps(x, small);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, small));
  x = _mm256_add_ps(x, extra);
  const __m256 z = _mm256_mul_ps(x, x);
  static const float kP[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                              -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                              2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  __m256 y = splat(kP[0]);
  for (int k = 1; k < 9; ++k) y = _mm256_fmadd_ps(y, x, splat(kP[k]));
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, splat(-2.12194440e-4f)));
  y = _mm256_fnmadd_ps(z, splat(0.5f), y);
  x = _mm256_add_ps(x, y);
  x = _mm256_fmadd_ps(e, splat(0.693359375f), x);
  return _mm256_or_ps(x, invalid);
}

// Sine and cosine of 8 floats (Cephes sinf/cosf: octant reduction in three steps, then the
// two polynomials, each lane picking by octant).
TN_AVX2 inline void sincos8(__m256 x, __m256* s, __m256* c) {
  const __m256 one = splat(1.0f);
  __m256 sign_sin = _mm256_and_ps(x, splat_bits(static_cast<int32_t>(0x80000000u)));
  const __m256 ax = _mm256_and_ps(x, splat_bits(0x7fffffff));
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(ax, splat(1.27323954473516f)));  // x * 4/pi
  j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  const __m256 yj = _mm256_cvtepi32_ps(j);
  const __m256 swap_sin =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(4)), 29));
  const __m256 poly_mask = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(j, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
  sign_sin = _mm256_xor_ps(sign_sin, swap_sin);
  __m256 r = _mm256_fmadd_ps(yj, splat(-0.78515625f), ax);
  r = _mm256_fmadd_ps(yj, splat(-2.4187564849853515625e-4f), r);
  r = _mm256_fmadd_ps(yj, splat(-3.77489497744594108e-8f), r);
  const __m256i jc = _mm256_sub_epi32(j, _mm256_set1_epi32(2));
  const __m256 sign_cos = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_andnot_si256(jc, _mm256_set1_epi32(4)), 29));
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 yc = _mm256_fmadd_ps(splat(2.443315711809948E-005f), z, splat(-1.388731625493765E-003f));
  yc = _mm256_fmadd_ps(yc, z, splat(4.166664568298827E-002f));
  yc = _mm256_mul_ps(yc, z);
  yc = _mm256_fmsub_ps(z, yc, _mm256_mul_ps(z, splat(0.5f)));
  yc = _mm256_add_ps(yc, one);
  __m256 ys = _mm256_fmadd_ps(splat(-1.9515295891E-4f), z, splat(8.3321608736E-3f));
  ys = _mm256_fmadd_ps(ys, z, splat(-1.6666654611E-1f));
  ys = _mm256_mul_ps(ys, z);
  ys = _mm256_fmadd_ps(r, ys, r);
  const __m256 sin_from_s = _mm256_and_ps(poly_mask, ys);
  const __m256 sin_from_c = _mm256_andnot_ps(poly_mask, yc);
  ys = _mm256_sub_ps(ys, sin_from_s);
  yc = _mm256_sub_ps(yc, sin_from_c);
  *s = _mm256_xor_ps(_mm256_add_ps(sin_from_c, sin_from_s), sign_sin);
  *c = _mm256_xor_ps(_mm256_add_ps(yc, ys), sign_cos);
}

}  // namespace

TN_AVX2 void normal_fill16_avx2(float* data, float mean, float std) {
  const __m256 u1 = _mm256_sub_ps(splat(1.0f), _mm256_loadu_ps(data));  // (0, 1] for the log
  const __m256 u2 = _mm256_loadu_ps(data + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(splat(-2.0f), log8(u1)));
  const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
  const __m256 theta = _mm256_mul_ps(splat(two_pi), u2);
  __m256 s, c;
  sincos8(theta, &s, &c);
  const __m256 m = splat(mean), sd = splat(std);
  _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), sd, m));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), sd, m));
}

}  // namespace tn
