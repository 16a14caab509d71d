// 2-d pooling on dense CPU tensors, forward and backward: max_pool2d_with_indices (a window's
// first maximum, NaN winning, as upstream's kernel), avg_pool2d (the window summed in the
// accumulation type, in row order, divided once) and _adaptive_avg_pool2d (upstream's
// start/end index rule, divided by the window's height then its width); the composites
// max_pool2d, max_pool1d(_with_indices) and adaptive_avg_pool2d. Rules quote upstream's
// checks (Pool.h, DilatedMaxPool2d.cpp, AveragePool2d.cpp, AdaptiveAveragePooling.cpp).
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// A 2-d pooling's parameters, each as (height, width).
struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  int64_t planes, ih, iw, oh, ow;  // planes: batch * channels
};

// Upstream's div_rtn (floor division) for the output size.
int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

// Upstream's pooling_output_shape, with its checks.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  TN_CHECK(s != 0, "stride should not be zero");
  TN_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad);
  TN_CHECK(pad <= ((k - 1) * d + 1) / 2, "pad should be at most half of effective kernel size, "
           "but got pad=", pad, ", kernel_size=", k, " and dilation=", d);
  int64_t out = div_floor(in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0), s) + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

// Upstream's pool2d_shape_check (contiguous layout).
void pool2d_shape_check(const Tensor& x, const Pool2d& p) {
  TN_CHECK(p.kw > 0 && p.kh > 0, "kernel size should be greater than zero, but got kH: ", p.kh,
           " kW: ", p.kw);
  TN_CHECK(p.sw > 0 && p.sh > 0, "stride should be greater than zero, but got dH: ", p.sh,
           " dW: ", p.sw);
  TN_CHECK(p.dh > 0 && p.dw > 0, "dilation should be greater than zero, but got dilationH: ",
           p.dh, " dilationW: ", p.dw);
  int64_t nd = x->dim();
  bool valid = x->size(1) != 0 && x->size(2) != 0;
  TN_CHECK((nd == 3 && x->size(0) != 0 && valid) || (nd == 4 && valid && x->size(3) != 0),
           "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
           "got:", dims_str(x->sizes()));
  TN_CHECK(p.kw / 2 >= p.pw && p.kh / 2 >= p.ph, "pad should be smaller than or equal to half "
           "of kernel size, but got padW = ", p.pw, ", padH = ", p.ph, ", kW = ", p.kw,
           ", kH = ", p.kh);
  int64_t c = x->size(x->dim() - 3);
  TN_CHECK(p.ow >= 1 && p.oh >= 1, "Given input size: (", c, "x", p.ih, "x", p.iw, "). ",
           "Calculated output size: (", c, "x", p.oh, "x", p.ow, "). Output size is too small");
}

// The parameters of max_pool2d / avg_pool2d from their int lists (name prefixes the messages).
Pool2d pool2d_params(const Tensor& x, const Dims& k, const Dims& s, const Dims& pad,
                     const Dims* dil, bool ceil, const char* name, bool is_max) {
  TN_CHECK(k.size() == 1 || k.size() == 2, name,
           ": kernel_size must either be a single int, or a tuple of two ints");
  Pool2d p{};
  p.kh = k[0];
  p.kw = k.size() == 1 ? p.kh : k[1];
  TN_CHECK(s.empty() || s.size() == 1 || s.size() == 2, name,
           ": stride must either be omitted, a single int, or a tuple of two ints");
  p.sh = s.empty() ? p.kh : s[0];
  p.sw = s.empty() ? p.kw : s.size() == 1 ? p.sh : s[1];
  TN_CHECK(pad.size() == 1 || pad.size() == 2, name, is_max
           ? ": padding must be either be a single int, or a tuple of two ints"
           : ": padding must either be a single int, or a tuple of two ints");
  p.ph = pad[0];
  p.pw = pad.size() == 1 ? p.ph : pad[1];
  if (dil) {
    TN_CHECK(dil->size() == 1 || dil->size() == 2, name,
             ": dilation must be either a single int, or a tuple of two ints");
    p.dh = (*dil)[0];
    p.dw = dil->size() == 1 ? p.dh : (*dil)[1];
  }
  TN_CHECK(x->dim() == 3 || x->dim() == 4,
           "non-empty 3D or 4D (batch mode) tensor expected for input");
  p.ih = x->size(x->dim() - 2);
  p.iw = x->size(x->dim() - 1);
  p.oh = pool_out(p.ih, p.kh, p.ph, p.sh, p.dh, ceil);
  p.ow = pool_out(p.iw, p.kw, p.pw, p.sw, p.dw, ceil);
  p.planes = x->numel() / std::max<int64_t>(p.ih * p.iw, 1);
  if (p.ih * p.iw == 0) p.planes = x->dim() == 4 ? x->size(0) * x->size(1) : x->size(0);
  pool2d_shape_check(x, p);
  return p;
}

Dims pooled_sizes(const Tensor& x, const Pool2d& p) {
  Dims out = x->sizes();
  out[out.size() - 2] = p.oh;
  out[out.size() - 1] = p.ow;
  return out;
}

// Planes per thread at least: about upstream's elementwise grain of outputs, so small pools
// stay on one thread.
int64_t plane_grain(int64_t outputs_per_plane) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, outputs_per_plane));
}

template <typename T>
constexpr bool kPoolType = !std::is_same_v<T, bool>;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<double>(v));
}

// max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                         int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)
Pool2d max_pool_params(const Call& c, size_t first) {
  const Tensor& x = c.tensor(first);
  return pool2d_params(x, c.int_list(first + 1), c.int_list(first + 2), c.int_list(first + 3),
                       &c.int_list(first + 4), c.to_bool(first + 5), "max_pool2d", true);
}
void max_pool2d_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  Pool2d p = max_pool_params(c, 0);
  c.ret(new_on(x, pooled_sizes(x, p), x->dtype()));
  c.ret(new_on(x, pooled_sizes(x, p), ScalarType::Long));
  c.keep_rule_state(p);
}
// Note [max_pool2d's 2 x 2 windows]: the common window (2 x 2, stride 2, no padding, no
// dilation) of a float32 plane runs as AVX2 compares and blends, 8 outputs at a time: the four
// candidates in upstream's scan order (row then column), each taken when greater than the
// maximum so far or NaN, exactly as the scalar loop decides, without its branches (random data
// mispredicts about one in two; the branchy loop took 17 ns an output, upstream's as much).
// The rows' remaining outputs and other dtypes take the scalar loop.
#define TN_POOL_AVX2 __attribute__((target("avx2,fma")))
// The even (odd) columns of 16 consecutive floats, in order.
TN_POOL_AVX2 __attribute__((always_inline)) inline __m256 split(__m256 lo, __m256 hi, bool odd) {
  __m256 v = odd ? _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))
                 : _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}
// One output row of 2 x 2 windows from input row r0 (and r0 + iw): out, ind (base + the window's
// offset in the plane) for the first multiple of 8 outputs; returns how many it wrote.
TN_POOL_AVX2 int64_t max_pool_2x2_row_avx2(const float* r0, int64_t iw, int64_t ow,
                                           int64_t base, float* out, int64_t* ind) {
  int64_t j = 0;
  const __m256i two = _mm256_set1_epi32(2), lanes = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  for (; j + 8 <= ow; j += 8) {
    const float* a = r0 + 2 * j;
    const __m256 t0 = _mm256_loadu_ps(a), t1 = _mm256_loadu_ps(a + 8);
    const __m256 b0 = _mm256_loadu_ps(a + iw), b1 = _mm256_loadu_ps(a + iw + 8);
    const __m256 cand[3] = {split(t0, t1, true), split(b0, b1, false), split(b0, b1, true)};
    const __m256i off[3] = {_mm256_set1_epi32(1), _mm256_set1_epi32(static_cast<int>(iw)),
                            _mm256_set1_epi32(static_cast<int>(iw + 1))};
    __m256 m = split(t0, t1, false);
    __m256i o = _mm256_setzero_si256();
    for (int k = 0; k < 3; ++k) {
      __m256 take = _mm256_or_ps(_mm256_cmp_ps(cand[k], m, _CMP_GT_OQ),
                                 _mm256_cmp_ps(cand[k], cand[k], _CMP_UNORD_Q));
      m = _mm256_blendv_ps(m, cand[k], take);
      o = _mm256_blendv_epi8(o, off[k], _mm256_castps_si256(take));
    }
    _mm256_storeu_ps(out + j, m);
    // index = base + 2 * (j + lane) + offset, widened to int64
    __m256i idx = _mm256_add_epi32(_mm256_add_epi32(lanes, o),
                                   _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(j)), two));
    __m256i bv = _mm256_set1_epi64x(base);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ind + j),
                        _mm256_add_epi64(bv, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ind + j + 4),
                        _mm256_add_epi64(bv, _mm256_cvtepi32_epi64(
                                                 _mm256_extracti128_si256(idx, 1))));
  }
  return j;
}

void max_pool2d_cpu(Call& c) {
  const std::string& key = c.key();
  const Pool2d& p = *c.rule_state<Pool2d>();
  Tensor x = contiguous(c.tensor(0), key);
  int64_t* ind = data_of<int64_t>(c.results[1].tensor, key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      const T lowest = std::numeric_limits<T>::has_infinity
                           ? T(-std::numeric_limits<float>::infinity())
                           : std::numeric_limits<T>::lowest();
      static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
      const bool fast = std::is_same_v<T, float> && avx2 && p.kh == 2 && p.kw == 2 &&
                        p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 && p.dh == 1 &&
                        p.dw == 1 && p.ih * p.iw < (int64_t{1} << 30);
      // Planes are independent: split between threads (each output element is computed as on
      // one thread).
      parallel_for(0, p.planes, plane_grain(p.oh * p.ow), [&](int64_t pl0, int64_t pl1) {
        for (int64_t pl = pl0; pl < pl1; ++pl) {
          const T* ip = in + pl * p.ih * p.iw;
          for (int64_t i = 0; i < p.oh; ++i)
            for (int64_t j = fast ? max_pool_2x2_row_avx2(
                                        reinterpret_cast<const float*>(ip) + 2 * i * p.iw, p.iw,
                                        p.ow, 2 * i * p.iw, reinterpret_cast<float*>(out) +
                                        (pl * p.oh + i) * p.ow, ind + (pl * p.oh + i) * p.ow)
                                  : 0;
                 j < p.ow; ++j) {
              int64_t h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
              int64_t h1 = std::min(h0 + (p.kh - 1) * p.dh + 1, p.ih);
              int64_t w1 = std::min(w0 + (p.kw - 1) * p.dw + 1, p.iw);
              while (h0 < 0) h0 += p.dh;
              while (w0 < 0) w0 += p.dw;
              int64_t best = h0 * p.iw + w0;
              T maxv = lowest;
              for (int64_t y = h0; y < h1; y += p.dh)
                for (int64_t xx = w0; xx < w1; xx += p.dw) {
                  T v = ip[y * p.iw + xx];
                  if (v > maxv || is_nan(v)) {
                    maxv = v;
                    best = y * p.iw + xx;
                  }
                }
              int64_t o = (pl * p.oh + i) * p.ow + j;
              out[o] = maxv;
              ind[o] = best;
            }
        }
      });
    } else {
      TN_FAIL(NotImplemented, "\"max_pool2d\" not implemented for '", enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::max_pool2d_with_indices", max_pool2d_rule, max_pool2d_cpu);

// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size,
//   int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor
void max_pool2d_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1), &ind = c.tensor(7);
  Pool2d p = max_pool_params(c, 1);
  Dims want = pooled_sizes(x, p);
  TN_CHECK(go->sizes() == want && ind->sizes() == want, "max_pool2d_with_indices_backward: "
           "expected grad_output and indices of size ", dims_str(want), ", but got ",
           dims_str(go->sizes()), " and ", dims_str(ind->sizes()));
  TN_CHECK(ind->dtype() == ScalarType::Long, "max_pool2d_with_indices_backward: expected indices "
           "of dtype Long, but got ", enum_name(ind->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(p);
}
// Whether every one of n indices is -1 or in [0, limit): AVX2 compares, 4 at a time, no branch
// per index (the scalar check with its message took 40 % of the backward).
TN_POOL_AVX2 bool indices_in_range_avx2(const int64_t* ip, int64_t n, int64_t limit) {
  const __m256i lo = _mm256_set1_epi64x(-1), top = _mm256_set1_epi64x(limit - 1);
  __m256i bad = _mm256_setzero_si256();
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {  // bad: m < -1 or m > limit - 1
    __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ip + k));
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi64(lo, m),
                                               _mm256_cmpgt_epi64(m, top)));
  }
  bool ok = _mm256_testz_si256(bad, bad);
  for (; k < n; ++k) ok = ok && ip[k] >= -1 && ip[k] < limit;
  return ok;
}
bool indices_in_range(const int64_t* ip, int64_t n, int64_t limit) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  if (avx2) return indices_in_range_avx2(ip, n, limit);
  bool ok = true;
  for (int64_t k = 0; k < n; ++k) ok = ok && ip[k] >= -1 && ip[k] < limit;
  return ok;
}

void max_pool2d_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Pool2d& p = *c.rule_state<Pool2d>();
  Tensor go = contiguous(c.tensor(0), key), ind = contiguous(c.tensor(7), key);
  const Tensor& gi = c.results[0].tensor;
  const int64_t* ip = data_of<int64_t>(ind, key);
  int64_t plane_in = p.ih * p.iw, plane_out = p.oh * p.ow;
  if (!indices_in_range(ip, p.planes * plane_out, plane_in))  // then find the first bad one
    for (int64_t pl = 0; pl < p.planes; ++pl)
      for (int64_t k = 0; k < plane_out; ++k) {
        int64_t m = ip[pl * plane_out + k];
        TN_CHECK_KIND(m == -1 || (m >= 0 && m < plane_in), Index,
                      "max_pool2d_with_indices_backward: index ", m, " out of range");
      }
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      // Each plane sums into its own gradient plane, in the same order on any thread.
      parallel_for(0, p.planes, plane_grain(plane_out), [&](int64_t pl0, int64_t pl1) {
        T* const dp = d;  // locals: stores through dst would otherwise reload every pointer
        const T* const gp = g;
        const int64_t* const xp = ip;
        std::memset(static_cast<void*>(dp + pl0 * plane_in), 0,
                    sizeof(T) * (pl1 - pl0) * plane_in);  // T(0) is all zero bits
        for (int64_t pl = pl0; pl < pl1; ++pl) {
          T* dpl = dp + pl * plane_in;
          const T* gpl = gp + pl * plane_out;
          const int64_t* xpl = xp + pl * plane_out;
          for (int64_t k = 0; k < plane_out; ++k) {
            int64_t m = xpl[k];
            if (m == -1) continue;
            dpl[m] = T(static_cast<acc_t<T>>(dpl[m]) + static_cast<acc_t<T>>(gpl[k]));
          }
        }
      });
    } else {
      TN_FAIL(NotImplemented, "\"max_pool2d_with_indices_backward\" not implemented for '",
              enum_name(gi->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::max_pool2d_with_indices_backward", max_pool2d_backward_rule,
                       max_pool2d_backward_cpu);

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode): the values of
// max_pool2d_with_indices, as upstream's CPU composite.
void max_pool2d(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + 6);
  c.ret(call("aten::max_pool2d_with_indices", std::move(args))[0]);
}
TN_REGISTER_COMPOSITE("aten::max_pool2d", max_pool2d);

// max_pool1d_with_indices: upstream's composite, a 2-d pool over an inserted height of 1.
std::vector<Value> max_pool1d_both(const Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->dim() == 2 || x->dim() == 3, "max_pool1d() Expected 2D or 3D input tensor, but "
           "got ", dims_str(x->sizes()));
  auto one = [&](size_t i, int64_t fill) {
    Dims d = c.int_list(i);
    if (d.empty()) return ops::ints({});
    d.insert(d.begin(), fill);
    return ops::ints(d);
  };
  Tensor x2 = call_tensor("aten::unsqueeze", {ops::t(x), ops::i64(-2)});
  std::vector<Value> r = call("aten::max_pool2d_with_indices",
                              {ops::t(x2), one(1, 1), one(2, 1), one(3, 0), one(4, 1), c.arg(5)});
  for (Value& v : r) v = Value::of(call_tensor("aten::squeeze.dim", {v, ops::i64(-2)}));
  return r;
}
void max_pool1d_with_indices(Call& c) {
  for (Value& v : max_pool1d_both(c)) c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::max_pool1d_with_indices", max_pool1d_with_indices);
// max_pool1d: upstream takes with_indices whenever autograd may need them and a direct
// kernel otherwise; the values are the same, so this always takes with_indices.
void max_pool1d(Call& c) { c.ret(std::move(max_pool1d_both(c)[0])); }
TN_REGISTER_COMPOSITE("aten::max_pool1d", max_pool1d);

// avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//            bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
struct AvgPool {
  Pool2d p;
  bool count_pad;
  int64_t divisor;  // 0: none
};
AvgPool avg_pool_params(const Call& c, size_t first) {
  const Tensor& x = c.tensor(first);
  AvgPool a;
  const Value& dv = c.arg(first + 6);
  a.divisor = dv.is_none() ? 0 : dv.i;
  TN_CHECK(dv.is_none() || a.divisor != 0, "divisor must be not zero");
  a.p = pool2d_params(x, c.int_list(first + 1), c.int_list(first + 2), c.int_list(first + 3),
                      nullptr, c.to_bool(first + 4), "avg_pool2d", false);
  a.count_pad = c.to_bool(first + 5);
  return a;
}

// Every output's window (clipped to the image) and divisor, as upstream's cpu_avg_pool.
template <typename F>
void for_each_avg_window(const AvgPool& a, F&& f) {
  const Pool2d& p = a.p;
  for (int64_t i = 0; i < p.oh; ++i)
    for (int64_t j = 0; j < p.ow; ++j) {
      int64_t h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
      int64_t h1 = std::min(h0 + p.kh, p.ih + p.ph), w1 = std::min(w0 + p.kw, p.iw + p.pw);
      int64_t pool_size = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0);
      w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, p.ih);
      w1 = std::min(w1, p.iw);
      int64_t div = a.divisor ? a.divisor : a.count_pad ? pool_size : (h1 - h0) * (w1 - w0);
      f(i * p.ow + j, h0, h1, w0, w1, div);
    }
}

void avg_pool2d_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  AvgPool a = avg_pool_params(c, 0);
  c.ret(new_on(x, pooled_sizes(x, a.p), x->dtype()));
  c.keep_rule_state(a);
}
void avg_pool2d_cpu(Call& c) {
  const std::string& key = c.key();
  const AvgPool& a = *c.rule_state<AvgPool>();
  const Pool2d& p = a.p;
  Tensor x = contiguous(c.tensor(0), key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      using A = std::conditional_t<std::is_integral_v<T>, int64_t, acc_t<T>>;
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      for (int64_t pl = 0; pl < p.planes; ++pl) {
        const T* ip = in + pl * p.ih * p.iw;
        T* op = out + pl * p.oh * p.ow;
        for_each_avg_window(a, [&](int64_t o, int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                                   int64_t div) {
          if (h0 >= h1 || w0 >= w1) {
            op[o] = T(0);
            return;
          }
          A sum = 0;
          for (int64_t y = h0; y < h1; ++y)
            for (int64_t xx = w0; xx < w1; ++xx) sum += static_cast<A>(ip[y * p.iw + xx]);
          op[o] = T(sum / static_cast<A>(div));
        });
      }
    } else {
      TN_FAIL(NotImplemented, "\"avg_pool2d_out_frame\" not implemented for '",
              enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::avg_pool2d", avg_pool2d_rule, avg_pool2d_cpu);

// avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//   int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor
void avg_pool2d_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  AvgPool a = avg_pool_params(c, 1);
  Dims want = pooled_sizes(x, a.p);
  TN_CHECK(go->sizes() == want, "avg_pool2d_backward: expected grad_output of size ",
           dims_str(want), ", but got ", dims_str(go->sizes()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void avg_pool2d_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const AvgPool& a = *c.rule_state<AvgPool>();
  const Pool2d& p = a.p;
  Tensor go = contiguous(c.tensor(0), key);
  const Tensor& gi = c.results[0].tensor;
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      for (int64_t i = 0; i < gi->numel(); ++i) d[i] = T(0);
      for (int64_t pl = 0; pl < p.planes; ++pl) {
        const T* gp = g + pl * p.oh * p.ow;
        T* dp = d + pl * p.ih * p.iw;
        for_each_avg_window(a, [&](int64_t o, int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                                   int64_t div) {
          T delta = T(static_cast<acc_t<T>>(gp[o]) / static_cast<acc_t<T>>(div));
          for (int64_t y = h0; y < h1; ++y)
            for (int64_t xx = w0; xx < w1; ++xx) {
              T& dst = dp[y * p.iw + xx];
              dst = T(static_cast<acc_t<T>>(dst) + static_cast<acc_t<T>>(delta));
            }
        });
      }
    } else {
      TN_FAIL(NotImplemented, "\"avg_pool2d_backward_out_frame\" not implemented for '",
              enum_name(gi->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::avg_pool2d_backward", avg_pool2d_backward_rule,
                       avg_pool2d_backward_cpu);

// _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
struct Adaptive {
  int64_t planes, ih, iw, oh, ow;
};
Adaptive adaptive_params(const Tensor& x, const Dims& out) {
  TN_CHECK(out.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  int64_t nd = x->dim();
  for (int64_t i = 1; i < nd; ++i)
    TN_CHECK(x->size(i) > 0, "adaptive_avg_pool2d(): Expected input to have non-zero size for "
             "non-batch dimensions, but input has sizes ", dims_str(x->sizes()),
             " with dimension ", i, " being empty");
  TN_CHECK(nd == 3 || nd == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
           dims_str(x->sizes()));
  TN_CHECK_KIND(is_floating(x->dtype()), NotImplemented,
                "\"adaptive_avg_pool2d\" not implemented for '", enum_name(x->dtype()), "'");
  Adaptive a{0, x->size(x->dim() - 2), x->size(x->dim() - 1), out[0], out[1]};
  a.planes = nd == 4 ? x->size(0) * x->size(1) : x->size(0);
  return a;
}
// Upstream's start_index / end_index of window o of n over an input of in.
int64_t start_index(int64_t o, int64_t n, int64_t in) { return (o / n) * in + ((o % n) * in) / n; }
int64_t end_index(int64_t o, int64_t n, int64_t in) { return 1 + ((o + 1) * in - 1) / n; }

void adaptive_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  Adaptive a = adaptive_params(x, c.int_list(1));
  Dims s = x->sizes();
  s[s.size() - 2] = a.oh;
  s[s.size() - 1] = a.ow;
  c.ret(new_on(x, s, x->dtype()));
  c.keep_rule_state(a);
}
// f(plane offset of the output, h0, h1, w0, w1) for every output position of one plane.
template <typename F>
void for_each_adaptive_window(const Adaptive& a, F&& f) {
  for (int64_t i = 0; i < a.oh; ++i) {
    int64_t h0 = start_index(i, a.oh, a.ih), h1 = end_index(i, a.oh, a.ih);
    for (int64_t j = 0; j < a.ow; ++j)
      f(i * a.ow + j, h0, h1, start_index(j, a.ow, a.iw), end_index(j, a.ow, a.iw));
  }
}
void adaptive_cpu(Call& c) {
  const std::string& key = c.key();
  const Adaptive& a = *c.rule_state<Adaptive>();
  Tensor x = contiguous(c.tensor(0), key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<acc_t<T>>) {
      using A = acc_t<T>;
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      for (int64_t pl = 0; pl < a.planes; ++pl) {
        const T* ip = in + pl * a.ih * a.iw;
        T* op = out + pl * a.oh * a.ow;
        for_each_adaptive_window(a, [&](int64_t o, int64_t h0, int64_t h1, int64_t w0,
                                        int64_t w1) {
          A sum = 0;
          for (int64_t y = h0; y < h1; ++y)
            for (int64_t xx = w0; xx < w1; ++xx) sum += static_cast<A>(ip[y * a.iw + xx]);
          op[o] = T(sum / static_cast<A>(h1 - h0) / static_cast<A>(w1 - w0));
        });
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool2d", adaptive_rule, adaptive_cpu);

// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor
void adaptive_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  TN_CHECK(go->dim() == x->dim(), "adaptive_avg_pool2d_backward(): Expected dimensions ",
           x->dim(), " for `grad_output` but got dimensions ", go->dim());
  TN_CHECK(x->dim() == 3 || x->dim() == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, "
           "but got ", dims_str(x->sizes()));
  Adaptive a = adaptive_params(x, Dims{go->size(go->dim() - 2), go->size(go->dim() - 1)});
  TN_CHECK(go->dtype() == x->dtype(), "expected dtype ", enum_name(x->dtype()),
           " for `grad_output` but got dtype ", enum_name(go->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void adaptive_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Adaptive& a = *c.rule_state<Adaptive>();
  Tensor go = contiguous(c.tensor(0), key);
  const Tensor& gi = c.results[0].tensor;
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<acc_t<T>>) {
      using A = acc_t<T>;
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      for (int64_t i = 0; i < gi->numel(); ++i) d[i] = T(0);
      for (int64_t pl = 0; pl < a.planes; ++pl) {
        const T* gp = g + pl * a.oh * a.ow;
        T* dp = d + pl * a.ih * a.iw;
        for_each_adaptive_window(a, [&](int64_t o, int64_t h0, int64_t h1, int64_t w0,
                                        int64_t w1) {
          A delta = static_cast<A>(gp[o]) / static_cast<A>(h1 - h0) / static_cast<A>(w1 - w0);
          for (int64_t y = h0; y < h1; ++y)
            for (int64_t xx = w0; xx < w1; ++xx) {
              T& dst = dp[y * a.iw + xx];
              dst = T(static_cast<A>(dst) + delta);
            }
        });
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_adaptive_avg_pool2d_backward", adaptive_backward_rule,
                       adaptive_backward_cpu);

// adaptive_avg_pool2d(self, output_size): a mean over the last two dims when the output is
// 1 x 1, else _adaptive_avg_pool2d (upstream's composite).
void adaptive_avg_pool2d(Call& c) {
  const Dims& out = c.int_list(1);
  TN_CHECK(out.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  TN_CHECK(out[0] >= 0 && out[1] >= 0, "adaptive_avg_pool2d: elements of output_size must be "
           "greater than or equal to 0 but received {", out[0], ", ", out[1], "}");
  if (out[0] == 1 && out[1] == 1)
    return c.ret(call_tensor("aten::mean.dim",
                             {c.arg(0), ops::ints({-1, -2}), Value::of_bool(true)}));
  c.ret(call_tensor("aten::_adaptive_avg_pool2d", {c.arg(0), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool2d", adaptive_avg_pool2d);

// adaptive_avg_pool1d(self, output_size): adaptive_avg_pool2d of self with a size-1 dim before
// the last, to (1, output_size), that dim dropped again (upstream's composite).
void adaptive_avg_pool1d(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& out = c.int_list(1);
  TN_CHECK(out.size() == 1, "adaptive_avg_pool1d: output_size must be 1");
  TN_CHECK(self->dim() == 2 || self->dim() == 3, "Expected 2 to 3 dimensions, but got ",
           self->dim(), "-dimensional tensor for argument #1 'self' (while checking arguments "
           "for adaptive_avg_pool1d)");
  Tensor x = call_tensor("aten::unsqueeze", {c.arg(0), Value::of_int(-2)});
  Tensor y = call_tensor("aten::adaptive_avg_pool2d", {Value::of(x), ops::ints({1, out[0]})});
  c.ret(call_tensor("aten::squeeze.dim", {Value::of(y), Value::of_int(-2)}));
}
TN_REGISTER_COMPOSITE("aten::adaptive_avg_pool1d", adaptive_avg_pool1d);

}  // namespace
}  // namespace tn
