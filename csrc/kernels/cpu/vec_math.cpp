// SLEEF vector array kernels (see vec_math.h). Each body is compiled for its instruction set
// through a target attribute and called only after vec_width() has checked the CPU; the rest of
// the build keeps the baseline instruction set. sleef.h declares the vector functions only when
// the translation unit itself is built for that set, so they are declared here.
//
// The tail (n % width elements) is padded into one more vector call rather than computed by the
// scalar variant: the bits are the same (vec_math.h), and one call is cheaper than up to 15.
#include "kernels/cpu/vec_math.h"

#include "core/error.h"

#if defined(TN_HAVE_SLEEF)
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#define TN_AVX512 __attribute__((target("avx512f")))
#define TN_AVX2 __attribute__((target("avx2,fma")))

extern "C" {
TN_AVX512 __m512 Sleef_expf16_u10avx512f(__m512);
TN_AVX2 __m256 Sleef_expf8_u10avx2(__m256);
}
#endif

namespace tn::vec {

int vec_width() {
#if defined(TN_HAVE_SLEEF)
  static const int width = __builtin_cpu_supports("avx512f")                              ? 16
                           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8
                                                                                             : 0;
  return width;
#else
  return 0;
#endif
}

#if defined(TN_HAVE_SLEEF)
namespace {

constexpr float kSqrtHalf = 0.70710678118654752440f;
constexpr float kErfOne = 4.0f;  // erf(4) = 1 - 1.5e-8 rounds to 1 in float

// erf(z) for |z| < 1: its Taylor series z * sum_k c_k z^2k, c_k = 2/sqrt(pi) (-1)^k / (k! (2k+1)),
// through k = 10 (the first term left out is below 1e-10 at |z| = 1), by Horner in z^2.
// exp(a) for a in [-16, 0] (A&S's exp(-z^2) below), inline: a = n ln2 + r with |r| <= ln2 / 2
// (ln2 in two parts, Cody and Waite), exp(r) by its Taylor series through r^7 (the first term
// left out is below 6e-9 relatively), times 2^n. Within 2 ulp; its error reaches erf scaled by
// t P(t) exp(-z^2) < 0.16. SLEEF's expf costs a call a vector with every live register saved
// (measured: gelu 114 us with it, 58 us with exp left out, on 138,240 floats).
#define TN_EXP_POLY(OUT, FMA, FNMA, SET, MUL, ROUND, a)                  \
  auto n = ROUND(MUL(a, SET(1.44269504088896341f)));                     \
  auto r = FNMA(n, SET(0.693145751953125f), a);                          \
  r = FNMA(n, SET(1.42860682030941723212e-6f), r);                       \
  OUT = FMA(SET(1.0f / 5040), r, SET(1.0f / 720));                       \
  OUT = FMA(OUT, r, SET(1.0f / 120));                                    \
  OUT = FMA(OUT, r, SET(1.0f / 24));                                     \
  OUT = FMA(OUT, r, SET(1.0f / 6));                                      \
  OUT = FMA(OUT, r, SET(0.5f));                                          \
  OUT = FMA(OUT, r, SET(1.0f));                                          \
  OUT = FMA(OUT, r, SET(1.0f));
#define TN_ROUND16(x) _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define TN_ROUND8(x) _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
TN_AVX512 inline __m512 exp_small16(__m512 a) {
  __m512 p;
  TN_EXP_POLY(p, _mm512_fmadd_ps, _mm512_fnmadd_ps, _mm512_set1_ps, _mm512_mul_ps, TN_ROUND16, a)
  return _mm512_scalef_ps(p, n);
}
TN_AVX2 inline __m256 exp_small8(__m256 a) {
  __m256 p;
  TN_EXP_POLY(p, _mm256_fmadd_ps, _mm256_fnmadd_ps, _mm256_set1_ps, _mm256_mul_ps, TN_ROUND8, a)
  __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23);  // n in [-24, 0]: a normal 2^n
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}
#undef TN_ROUND8
#undef TN_ROUND16
#undef TN_EXP_POLY

// (A statement macro rather than a lambda: a lambda would not inherit the target attribute.)
#define TN_ERF_TAYLOR(OUT, FMA, SET, z)                                     \
  {                                                                         \
    auto w = z * z;                                                         \
    OUT = FMA(SET(1.4807192815879218e-08f), w, SET(-1.6365844691234924e-07f)); \
    OUT = FMA(OUT, w, SET(1.6462114365889246e-06f));                        \
    OUT = FMA(OUT, w, SET(-1.492565035840625e-05f));                        \
    OUT = FMA(OUT, w, SET(0.00012055332981789664f));                        \
    OUT = FMA(OUT, w, SET(-0.0008548327023450852f));                        \
    OUT = FMA(OUT, w, SET(0.005223977625442188f));                          \
    OUT = FMA(OUT, w, SET(-0.026866170645131252f));                         \
    OUT = FMA(OUT, w, SET(0.11283791670955126f));                           \
    OUT = FMA(OUT, w, SET(-0.37612638903183754f));                          \
    OUT = FMA(OUT, w, SET(1.1283791670955126f));                            \
    OUT = z * OUT;                                                          \
  }

// erf for |z| >= 1: Abramowitz and Stegun 7.1.26, the formula of upstream's
// Vectorized<float>::erf (sleef::erf_simd): 1 - t P(t) exp(-z^2), t = 1 / (1 + 0.3275911 |z|),
// absolute error <= 1.5e-7. On its own it would also serve |z| < 1, but there its absolute
// error is up to 3.3x upstream's (oneDNN's) in gelu; SLEEF's erff u10 is accurate everywhere
// but costs 7x (306 against 42 us for 138,240 floats on AVX-512, measured). Two speed choices,
// neither visible in the result: t from the reciprocal estimate and one Newton step (relative
// error ~1e-7, which erf scales by 1 - |erf| < 0.16; a division costs ~10 cycles a vector),
// and z clamped to +-kErfOne (where float erf is already +-1), as exp of a large negative
// argument goes through subnormals, which are slow (692 against 51 us at randn * 10).
TN_AVX512 inline __m512 erf_as16(__m512 z, __m512 az) {
  const __m512 sign = _mm512_castsi512_ps(_mm512_set1_epi32(INT32_MIN));
  const __m512 one = _mm512_set1_ps(1.0f);
  z = _mm512_max_ps(_mm512_min_ps(z, _mm512_set1_ps(kErfOne)), _mm512_set1_ps(-kErfOne));
  az = _mm512_min_ps(az, _mm512_set1_ps(kErfOne));
  __m512 d = _mm512_fmadd_ps(_mm512_set1_ps(0.3275911f), az, one);
  __m512 t = _mm512_rcp14_ps(d);
  t = _mm512_mul_ps(t, _mm512_fnmadd_ps(d, t, _mm512_set1_ps(2.0f)));
  __m512 r = _mm512_fmadd_ps(_mm512_set1_ps(1.061405429f), t, _mm512_set1_ps(-1.453152027f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(1.421413741f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(-0.284496736f));
  r = _mm512_fmadd_ps(r, t, _mm512_set1_ps(0.254829592f));
  __m512i neg_sq = _mm512_xor_si512(_mm512_castps_si512(_mm512_mul_ps(z, z)),
                                    _mm512_castps_si512(sign));
  __m512 e = exp_small16(_mm512_castsi512_ps(neg_sq));
  e = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(e), _mm512_castps_si512(sign)));
  __m512 v = _mm512_fmadd_ps(_mm512_mul_ps(e, t), r, one);
  __m512i zs = _mm512_and_si512(_mm512_castps_si512(z), _mm512_castps_si512(sign));
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), zs));
}
TN_AVX512 inline __m512 erf16(__m512 z) {
  __m512 az = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(z),
                                                   _mm512_set1_epi32(INT32_MAX)));
  __mmask16 small = _mm512_cmp_ps_mask(az, _mm512_set1_ps(1.0f), _CMP_LT_OQ);
  if (small == 0) return erf_as16(z, az);  // skip the work of the side no lane needs
  __m512 taylor;
  TN_ERF_TAYLOR(taylor, _mm512_fmadd_ps, _mm512_set1_ps, z);
  if (small == 0xffff) return taylor;
  return _mm512_mask_blend_ps(small, erf_as16(z, az), taylor);
}
TN_AVX2 inline __m256 erf_as8(__m256 z, __m256 az) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  z = _mm256_max_ps(_mm256_min_ps(z, _mm256_set1_ps(kErfOne)), _mm256_set1_ps(-kErfOne));
  az = _mm256_min_ps(az, _mm256_set1_ps(kErfOne));
  __m256 d = _mm256_fmadd_ps(_mm256_set1_ps(0.3275911f), az, one);
  __m256 t = _mm256_rcp_ps(d);
  t = _mm256_mul_ps(t, _mm256_fnmadd_ps(d, t, _mm256_set1_ps(2.0f)));
  __m256 r = _mm256_fmadd_ps(_mm256_set1_ps(1.061405429f), t, _mm256_set1_ps(-1.453152027f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(1.421413741f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(-0.284496736f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(0.254829592f));
  __m256 e = _mm256_xor_ps(exp_small8(_mm256_xor_ps(_mm256_mul_ps(z, z), sign)), sign);
  __m256 v = _mm256_fmadd_ps(_mm256_mul_ps(e, t), r, one);
  return _mm256_xor_ps(v, _mm256_and_ps(z, sign));
}
TN_AVX2 inline __m256 erf8(__m256 z) {
  __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z);
  __m256 small = _mm256_cmp_ps(az, _mm256_set1_ps(1.0f), _CMP_LT_OQ);
  int lanes = _mm256_movemask_ps(small);
  if (lanes == 0) return erf_as8(z, az);  // skip the work of the side no lane needs
  __m256 taylor;
  TN_ERF_TAYLOR(taylor, _mm256_fmadd_ps, _mm256_set1_ps, z);
  if (lanes == 0xff) return taylor;
  return _mm256_blendv_ps(erf_as8(z, az), taylor, small);
}
#undef TN_ERF_TAYLOR

// gelu('none') on one vector: h + h * erf(x * sqrt(1/2)) with h = x * 0.5 (exact), one rounding
// through the FMA (the scalar formula's h * (1 + erf) rounds twice: measured 1.59x upstream's
// error at worst against 1.0x this way, on |x| < 0.1). Then two of upstream's (oneDNN's)
// answers: the sign of x on a zero result (gelu(-20) is -0), and NaN for +inf.
TN_AVX512 inline __m512 gelu16(__m512 x) {
  __m512 e = erf16(_mm512_mul_ps(x, _mm512_set1_ps(kSqrtHalf)));
  __m512 h = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
  __m512i xs = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  __m512 y = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(_mm512_fmadd_ps(h, e, h)),
                                                 xs));
  __mmask16 inf = _mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
  return _mm512_mask_blend_ps(inf, y, _mm512_set1_ps(NAN));
}
TN_AVX2 inline __m256 gelu8(__m256 x) {
  __m256 e = erf8(_mm256_mul_ps(x, _mm256_set1_ps(kSqrtHalf)));
  __m256 h = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
  __m256 y = _mm256_or_ps(_mm256_fmadd_ps(h, e, h), _mm256_and_ps(x, _mm256_set1_ps(-0.0f)));
  __m256 inf = _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ);
  return _mm256_blendv_ps(y, _mm256_set1_ps(NAN), inf);
}

// NAME(x, y, n): y = F(x) over x[0..n) one vector at a time, the tail through a zero-padded
// copy.
#define TN_VEC_MAP(ATTR, NAME, F, W, LOAD, STORE)           \
  ATTR void NAME(const float* x, float* y, int64_t n) {     \
    int64_t i = 0;                                          \
    for (; i + W <= n; i += W) STORE(y + i, F(LOAD(x + i))); \
    if (i < n) {                                            \
      alignas(64) float buf[W] = {};                        \
      std::memcpy(buf, x + i, sizeof(float) * (n - i));     \
      STORE(buf, F(LOAD(buf)));                             \
      std::memcpy(y + i, buf, sizeof(float) * (n - i));     \
    }                                                       \
  }
TN_VEC_MAP(TN_AVX512, gelu_erf16, gelu16, 16, _mm512_loadu_ps, _mm512_storeu_ps)
TN_VEC_MAP(TN_AVX2, gelu_erf8, gelu8, 8, _mm256_loadu_ps, _mm256_storeu_ps)
TN_VEC_MAP(TN_AVX512, exp16, Sleef_expf16_u10avx512f, 16, _mm512_loadu_ps, _mm512_storeu_ps)
TN_VEC_MAP(TN_AVX2, exp8, Sleef_expf8_u10avx2, 8, _mm256_loadu_ps, _mm256_storeu_ps)
#undef TN_VEC_MAP

// matmul_rows_f32 (vec_math.h) for 4 rows of a at once (independent sums hide the adds'
// latency), then single rows. The _round_ forms are builtins GCC cannot contract into an FMA.
#define TN_MUL16(x, y) _mm512_mul_round_ps(x, y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define TN_ADD16(x, y) _mm512_add_round_ps(x, y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
TN_AVX512 void matmul16(const float* a, int64_t lda, int64_t rows, const float* m, int64_t ld,
                        int64_t n, int64_t width, float* out, int64_t ldo) {
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4)
    for (int64_t c = 0; c < width; c += 16) {
      __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
      for (int64_t t = 0; t < n; ++t) {
        __m512 mv = _mm512_loadu_ps(m + t * ld + c);
        s0 = TN_ADD16(s0, TN_MUL16(_mm512_set1_ps(a[i * lda + t]), mv));
        s1 = TN_ADD16(s1, TN_MUL16(_mm512_set1_ps(a[(i + 1) * lda + t]), mv));
        s2 = TN_ADD16(s2, TN_MUL16(_mm512_set1_ps(a[(i + 2) * lda + t]), mv));
        s3 = TN_ADD16(s3, TN_MUL16(_mm512_set1_ps(a[(i + 3) * lda + t]), mv));
      }
      _mm512_storeu_ps(out + i * ldo + c, s0);
      _mm512_storeu_ps(out + (i + 1) * ldo + c, s1);
      _mm512_storeu_ps(out + (i + 2) * ldo + c, s2);
      _mm512_storeu_ps(out + (i + 3) * ldo + c, s3);
    }
  for (; i < rows; ++i)
    for (int64_t c = 0; c < width; c += 16) {
      __m512 s0 = _mm512_setzero_ps();
      for (int64_t t = 0; t < n; ++t)
        s0 = TN_ADD16(s0, TN_MUL16(_mm512_set1_ps(a[i * lda + t]),
                                   _mm512_loadu_ps(m + t * ld + c)));
      _mm512_storeu_ps(out + i * ldo + c, s0);
    }
}
#undef TN_MUL16
#undef TN_ADD16

// The same with 8 lanes; compiled without FMA, so nothing can be fused.
__attribute__((target("avx2"))) void matmul8(const float* a, int64_t lda, int64_t rows,
                                             const float* m, int64_t ld, int64_t n,
                                             int64_t width, float* out, int64_t ldo) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < width; c += 16) {
      __m256 s0 = _mm256_setzero_ps(), s1 = s0;
      for (int64_t t = 0; t < n; ++t) {
        __m256 av = _mm256_set1_ps(a[i * lda + t]);
        s0 = _mm256_add_ps(s0, _mm256_mul_ps(av, _mm256_loadu_ps(m + t * ld + c)));
        s1 = _mm256_add_ps(s1, _mm256_mul_ps(av, _mm256_loadu_ps(m + t * ld + c + 8)));
      }
      _mm256_storeu_ps(out + i * ldo + c, s0);
      _mm256_storeu_ps(out + i * ldo + c + 8, s1);
    }
}

}  // namespace

void matmul_rows_f32(const float* a, int64_t lda, int64_t rows, const float* m, int64_t ld,
                     int64_t n, int64_t width, float* out, int64_t ldo) {
  TN_ASSERT(vec_width() != 0 && width % 16 == 0);
  (vec_width() == 16 ? matmul16 : matmul8)(a, lda, rows, m, ld, n, width, out, ldo);
}

void gelu_erf_f32(const float* x, float* y, int64_t n) {
  TN_ASSERT(vec_width() != 0);
  vec_width() == 16 ? gelu_erf16(x, y, n) : gelu_erf8(x, y, n);
}
void exp_f32(const float* x, float* y, int64_t n) {
  TN_ASSERT(vec_width() != 0);
  vec_width() == 16 ? exp16(x, y, n) : exp8(x, y, n);
}
#else
// Without SLEEF vec_width() is 0, and callers keep their scalar paths.
void gelu_erf_f32(const float*, float*, int64_t) { TN_ASSERT(vec_width() != 0); }
void exp_f32(const float*, float*, int64_t) { TN_ASSERT(vec_width() != 0); }
void matmul_rows_f32(const float*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t,
                     float*, int64_t) {
  TN_ASSERT(vec_width() != 0);
}
#endif

}  // namespace tn::vec
