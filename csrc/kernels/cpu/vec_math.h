// Array kernels for contiguous float32 rows (gelu, the softmax inside attention), over AVX-512F
// or AVX2+FMA, as cpu::isa() chooses (cpu_isa.h), with SLEEF's vector functions where they are used.
// Each lane's result depends on that lane's input only, with the same steps at both widths
// (SLEEF's vector expf u10 equals its scalar FMA variant Sleef_expf1_u10purecfma: measured
// identical on 116 million float inputs at both widths), so results depend neither on the CPU's
// width nor on an element's position. Not an op: callers keep their own scalar path for when
// vec_width() is 0 (built without SLEEF, or a CPU without FMA).
#pragma once

#include <cstdint>

#include "kernels/cpu/cpu_isa.h"

namespace tn::vec {

// 16 (AVX-512F), 8 (AVX2 and FMA) or 0 (none of these, or built without SLEEF); checked once.
int vec_width();

// y[i] = gelu(x[i]) ('none': x/2 (1 + erf(x / sqrt(2)))), for upstream's contiguous float32
// gelu (oneDNN's gelu_erf, whose bits are not reproduced): piecewise polynomials of the normal
// CDF fitted by tools/fit_gelu.py (vec_math.cpp states their accuracy: within 1 ulp for x > -0.5,
// absolute error below 3.3e-7 everywhere, against upstream's own 1.2e-6). The special values
// are those of oneDNN's build for `as` (its AVX-512 one: gelu(+inf) NaN, x >= 2^127 inf, a zero
// result with the sign of x; the narrower ones: gelu(+inf) +inf, zeros +0), and by default
// oneDNN's own choice in upstream's process (cpu::onednn_isa()). y may equal x. Only where
// gelu_erf_available() (built with SLEEF, on a CPU with AVX2 and FMA), and cpu::cpu_runs(as).
bool gelu_erf_available();
void gelu_erf_f32(const float* x, float* y, int64_t n, cpu::Isa as = cpu::onednn_isa());

// y[i] = sleef::exp(x[i]) bit for bit (SLEEF's expf u10). y may equal x.
void exp_f32(const float* x, float* y, int64_t n);
// y[i] = 1 / (1 + exp(0 - x[i])) (sigmoid) and x[i] / (1 + exp(-x[i])) (silu), each step
// rounded, exp SLEEF's expf u10 inlined (Note [SLEEF's expf, inlined], sleef_expf.h): the bits
// of elementwise_activation.cpp's per-element formulas. y may equal x.
void sigmoid_f32(const float* x, float* y, int64_t n);
void silu_f32(const float* x, float* y, int64_t n);
// y[i] = gelu(x[i], 'tanh') = 0.5 x (1 + tanh(beta fma(kappa, x^3, x))), each step rounded,
// tanh SLEEF's tanhf u10 inlined (sleef_tanhf.h): the per-element formula's bits. y may equal x.
void gelu_tanh_f32(const float* x, float* y, int64_t n);
// Their backwards (gelu('tanh')'s, silu's): y[i] from dy[i] and x[i] with
// elementwise_backward.cpp's steps, its std::fma fused, tanh and exp inlined. y may equal dy
// or x.
void gelu_tanh_backward_f32(const float* dy, const float* x, float* y, int64_t n);
void silu_backward_f32(const float* dy, const float* x, float* y, int64_t n);
// x[i] = sleef::exp(x[i] * scale - shift) in place, the product and the difference each
// rounded (attention's softmax, nn_attention.cpp); returns their sum, taken in 16 lanes (lane
// i mod 16) at either width, the lanes then added in order: the same bits on AVX2 and AVX-512.
float exp_sum_f32(float* x, int64_t n, float scale, float shift);

// The SLEEF float functions elementwise kernels call (elementwise_sleef.h: u10, hypot u05).
// Each vector function gives, lane by lane, the bits of the scalar FMA variant sleef:: calls:
// measured at both widths on every 97th float bit pattern (44 million inputs) for the unary
// ones, and on 3.2 million pairs (random bits, special values, grids) for pow, atan2 and hypot.
enum class SleefFn { Exp, Exp2, Expm1, Log1p, Tanh, Sinh, Cosh, Atanh, Pow, Atan2, Hypot };
// y[i] = f(a[i]) for the unary functions, f(a[i], b[i]) for Pow, Atan2 and Hypot (b null for
// the unary ones), over n floats, 16 or 8 lanes a call as vec_width() says. y may equal a or b.
void sleef_map_f32(SleefFn f, const float* a, const float* b, float* y, int64_t n);
// y[i] = f(a[i], b) for Pow, Atan2 and Hypot: the same bits as sleef_map_f32 with every b[i]
// equal to b.
void sleef_map_scalar_f32(SleefFn f, const float* a, float b, float* y, int64_t n);
inline bool sleef_is_binary(SleefFn f) {
  return f == SleefFn::Pow || f == SleefFn::Atan2 || f == SleefFn::Hypot;
}

// Softmax (Log false) or log_softmax (Log true) of the row x[0..n) into y (no overlap), in
// upstream's _vec_softmax_lastdim / _vec_log_softmax_lastdim steps: max, e = exp(x - max) with
// SLEEF's expf u10, the sum of e in upstream's reduce_all order (lanes, then halves folded),
// then y = e * (1 / sum), or y = (x - max) - log(sum) with SLEEF's logf u10. Both matched
// upstream 2.13 bit for bit on AVX-512 (3.5 million randn * 4 elements, rows of 1 to 4097).
void softmax_row_f32(const float* x, float* y, int64_t n, bool log);

// Softmax's and log_softmax's backward over a contiguous float32 row (nn_softmax.cpp), where
// vec_width() != 0. row_sum_lanes_f32: upstream's reduce_all of x[k] (y null) or of the rounded
// products x[k] * y[k] for W lanes (8 or 16: the row is summed in order below W elements, else
// lane-wise, the tail into the first lanes, then the lanes folded in halves), whatever the CPU's
// own width: lane-wise adds give each lane the same bits at any width. fuse_tail: the tail's
// products are fused into their lanes' sums (upstream's build at one thread; nn_softmax.cpp).
float row_sum_lanes_f32(const float* x, const float* y, int64_t n, int W, bool fuse_tail);
// out[k] = g[k] - exp(y[k]) * sum in one fused step, exp SLEEF's expf u10 (log_softmax's).
void log_softmax_bwd_row_f32(const float* g, const float* y, float sum, float* out, int64_t n);
// out[k] = (g[k] - sum) * y[k], each step rounded (softmax's).
void softmax_bwd_row_f32(const float* g, const float* y, float sum, float* out, int64_t n);

// o[i] = fma(v * a[i], b[i], s[i]) over n floats (addcmul's float32 step, upstream's vector
// path's arithmetic); AVX2 and FMA, where vec_width() != 0. o may equal s, a or b.
void addcmul_f32(const float* s, const float* a, const float* b, float v, float* o, int64_t n);

}  // namespace tn::vec
