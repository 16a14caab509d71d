// native_layer_norm_backward on dense CPU float32/float64 tensors, with upstream's arithmetic
// (its LayerNormBackwardKernelImpl): per row of N, a = rstd,
//   ds = sum(dy * x * w), db = sum(dy * w)   (w = 1 without a weight)
//   b = (db * mean - ds) * a^3 / N,  c = -b * mean - db * a / N,  dx = a * dy * w + b * x + c
// and the weight's and bias's gradients summed per thread into rows of a (2, threads, N) buffer
// (dw += dy * (a * x - a * mean), db += dy), then over the threads' rows in order. The rows are
// split among torch.get_num_threads() chunks as upstream's parallel_for splits them, so each
// partial sum holds the rows it holds in upstream's process; the chunks run on their threads.
//
// Which steps upstream's AVX2 build fuses was measured against its results (rows of 3 to 768,
// with and without a weight, 1 and 2 threads, float32 and float64), each combination tried:
// the sums run in vector lanes (float: folded as a halving tree; double: in lane order) with
// the products apart in the body and fused into the running sum in the tail; b's first
// difference, c and dx's b * x + (a * dy * w) fused; the buffer's a * x + b and its
// accumulation fused. Without FMA (the baseline build) every step rounds apart.
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

template <typename T, bool On>
struct LnFma {
  T operator()(T a, T b, T c) const {
    if constexpr (On) return std::fma(a, b, c);
    else return a * b + c;
  }
};

// Upstream's map_reduce_all of at(j) = p(j) * q(j) over n: below a vector, in order; else lane
// sums (products apart), the tail fused into its first lanes, the lanes folded.
template <typename T, int W, bool Fma, typename P, typename Q>
__attribute__((always_inline)) inline T lane_dot(int64_t n, P&& p, Q&& q) {
  const LnFma<T, Fma> madd;
  if (n < W) {
    T acc = p(0) * q(0);
    for (int64_t j = 1; j < n; ++j) acc = acc + p(j) * q(j);
    return acc;
  }
  T lane[16];
  for (int l = 0; l < W; ++l) lane[l] = p(l) * q(l);
  int64_t d = W;
  for (; d < n - n % W; d += W)
    for (int l = 0; l < W; ++l) lane[l] = lane[l] + p(d + l) * q(d + l);
  for (int64_t l = 0; l < n - d; ++l) lane[l] = madd(p(d + l), q(d + l), lane[l]);
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
// Upstream's reduce_all of x over n (no products: nothing to fuse).
template <typename T, int W>
__attribute__((always_inline)) inline T lane_sum(int64_t n, const T* x) {
  return lane_dot<T, W, false>(n, [&](int64_t j) { return x[j]; }, [](int64_t) { return T(1); });
}

// The rows' pass: dx, and each thread's partial rows of the parameters' gradients.
template <typename T>
struct LnRows {
  const T *dy, *x, *mean, *rstd, *w;
  T *dx, *buf_w, *buf_b;
  int64_t rows, n, chunk;
};
template <typename T, int W, bool Fma>
__attribute__((always_inline)) inline void ln_backward_rows_impl(const LnRows<T>& r) {
  const T *dy = r.dy, *x = r.x, *mean = r.mean, *rstd = r.rstd, *w = r.w;
  T* dx = r.dx;
  const int64_t rows = r.rows, n = r.n, chunk = r.chunk;
  const bool dw_out = r.buf_w != nullptr, db_out = r.buf_b != nullptr;
  const LnFma<T, Fma> madd;
  const T scale = T(1) / static_cast<T>(n);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t tid = i / chunk;
    const T* dyr = dy + i * n;
    const T* xr = x + i * n;
    const T a = rstd[i];
    if (dw_out) {
      const T bb = -a * mean[i];
      T* acc = r.buf_w + tid * n;
      // ivdep: the buffers and dx are arrays of their own (GCC would not vectorise these
      // loops at -O2 without proving it: 1.04 against upstream's 0.48 ms a GPT-2 step).
#pragma GCC ivdep
      for (int64_t j = 0; j < n; ++j) acc[j] = madd(dyr[j], madd(a, xr[j], bb), acc[j]);
    }
    if (db_out) {
      T* acc = r.buf_b + tid * n;
#pragma GCC ivdep
      for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] + dyr[j];
    }
    if (dx) {
      T ds, db;
      if (w) {
        ds = lane_dot<T, W, Fma>(n, [&](int64_t j) { return dyr[j] * xr[j]; },
                                 [&](int64_t j) { return w[j]; });
        db = lane_dot<T, W, Fma>(n, [&](int64_t j) { return dyr[j]; },
                                 [&](int64_t j) { return w[j]; });
      } else {
        ds = lane_dot<T, W, Fma>(n, [&](int64_t j) { return dyr[j]; },
                                 [&](int64_t j) { return xr[j]; });
        db = lane_sum<T, W>(n, dyr);
      }
      const T b = madd(db, mean[i], -ds) * a * a * a * scale;
      const T cc = madd(-b, mean[i], -(db * a * scale));
      T* dxr = dx + i * n;
      if (w) {  // two loops rather than a test per element, so that each vectorises
#pragma GCC ivdep
        for (int64_t j = 0; j < n; ++j) dxr[j] = madd(b, xr[j], a * dyr[j] * w[j]) + cc;
      } else {
#pragma GCC ivdep
        for (int64_t j = 0; j < n; ++j) dxr[j] = madd(b, xr[j], a * dyr[j]) + cc;
      }
    }
  }
}
// The builds: fused steps as std::fma (one instruction with FMA), contraction off. The AVX2
// build vectorises its loops under GCC's dynamic cost model (-O2's very cheap one leaves a loop
// of unknown length scalar); per-element steps and the lanes' order are unchanged by it.
#define TN_LN_BWD_AVX2 \
  __attribute__((target("avx2,fma"), optimize("fp-contract=off", "vect-cost-model=dynamic")))
#define TN_LN_BWD(NAME, ATTR, T, W, FMA) \
  ATTR void NAME(const LnRows<T>& r) { ln_backward_rows_impl<T, W, FMA>(r); }
TN_LN_BWD(ln_bwd_avx2_f32, TN_LN_BWD_AVX2,
          float, 8, true)
TN_LN_BWD(ln_bwd_base_f32, __attribute__((optimize("fp-contract=off"))), float, 8, false)
TN_LN_BWD(ln_bwd_avx2_f64, TN_LN_BWD_AVX2,
          double, 4, true)
TN_LN_BWD(ln_bwd_base_f64, __attribute__((optimize("fp-contract=off"))), double, 4, false)
#undef TN_LN_BWD
#undef TN_LN_BWD_AVX2
void ln_backward_rows(const LnRows<float>& r) {
  cpu::avx2_registered_isa() == cpu::Isa::Avx2 ? ln_bwd_avx2_f32(r) : ln_bwd_base_f32(r);
}
void ln_backward_rows(const LnRows<double>& r) {
  cpu::avx2_registered_isa() == cpu::Isa::Avx2 ? ln_bwd_avx2_f64(r) : ln_bwd_base_f64(r);
}

// native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape,
//   Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask)
//   -> (Tensor, Tensor, Tensor)
void layer_norm_backward_rule(Call& c) {
  const Tensor &dy = c.tensor(0), &x = c.tensor(1);
  const Dims& ns = c.int_list(2);
  const Tensor *w = c.optional_tensor(5), *b = c.optional_tensor(6);
  int64_t axis = x->dim() - static_cast<int64_t>(ns.size());
  TN_CHECK(!ns.empty() && axis >= 0 && Dims(x->sizes().begin() + axis, x->sizes().end()) == ns,
           "native_layer_norm_backward: normalized_shape ", dims_str(ns),
           " does not end the input's shape ", dims_str(x->sizes()));
  TN_CHECK(dy->sizes() == x->sizes(), "native_layer_norm_backward: grad_out of shape ",
           dims_str(dy->sizes()), " where the input has ", dims_str(x->sizes()));
  TN_CHECK_KIND(x->dtype() == ScalarType::Float || x->dtype() == ScalarType::Double,
                NotImplemented, "aten.native_layer_norm_backward.default has no kernel in "
                "torchnative for dense CPU tensors of dtype ", name(x->dtype()),
                " (float32 and float64 only)");
  for (const Tensor* t : {&dy, &c.tensor(3), &c.tensor(4), w, b})
    TN_CHECK(!t || (*t)->dtype() == x->dtype(), "native_layer_norm_backward: expected every "
             "tensor in ", enum_name(x->dtype()), ", got ", enum_name((*t)->dtype()));
  for (const Tensor* p : {w, b})
    TN_CHECK(!p || (*p)->sizes() == ns, "native_layer_norm_backward: a weight or bias of shape ",
             dims_str((*p)->sizes()), " where normalized_shape is ", dims_str(ns));
  const std::vector<bool>& m = c.arg(7).bools;
  TN_CHECK(m.size() == 3, "native_layer_norm_backward: output_mask must have 3 values");
  // Upstream allocates a parameter's gradient like the parameter: asked for one it was not
  // given, it raises on the undefined tensor.
  TN_CHECK((!m[1] || w) && (!m[2] || b), "tensor does not have a device");
  int64_t rows = 1, n = 1;
  for (int64_t i = 0; i < x->dim(); ++i) (i < axis ? rows : n) *= x->size(i);
  int64_t stats = c.tensor(3)->numel();
  TN_CHECK(stats == rows && c.tensor(4)->numel() == rows, "native_layer_norm_backward: mean "
           "and rstd must hold one value per row (", rows, "), got ", stats, " and ",
           c.tensor(4)->numel());
  if (m[0]) c.ret(new_on(x, x->sizes(), x->dtype())); else c.ret(Value{});
  // The parameters' gradients take normalized_shape (the kernel needs neither parameter).
  if (m[1]) c.ret(new_on(x, ns, x->dtype())); else c.ret(Value{});
  if (m[2]) c.ret(new_on(x, ns, x->dtype())); else c.ret(Value{});
}

template <typename T>
void layer_norm_backward(Call& c) {
  const std::string& key = c.key();
  Tensor dyt = contiguous(c.tensor(0), key), xt = contiguous(c.tensor(1), key);
  Tensor mt = contiguous(c.tensor(3), key), rt = contiguous(c.tensor(4), key);
  const Tensor* wp = c.optional_tensor(5);
  Tensor wt = wp ? contiguous(*wp, key) : Tensor();
  int64_t n = 1;
  for (int64_t d : c.int_list(2)) n *= d;
  int64_t rows = n ? xt->numel() / n : 0;
  const Tensor* dx_out = c.results[0].is_none() ? nullptr : &c.results[0].tensor;
  const Tensor* dw_out = c.results[1].is_none() ? nullptr : &c.results[1].tensor;
  const Tensor* db_out = c.results[2].is_none() ? nullptr : &c.results[2].tensor;
  if (rows == 0 || n == 0) {  // upstream: zeros for the parameters, dx left as allocated
    for (const Tensor* t : {dw_out, db_out}) {
      if (!t) continue;
      Tensor o = contiguous(*t, key);
      std::fill(data_of<T>(o, key), data_of<T>(o, key) + o->numel(), T(0));
      if (o.get() != t->get()) copy_cast(*t, o, key);
    }
    return;
  }
  const T *dy = data_of<T>(dyt, key), *x = data_of<T>(xt, key);
  const T *mean = data_of<T>(mt, key), *rstd = data_of<T>(rt, key);
  const T* w = wp ? data_of<T>(wt, key) : nullptr;
  Tensor dxt = dx_out ? contiguous(*dx_out, key) : Tensor();
  T* dx = dx_out ? data_of<T>(dxt, key) : nullptr;
  const int64_t threads = std::max<int64_t>(1, intra_op_threads());
  const int64_t used = std::min<int64_t>(threads, rows);
  const int64_t chunk = (rows + used - 1) / used;
  std::vector<T> buf_w(dw_out ? threads * n : 0, T(0)), buf_b(db_out ? threads * n : 0, T(0));
  LnRows<T> r{dy, x, mean, rstd, w, dx, dw_out ? buf_w.data() : nullptr,
              db_out ? buf_b.data() : nullptr, rows, n, chunk};
  // Upstream's parallel_for(0, rows, 1) chunks, one per thread: chunk t sums into partial row
  // t of the parameters' gradients and writes only its own rows of dx, so running the chunks
  // at once changes no bits.
  parallel_for(0, rows, 1, [&](int64_t b, int64_t e) {
    LnRows<T> part = r;
    part.dy += b * n;
    part.x += b * n;
    part.mean += b;
    part.rstd += b;
    if (part.dx) part.dx += b * n;
    const int64_t tid = b / chunk;
    if (part.buf_w) part.buf_w += tid * n;
    if (part.buf_b) part.buf_b += tid * n;
    part.rows = part.chunk = e - b;  // the part's rows all sum into its one partial row
    ln_backward_rows(part);
  });
  auto finish = [&](const Tensor* out, const std::vector<T>& buf) {
    if (!out) return;
    Tensor o = contiguous(*out, key);
    T* po = data_of<T>(o, key);
    for (int64_t j = 0; j < n; ++j) {
      T s = T(0);
      for (int64_t t = 0; t < threads; ++t) s += buf[t * n + j];
      po[j] = s;
    }
    if (o.get() != out->get()) copy_cast(*out, o, key);
  };
  finish(dw_out, buf_w);
  finish(db_out, buf_b);
  if (dx && dxt.get() != dx_out->get()) copy_cast(*dx_out, dxt, key);
}

void layer_norm_backward_cpu(Call& c) {
  if (c.tensor(1)->dtype() == ScalarType::Double) return layer_norm_backward<double>(c);
  layer_norm_backward<float>(c);
}
TN_REGISTER_STRUCTURED("aten::native_layer_norm_backward", layer_norm_backward_rule,
                       layer_norm_backward_cpu);

}  // namespace
}  // namespace tn
