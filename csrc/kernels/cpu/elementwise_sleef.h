// SLEEF's u10 functions as upstream's vectorised CPU kernels call them, for the elementwise ops
// whose upstream results come from SLEEF (exp2, expm1, log1p, sigmoid, silu, gelu, pow, and
// elementwise_unary2.cpp's acos, asin, atan, sinh, cosh, erfc, lgamma): the scalar FMA variants (Sleef_expf1_u10purecfma...) give bit for bit what upstream's SIMD ones
// give (checked on 3.2 million float and 1.6 million double inputs). Built with TN_HAVE_SLEEF
// (CMake links Debian's libsleef-dev); without it, or at the baseline instruction set (cpu_isa.h: a CPU
// without AVX2 and FMA, or ATEN_CPU_CAPABILITY=default, where upstream's vector kernels call the
// std:: functions too), available() is false and the kernels keep their std:: functions.
#pragma once

#include <cmath>

#include "kernels/cpu/elementwise_loop.h"

namespace tn::sleef {

bool available();

float exp(float x);
double exp(double x);
float exp2(float x);
double exp2(double x);
float expm1(float x);
double expm1(double x);
float atan2(float y, float x);
double atan2(double y, double x);
float hypot(float x, float y);
double hypot(double x, double y);
float log1p(float x);
double log1p(double x);
float tanh(float x);
double tanh(double x);
float pow(float x, float y);
double pow(double x, double y);
float log(float x);
double log(double x);
// log as a kernel upstream also registers for AVX-512 computes it in its vector code (logit):
// on an AVX-512 CPU SLEEF's AVX-512 build, lane by lane (its NaN for x < 0 differs).
float log_simd(float x);
double log_simd(double x);
// u10 (erfc: u15, SLEEF's only erfc), for acos, asin, atan, sinh, cosh, erfc and lgamma
// (elementwise_unary2.cpp).
float acos(float x);
double acos(double x);
float asin(float x);
double asin(double x);
float atan(float x);
double atan(double x);
float sinh(float x);
double sinh(double x);
float cosh(float x);
double cosh(double x);
float erfc(float x);
double erfc(double x);
float lgamma(float x);
double lgamma(double x);
// u10, for atanh (elementwise_unary2.cpp).
float atanh(float x);
double atanh(double x);

// Upstream's Vectorized<float>::erf: Abramowitz and Stegun 7.1.26 with FMAs and SLEEF's exp.
inline float erf_simd(float x) {
  float t = 1.0f / std::fma(0.3275911f, std::fabs(x), 1.0f);
  float r = std::fma(std::fma(std::fma(std::fma(1.061405429f, t, -1.453152027f), t,
                                       1.421413741f), t, -0.284496736f), t, 0.254829592f);
  float e = -sleef::exp(-(x * x));
  float v = std::fma(e * t, r, 1.0f);
  return std::signbit(x) ? -v : v;
}

}  // namespace tn::sleef

namespace tn {

// A float result as upstream's vector code stores it into T: rounded to nearest even, but for
// bfloat16 a NaN becomes 0xFFFF (its AVX2/AVX-512 float-to-bfloat16 conversion blends in all
// ones where the float is unordered; the scalar conversion gives 0x7FC0). float16's vector
// conversion (F16C) gives what the scalar one does; float and double are unchanged.
template <typename T, typename A>
T vec_result(A r) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (r != r) {
      BFloat16 b;
      b.x = 0xFFFF;
      return b;
    }
  }
  return static_cast<T>(r);
}

// `vec` where upstream takes its SIMD path and `scalar` elsewhere (ew_run_split) when SLEEF is
// available; `scalar` everywhere otherwise. Upstream registers these SLEEF-based kernels for
// AVX-512 too: on that build its blocks are two 64-byte vectors (measured on an AVX-512 machine:
// sigmoid, silu, gelu, their backwards, pow and exp2 agree bit for bit only so).
template <typename Out, typename... In, typename FV, typename FS>
void ew_run_simd(const EwIter& it, FV&& vec, FS&& scalar) {
  if (sleef::available())
    ew_run_split<Out, In...>(it, vec, scalar, ew_detail::avx512_kernel_block_bytes());
  else
    ew_run<Out, In...>(it, scalar);
}

}  // namespace tn
