// native_layer_norm (output, mean, rstd) and the layer_norm composite. float32 rows: moments in
// float, vectorised (layer_norm_row_f32), the affine in double and rounded once. Other dtypes:
// moments (pairwise, in double), rstd and the affine y = (x * rstd + (-mean * rstd)) * w + b
// (upstream's form) in double, rounded once to the output dtype. Upstream runs a vectorised float
// Welford and a float affine, so results are not bit-identical but closer to the exact value
// (tests accept upstream's own error, element by element: tests/ops/test_reductions.py).
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//                   float eps) -> (Tensor, Tensor, Tensor)
void layer_norm_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& ns = c.int_list(1);
  const Tensor *w = c.optional_tensor(2), *b = c.optional_tensor(3);
  TN_CHECK(!ns.empty(), "Expected normalized_shape to be at least 1-dimensional, i.e., "
           "containing at least one element, but got normalized_shape = ", dims_str(ns));
  TN_CHECK(!w || (*w)->sizes() == ns, "Expected weight to be of same shape as normalized_shape, "
           "but got weight of shape ", dims_str((*w)->sizes()), " and normalized_shape = ",
           dims_str(ns));
  TN_CHECK(!b || (*b)->sizes() == ns, "Expected bias to be of same shape as normalized_shape, "
           "but got bias of shape ", dims_str((*b)->sizes()), " and normalized_shape = ",
           dims_str(ns));
  int64_t axis = x->dim() - static_cast<int64_t>(ns.size());
  bool ok = axis >= 0 && Dims(x->sizes().begin() + axis, x->sizes().end()) == ns;
  TN_CHECK(ok, "Given normalized_shape=", dims_str(ns), ", expected input with shape [*",
           [&] { std::string s; for (int64_t d : ns) s += ", " + std::to_string(d); return s; }(),
           "], but got input of size", dims_str(x->sizes()));
  TN_CHECK_KIND(is_floating(x->dtype()), NotImplemented,
                "\"LayerNormKernelImpl\" not implemented for '", enum_name(x->dtype()), "'");
  bool mixed = (x->dtype() == ScalarType::Half || x->dtype() == ScalarType::BFloat16) && w &&
               (*w)->dtype() == ScalarType::Float;
  ScalarType stat = mixed ? ScalarType::Float : x->dtype();
  Dims stat_sizes(x->sizes().begin(), x->sizes().begin() + axis);
  stat_sizes.resize(x->dim(), 1);
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, stat_sizes, stat));
  c.ret(new_on(x, stat_sizes, stat));
}

// One float32 row of n. Moments in float, vectorised (16 independent lanes per loop, which GCC
// -O2 vectorises at any width; the lanes are combined pairwise): the mean as hi + lo, hi the
// plain float mean and lo the mean of d = x - hi (the corrected two-pass method), the variance
// as mean(d^2) - lo^2; then rstd and y = (x - mean) * rstd * w + b in double, rounded once.
// Measured on tests/ops/test_reductions.py's rows (it compares element by element): without
// lo, hi's rounding shifts every y of a row alike, and a float affine rounds three times; each
// took ours past upstream's own error on some element (the double affine costs 7 against 6 us
// at 8 x 384). w and b may be null.
__attribute__((always_inline)) inline void layer_norm_row_f32(
    const float* __restrict x, int64_t n, const float* __restrict w, const float* __restrict b,
    double eps, float* __restrict y, float* mean_out, float* rstd_out) {
  constexpr int kLanes = 16;
  auto fold = [](auto* lane) {
    for (int half = kLanes / 2; half > 0; half /= 2)
      for (int j = 0; j < half; ++j) lane[j] += lane[j + half];
    return lane[0];
  };
  const int64_t body = n - n % kLanes;
  float sum[kLanes] = {};
  for (int64_t i = 0; i < body; i += kLanes)
    for (int j = 0; j < kLanes; ++j) sum[j] += x[i + j];
  for (int64_t i = body; i < n; ++i) sum[i - body] += x[i];
  const float hi = fold(sum) / static_cast<float>(n);
  float sd[kLanes] = {}, sq[kLanes] = {};
  for (int64_t i = 0; i < body; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      float d = x[i + j] - hi;
      sd[j] += d;
      sq[j] += d * d;
    }
  for (int64_t i = body; i < n; ++i) {
    float d = x[i] - hi;
    sd[i - body] += d;
    sq[i - body] += d * d;
  }
  const double nd = static_cast<double>(n);
  const double lo = fold(sd) / nd;
  const double var = std::max(fold(sq) / nd - lo * lo, 0.0);
  const double rstd = 1.0 / std::sqrt(var + eps), mean = static_cast<double>(hi) + lo;
  if (w && b) {
    for (int64_t i = 0; i < body; i += kLanes)  // blocks: GCC -O2 vectorises fixed trip counts
      for (int j = 0; j < kLanes; ++j)
        y[i + j] = static_cast<float>((x[i + j] - mean) * rstd * w[i + j] + b[i + j]);
    for (int64_t k = body; k < n; ++k)
      y[k] = static_cast<float>((x[k] - mean) * rstd * w[k] + b[k]);
  } else {
    for (int64_t k = 0; k < n; ++k)
      y[k] = static_cast<float>((x[k] - mean) * rstd * (w ? w[k] : 1.0f) + (b ? b[k] : 0.0f));
  }
  *mean_out = static_cast<float>(mean);
  *rstd_out = static_cast<float>(rstd);
}

// Every float32 row, with layer_norm_row_f32 compiled for AVX2 where the CPU has it (the same
// lanes and no FMA, so the same bits as the baseline build: checked on 230,074 outputs; 40 -> 31
// us at 90 x 384, measured).
__attribute__((target("avx2"))) void layer_norm_rows_avx2(const float* x, int64_t rows,
                                                          int64_t n, const float* w,
                                                          const float* b, double eps, float* y,
                                                          float* mean, float* rstd) {
  for (int64_t r = 0; r < rows; ++r)
    layer_norm_row_f32(x + r * n, n, w, b, eps, y + r * n, mean + r, rstd + r);
}
void layer_norm_rows_base(const float* x, int64_t rows, int64_t n, const float* w,
                          const float* b, double eps, float* y, float* mean, float* rstd) {
  for (int64_t r = 0; r < rows; ++r)
    layer_norm_row_f32(x + r * n, n, w, b, eps, y + r * n, mean + r, rstd + r);
}

void layer_norm_cpu(Call& c) {
  const std::string& key = c.key();
  Tensor x = contiguous(c.tensor(0), key);
  int64_t n = numel_of(c.int_list(1));
  int64_t rows = n ? x->numel() / n : 0;
  const Tensor *w = c.optional_tensor(2), *b = c.optional_tensor(3);
  ScalarType stat = c.results[1].tensor->dtype();
  ScalarType acc = x->dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Tensor wc = w ? contiguous(cast_to(*w, acc, key), key) : Tensor();
  Tensor bc = b ? contiguous(cast_to(*b, acc, key), key) : Tensor();
  double eps = c.to_double(4);
  if (x->dtype() == ScalarType::Float) {
    const float* px = data_of<float>(x, key);
    float* py = data_of<float>(c.results[0].tensor, key);
    const float* pw = w ? data_of<float>(wc, key) : nullptr;
    const float* pb = b ? data_of<float>(bc, key) : nullptr;
    float* pm = data_of<float>(c.results[1].tensor, key);  // new and contiguous (the rule)
    float* pr = data_of<float>(c.results[2].tensor, key);
    static const bool avx2 = __builtin_cpu_supports("avx2");
    (avx2 ? layer_norm_rows_avx2 : layer_norm_rows_base)(px, rows, n, pw, pb, eps, py, pm, pr);
    return;
  }
  Tensor mean_a = empty_tensor({rows}, acc, Device{}), rstd_a = empty_tensor({rows}, acc, Device{});
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* px = data_of<T>(x, key);
      T* py = data_of<T>(c.results[0].tensor, key);
      const A* pw = w ? data_of<A>(wc, key) : nullptr;
      const A* pb = b ? data_of<A>(bc, key) : nullptr;
      A* pm = data_of<A>(mean_a, key);
      A* pr = data_of<A>(rstd_a, key);
      for (int64_t r = 0; r < rows; ++r) {
        const T* xr = px + r * n;
        auto at = [&](int64_t k) { return static_cast<double>(A(xr[k])); };
        double mean = pairwise_sum<double>(0, n, at) / n;
        double var = pairwise_sum<double>(0, n, [&](int64_t k) {
          double d = at(k) - mean;
          return d * d;
        }) / n;
        double rstd = 1.0 / std::sqrt(std::max(var, 0.0) + eps);
        double shift = -mean * rstd;
        for (int64_t k = 0; k < n; ++k) {
          double xk = at(k);
          double y = (pw && pb) ? (xk * rstd + shift) * pw[k] + pb[k]
                                : (xk - mean) * rstd * (pw ? pw[k] : 1.0) + (pb ? pb[k] : 0.0);
          py[r * n + k] = T(static_cast<A>(y));
        }
        pm[r] = static_cast<A>(mean);
        pr[r] = static_cast<A>(rstd);
      }
    }
  });
  Tensor m1 = make_view(mean_a, c.results[1].tensor->sizes(),
                        contiguous_strides(c.results[1].tensor->sizes()), 0);
  Tensor r1 = make_view(rstd_a, m1->sizes(), m1->strides(), 0);
  copy_cast(c.results[1].tensor, cast_to(m1, stat, key), key);
  copy_cast(c.results[2].tensor, cast_to(r1, stat, key), key);
}
TN_REGISTER_STRUCTURED("aten::native_layer_norm", layer_norm_rule, layer_norm_cpu);

// layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enable=True)
void layer_norm(Call& c) {
  c.ret(call("aten::native_layer_norm", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)})[0]);
}
TN_REGISTER_COMPOSITE("aten::layer_norm", layer_norm);

}  // namespace
}  // namespace tn
