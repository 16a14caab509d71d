// native_layer_norm (output, mean, rstd) and the layer_norm composite. float32 and float64
// rows: upstream's kernel as its build computes it (ln_moments below: bit for bit on this
// machine's AVX2). float16/bfloat16: moments (pairwise, in double), rstd and the affine
// y = (x * rstd + (-mean * rstd)) * w + b in double, rounded once to the output dtype, closer to
// the exact value than upstream's float Welford (tests accept upstream's own error, element by
// element: tests/ops/test_reductions.py).
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/nn_norm.h"
#include "kernels/cpu/parallel.h"
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

// Upstream's RowwiseMoments (its Welford with a cascade) and LayerNormKernelImplInternal, as
// its build for the CPU runs them: vectors of W lanes (AVX2: 8 floats or 4 doubles, also on
// AVX-512 machines, which run that build: cpu::avx2_registered_isa(); the baseline build:
// AVX2's width, no FMA). Per row of n, n / W whole vectors in
// chunks of 16: each chunk's lanes take Welford's steps (m1 += d / (j + 1) and
// m2 += d (x - m1), both fused), each chunk merges into a stack of partial moments that
// combines pairwise as the chunk count's binary digits carry; the stack folds into its bottom;
// the tail past the last whole vector runs Welford's steps apart (unfused), and the W lanes
// merge into it one by one. A vector merge computes m1 += c d apart and
// m2 = (m0 d) (c d) + (m2 + m2_add) as one fused step: that is what upstream's AVX2 build's
// compiler made of m2 += m2_add + d d c m0 (read from its machine code: the products are
// regrouped to share c d with m1's step); a lane merge keeps the source's order,
// m1 += c d fused and m2 += (d d c) m0 + m2_add fused. Then rstd = 1 / sqrt(var + eps) and
// y = ((x - mean) rstd) w + b, fused. Measured bit for bit against upstream's mean, rstd and y
// on rows of 1 to 4,100 floats and doubles (AVX2, and on an AVX-512 machine). The baseline model
// keeps the source's order unfused; it is not measured here.
template <typename T, bool Fma>
inline T ln_madd(T a, T b, T c) {
  if constexpr (Fma) return std::fma(a, b, c);
  else return a * b + c;
}
template <typename T, int W>
struct LnLanes {
  T v[W];
};
template <typename T, int W, bool Fma>
__attribute__((always_inline)) inline void ln_merge_vec(int64_t m0_add, const LnLanes<T, W>& m1a,
                                                        const LnLanes<T, W>& m2a, int64_t& m0,
                                                        LnLanes<T, W>& m1, LnLanes<T, W>& m2) {
  const int64_t total = m0 + m0_add;
  const T c = total == 0 ? T(0) : static_cast<T>(m0_add) / static_cast<T>(total);
  const T m0f = static_cast<T>(m0);
  for (int l = 0; l < W; ++l) {
    const T d = m1a.v[l] - m1.v[l];
    const T cd = c * d;
    m1.v[l] = m1.v[l] + cd;
    if constexpr (Fma) m2.v[l] = std::fma(m0f * d, cd, m2.v[l] + m2a.v[l]);
    else m2.v[l] = m2.v[l] + (m2a.v[l] + d * d * c * m0f);
  }
  m0 = total;
}
template <typename T, bool Fma>
inline void ln_merge(int64_t m0_add, T m1a, T m2a, int64_t& m0, T& m1, T& m2) {
  const int64_t total = m0 + m0_add;
  const T c = total == 0 ? T(0) : static_cast<T>(m0_add) / static_cast<T>(total);
  const T d = m1a - m1;
  m1 = ln_madd<T, Fma>(d, c, m1);
  m2 = m2 + ln_madd<T, Fma>(d * d * c, static_cast<T>(m0), m2a);
  m0 = total;
}
// R rows of n (row r at x + r stride): each one's mean and (biased) variance. The R rows step
// together, each through exactly the sequence above, so a row's result does not depend on R:
// interleaved, their Welford chains (each step waits for the last) fill each other's latency.
template <typename T, int W, bool Fma, int R>
__attribute__((always_inline)) inline void ln_moments(const T* x, int64_t stride, int64_t n,
                                                      T* mean, T* var) {
  constexpr int kChunk = 16, kMaxDepth = 64;
  const int64_t vecs = n / W, chunks = (vecs + kChunk - 1) / kChunk;
  int depth = 0;
  while ((int64_t(1) << depth) < chunks) ++depth;
  int64_t m0s[R][kMaxDepth];
  LnLanes<T, W> m1s[R][kMaxDepth], m2s[R][kMaxDepth];
  const int live = depth > 0 ? depth : 1;
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < live; ++k) {
      m0s[r][k] = 0;
      for (int l = 0; l < W; ++l) m1s[r][k].v[l] = m2s[r][k].v[l] = T(0);
    }
  for (int64_t i = 0; i < chunks; ++i) {
    const T* p = x + i * kChunk * W;
    const int64_t m0 = std::min<int64_t>(kChunk, vecs - i * kChunk);
    LnLanes<T, W> a1[R], a2[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int l = 0; l < W; ++l) a1[r].v[l] = a2[r].v[l] = T(0);
    for (int64_t j = 0; j < m0; ++j) {
      const T c = T(1) / static_cast<T>(j + 1);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int l = 0; l < W; ++l) {
          const T xv = p[r * stride + j * W + l];
          const T d = xv - a1[r].v[l];
          a1[r].v[l] = ln_madd<T, Fma>(d, c, a1[r].v[l]);
          a2[r].v[l] = ln_madd<T, Fma>(d, xv - a1[r].v[l], a2[r].v[l]);
        }
    }
    for (int r = 0; r < R; ++r) {
      ln_merge_vec<T, W, Fma>(m0, a1[r], a2[r], m0s[r][0], m1s[r][0], m2s[r][0]);
      int64_t mask = i + 1;
      for (int k = 1; k < depth && (mask & 1) == 0; ++k) {
        ln_merge_vec<T, W, Fma>(m0s[r][k - 1], m1s[r][k - 1], m2s[r][k - 1], m0s[r][k],
                                m1s[r][k], m2s[r][k]);
        m0s[r][k - 1] = 0;
        for (int l = 0; l < W; ++l) m1s[r][k - 1].v[l] = m2s[r][k - 1].v[l] = T(0);
        mask >>= 1;
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int k = 1; k < depth; ++k)
      ln_merge_vec<T, W, Fma>(m0s[r][k], m1s[r][k], m2s[r][k], m0s[r][0], m1s[r][0], m2s[r][0]);
    const T* xr = x + r * stride;
    int64_t m0 = 0;
    T m1 = 0, m2 = 0;
    for (int64_t k = vecs * W; k < n; ++k) {
      const T d = xr[k] - m1;
      ++m0;
      m1 += d / static_cast<T>(m0);
      m2 += d * (xr[k] - m1);
    }
    for (int l = 0; l < W; ++l) ln_merge<T, Fma>(vecs, m1s[r][0].v[l], m2s[r][0].v[l], m0, m1, m2);
    mean[r] = m1;
    var[r] = m2 / static_cast<T>(n);
  }
}
// Rows of n normalised into y (w, b: n each, or null), with each row's mean and rstd.
template <typename T, int W, bool Fma>
__attribute__((always_inline)) inline void ln_rows(const T* x, int64_t rows, int64_t n,
                                                   const T* w, const T* b, double eps, T* y,
                                                   T* mean, T* rstd) {
  constexpr int kRows = 4;  // rows whose moments step together
  const T e = static_cast<T>(eps);
  T ms[kRows], vs[kRows];
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int group = static_cast<int>(std::min<int64_t>(kRows, rows - r0));
    if (group == kRows) ln_moments<T, W, Fma, kRows>(x + r0 * n, n, n, ms, vs);
    else
      for (int g = 0; g < group; ++g) ln_moments<T, W, Fma, 1>(x + (r0 + g) * n, 0, n, ms + g, vs + g);
    for (int g = 0; g < group; ++g) {
      const int64_t r = r0 + g;
      const T* xr = x + r * n;
      T* yr = y + r * n;
      const T m = ms[g];
      const T rs = T(1) / std::sqrt(vs[g] + e);
      if (w && b) {  // the common case apart, so that the loop vectorises
        for (int64_t k = 0; k < n; ++k) yr[k] = ln_madd<T, Fma>((xr[k] - m) * rs, w[k], b[k]);
      } else {
        for (int64_t k = 0; k < n; ++k)
          yr[k] = ln_madd<T, Fma>((xr[k] - m) * rs, w ? w[k] : T(1), b ? b[k] : T(0));
      }
      mean[r] = m;
      rstd[r] = rs;
    }
  }
}
// The builds: each compiles the model with its instruction set, fused steps as std::fma
// (one instruction there) and contraction off, so that the compiler fuses nothing else.
#define TN_LN_ROWS(NAME, ATTR, T, W, FMA)                                                     \
  ATTR void NAME(const T* x, int64_t rows, int64_t n, const T* w, const T* b, double eps,    \
                 T* y, T* mean, T* rstd) {                                                   \
    ln_rows<T, W, FMA>(x, rows, n, w, b, eps, y, mean, rstd);                                \
  }
#define TN_LN_AVX2 \
  __attribute__((target("avx2,fma"), optimize("fp-contract=off", "vect-cost-model=dynamic")))
#define TN_LN_BASE __attribute__((optimize("fp-contract=off")))
TN_LN_ROWS(layer_norm_rows_avx2, TN_LN_AVX2, float, 8, true)
TN_LN_ROWS(layer_norm_rows_base, TN_LN_BASE, float, 8, false)
TN_LN_ROWS(layer_norm_rows_avx2_f64, TN_LN_AVX2, double, 4, true)
TN_LN_ROWS(layer_norm_rows_base_f64, TN_LN_BASE, double, 4, false)
// The AVX2 model compiled without AVX2 (std::fma a library call): the test's reference for
// what the AVX2 build must give.
TN_LN_ROWS(layer_norm_rows_avx2_portable, TN_LN_BASE, float, 8, true)

// Every row on the build upstream's LayerNormKernel takes (cpu::avx2_registered_isa()).
void layer_norm_rows(const float* x, int64_t rows, int64_t n, const float* w, const float* b,
                     double eps, float* y, float* mean, float* rstd) {
  static const auto rows_fn = cpu::avx2_registered_isa() == cpu::Isa::Avx2
                                  ? layer_norm_rows_avx2
                                  : layer_norm_rows_base;
  rows_fn(x, rows, n, w, b, eps, y, mean, rstd);
}
void layer_norm_rows(const double* x, int64_t rows, int64_t n, const double* w, const double* b,
                     double eps, double* y, double* mean, double* rstd) {
  static const auto rows_fn = cpu::avx2_registered_isa() == cpu::Isa::Avx2
                                  ? layer_norm_rows_avx2_f64
                                  : layer_norm_rows_base_f64;
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
  if (x->dtype() == ScalarType::Float || x->dtype() == ScalarType::Double) {
    auto run = [&](auto zero) {
      using T = decltype(zero);
      const T* px = data_of<T>(x, key);
      const T* pw = w ? data_of<T>(wc, key) : nullptr;
      const T* pb = b ? data_of<T>(bc, key) : nullptr;
      T* py = data_of<T>(c.results[0].tensor, key);
      T* pm = data_of<T>(c.results[1].tensor, key);  // new and contiguous (the rule)
      T* pr = data_of<T>(c.results[2].tensor, key);
      // Rows are independent, each computed whole on one thread: the split changes no bits.
      const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n));
      parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
        layer_norm_rows(px + r0 * n, r1 - r0, n, pw, pb, eps, py + r0 * n, pm + r0, pr + r0);
      });
    };
    if (x->dtype() == ScalarType::Float) run(0.0f); else run(0.0);
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
  const float* px = data_of<float>(x, key);
  const float* pw = w ? data_of<float>(*w, key) : nullptr;
  const float* pb = b ? data_of<float>(*b, key) : nullptr;
  float* py = data_of<float>(y, key);
  const double eps = c.to_double(4);
  // Split as layer_norm_cpu splits: whole rows per thread, so the split changes no bits.
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    layer_norm_rows(px + r0 * n, r1 - r0, n, pw, pb, eps, py + r0 * n, stats + r0,
                    stats + rows + r0);
  });
  c.ret(std::move(y));
}
TN_REGISTER_KERNEL("aten::layer_norm", DenseCPU, layer_norm_dense);

}  // namespace

namespace norm {
bool isa_supported(Isa isa) { return cpu::cpu_runs(isa); }
void layer_norm_rows_f32(Isa isa, const float* x, int64_t rows, int64_t n, const float* w,
                         const float* b, double eps, float* y, float* mean, float* rstd) {
  TN_ASSERT(isa_supported(isa));
  // Upstream's LayerNormKernel has no AVX-512 entry: its AVX-512 machines run the AVX2 build.
  auto fn = isa != Isa::Base ? layer_norm_rows_avx2 : layer_norm_rows_base;
  fn(x, rows, n, w, b, eps, y, mean, rstd);
}
void layer_norm_rows_f32_avx2_portable(const float* x, int64_t rows, int64_t n, const float* w,
                                       const float* b, double eps, float* y, float* mean,
                                       float* rstd) {
  layer_norm_rows_avx2_portable(x, rows, n, w, b, eps, y, mean, rstd);
}
}  // namespace norm
}  // namespace tn
