// native_batch_norm and native_batch_norm_backward on dense CPU tensors (training with the
// running statistics updated in place, and evaluation), and the composites F.batch_norm
// reaches: batch_norm -> _batch_norm_impl_index -> native_batch_norm. float32 and float64 follow
// upstream's contiguous kernels step by step (batch_norm_kernel.cpp, Normalization.cpp): the
// mean and variance sums in double, over the planes in order (over per-thread float rows when
// an image is one element), the running statistics in upstream's mixed float/double
// arithmetic, the output as x * alpha + beta, the backward's plane sums in the lanes of its
// vector build; Note [Batch norm's contractions] says where upstream's compiler fuses a
// multiply and an add. float16/bfloat16 compute in float (not bit for bit).
#include <immintrin.h>

#include <cmath>
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// Note [Batch norm's contractions]: upstream's batch_norm_kernel.cpp is compiled once per
// vector build with -mfma on AVX2/AVX-512, and GCC contracts some of its a * b + c into one
// fused multiply-add; the DEFAULT build and Normalization.cpp (the running statistics) have
// no FMA. madd() is that step, used where measurement against upstream's bits (float32 and
// float64, tests/autograd/test_conv_pool.py) showed a fused step: the forward's beta and
// x * alpha + beta, the backward's dx, the rows kernel's dot product; the backward's plane
// sums are not fused, and the rows kernel's float32 dx is not (its float64 one is).
bool upstream_fma() { return cpu::isa() != cpu::Isa::Base; }

// The AVX2 bodies below: called only where cpu::cpu_runs(Avx2) (whatever build upstream's
// kernel takes: each does the scalar model's arithmetic, fused only where it says so).
#define TN_BN_AVX2 __attribute__((target("avx2,fma"), optimize("fp-contract=off")))

template <typename P>
P madd(P a, P b, P c) {
  return upstream_fma() ? std::fma(a, b, c) : a * b + c;
}

// The lanes of upstream's Vectorized<P> on the build its batch_norm kernels run (32 bytes: they
// have no AVX-512 entry, so AVX-512 machines run the AVX2 build, cpu::avx2_registered_isa()),
// and its horizontal sum: the shuffle tree of VecReduceAllSIMD for float on AVX2
// and AVX-512 (lane i plus lane i + half, halving), lane by lane in order otherwise.
template <typename P>
int lanes() {
  return 32 / static_cast<int>(sizeof(P));
}
template <typename P>
P hsum(P* v, int w) {
  if (std::is_same_v<P, float> && cpu::isa() != cpu::Isa::Base) {
    for (int half = w / 2; half > 0; half /= 2)
      for (int j = 0; j < half; ++j) v[j] = v[j] + v[j + half];
    return v[0];
  }
  P acc = v[0];
  for (int j = 1; j < w; ++j) acc = acc + v[j];
  return acc;
}

// The lanes of both of upstream's plane sums (reduce_all of dy, map2_reduce_all of
// (x - mean) * dy, neither fused) after the whole vectors of [0, end), end a multiple of the
// lanes and at least one vector; AVX2 bodies for float (8 lanes) and double (4).
TN_BN_AVX2 void plane_lanes_avx2(const float* x, const float* dy, int64_t end, float mean,
                                 float* s, float* d) {
  const __m256 m = _mm256_set1_ps(mean);
  __m256 dv = _mm256_loadu_ps(dy);
  __m256 as = dv, ad = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x), m), dv);
  for (int64_t i = 8; i < end; i += 8) {
    dv = _mm256_loadu_ps(dy + i);
    as = _mm256_add_ps(as, dv);
    ad = _mm256_add_ps(ad, _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), dv));
  }
  _mm256_storeu_ps(s, as);
  _mm256_storeu_ps(d, ad);
}
TN_BN_AVX2 void plane_lanes_avx2(const double* x, const double* dy, int64_t end, double mean,
                                 double* s, double* d) {
  const __m256d m = _mm256_set1_pd(mean);
  __m256d dv = _mm256_loadu_pd(dy);
  __m256d as = dv, ad = _mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(x), m), dv);
  for (int64_t i = 4; i < end; i += 4) {
    dv = _mm256_loadu_pd(dy + i);
    as = _mm256_add_pd(as, dv);
    ad = _mm256_add_pd(ad, _mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(x + i), m), dv));
  }
  _mm256_storeu_pd(s, as);
  _mm256_storeu_pd(d, ad);
}

// dx of one plane in training: (dy - grad_mean - (x - mean) * k) * invstd * w, with the
// product fused into the subtraction where upstream's build fuses it (madd).
TN_BN_AVX2 void bn_dx_avx2(const float* x, const float* dy, int64_t n, float mean, float k,
                           float gm, float invstd, float w, bool fused, float* dx) {
  const __m256 mv = _mm256_set1_ps(mean), kv = _mm256_set1_ps(k), gv = _mm256_set1_ps(gm);
  const __m256 iv = _mm256_set1_ps(invstd), wv = _mm256_set1_ps(w);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 t = _mm256_sub_ps(_mm256_loadu_ps(x + i), mv);
    __m256 c = _mm256_sub_ps(_mm256_loadu_ps(dy + i), gv);
    __m256 r = fused ? _mm256_fnmadd_ps(t, kv, c) : _mm256_sub_ps(c, _mm256_mul_ps(t, kv));
    _mm256_storeu_ps(dx + i, _mm256_mul_ps(_mm256_mul_ps(r, iv), wv));
  }
  for (; i < n; ++i) {
    float t = x[i] - mean, c = dy[i] - gm;
    float r = fused ? std::fma(-t, k, c) : -t * k + c;
    dx[i] = r * invstd * w;
  }
}
TN_BN_AVX2 void bn_dx_avx2(const double* x, const double* dy, int64_t n, double mean, double k,
                           double gm, double invstd, double w, bool fused, double* dx) {
  const __m256d mv = _mm256_set1_pd(mean), kv = _mm256_set1_pd(k), gv = _mm256_set1_pd(gm);
  const __m256d iv = _mm256_set1_pd(invstd), wv = _mm256_set1_pd(w);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d t = _mm256_sub_pd(_mm256_loadu_pd(x + i), mv);
    __m256d c = _mm256_sub_pd(_mm256_loadu_pd(dy + i), gv);
    __m256d r = fused ? _mm256_fnmadd_pd(t, kv, c) : _mm256_sub_pd(c, _mm256_mul_pd(t, kv));
    _mm256_storeu_pd(dx + i, _mm256_mul_pd(_mm256_mul_pd(r, iv), wv));
  }
  for (; i < n; ++i) {
    double t = x[i] - mean, c = dy[i] - gm;
    double r = fused ? std::fma(-t, k, c) : -t * k + c;
    dx[i] = r * invstd * w;
  }
}

// upstream's vec::map2_reduce_all(map, sum, x, dy, n) with map(x, dy) = (x - mean) * dy
// (with_mean) or vec::reduce_all(sum, dy, n) (!with_mean): the first W values start the lanes,
// each further block of W is added (fused when mapped), the tail's lanes replaced.
template <typename P>
P plane_sum(const P* x, const P* dy, int64_t n, bool with_mean, P mean) {
  constexpr int kMax = 16;
  const int w = lanes<P>();
  auto term = [&](int64_t i) { return with_mean ? (x[i] - mean) * dy[i] : dy[i]; };
  P acc[kMax];
  if (n < w) {  // the generic vec_reduce_all over the loaded count
    P s = n > 0 ? term(0) : P(0);
    for (int64_t i = 1; i < n; ++i) s = s + term(i);
    return s;
  }
  for (int j = 0; j < w; ++j) acc[j] = term(j);
  int64_t d = w;
  for (; d < n - n % w; d += w)
    for (int j = 0; j < w; ++j)
      acc[j] = acc[j] + term(d + j);
  for (int j = 0; d + j < n; ++j)
    acc[j] = with_mean ? madd(x[d + j] - mean, dy[d + j], acc[j]) : acc[j] + dy[d + j];
  return hsum(acc, w);
}

// Both plane sums of one plane at once (*sum, *dotp): plane_sum's arithmetic, lane for lane.
template <typename P>
void plane_sums(const P* x, const P* dy, int64_t n, P mean, P* sum, P* dotp) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  const int w = lanes<P>();
  if (!avx2 || n < w) {
    *sum = plane_sum<P>(x, dy, n, false, mean);
    *dotp = plane_sum<P>(x, dy, n, true, mean);
    return;
  }
  P s[16], d[16];
  const int64_t end = n - n % w;
  plane_lanes_avx2(x, dy, end, mean, s, d);
  for (int j = 0; end + j < n; ++j) {
    s[j] = s[j] + dy[end + j];
    d[j] = madd(x[end + j] - mean, dy[end + j], d[j]);
  }
  *sum = hsum(s, w);
  *dotp = hsum(d, w);
}

// y = x * a + b over one plane, fused where upstream's build fuses it (madd): the AVX2 bodies
// keep the per-element arithmetic of the scalar loop, so the bits do not depend on the path.
TN_BN_AVX2 void affine_avx2(const float* x, int64_t n, float a, float b, float* y, bool fused) {
  const __m256 av = _mm256_set1_ps(a), bv = _mm256_set1_ps(b);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    v = fused ? _mm256_fmadd_ps(v, av, bv) : _mm256_add_ps(_mm256_mul_ps(v, av), bv);
    _mm256_storeu_ps(y + i, v);
  }
  for (; i < n; ++i) y[i] = fused ? std::fma(x[i], a, b) : x[i] * a + b;
}
TN_BN_AVX2 void affine_avx2(const double* x, int64_t n, double a, double b, double* y,
                            bool fused) {
  const __m256d av = _mm256_set1_pd(a), bv = _mm256_set1_pd(b);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_loadu_pd(x + i);
    v = fused ? _mm256_fmadd_pd(v, av, bv) : _mm256_add_pd(_mm256_mul_pd(v, av), bv);
    _mm256_storeu_pd(y + i, v);
  }
  for (; i < n; ++i) y[i] = fused ? std::fma(x[i], a, b) : x[i] * a + b;
}
template <typename P>
void affine_plane(const P* x, int64_t n, P a, P b, P* y) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  const bool fused = upstream_fma();
  if (avx2) return affine_avx2(x, n, a, b, y, fused);
  for (int64_t i = 0; i < n; ++i) y[i] = madd(x[i], a, b);
}

// Channels (or planes) per thread at least, for `per` elements each: about upstream's
// elementwise grain, so that small inputs stay on one thread.
int64_t channel_grain(int64_t per) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per));
}

// upstream's at::parallel_for(0, n, 1, f) under OpenMP: min(threads, n) chunks of
// ceil(n / chunks), f(begin, end) for each in turn (on this thread).
template <typename F>
void for_each_thread_chunk(int64_t n, F&& f) {
  int64_t threads = std::max<int64_t>(1, std::min<int64_t>(intra_op_threads(), n));
  int64_t chunk = (n + threads - 1) / threads;
  for (int64_t b = 0; b < n; b += chunk) f(b, std::min(n, b + chunk));
}

// Note [Batch norm's channel sums]: upstream's batch_norm_cpu_collect_stats sums each channel
// in one double chain, in order over (n, i), first the values and then the squared deviations
// (x - mean)^2 rounded in P; each add waits for the one before (about 3 cycles an element).
// Channels are independent, so ours runs the chains of several channels side by side: every
// channel still adds the same values in the same order (the same bits), but the adds of
// different channels overlap. stats_block runs K channels as K scalar chains (any CPU, float and
// double); stats8_avx2 runs 8 float channels as two vectors of 4 double chains, the values of 4
// channels at one i gathered by a 4 x 4 transpose (6x to 10x upstream's speed on 16 x 32 x 32).
template <typename P, int K>
void stats_block(const P* x, int64_t nb, int64_t ch, int64_t image, int64_t c0, P* mean,
                 P* var_sum) {
  double s[K] = {};
  for (int64_t n = 0; n < nb; ++n) {
    const P* p = x + (n * ch + c0) * image;
    for (int64_t i = 0; i < image; ++i)
      for (int k = 0; k < K; ++k) s[k] += p[k * image + i];
  }
  P m[K];
  for (int k = 0; k < K; ++k) {
    m[k] = static_cast<P>(s[k] / (nb * image));
    mean[c0 + k] = m[k];
    s[k] = 0;
  }
  for (int64_t n = 0; n < nb; ++n) {
    const P* p = x + (n * ch + c0) * image;
    for (int64_t i = 0; i < image; ++i)
      for (int k = 0; k < K; ++k) {
        P d = p[k * image + i] - m[k];
        s[k] += d * d;
      }
  }
  for (int k = 0; k < K; ++k) var_sum[c0 + k] = static_cast<P>(s[k]);
}

// stats_block<float, 8> for image % 4 == 0 on AVX2: lanes are channels, rows are i.
TN_BN_AVX2 void stats8_avx2(const float* x, int64_t nb, int64_t ch, int64_t image, int64_t c0,
                            float* mean, float* var_sum) {
  // acc[h] += the 4 values of channels c0 + 4h .. c0 + 4h + 3 at i, i + 1, i + 2, i + 3 in turn;
  // dev: subtract and square (in float) before widening, as upstream's scalar loop does.
  auto sweep = [&](__m256d* acc, bool dev, const __m128* m) {
    for (int64_t n = 0; n < nb; ++n) {
      const float* p = x + (n * ch + c0) * image;
      for (int64_t i = 0; i < image; i += 4)
        for (int h = 0; h < 2; ++h) {
          const float* q = p + 4 * h * image + i;
          __m128 r0 = _mm_loadu_ps(q), r1 = _mm_loadu_ps(q + image);
          __m128 r2 = _mm_loadu_ps(q + 2 * image), r3 = _mm_loadu_ps(q + 3 * image);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          __m128 rows[4] = {r0, r1, r2, r3};
          for (__m128 v : rows) {
            if (dev) {
              v = _mm_sub_ps(v, m[h]);
              v = _mm_mul_ps(v, v);
            }
            acc[h] = _mm256_add_pd(acc[h], _mm256_cvtps_pd(v));
          }
        }
    }
  };
  __m256d acc[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  sweep(acc, false, nullptr);
  alignas(32) double s[8];
  _mm256_store_pd(s, acc[0]);
  _mm256_store_pd(s + 4, acc[1]);
  alignas(16) float m[8];
  for (int k = 0; k < 8; ++k) m[k] = mean[c0 + k] = static_cast<float>(s[k] / (nb * image));
  __m128 mv[2] = {_mm_load_ps(m), _mm_load_ps(m + 4)};
  acc[0] = acc[1] = _mm256_setzero_pd();
  sweep(acc, true, mv);
  _mm256_store_pd(s, acc[0]);
  _mm256_store_pd(s + 4, acc[1]);
  for (int k = 0; k < 8; ++k) var_sum[c0 + k] = static_cast<float>(s[k]);
}

// Channels [c0, c1) through the widest block that fits each run of them.
template <typename P>
void stats_channels(const P* x, int64_t nb, int64_t ch, int64_t image, int64_t c0, int64_t c1,
                    P* mean, P* var_sum) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    if constexpr (std::is_same_v<P, float>) {
      if (avx2 && image % 4 == 0) {
        stats8_avx2(x, nb, ch, image, c, mean, var_sum);
        continue;
      }
    }
    stats_block<P, 8>(x, nb, ch, image, c, mean, var_sum);
  }
  for (; c + 4 <= c1; c += 4) stats_block<P, 4>(x, nb, ch, image, c, mean, var_sum);
  for (; c < c1; ++c) stats_block<P, 1>(x, nb, ch, image, c, mean, var_sum);
}

// Upstream's batch_norm_cpu_collect_stats: per channel the mean and the sum of squared
// deviations of an (n_batch, C, image) contiguous input.
template <typename P>
void collect_stats(const P* x, int64_t nb, int64_t ch, int64_t image, P* mean, P* var_sum) {
  using A = double;  // upstream's acc_type<float/double, false>
  int64_t total = nb * image;
  if (image != 1) {
    // Each channel is summed in order on one thread (Note [Batch norm's channel sums]), so the
    // split over threads, in blocks of 8 channels, changes no bits.
    int64_t blocks = (ch + 7) / 8;
    parallel_for(0, blocks, std::max<int64_t>(1, channel_grain(total) / 8),
                 [&](int64_t b0, int64_t b1) {
      stats_channels<P>(x, nb, ch, image, b0 * 8, std::min(ch, b1 * 8), mean, var_sum);
    });
    return;
  }
  // one element per image: upstream's channels-last reduction, rows summed in P per thread
  std::vector<P> rows;
  for_each_thread_chunk(total, [&](int64_t b, int64_t e) {
    size_t at = rows.size();
    rows.resize(at + static_cast<size_t>(ch), P(0));
    for (int64_t i = b; i < e; ++i)
      for (int64_t c = 0; c < ch; ++c) rows[at + c] = x[i * ch + c] + rows[at + c];
  });
  size_t nrows = rows.size() / static_cast<size_t>(std::max<int64_t>(ch, 1));
  for (int64_t c = 0; c < ch; ++c) {
    A sum = 0;
    for (size_t r = 0; r < nrows; ++r) sum += rows[r * ch + c];
    mean[c] = static_cast<P>(sum / total);
  }
  rows.clear();
  for_each_thread_chunk(total, [&](int64_t b, int64_t e) {
    size_t at = rows.size();
    rows.resize(at + static_cast<size_t>(ch), P(0));
    for (int64_t i = b; i < e; ++i)
      for (int64_t c = 0; c < ch; ++c) {
        P d = x[i * ch + c] - mean[c];
        rows[at + c] = madd(d, d, rows[at + c]);
      }
  });
  for (int64_t c = 0; c < ch; ++c) {
    A vs = 0;
    for (size_t r = 0; r < nrows; ++r) vs += rows[r * ch + c];
    var_sum[c] = static_cast<P>(vs);
  }
}

// native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//                   Tensor? running_var, bool training, float momentum, float eps)
ScalarType stat_dtype(const Tensor& x, const Tensor* w) {
  bool reduced = x->dtype() == ScalarType::Half || x->dtype() == ScalarType::BFloat16;
  return reduced && w && (*w)->dtype() == ScalarType::Float ? ScalarType::Float : x->dtype();
}
void batch_norm_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK_KIND(is_floating(x->dtype()), NotImplemented, "\"batch_norm\" not implemented for '",
                enum_name(x->dtype()), "'");
  TN_CHECK(x->dim() >= 2, "native_batch_norm: expected an input of at least 2 dims, but got ",
           dims_str(x->sizes()));
  bool train = c.to_bool(5);
  int64_t ch = x->size(1);
  ScalarType st = stat_dtype(x, c.optional_tensor(1));
  const char* names[] = {"", "weight", "bias", "running_mean", "running_var"};
  for (size_t i = 1; i <= 4; ++i) {
    const Tensor* t = c.optional_tensor(i);
    if (!t) continue;
    TN_CHECK((*t)->numel() == ch, names[i], " should contain ", ch, " elements not ",
             (*t)->numel());
    TN_CHECK((*t)->dtype() == x->dtype() || (*t)->dtype() == st, "expected scalar type ",
             enum_name(st), " but found ", enum_name((*t)->dtype()));
  }
  TN_CHECK(train || (c.optional_tensor(3) && c.optional_tensor(4)),
           "running_mean must be defined in evaluation mode");
  TN_CHECK(!train || x->numel() != 0, "input tensor must have at least one element, but got "
           "input_sizes = ", dims_str(x->sizes()));
  // Upstream's kernel reads the running statistics through 1-d accessors (weight and bias by
  // their elements).
  for (size_t i = 3; i <= 4; ++i) {
    const Tensor* t = c.optional_tensor(i);
    TN_CHECK(!t || (*t)->dim() == 1, "TensorAccessor expected 1 dims but tensor has ",
             (*t)->dim());
  }
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.ret(new_on(x, Dims{train ? ch : 0}, st));
  c.ret(new_on(x, Dims{train ? ch : 0}, st));
}

// A parameter as a contiguous P buffer (ones or zeros when absent).
template <typename P>
std::vector<P> param(const Tensor* t, int64_t ch, P fill, const std::string& key) {
  std::vector<P> v(static_cast<size_t>(ch), fill);
  if (!t) return v;
  Tensor cc = contiguous(cast_to(*t, std::is_same_v<P, double> ? ScalarType::Double
                                                               : ScalarType::Float, key), key);
  const P* p = data_of<P>(cc, key);
  for (int64_t i = 0; i < ch; ++i) v[i] = p[i];
  return v;
}
// Writes ch values of P into a 1-d tensor of any float dtype and stride.
template <typename P>
void store(const Tensor& t, const std::vector<P>& v, const std::string& key) {
  Tensor src = empty_tensor({static_cast<int64_t>(v.size())},
                            std::is_same_v<P, double> ? ScalarType::Double : ScalarType::Float,
                            Device{});
  P* p = data_of<P>(src, key);
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
  copy_cast(t, make_view(src, t->sizes(), contiguous_strides(t->sizes()), 0), key);
}

template <typename T, typename P>
void batch_norm_forward(Call& c) {
  const std::string& key = c.key();
  Tensor x = contiguous(c.tensor(0), key);
  const Tensor *rm = c.optional_tensor(3), *rv = c.optional_tensor(4);
  bool train = c.to_bool(5);
  double momentum = c.to_double(6), eps = c.to_double(7);
  int64_t nb = x->size(0), ch = x->size(1);
  int64_t image = nb * ch ? x->numel() / (nb * ch) : 0;
  Tensor xp = cast_to(x, std::is_same_v<P, double> ? ScalarType::Double : ScalarType::Float, key);
  const P* px = data_of<P>(xp, key);
  std::vector<P> w = param<P>(c.optional_tensor(1), ch, P(1), key);
  std::vector<P> b = param<P>(c.optional_tensor(2), ch, P(0), key);
  std::vector<P> mean(static_cast<size_t>(ch)), invstd(static_cast<size_t>(ch));
  if (train) {
    std::vector<P> vs(static_cast<size_t>(ch));
    collect_stats<P>(px, nb, ch, image, mean.data(), vs.data());
    int64_t n = nb * image;
    std::vector<P> rmv = rm ? param<P>(rm, ch, P(0), key) : std::vector<P>();
    std::vector<P> rvv = rv ? param<P>(rv, ch, P(0), key) : std::vector<P>();
    P mom = static_cast<P>(momentum);
    for (int64_t f = 0; f < ch; ++f) {
      double var = vs[f] / n;  // upstream's InvStd<acc_type> of var_sum / n
      invstd[f] = (var != 0 || eps != 0) ? static_cast<P>(1 / std::sqrt(var + eps)) : P(0);
      if (rm) rmv[f] = mom * mean[f] + (1 - mom) * rmv[f];
      if (rv) {
        double unbiased = vs[f] / (n - 1);
        rvv[f] = static_cast<P>(mom * unbiased + (1 - mom) * rvv[f]);
      }
    }
    if (rm) store(*rm, rmv, key);
    if (rv) store(*rv, rvv, key);
    store(c.results[1].tensor, mean, key);
    store(c.results[2].tensor, invstd, key);
  } else {
    std::vector<P> rmv = param<P>(rm, ch, P(0), key), rvv = param<P>(rv, ch, P(0), key);
    for (int64_t f = 0; f < ch; ++f) {
      mean[f] = rmv[f];
      invstd[f] = 1 / std::sqrt(rvv[f] + static_cast<P>(eps));
    }
  }
  if (x->numel() == 0) return;
  std::vector<P> alpha(static_cast<size_t>(ch)), beta(static_cast<size_t>(ch));
  for (int64_t f = 0; f < ch; ++f) {
    alpha[f] = invstd[f] * w[f];
    beta[f] = madd(-mean[f], alpha[f], b[f]);
  }
  T* y = data_of<T>(c.results[0].tensor, key);
  parallel_for(0, nb * ch, channel_grain(image), [&](int64_t p0, int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {  // plane pl = n * ch + f
      int64_t f = pl % ch, off = pl * image;
      if constexpr (std::is_same_v<T, P>) {
        affine_plane(px + off, image, alpha[f], beta[f], y + off);
      } else {
        for (int64_t i = 0; i < image; ++i) y[off + i] = T(madd(px[off + i], alpha[f], beta[f]));
      }
    }
  });
}

void batch_norm_cpu(Call& c) {
  switch (c.tensor(0)->dtype()) {
    case ScalarType::Double: return batch_norm_forward<double, double>(c);
    case ScalarType::Float: return batch_norm_forward<float, float>(c);
    case ScalarType::Half: return batch_norm_forward<Half, float>(c);
    case ScalarType::BFloat16: return batch_norm_forward<BFloat16, float>(c);
    default: TN_FAIL(Internal, "batch_norm: dtype passed the rule");
  }
}
TN_REGISTER_STRUCTURED("aten::native_batch_norm", batch_norm_rule, batch_norm_cpu);
// upstream's _batch_norm_legit_cpu is batch_norm_cpu (composite/batch_norm_legit.cpp).
TN_REGISTER_STRUCTURED("aten::_native_batch_norm_legit", batch_norm_rule, batch_norm_cpu);

// native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight,
//   Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd,
//   bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
void batch_norm_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  TN_CHECK_KIND(is_floating(x->dtype()), NotImplemented,
                "\"batch_norm_backward_cpu\" not implemented for '", enum_name(x->dtype()), "'");
  TN_CHECK(go->sizes() == x->sizes(), "native_batch_norm_backward: expected grad_out of size ",
           dims_str(x->sizes()), ", but got ", dims_str(go->sizes()));
  bool train = c.to_bool(7);
  TN_CHECK(train ? (c.optional_tensor(5) && c.optional_tensor(6))
                 : (c.optional_tensor(3) && c.optional_tensor(4)),
           train ? "native_batch_norm_backward: training needs save_mean and save_invstd"
                 : "native_batch_norm_backward: evaluation needs running_mean and running_var");
  const std::vector<bool>& m = c.arg(9).bools;
  TN_CHECK(m.size() == 3, "native_batch_norm_backward: output_mask must have 3 values");
  ScalarType st = stat_dtype(x, c.optional_tensor(2));
  int64_t ch = x->size(1);
  if (m[0]) c.ret(new_on(x, x->sizes(), x->dtype())); else c.ret(Value{});
  if (m[1]) c.ret(new_on(x, Dims{ch}, st)); else c.ret(Value{});
  if (m[2]) c.ret(new_on(x, Dims{ch}, st)); else c.ret(Value{});
}

template <typename T, typename P>
void batch_norm_backward(Call& c) {
  const std::string& key = c.key();
  ScalarType pt = std::is_same_v<P, double> ? ScalarType::Double : ScalarType::Float;
  Tensor x = contiguous(cast_to(c.tensor(1), pt, key), key);
  Tensor go = contiguous(cast_to(c.tensor(0), pt, key), key);
  bool train = c.to_bool(7);
  double eps = c.to_double(8);
  int64_t nb = x->size(0), ch = x->size(1);
  int64_t image = nb * ch ? x->numel() / (nb * ch) : 0;
  int64_t total = nb * image;
  const P *px = data_of<P>(x, key), *pg = data_of<P>(go, key);
  std::vector<P> w = param<P>(c.optional_tensor(2), ch, P(1), key);
  std::vector<P> mean, invstd;
  if (train) {
    mean = param<P>(c.optional_tensor(5), ch, P(0), key);
    invstd = param<P>(c.optional_tensor(6), ch, P(0), key);
  } else {
    mean = param<P>(c.optional_tensor(3), ch, P(0), key);
    std::vector<P> rv = param<P>(c.optional_tensor(4), ch, P(0), key);
    invstd.resize(static_cast<size_t>(ch));
    for (int64_t f = 0; f < ch; ++f) invstd[f] = static_cast<P>(1 / std::sqrt(rv[f] + eps));
  }
  const Tensor* gi = c.results[0].is_none() ? nullptr : &c.results[0].tensor;
  std::vector<P> gw(static_cast<size_t>(ch)), gb(static_cast<size_t>(ch));
  T* pgi = gi ? data_of<T>(*gi, key) : nullptr;
  // One element per image: upstream's channels-last kernel, whose sums are rows of P per
  // thread (summed in double) and whose grad_mean and gradients stay in P.
  bool rows_path = image == 1;
  std::vector<P> row_sum, row_dot;
  if (rows_path) {
    row_sum.assign(static_cast<size_t>(ch), P(0));
    row_dot.assign(static_cast<size_t>(ch), P(0));
    std::vector<double> s(static_cast<size_t>(ch)), d(static_cast<size_t>(ch));
    for_each_thread_chunk(total, [&](int64_t b, int64_t e) {
      std::vector<P> rs(static_cast<size_t>(ch), P(0)), rd(static_cast<size_t>(ch), P(0));
      for (int64_t i = b; i < e; ++i)
        for (int64_t f = 0; f < ch; ++f) {
          rs[f] = rs[f] + pg[i * ch + f];
          rd[f] = madd(px[i * ch + f] - mean[f], pg[i * ch + f], rd[f]);
        }
      for (int64_t f = 0; f < ch; ++f) s[f] += rs[f], d[f] += rd[f];
    });
    for (int64_t f = 0; f < ch; ++f) row_sum[f] = static_cast<P>(s[f]), row_dot[f] = static_cast<P>(d[f]);
  }
  // Per channel: its sums (in order, on one thread), its gradient planes, its dw and db.
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  parallel_for(0, ch, channel_grain(total), [&](int64_t f0, int64_t f1) {
    for (int64_t f = f0; f < f1; ++f) {
      double sum = 0, dotp = 0;
      if (rows_path) {
        sum = row_sum[f];
        dotp = row_dot[f];
      }
      for (int64_t n = 0; n < nb && !rows_path; ++n) {
        int64_t off = (n * ch + f) * image;
        P ps, pd;
        plane_sums<P>(px + off, pg + off, image, mean[f], &ps, &pd);
        sum += ps;
        dotp += pd;
      }
      if (pgi) {
        if (train) {
          P k = static_cast<P>(dotp) * invstd[f] * invstd[f] / static_cast<P>(total);
          P grad_mean = rows_path ? static_cast<P>(sum) / static_cast<P>(total)
                                  : static_cast<P>(sum / total);
          for (int64_t n = 0; n < nb; ++n) {
            int64_t off = (n * ch + f) * image;
            if constexpr (std::is_same_v<T, P>) {
              if (!rows_path && avx2) {
                bn_dx_avx2(px + off, pg + off, image, mean[f], k, grad_mean, invstd[f], w[f],
                           upstream_fma(), pgi + off);
                continue;
              }
            }
            for (int64_t i = 0; i < image; ++i) {
              // measured: upstream's float rows kernel rounds the product apart
              P dx = rows_path && std::is_same_v<P, float>
                         ? (pg[off + i] - grad_mean) - (px[off + i] - mean[f]) * k
                         : madd(-(px[off + i] - mean[f]), k, pg[off + i] - grad_mean);
              pgi[off + i] = T(dx * invstd[f] * w[f]);
            }
          }
        } else {
          for (int64_t n = 0; n < nb; ++n) {
            int64_t off = (n * ch + f) * image;
            for (int64_t i = 0; i < image; ++i) pgi[off + i] = T(pg[off + i] * invstd[f] * w[f]);
          }
        }
      }
      gw[f] = rows_path ? static_cast<P>(dotp) * invstd[f] : static_cast<P>(dotp * invstd[f]);
      gb[f] = static_cast<P>(sum);
    }
  });
  if (!c.results[1].is_none()) store(c.results[1].tensor, gw, key);
  if (!c.results[2].is_none()) store(c.results[2].tensor, gb, key);
}

void batch_norm_backward_cpu(Call& c) {
  switch (c.tensor(1)->dtype()) {
    case ScalarType::Double: return batch_norm_backward<double, double>(c);
    case ScalarType::Float: return batch_norm_backward<float, float>(c);
    case ScalarType::Half: return batch_norm_backward<Half, float>(c);
    case ScalarType::BFloat16: return batch_norm_backward<BFloat16, float>(c);
    default: TN_FAIL(Internal, "batch_norm_backward: dtype passed the rule");
  }
}
TN_REGISTER_STRUCTURED("aten::native_batch_norm_backward", batch_norm_backward_rule,
                       batch_norm_backward_cpu);

// _batch_norm_impl_index(input, weight, bias, running_mean, running_var, training, momentum,
// eps, cudnn_enabled) -> (out, save_mean, save_invstd, reserve, 0): upstream's checks, its
// empty-input answer, else native_batch_norm (the CPU's only choice) and an empty reserve.
void batch_norm_impl_index(Call& c) {
  const Tensor& x = c.tensor(0);
  Tensor reserve = ops::empty({0}, ScalarType::Byte, x->device());
  // Upstream answers an empty input before any check, even one of fewer than 2 dims (its
  // channel count is then read past the sizes; ours says 0).
  int64_t ch = x->dim() >= 2 ? x->size(1) : 0;
  if (x->numel() == 0) {
    ScalarType acc = x->dtype() == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
    Tensor out = ops::clone_contiguous(x);
    auto first = [&](size_t i) {
      return call_tensor("aten::select.int", {c.arg(i), ops::i64(0), ops::i64(0)});
    };
    if (c.optional_tensor(1))
      out = call_tensor("aten::mul.Tensor", {ops::t(out), ops::t(first(1))});
    if (c.optional_tensor(2))
      out = call_tensor("aten::add.Tensor", {ops::t(out), ops::t(first(2))});
    c.ret(out);
    c.ret(ops::empty({ch}, acc, x->device()));
    c.ret(ops::empty({ch}, acc, x->device()));
    c.ret(reserve);
    c.ret(Value::of_int(0));
    return;
  }
  TN_CHECK(x->dim() >= 2, "batch_norm: expected an input of at least 2 dims, but got ",
           dims_str(x->sizes()));
  bool train = c.to_bool(5);
  const char* names[] = {"", "weight", "bias", "running_mean", "running_var"};
  for (size_t i : {3, 4}) {
    const Tensor* t = c.optional_tensor(i);
    if (t)
      TN_CHECK((*t)->numel() == ch, names[i], " should contain ", ch, " elements not ",
               (*t)->numel());
    else
      TN_CHECK(train, names[i], " must be defined in evaluation mode");
  }
  for (size_t i : {1, 2}) {
    const Tensor* t = c.optional_tensor(i);
    if (t)
      TN_CHECK((*t)->numel() == ch, names[i], " should contain ", ch, " elements not ",
               (*t)->numel());
  }
  std::vector<Value> r = call("aten::native_batch_norm",
                              {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                               c.arg(6), c.arg(7)});
  for (Value& v : r) c.ret(std::move(v));
  c.ret(reserve);
  c.ret(Value::of_int(0));
}
TN_REGISTER_COMPOSITE("aten::_batch_norm_impl_index", batch_norm_impl_index);

// batch_norm(...): the output of _batch_norm_impl_index.
void batch_norm(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.end());
  c.ret(std::move(call("aten::_batch_norm_impl_index", std::move(args))[0]));
}
TN_REGISTER_COMPOSITE("aten::batch_norm", batch_norm);

}  // namespace
}  // namespace tn
