// SLEEF's tanhf u10 (what upstream's float32 vector kernels call for gelu('tanh'), through
// Sleef_tanhf16 / Sleef_tanhf8) written out as inline vector code, as sleef_expf.h writes expf:
// SLEEF's algorithm read for its steps (xtanhf over expk2f and its float-float arithmetic, the
// FMA variants), each step the IEEE operation SLEEF's build performs. Checked against Debian's
// libsleef (Sleef_tanhf16_u10avx512f, Sleef_tanhf8_u10avx2) on all 2^32 float bit patterns, NaN
// payloads included: no difference at either width (tools/sleef_check). Include only from files
// whose functions carry the matching target attributes.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/sleef_expf.h"  // kExpR, kExpL2U, kExpL2L

#define TN_A512 __attribute__((target("avx512f"), always_inline)) inline
#define TN_A2 __attribute__((target("avx2,fma"), always_inline)) inline

namespace tn::vec::inl {

// 16 lanes (AVX-512F). F2: a float-float pair (x the leading part, y the rest).
namespace tanh16 {
struct F2 { __m512 x, y; };
TN_A512 __m512 add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
TN_A512 __m512 sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
TN_A512 __m512 mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
TN_A512 __m512 fma_(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
// a b - c and c - a b, each one rounding
TN_A512 __m512 fmapn(__m512 a, __m512 b, __m512 c) { return _mm512_fmsub_ps(a, b, c); }
TN_A512 __m512 fmanp(__m512 a, __m512 b, __m512 c) { return _mm512_fnmadd_ps(a, b, c); }
TN_A512 __m512 set1(float v) { return _mm512_set1_ps(v); }
TN_A512 __m512 rec(__m512 a) { return _mm512_div_ps(set1(1.0f), a); }
TN_A512 F2 df_add2_f2_f(F2 x, __m512 y) {
  __m512 s = add(x.x, y), v = sub(s, x.x);
  __m512 t = add(sub(x.x, sub(s, v)), sub(y, v));
  return {s, add(t, x.y)};
}
TN_A512 F2 df_add_f_f2(__m512 x, F2 y) {
  __m512 s = add(x, y.x);
  return {s, add(add(sub(x, s), y.x), y.y)};
}
TN_A512 F2 df_add_f2_f2(F2 x, F2 y) {
  __m512 s = add(x.x, y.x);
  return {s, add(add(add(sub(x.x, s), y.x), x.y), y.y)};
}
TN_A512 F2 df_add2_f2_f2(F2 x, F2 y) {
  __m512 s = add(x.x, y.x), v = sub(s, x.x);
  __m512 t = add(sub(x.x, sub(s, v)), sub(y.x, v));
  return {s, add(t, add(x.y, y.y))};
}
TN_A512 F2 df_neg(F2 x) {
  const __m512i m = _mm512_set1_epi32(INT32_MIN);
  return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x.x), m)),
          _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x.y), m))};
}
TN_A512 F2 df_div(F2 n, F2 d) {
  __m512 t = rec(d.x), s = mul(n.x, t);
  __m512 u = fmapn(t, n.x, s);
  __m512 v = fmanp(d.y, t, fmanp(d.x, t, set1(1.0f)));
  return {s, fma_(s, v, fma_(n.y, t, u))};
}
TN_A512 F2 df_squ(F2 x) {
  __m512 s = mul(x.x, x.x);
  return {s, fma_(add(x.x, x.x), x.y, fmapn(x.x, x.x, s))};
}
TN_A512 F2 df_mul_f2_f2(F2 x, F2 y) {
  __m512 s = mul(x.x, y.x);
  return {s, fma_(x.x, y.y, fma_(x.y, y.x, fmapn(x.x, y.x, s)))};
}
TN_A512 F2 df_mul_f2_f(F2 x, __m512 y) {
  __m512 s = mul(x.x, y);
  return {s, fma_(x.y, y, fmapn(x.x, y, s))};
}
TN_A512 F2 df_rec(F2 d) {
  __m512 s = rec(d.x);
  return {s, mul(s, fmanp(d.y, s, fmanp(d.x, s, set1(1.0f))))};
}
TN_A512 __m512 ldexp2(__m512 d, __m512i e) {
  const __m512i h = _mm512_srai_epi32(e, 1), bias = _mm512_set1_epi32(0x7f);
  const __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h, bias), 23));
  const __m512 p2 =
      _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(e, h), bias), 23));
  return mul(mul(d, p1), p2);
}
TN_A512 F2 expk2(F2 d) {
  __m512 u = mul(add(d.x, d.y), set1(kExpR));
  __m512i q = _mm512_cvt_roundps_epi32(u, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 qf = _mm512_cvtepi32_ps(q);
  F2 s = df_add2_f2_f(d, mul(qf, set1(-kExpL2U)));
  s = df_add2_f2_f(s, mul(qf, set1(-kExpL2L)));
  u = set1(+0.1980960224e-3f);
  u = fma_(u, s.x, set1(+0.1394256484e-2f));
  u = fma_(u, s.x, set1(+0.8333456703e-2f));
  u = fma_(u, s.x, set1(+0.4166637361e-1f));
  F2 t = df_add2_f2_f(df_mul_f2_f(s, u), set1(+0.166666659414234244790680580464e+0f));
  t = df_add2_f2_f(df_mul_f2_f2(s, t), set1(0.5f));
  t = df_add2_f2_f2(s, df_mul_f2_f2(df_squ(s), t));
  t = df_add_f_f2(set1(1.0f), t);
  t.x = ldexp2(t.x, q);
  t.y = ldexp2(t.y, q);
  const __mmask16 under = _mm512_cmp_ps_mask(d.x, set1(-104.0f), _CMP_LT_OQ);
  t.x = _mm512_maskz_mov_ps(static_cast<__mmask16>(~under), t.x);
  t.y = _mm512_maskz_mov_ps(static_cast<__mmask16>(~under), t.y);
  return t;
}
TN_A512 __m512 tanhf16(__m512 x) {
  const __m512 ax = _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
  __m512 y = ax;
  F2 d = expk2(F2{y, _mm512_setzero_ps()});
  F2 e = df_rec(d);
  d = df_div(df_add_f2_f2(d, df_neg(e)), df_add_f2_f2(d, e));
  y = add(d.x, d.y);
  __mmask16 big = _mm512_cmp_ps_mask(ax, set1(8.664339742f), _CMP_GT_OQ);
  __mmask16 ynan = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
  y = _mm512_mask_blend_ps(big | ynan, y, set1(1.0f));
  // mulsign: y ^ (x & sign)
  y = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(y),
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
  __mmask16 xnan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  const __m512i ones = _mm512_set1_epi32(-1);  // a NaN input: all ones
  return _mm512_castsi512_ps(_mm512_mask_mov_epi32(_mm512_castps_si512(y), xnan, ones));
}
}  // namespace tanh16

// 8 lanes (AVX2 and FMA): the same steps.
namespace tanh8 {
struct F8 { __m256 x, y; };
TN_A2 __m256 add8(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
TN_A2 __m256 sub8(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
TN_A2 __m256 mul8(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
TN_A2 __m256 fma_8(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
// a b - c and c - a b, each one rounding
TN_A2 __m256 fmapn8(__m256 a, __m256 b, __m256 c) { return _mm256_fmsub_ps(a, b, c); }
TN_A2 __m256 fmanp8(__m256 a, __m256 b, __m256 c) { return _mm256_fnmadd_ps(a, b, c); }
TN_A2 __m256 set18(float v) { return _mm256_set1_ps(v); }
TN_A2 __m256 rec8(__m256 a) { return _mm256_div_ps(set18(1.0f), a); }
TN_A2 F8 df_add2_f2_f(F8 x, __m256 y) {
  __m256 s = add8(x.x, y), v = sub8(s, x.x);
  __m256 t = add8(sub8(x.x, sub8(s, v)), sub8(y, v));
  return {s, add8(t, x.y)};
}
TN_A2 F8 df_add_f_f2(__m256 x, F8 y) {
  __m256 s = add8(x, y.x);
  return {s, add8(add8(sub8(x, s), y.x), y.y)};
}
TN_A2 F8 df_add_f2_f2(F8 x, F8 y) {
  __m256 s = add8(x.x, y.x);
  return {s, add8(add8(add8(sub8(x.x, s), y.x), x.y), y.y)};
}
TN_A2 F8 df_add2_f2_f2(F8 x, F8 y) {
  __m256 s = add8(x.x, y.x), v = sub8(s, x.x);
  __m256 t = add8(sub8(x.x, sub8(s, v)), sub8(y.x, v));
  return {s, add8(t, add8(x.y, y.y))};
}
TN_A2 F8 df_neg8(F8 x) {
  const __m256i m = _mm256_set1_epi32(INT32_MIN);
  return {_mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(x.x), m)),
          _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(x.y), m))};
}
TN_A2 F8 df_div8(F8 n, F8 d) {
  __m256 t = rec8(d.x), s = mul8(n.x, t);
  __m256 u = fmapn8(t, n.x, s);
  __m256 v = fmanp8(d.y, t, fmanp8(d.x, t, set18(1.0f)));
  return {s, fma_8(s, v, fma_8(n.y, t, u))};
}
TN_A2 F8 df_squ8(F8 x) {
  __m256 s = mul8(x.x, x.x);
  return {s, fma_8(add8(x.x, x.x), x.y, fmapn8(x.x, x.x, s))};
}
TN_A2 F8 df_mul_f2_f2(F8 x, F8 y) {
  __m256 s = mul8(x.x, y.x);
  return {s, fma_8(x.x, y.y, fma_8(x.y, y.x, fmapn8(x.x, y.x, s)))};
}
TN_A2 F8 df_mul_f2_f(F8 x, __m256 y) {
  __m256 s = mul8(x.x, y);
  return {s, fma_8(x.y, y, fmapn8(x.x, y, s))};
}
TN_A2 F8 df_rec8(F8 d) {
  __m256 s = rec8(d.x);
  return {s, mul8(s, fmanp8(d.y, s, fmanp8(d.x, s, set18(1.0f))))};
}
TN_A2 __m256 ldexp28(__m256 d, __m256i e) {
  const __m256i h = _mm256_srai_epi32(e, 1), bias = _mm256_set1_epi32(0x7f);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
  const __m256 p2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(e, h), bias), 23));
  return mul8(mul8(d, p1), p2);
}
TN_A2 F8 expk28(F8 d) {
  __m256 u = mul8(add8(d.x, d.y), set18(kExpR));
  __m256i q = _mm256_cvtps_epi32(u);
  __m256 qf = _mm256_cvtepi32_ps(q);
  F8 s = df_add2_f2_f(d, mul8(qf, set18(-kExpL2U)));
  s = df_add2_f2_f(s, mul8(qf, set18(-kExpL2L)));
  u = set18(+0.1980960224e-3f);
  u = fma_8(u, s.x, set18(+0.1394256484e-2f));
  u = fma_8(u, s.x, set18(+0.8333456703e-2f));
  u = fma_8(u, s.x, set18(+0.4166637361e-1f));
  F8 t = df_add2_f2_f(df_mul_f2_f(s, u), set18(+0.166666659414234244790680580464e+0f));
  t = df_add2_f2_f(df_mul_f2_f2(s, t), set18(0.5f));
  t = df_add2_f2_f2(s, df_mul_f2_f2(df_squ8(s), t));
  t = df_add_f_f2(set18(1.0f), t);
  t.x = ldexp28(t.x, q);
  t.y = ldexp28(t.y, q);
  const __m256 under = _mm256_cmp_ps(d.x, set18(-104.0f), _CMP_LT_OQ);
  t.x = _mm256_andnot_ps(under, t.x);
  t.y = _mm256_andnot_ps(under, t.y);
  return t;
}
TN_A2 __m256 tanhf8(__m256 x) {
  const __m256 ax = _mm256_castsi256_ps(
      _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fffffff)));
  __m256 y = ax;
  F8 d = expk28(F8{y, _mm256_setzero_ps()});
  F8 e = df_rec8(d);
  d = df_div8(df_add_f2_f2(d, df_neg8(e)), df_add_f2_f2(d, e));
  y = add8(d.x, d.y);
  const __m256 big = _mm256_cmp_ps(ax, set18(8.664339742f), _CMP_GT_OQ);
  const __m256 ynan = _mm256_cmp_ps(y, y, _CMP_UNORD_Q);
  y = _mm256_blendv_ps(y, set18(1.0f), _mm256_or_ps(big, ynan));
  // mulsign: y ^ (x & sign)
  y = _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(y),
        _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(INT32_MIN))));
  return _mm256_or_ps(y, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));  // a NaN input: all ones
}
}  // namespace tanh8

TN_A512 __m512 tanhf16(__m512 x) { return tanh16::tanhf16(x); }
TN_A2 __m256 tanhf8(__m256 x) { return tanh8::tanhf8(x); }

}  // namespace tn::vec::inl

#undef TN_A512
#undef TN_A2
