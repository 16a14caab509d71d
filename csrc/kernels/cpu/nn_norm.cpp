// native_layer_norm (output, mean, rstd) and the layer_norm composite. float32 rows: moments in
// float, vectorised (layer_norm_row_f32), the affine in double and rounded once. Other dtypes:
// moments (pairwise, in double), rstd and the affine y = (x * rstd + (-mean * rstd)) * w + b
// (upstream's form) in double, rounded once to the output dtype. Upstream runs a vectorised float
// Welford and a float affine, so results are not bit-identical but closer to the exact value
// (tests accept upstream's own error, element by element: tests/ops/test_reductions.py).
#include <immintrin.h>

#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/nn_norm.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
//                   float eps) -> (Tensor, Tensor, Tensor)
// Upstream's argument checks of native_layer_norm (shared by its rule and layer_norm_dense);
// returns the first normalized axis.
int64_t check_layer_norm(const Tensor& x, const Dims& ns, const Tensor* w, const Tensor* b) {
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
  // Upstream's CPU kernel takes float parameters for a reduced-precision input ("mixed
  // dtype") and otherwise parameters of the input's dtype, the weight checked before the bias.
  for (const Tensor* p : {w, b}) {
    if (!p) continue;
    bool mixed = x->dtype() != ScalarType::Float && x->dtype() != ScalarType::Double &&
                 (*p)->dtype() == ScalarType::Float;
    TN_CHECK(mixed || (*p)->dtype() == x->dtype() || p == b,
             "mixed dtype (CPU): expect parameter to have scalar type of ", enum_name(x->dtype()));
    TN_CHECK(mixed || (*p)->dtype() == x->dtype(), "expected scalar type ", enum_name(x->dtype()),
             " but found ", enum_name((*p)->dtype()));
  }
  return axis;
}

void layer_norm_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  const Tensor *w = c.optional_tensor(2), *b = c.optional_tensor(3);
  int64_t axis = check_layer_norm(x, c.int_list(1), w, b);
  bool mixed = (x->dtype() == ScalarType::Half || x->dtype() == ScalarType::BFloat16) && w &&
               (*w)->dtype() == ScalarType::Float;
  ScalarType stat = mixed ? ScalarType::Float : x->dtype();
  Dims stat_sizes(x->sizes().begin(), x->sizes().begin() + axis);
  stat_sizes.resize(x->dim(), 1);
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, stat_sizes, stat));
  c.ret(new_on(x, stat_sizes, stat));
}

// From a row's lane sums: mean = hi + lo, lo the mean of d = x - hi (sd = sum of d), and
// rstd from the variance mean(d^2) - lo^2 (sq = sum of d^2), in double.
inline void finish_moments(float hi, float sd, float sq, int64_t n, double eps, double* mean,
                           double* rstd) {
  const double nd = static_cast<double>(n);
  const double lo = sd / nd;
  const double var = std::max(sq / nd - lo * lo, 0.0);
  *rstd = 1.0 / std::sqrt(var + eps);
  *mean = static_cast<double>(hi) + lo;
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
  double mean, rstd;
  finish_moments(hi, fold(sd), fold(sq), n, eps, &mean, &rstd);
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
// layer_norm_row_f32's lanes and steps written out for AVX-512F (GCC keeps 256-bit vectors
// when left to vectorise). AVX-512F has FMA instructions, so contraction is switched off for
// this function (GCC fuses a * b + c in intrinsics and in finish_moments otherwise, which the
// test caught): each float and double operation has the same operands, so the same bits
// (tests/cpp/test_nn_norm.cpp: rows of every length 1..40 and 384 against the baseline build).
// The affine runs 8 doubles at a time.
__attribute__((target("avx512f"))) inline float fold16(__m512 v) {
  __m256 a = _mm256_add_ps(_mm512_castps512_ps256(v),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  b = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(b, _mm_shuffle_ps(b, b, 1)));
}
__attribute__((target("avx512f"), optimize("fp-contract=off"))) void layer_norm_rows_avx512(
    const float* x, int64_t rows, int64_t n, const float* w, const float* b, double eps, float* y,
    float* mean_out, float* rstd_out) {
  const int64_t body = n - n % 16, body8 = n - n % 8;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - body)) - 1);
  // w and b widened to double once for every row (exact), not once per row: 17.1 -> 13 us at
  // 90 x 384, measured.
  constexpr int64_t kStack = 1024;
  alignas(64) double stack_wb[2 * kStack];
  std::vector<double> heap_wb(w && b && n > kStack ? 2 * n : 0);
  double* wd = n > kStack ? heap_wb.data() : stack_wb;
  double* bd = wd + n;
  if (w && b)
    for (int64_t k = 0; k < n; ++k) wd[k] = w[k], bd[k] = b[k];
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    __m512 sum = _mm512_setzero_ps();
    for (int64_t i = 0; i < body; i += 16) sum = _mm512_add_ps(sum, _mm512_loadu_ps(xr + i));
    __m512 xt = _mm512_maskz_loadu_ps(tail, xr + body);
    sum = _mm512_mask_add_ps(sum, tail, sum, xt);
    const float hi = fold16(sum) / static_cast<float>(n);
    const __m512 hv = _mm512_set1_ps(hi);
    __m512 sd = _mm512_setzero_ps(), sq = _mm512_setzero_ps();
    for (int64_t i = 0; i < body; i += 16) {
      __m512 d = _mm512_sub_ps(_mm512_loadu_ps(xr + i), hv);
      sd = _mm512_add_ps(sd, d);
      sq = _mm512_add_ps(sq, _mm512_mul_ps(d, d));
    }
    __m512 dt = _mm512_sub_ps(xt, hv);
    sd = _mm512_mask_add_ps(sd, tail, sd, dt);
    sq = _mm512_mask_add_ps(sq, tail, sq, _mm512_mul_ps(dt, dt));
    double mean, rstd;
    finish_moments(hi, fold16(sd), fold16(sq), n, eps, &mean, &rstd);
    int64_t k = 0;
    if (w && b) {
      const __m512d mv = _mm512_set1_pd(mean), rv = _mm512_set1_pd(rstd);
      for (; k < body8; k += 8) {
        __m512d xd = _mm512_cvtps_pd(_mm256_loadu_ps(xr + k));
        __m512d yd = _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(xd, mv), rv),
                                   _mm512_loadu_pd(wd + k));
        yd = _mm512_add_pd(yd, _mm512_loadu_pd(bd + k));
        _mm256_storeu_ps(yr + k, _mm512_cvtpd_ps(yd));
      }
    }
    for (; k < n; ++k)
      yr[k] = static_cast<float>((xr[k] - mean) * rstd * (w ? w[k] : 1.0f) + (b ? b[k] : 0.0f));
    mean_out[r] = static_cast<float>(mean);
    rstd_out[r] = static_cast<float>(rstd);
  }
}
void layer_norm_rows_base(const float* x, int64_t rows, int64_t n, const float* w,
                          const float* b, double eps, float* y, float* mean, float* rstd) {
  for (int64_t r = 0; r < rows; ++r)
    layer_norm_row_f32(x + r * n, n, w, b, eps, y + r * n, mean + r, rstd + r);
}

// Every float32 row on the build cpu::isa() chooses (the same bits on each).
void layer_norm_rows(const float* x, int64_t rows, int64_t n, const float* w, const float* b,
                     double eps, float* y, float* mean, float* rstd) {
  static const auto rows_fn = cpu::isa() == cpu::Isa::Avx512 ? layer_norm_rows_avx512
                              : cpu::isa() == cpu::Isa::Avx2 ? layer_norm_rows_avx2
                                                             : layer_norm_rows_base;
  rows_fn(x, rows, n, w, b, eps, y, mean, rstd);
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
    layer_norm_rows(px, rows, n, pw, pb, eps, py, pm, pr);
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

// layer_norm on dense CPU tensors: for a contiguous float32 input with float32 contiguous (or
// absent) weight and bias, native_layer_norm's checks and row kernel run here directly, mean and
// rstd (which layer_norm drops) in scratch memory rather than two new tensors; anything else
// takes the composite above, and so does any call a dispatch mode watches. Same result, same
// errors; it skips a second pass through the door and two allocations (measured by callgrind
// at 8 x 384: see the commit).
void layer_norm_dense(Call& c) {
  const Tensor& x = c.tensor(0);
  const Tensor *w = c.optional_tensor(2), *b = c.optional_tensor(3);
  auto plain = [](const Tensor* t) {
    return !t || ((*t)->dtype() == ScalarType::Float && (*t)->is_contiguous());
  };
  // A dispatch mode (the Python key) must see upstream's decomposition, native_layer_norm.
  bool watched = (c.keys & key_bit(DispatchKey::Python)) != 0;
  if (watched || x->dtype() != ScalarType::Float || !x->is_contiguous() || !plain(w) || !plain(b))
    return layer_norm(c);
  const Dims& ns = c.int_list(1);
  check_layer_norm(x, ns, w, b);
  const std::string& key = c.key();
  int64_t n = numel_of(ns);
  int64_t rows = n ? x->numel() / n : 0;
  Tensor y = new_on(x, x->sizes(), ScalarType::Float);
  constexpr int64_t kStackRows = 256;
  float stack_stats[2 * kStackRows];
  std::vector<float> heap_stats(rows > kStackRows ? 2 * rows : 0);
  float* stats = rows > kStackRows ? heap_stats.data() : stack_stats;
  layer_norm_rows(data_of<float>(x, key), rows, n, w ? data_of<float>(*w, key) : nullptr,
                  b ? data_of<float>(*b, key) : nullptr, c.to_double(4),
                  data_of<float>(y, key), stats, stats + rows);
  c.ret(std::move(y));
}
TN_REGISTER_KERNEL("aten::layer_norm", DenseCPU, layer_norm_dense);

}  // namespace

namespace norm {
bool isa_supported(Isa isa) { return cpu::cpu_runs(isa); }
void layer_norm_rows_f32(Isa isa, const float* x, int64_t rows, int64_t n, const float* w,
                         const float* b, double eps, float* y, float* mean, float* rstd) {
  TN_ASSERT(isa_supported(isa));
  auto fn = isa == Isa::Avx512 ? layer_norm_rows_avx512
            : isa == Isa::Avx2 ? layer_norm_rows_avx2
                               : layer_norm_rows_base;
  fn(x, rows, n, w, b, eps, y, mean, rstd);
}
}  // namespace norm
}  // namespace tn
