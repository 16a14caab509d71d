// SLEEF's u10 functions as upstream's vectorised CPU kernels call them, for the elementwise ops
// whose upstream results come from SLEEF (exp2, expm1, log1p, sigmoid, silu, gelu, pow, and
// elementwise_unary2.cpp's acos, asin, atan, sinh, cosh, erfc, lgamma): the scalar FMA variants
// (Sleef_expf1_u10purecfma...) give bit for bit what upstream's SIMD ones give (checked on 3.2
// million float and 1.6 million double inputs). float32 kernels call SLEEF's vector functions
// instead, a chunk at a time (ew_run_sleef_map_f32), or run whole vector kernels with SLEEF's
// expf and tanhf inlined (ew_run_vec_f32: sigmoid, silu, gelu('tanh') and the backwards;
// sleef_expf.h, sleef_tanhf.h): the same bits, a fraction of the time. Built with TN_HAVE_SLEEF
// (CMake links Debian's libsleef-dev); without it, or at
// the baseline instruction set (cpu_isa.h: a CPU without AVX2 and FMA, or
// ATEN_CPU_CAPABILITY=default, where upstream's vector kernels call the std:: functions too),
// available() is false and the kernels keep their std:: functions.
#pragma once

#include <cmath>

#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/vec_math.h"

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
// SLEEF's log1p switches to log above these (upstream's bundled SLEEF's LOG1P(F)_BOUND).
constexpr float kLog1pBoundF = 0x1.2ced32p+126f;
constexpr double kLog1pBoundD = 0x1.c7b1f3cac7433p+1019;
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

namespace ew_detail {

// The elements of a chunk [i0, i0 + m) of a row of n that upstream's vectorised loop gives its
// vector body, in blocks of `block` (ew_run_split's split): the first k of the chunk.
inline int64_t vector_part(bool vectorised, int64_t block, int64_t i0, int64_t m, int64_t n) {
  int64_t vec_end = vectorised ? n - n % block : 0;
  return std::min(std::max<int64_t>(vec_end - i0, 0), m);
}

}  // namespace ew_detail

// ew_run_simd for float32 ops whose vector part is computed whole: body(o, in, k) takes the
// first k elements of each chunk that upstream's vectorised loop gives its vector body (in
// blocks of two 64-byte vectors, as ew_run_split splits), `scalar` the rest. Only where
// sleef::available().
template <typename... In, typename FB, typename FS>
void ew_run_vector_part_f32(const EwIter& it, FB&& body, FS&& scalar) {
  static_assert((std::is_same_v<In, float> && ...));
  using Seq = std::index_sequence_for<In...>;
  const int64_t block = ew_detail::avx512_kernel_block_bytes() / int64_t(sizeof(float));
  const bool vectorised = ew_detail::row_is_vectorised(it);
  ew_detail::run_rows<float, In...>(
      it, [&](float* o, const std::tuple<const In*...>& in, int64_t m, int64_t i0, int64_t n,
              char* const*) {
        int64_t k = ew_detail::vector_part(vectorised, block, i0, m, n);
        if (k > 0) body(o, in, k);
        if (k < m)
          ew_detail::core(o + k, ew_detail::advanced<In...>(in, k, Seq{}), m - k, scalar, Seq{});
      });
}

// The vector part is one SLEEF function f itself: f(x) for a unary f (b unused); for a binary f
// (pow, atan2, hypot), f of the two inputs, or with one input f(x, b) (pow's scalar exponent),
// through vec::sleef_map_f32 (vec::sleef_map_scalar_f32 for the scalar one).
template <typename... In, typename FS>
void ew_run_sleef_map_f32(const EwIter& it, vec::SleefFn f, float b, FS&& scalar) {
  static_assert(sizeof...(In) == 1 || sizeof...(In) == 2);
  ew_run_vector_part_f32<In...>(
      it,
      [&](float* o, const std::tuple<const In*...>& in, int64_t k) {
        if constexpr (sizeof...(In) == 2) {
          vec::sleef_map_f32(f, std::get<0>(in), std::get<1>(in), o, k);
        } else if (!vec::sleef_is_binary(f)) {
          vec::sleef_map_f32(f, std::get<0>(in), nullptr, o, k);
        } else {
          vec::sleef_map_scalar_f32(f, std::get<0>(in), b, o, k);
        }
      },
      scalar);
}

// The vector part is an array kernel of vec_math.h with the bits of the per-element formula:
// kernel(x, y, k) for a unary op (vec::sigmoid_f32, vec::silu_f32, vec::gelu_tanh_f32),
// kernel(a, b, y, k) for a binary one (vec::gelu_tanh_backward_f32, vec::silu_backward_f32).
template <typename FS>
void ew_run_vec_f32(const EwIter& it, void (*kernel)(const float*, float*, int64_t),
                    FS&& scalar) {
  ew_run_vector_part_f32<float>(
      it, [&](float* o, const std::tuple<const float*>& in, int64_t k) {
        kernel(std::get<0>(in), o, k);
      }, scalar);
}

template <typename FS>
void ew_run_vec_f32(const EwIter& it,
                    void (*kernel)(const float*, const float*, float*, int64_t), FS&& scalar) {
  ew_run_vector_part_f32<float, float>(
      it, [&](float* o, const std::tuple<const float*, const float*>& in, int64_t k) {
        kernel(std::get<0>(in), std::get<1>(in), o, k);
      }, scalar);
}

// ew_run_simd for an op whose vector formula is the SLEEF function f itself (vec computes it
// per element): float32 takes ew_run_sleef_map_f32, other dtypes vec per element.
template <typename Out, typename... In, typename FV, typename FS>
void ew_run_simd_map(const EwIter& it, vec::SleefFn f, FV&& vec, FS&& scalar) {
  if constexpr (std::is_same_v<Out, float>) {
    if (sleef::available()) return ew_run_sleef_map_f32<In...>(it, f, 0.0f, scalar);
  }
  ew_run_simd<Out, In...>(it, vec, scalar);
}

}  // namespace tn
