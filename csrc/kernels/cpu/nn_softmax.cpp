// Softmax family: _softmax / softmax.int and _log_softmax / log_softmax.int. Numerically
// stable (the slice max is subtracted first); float16/bfloat16 compute in float. Contiguous
// float32 over the last dim takes vec::softmax_row_f32 (upstream's vectorised steps and bits,
// 6x15x384: 231 -> ~20 us), float64 softmax_row_f64 (its steps and bits, measured); elsewhere
// the sum runs sequentially with std::exp, within an ulp or two of upstream.
// _log_softmax_backward_data and _softmax_backward_data (float32/float64; 16-bit in float)
// follow upstream's vector kernels: grad - exp(output) * sum(grad) as one FMA with SLEEF's exp,
// and (grad - sum(grad * output)) * output, the sums in upstream's lane order over the last
// dim; over another dim each element's sum runs in order, its products fused, and the elements
// of the inner dim's tail (past its last whole vector) take std::exp, as upstream's scalar
// tail does (measured against upstream on rows of 1 to 1000 and inner sizes 7 to 64).
#include <algorithm>
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Upstream's reduce_all of at(0..n) for vectors of W lanes: rows shorter than W summed in
// order; else lane-wise sums, the tail into its first lanes, then the lanes folded (float: a
// halving tree, as its AVX2/AVX-512 specialisations; double: in lane order).
// at(i) is the i-th term (x, or x * y for softmax's sum).
template <typename T, typename F>
T row_sum_lanes(F&& at, int64_t n, int W) {
  if (n < W) {
    T acc = at(0);
    for (int64_t i = 1; i < n; ++i) acc = acc + at(i);
    return acc;
  }
  T lane[16];
  for (int l = 0; l < W; ++l) lane[l] = at(l);
  int64_t d = W;
  for (; d < n - n % W; d += W)
    for (int l = 0; l < W; ++l) lane[l] = lane[l] + at(d + l);
  for (int64_t l = 0; l < n - d; ++l) lane[l] = lane[l] + at(d + l);
  if constexpr (std::is_same_v<T, float>) {
    for (int s = W / 2; s >= 1; s /= 2)
      for (int l = 0; l < s; ++l) lane[l] = lane[l] + lane[l + s];
    return lane[0];
  } else {
    T acc = lane[0];
    for (int l = 1; l < W; ++l) acc = acc + lane[l];
    return acc;
  }
}

// One contiguous float64 row over the last dim, as upstream's vector kernels compute it (its
// _vec_softmax_lastdim / serial_vec_log_softmax_lastdim_range): the row's max (NaN if any
// element is); e = exp(x - max) with SLEEF's exp; their sum as reduce_all's lanes; softmax
// e * (1 / sum), log_softmax (x - max) - log(sum) with SLEEF's log.
void softmax_row_f64(const double* x, double* y, int64_t n, bool log) {
  const int W = cpu::isa() == cpu::Isa::Avx512 ? 8 : 4;
  double mx = -INFINITY;
  for (int64_t k = 0; k < n; ++k) mx = (std::isnan(x[k]) || x[k] > mx) ? x[k] : mx;
  if (log) {
    double s = row_sum_lanes<double>([&](int64_t k) { return sleef::exp(x[k] - mx); }, n, W);
    double ls = sleef::log(s);
    for (int64_t k = 0; k < n; ++k) y[k] = x[k] - mx - ls;
    return;
  }
  for (int64_t k = 0; k < n; ++k) y[k] = sleef::exp(x[k] - mx);
  double r = 1 / row_sum_lanes<double>([&](int64_t k) { return y[k]; }, n, W);
  for (int64_t k = 0; k < n; ++k) y[k] = y[k] * r;
}

// _softmax/_log_softmax(Tensor self, int dim, bool half_to_float)
// Rows are independent and each is computed whole on one thread, so splitting them changes no
// bits: f(i0, i1) over runs of rows of `len` elements, at least about upstream's elementwise
// grain of elements a thread.
template <typename F>
void for_row_ranges(size_t rows, size_t len, F&& f) {
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, int64_t(len)));
  parallel_for(0, int64_t(rows), grain, f);
}
template <typename F>
void for_rows(size_t rows, size_t len, F&& f) {
  for_row_ranges(rows, len, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) f(i);
  });
}

template <bool Log>
void softmax_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  wrap_dim(c.to_int(1), self->dim());
  TN_CHECK(!c.to_bool(2), "softmax with half to float conversion is not supported on CPU");
  TN_CHECK_KIND(is_floating(self->dtype()), NotImplemented, "\"",
                Log ? "log_softmax_lastdim_kernel_impl" : "softmax_kernel_impl",
                "\" not implemented for '", enum_name(self->dtype()), "'");
  c.ret(new_on(self, self->sizes(), self->dtype()));
}

template <bool Log>
void softmax_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &out = c.results[0].tensor;
  std::vector<bool> mask(self->dim(), false);
  if (self->dim() > 0) mask[wrap_dim(c.to_int(1), self->dim())] = true;
  ReduceGeom gi = reduce_geom(self, mask), go = reduce_geom(out, mask);
  size_t n = gi.inner.size();
  bool last_dim = self->dim() > 0 && wrap_dim(c.to_int(1), self->dim()) == self->dim() - 1;
  if (self->dtype() == ScalarType::Float && last_dim && self->is_contiguous() &&
      out->is_contiguous() && n > 0 && vec::vec_width() != 0) {
    const float* x = data_of<float>(self, key);
    float* o = data_of<float>(out, key);
    for_rows(gi.outer.size(), n, [&](int64_t i) {
      vec::softmax_row_f32(x + gi.outer[i], o + go.outer[i], int64_t(n), Log);
    });
    return;
  }
  if (self->dtype() == ScalarType::Double && last_dim && self->is_contiguous() &&
      out->is_contiguous() && n > 0 && sleef::available()) {
    const double* x = data_of<double>(self, key);
    double* o = data_of<double>(out, key);
    for_rows(gi.outer.size(), n, [&](int64_t i) {
      softmax_row_f64(x + gi.outer[i], o + go.outer[i], int64_t(n), Log);
    });
    return;
  }
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* x = data_of<T>(self, key);
      T* o = data_of<T>(out, key);
      for_row_ranges(gi.outer.size(), n, [&](int64_t i0, int64_t i1) {
        std::vector<A> e(n);
        for (int64_t i = i0; i < i1; ++i) {
          const T* b = x + gi.outer[i];
          A mx = -INFINITY;
          for (size_t k = 0; k < n; ++k) {
            A v = A(b[gi.inner[k]]);
            mx = (std::isnan(v) || v > mx) ? v : mx;
          }
          A s = 0;
          for (size_t k = 0; k < n; ++k) {
            e[k] = A(b[gi.inner[k]]) - mx;
            s += std::exp(e[k]);
          }
          T* ob = o + go.outer[i];
          if (Log) {
            A ls = std::log(s);
            for (size_t k = 0; k < n; ++k) ob[go.inner[k]] = T(e[k] - ls);
          } else {
            A r = A(1) / s;
            for (size_t k = 0; k < n; ++k) ob[go.inner[k]] = T(std::exp(e[k]) * r);
          }
        }
      });
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_softmax", softmax_rule<false>, softmax_cpu<false>);
TN_REGISTER_STRUCTURED("aten::_log_softmax", softmax_rule<true>, softmax_cpu<true>);

// softmax.int/log_softmax.int(Tensor self, int dim, ScalarType? dtype=None): self.to(dtype)
// through the door (a composite: every back end casts its own way), then the underscore op (as
// upstream).
template <bool Log>
void softmax_int(Call& c) {
  Tensor in = c.tensor(0);
  if (auto dt = c.optional_dtype(2); dt && *dt != in->dtype())  // Tensor.to, as upstream's
    in = call_tensor("aten::_to_copy", {Value::of(in), Value::of_dtype(*dt)});
  c.ret(call_tensor(Log ? "aten::_log_softmax" : "aten::_softmax",
                    {Value::of(in), c.arg(1), Value::of_bool(false)}));
}
TN_REGISTER_COMPOSITE("aten::softmax.int", softmax_int<false>);
TN_REGISTER_COMPOSITE("aten::log_softmax.int", softmax_int<true>);

// _log_softmax_backward_data / _softmax_backward_data(grad_output, output, dim, input_dtype):
// grad_output's shape; its dtype, except that float32 gradients of a float16 input give float16
// (upstream's rule for its CUDA half-to-float softmax, which its CPU kernel then refuses).
void log_softmax_backward_rule(Call& c) {
  const Tensor &grad = c.tensor(0), &out = c.tensor(1);
  wrap_dim(c.to_int(2), grad->dim());
  TN_CHECK(grad->sizes() == out->sizes(), "grad_output and output must have the same sizes");
  ScalarType dt = grad->dtype();
  if (dt == ScalarType::Float && c.optional_dtype(3) == ScalarType::Half) dt = ScalarType::Half;
  c.ret(new_on(grad, grad->sizes(), dt));
}

// Both backward kernels: grad_input over rows of `len` along dim, `inner` apart; g and y are
// contiguous and of res's dtype, float32 or float64.
template <bool Log>
void softmax_backward_rows(const Tensor& g, const Tensor& y, const Tensor& res, int64_t dim,
                           const std::string& key) {
  int64_t len = g->dim() == 0 ? 1 : g->size(dim), inner = 1, outer = 1;
  for (int64_t i = dim + 1; i < g->dim(); ++i) inner *= g->size(i);
  for (int64_t i = 0; i < dim; ++i) outer *= g->size(i);
  bool simd = sleef::available();
  int bytes = cpu::isa() == cpu::Isa::Avx512 ? 64 : 32;
  dispatch_dtype(g->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* pg = data_of<T>(g, key);
      const T* py = data_of<T>(y, key);
      Tensor o = contiguous(res, key);
      T* po = data_of<T>(o, key);
      const int W = bytes / static_cast<int>(sizeof(T));
      const int64_t inner_vec = inner == 1 ? 0 : inner - inner % W;  // inner's vector part
      // Upstream's softmax backward over the last dim fuses the products of a row's tail into
      // its lane sums where its parallel_for calls the loop on the calling thread (one thread,
      // or a single row), and not where the loop runs in its OpenMP region: two inlinings its
      // compiler contracted differently. Measured on rows of 17 to 100 elements, 1 to 2000
      // rows, at 1, 2 and 3 threads, its AVX-512 and AVX2 builds alike: every row matched the
      // model for its case (tests/ops/test_avx512_kernels.py).
      const bool fuse_tail = !Log && (intra_op_threads() == 1 || outer * inner <= 1 ||
                                      parallel_detail::in_region());
      for_rows(outer * inner, len, [&](int64_t row) {
        const int64_t a = row / inner, b = row % inner;
        const int64_t base = a * len * inner + b;
        const T* rg = pg + base;
        const T* ry = py + base;
        bool vec = simd && (inner == 1 || b < inner_vec);
        if constexpr (std::is_same_v<T, float>) {
          if (inner == 1 && len > 0 && simd && vec::vec_width() != 0) {  // vectorised
            float sum = vec::row_sum_lanes_f32(rg, Log ? nullptr : ry, len, W, fuse_tail);
            (Log ? vec::log_softmax_bwd_row_f32 : vec::softmax_bwd_row_f32)(rg, ry, sum,
                                                                            po + base, len);
            return;
          }
        }
        T sum;
        if (inner == 1) {  // the last dim: reduce_all's lanes
          sum = Log ? row_sum_lanes<T>([&](int64_t k) { return rg[k]; }, len, W)
                    : row_sum_lanes<T>([&](int64_t k) { return rg[k] * ry[k]; }, len, W);
        } else {  // across inner: each element's sum in order, softmax's products fused
          sum = T(0);
          for (int64_t k = 0; k < len; ++k) {
            int64_t i = k * inner;
            sum = Log ? sum + rg[i] : (simd ? std::fma(rg[i], ry[i], sum) : sum + rg[i] * ry[i]);
          }
        }
        for (int64_t k = 0; k < len; ++k) {
          int64_t i = base + k * inner;
          if (Log) {
            T e = vec ? sleef::exp(py[i]) : std::exp(py[i]);
            // Upstream's x - y.exp() * sum, which its compiler contracts into one FMA.
            po[i] = simd ? std::fma(-e, sum, pg[i]) : pg[i] - e * sum;
          } else {
            po[i] = (pg[i] - sum) * py[i];
          }
        }
      });
      if (o.get() != res.get()) copy_cast(res, o, key);
    }
  });
}

// float16 and bfloat16 compute in float as upstream's kernels do (its opmath vectors), the
// result rounded once to the 16-bit type; the float sums' lane order is float32's, so a row
// can differ from upstream's by the 16-bit type's rounding of a float ulp or two.
template <bool Log>
void softmax_backward_cpu(Call& c) {
  const std::string& key = c.key();
  Tensor g = contiguous(c.tensor(0), key), y = contiguous(c.tensor(1), key);
  const Tensor& res = c.results[0].tensor;
  ScalarType dt = g->dtype();
  bool reduced = dt == ScalarType::Half || dt == ScalarType::BFloat16;
  // Upstream's kernel reads output and writes grad_input as grad_output's dtype.
  for (ScalarType other : {y->dtype(), res->dtype()})
    TN_CHECK(other == dt, "expected scalar type ", enum_name(dt), " but found ",
             enum_name(other));
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double || reduced, NotImplemented,
                key, " has no kernel in torchnative for dense CPU tensors of dtype ", name(dt),
                " (float32, float64, float16 and bfloat16)");
  int64_t dim = wrap_dim(c.to_int(2), g->dim());
  if (!reduced) return softmax_backward_rows<Log>(g, y, res, dim, key);
  Tensor gf = cast_to(g, ScalarType::Float, key), yf = cast_to(y, ScalarType::Float, key);
  Tensor of = new_on(gf, gf->sizes(), ScalarType::Float);
  softmax_backward_rows<Log>(gf, yf, of, dim, key);
  copy_cast(res, of, key);
}
TN_REGISTER_STRUCTURED("aten::_log_softmax_backward_data", log_softmax_backward_rule,
                       softmax_backward_cpu<true>);
TN_REGISTER_STRUCTURED("aten::_softmax_backward_data", log_softmax_backward_rule,
                       softmax_backward_cpu<false>);

}  // namespace
}  // namespace tn
