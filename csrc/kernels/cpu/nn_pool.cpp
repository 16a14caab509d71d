// Max and average pooling on dense CPU tensors, 2-d and 3-d, forward and backward:
// max_pool2d/3d_with_indices (a window's first maximum, NaN winning, as upstream's kernel),
// avg_pool2d/3d (the window summed in the accumulation type, in depth, row, column order,
// divided once); the composites max_pool1d/2d/3d(_with_indices) and avg_pool1d. A 2-d pool is
// the 3-d one with depth 1, so both run the same loops. Rules quote upstream's checks (Pool.h,
// DilatedMaxPool2d/3d.cpp, AveragePool2d/3d.cpp, Pooling.cpp).
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/nn_pool.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace pool {
namespace {
// Upstream's div_rtn (floor division) for the output size.
int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
}  // namespace

int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  TN_CHECK(s != 0, "stride should not be zero");
  TN_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad);
  TN_CHECK(pad <= ((k - 1) * d + 1) / 2, "pad should be at most half of effective kernel size, "
           "but got pad=", pad, ", kernel_size=", k, " and dilation=", d);
  int64_t out = div_floor(in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0), s) + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

#define TN_POOL_AVX2 __attribute__((target("avx2,fma")))
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

}  // namespace pool

namespace {

using pool::Pool;
using pool::is_nan;
using pool::plane_grain;
using pool::pool_out;

// Upstream's pool2d_shape_check (contiguous layout).
void pool2d_shape_check(const Tensor& x, const Pool& p) {
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

// Upstream's pool3d_shape_check; fn names the op in its messages.
void pool3d_shape_check(const Tensor& x, const Pool& p, const char* fn, bool check_input_size) {
  TN_CHECK(p.kd > 0 && p.kw > 0 && p.kh > 0, "kernel size should be greater than zero, but got "
           "kT: ", p.kd, " kH: ", p.kh, " kW: ", p.kw);
  TN_CHECK(p.sd > 0 && p.sw > 0 && p.sh > 0, "stride should be greater than zero, but got dT: ",
           p.sd, " dH: ", p.sh, " dW: ", p.sw);
  TN_CHECK(p.dd > 0 && p.dw > 0 && p.dh > 0, "dilation should be greater than zero, but got "
           "dilationT: ", p.dd, " dilationH: ", p.dh, " dilationW: ", p.dw);
  int64_t nd = x->dim();
  TN_CHECK(nd == 4 || nd == 5, fn, ": Expected 4D or 5D tensor for input, but got: ",
           dims_str(x->sizes()));
  for (int64_t i = nd == 5 ? 1 : 0; i < nd; ++i)
    TN_CHECK(x->size(i) > 0, fn, ": Expected input's non-batch dimensions to have positive "
             "length, but input has a shape of ", dims_str(x->sizes()), " and non-batch "
             "dimension ", x->size(i), " has length zero!");
  if (check_input_size)
    TN_CHECK(p.id >= p.kd && p.ih >= p.kh && p.iw >= p.kw, "input image (T: ", p.id, " H: ",
             p.ih, " W: ", p.iw, ") smaller than kernel size (kT: ", p.kd, " kH: ", p.kh,
             " kW: ", p.kw, ")");
  TN_CHECK(p.kd / 2 >= p.pd && p.kw / 2 >= p.pw && p.kh / 2 >= p.ph, "pad should be smaller "
           "than or equal to half of kernel size, but got kT: ", p.kd, " kW: ", p.kw, " kH: ",
           p.kh, " padT: ", p.pd, " padW: ", p.pw, " padH: ", p.ph);
  int64_t c = x->size(nd - 4);
  TN_CHECK(p.od >= 1 && p.ow >= 1 && p.oh >= 1, "Given input size: (", c, "x", p.id, "x", p.ih,
           "x", p.iw, "). Calculated output size: (", c, "x", p.od, "x", p.oh, "x", p.ow,
           "). Output size is too small");
}

// The parameters of max_pool2d / avg_pool2d from their int lists (name prefixes the messages).
Pool pool2d_params(const Tensor& x, const Dims& k, const Dims& s, const Dims& pad,
                   const Dims* dil, bool ceil, const char* name, bool is_max) {
  TN_CHECK(k.size() == 1 || k.size() == 2, name,
           ": kernel_size must either be a single int, or a tuple of two ints");
  Pool p;
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

// One 3-d size list (kernel, stride, padding or dilation): one int or three; empty (stride
// only) takes `dflt`.
void three(const Dims& v, int64_t& d, int64_t& h, int64_t& w, const int64_t* dflt = nullptr) {
  if (v.empty()) {
    d = dflt[0], h = dflt[1], w = dflt[2];
    return;
  }
  d = v[0];
  h = v.size() == 1 ? d : v[1];
  w = v.size() == 1 ? d : v[2];
}

// The lists of max_pool3d / avg_pool3d parsed and the input's sizes read, as upstream's meta
// functions do before their output sizes (the two ops word their list messages differently).
Pool pool3d_lists(const Tensor& x, const Dims& k, const Dims& s, const Dims& pad,
                  const Dims* dil, bool is_max) {
  const char* name = is_max ? "max_pool3d" : "avg_pool3d";
  TN_CHECK(k.size() == 1 || k.size() == 3, name, is_max
           ? ": kernel_size must either be a single int, or a tuple of three ints"
           : ": kernel_size must be a single int, or a tuple of three ints");
  Pool p;
  three(k, p.kd, p.kh, p.kw);
  TN_CHECK(s.empty() || s.size() == 1 || s.size() == 3, name, is_max
           ? ": stride must either be omitted, a single int, or a tuple of three ints"
           : ": stride must be omitted, a single int, or a tuple of three ints");
  const int64_t kernel[3] = {p.kd, p.kh, p.kw};
  three(s, p.sd, p.sh, p.sw, kernel);
  TN_CHECK(pad.size() == 1 || pad.size() == 3, name, is_max
           ? ": padding must either be a single int, or a tuple of three ints"
           : ": padding must be a single int, or a tuple of three ints");
  three(pad, p.pd, p.ph, p.pw);
  if (dil) {
    TN_CHECK(dil->size() == 1 || dil->size() == 3, name,
             ": dilation must be either a single int, or a tuple of three ints");
    three(*dil, p.dd, p.dh, p.dw);
  }
  TN_CHECK(x->dim() == 4 || x->dim() == 5,
           "non-empty 4D or 5D (batch mode) tensor expected for input");
  int64_t nd = x->dim();
  p.id = x->size(nd - 3);
  p.ih = x->size(nd - 2);
  p.iw = x->size(nd - 1);
  p.planes = nd == 5 ? x->size(0) * x->size(1) : x->size(0);
  return p;
}
// The output sizes of a 3-d pool from its input's, then upstream's shape check.
void pool3d_out(const Tensor& x, Pool& p, bool ceil, const char* fn, bool check_input_size) {
  p.od = pool_out(p.id, p.kd, p.pd, p.sd, p.dd, ceil);
  p.oh = pool_out(p.ih, p.kh, p.ph, p.sh, p.dh, ceil);
  p.ow = pool_out(p.iw, p.kw, p.pw, p.sw, p.dw, ceil);
  pool3d_shape_check(x, p, fn, check_input_size);
}

Dims pooled_sizes(const Tensor& x, const Pool& p, bool is_3d) {
  Dims out = x->sizes();
  size_t n = out.size();
  if (is_3d) out[n - 3] = p.od;
  out[n - 2] = p.oh;
  out[n - 1] = p.ow;
  return out;
}

// Upstream's check_dim_size: tensor t has dim dims and size `size` at dim.
void check_dim_size(const Tensor& t, int64_t dims, int64_t dim, int64_t size) {
  TN_CHECK(t->dim() == dims && t->size(dim) == size, "Expected a tensor of dimension ", dims,
           " and tensor.size[", dim, "] == ", size, " but got: dimension ", t->dim(),
           " and tensor.size[", dim, "] = ", t->dim() > dim ? t->size(dim) : 0);
}

template <typename T>
constexpr bool kPoolType = !std::is_same_v<T, bool>;

// max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                         int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)
// max_pool3d_with_indices: the same with int[3] lists.
struct MaxPool {
  Pool p;
  bool is_3d;
};
MaxPool max_pool_params(const Call& c, size_t first, bool is_3d) {
  const Tensor& x = c.tensor(first);
  if (!is_3d)
    return {pool2d_params(x, c.int_list(first + 1), c.int_list(first + 2),
                          c.int_list(first + 3), &c.int_list(first + 4), c.to_bool(first + 5),
                          "max_pool2d", true), false};
  Pool p = pool3d_lists(x, c.int_list(first + 1), c.int_list(first + 2), c.int_list(first + 3),
                        &c.int_list(first + 4), true);
  return {p, true};
}
template <bool kIs3d>
void max_pool_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  MaxPool m = max_pool_params(c, 0, kIs3d);
  if (kIs3d) pool3d_out(x, m.p, c.to_bool(5), "max_pool3d_with_indices_out_cpu_template()", false);
  c.ret(new_on(x, pooled_sizes(x, m.p, kIs3d), x->dtype()));
  c.ret(new_on(x, pooled_sizes(x, m.p, kIs3d), ScalarType::Long));
  c.keep_rule_state(m);
}
// Note [max_pool2d's 2 x 2 windows]: the common window (2 x 2, stride 2, no padding, no
// dilation) of a float32 plane runs as AVX2 compares and blends, 8 outputs at a time: the four
// candidates in upstream's scan order (row then column), each taken when greater than the
// maximum so far or NaN, exactly as the scalar loop decides, without its branches (random data
// mispredicts about one in two; the branchy loop took 17 ns an output, upstream's as much).
// The rows' remaining outputs and other dtypes take the scalar loop.
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

template <typename T>
void max_pool_plane(const Pool& p, const T* ip, T* op, int64_t* xp, bool fast) {
  // -inf for every floating type (half and bfloat16 have no numeric_limits of their own, whose
  // lowest() would be 0), the least value for the integers.
  T lowest;
  if constexpr (std::is_floating_point_v<acc_t<T>>)
    lowest = T(-std::numeric_limits<float>::infinity());
  else
    lowest = std::numeric_limits<T>::lowest();
  const int64_t hw = p.ih * p.iw;
  for (int64_t t = 0; t < p.od; ++t) {
    int64_t z0 = t * p.sd - p.pd;
    int64_t z1 = std::min(z0 + (p.kd - 1) * p.dd + 1, p.id);
    while (z0 < 0) z0 += p.dd;
    for (int64_t i = 0; i < p.oh; ++i) {
      int64_t row = (t * p.oh + i) * p.ow;
      int64_t j = fast ? max_pool_2x2_row_avx2(reinterpret_cast<const float*>(ip) + 2 * i * p.iw,
                                               p.iw, p.ow, 2 * i * p.iw,
                                               reinterpret_cast<float*>(op) + row, xp + row)
                       : 0;
      for (; j < p.ow; ++j) {
        int64_t h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
        int64_t h1 = std::min(h0 + (p.kh - 1) * p.dh + 1, p.ih);
        int64_t w1 = std::min(w0 + (p.kw - 1) * p.dw + 1, p.iw);
        while (h0 < 0) h0 += p.dh;
        while (w0 < 0) w0 += p.dw;
        int64_t best = z0 * hw + h0 * p.iw + w0;
        T maxv = lowest;
        for (int64_t z = z0; z < z1; z += p.dd)
          for (int64_t y = h0; y < h1; y += p.dh)
            for (int64_t xx = w0; xx < w1; xx += p.dw) {
              int64_t at = z * hw + y * p.iw + xx;
              T v = ip[at];
              if (v > maxv || is_nan(v)) {
                maxv = v;
                best = at;
              }
            }
        op[row + j] = maxv;
        xp[row + j] = best;
      }
    }
  }
}

void max_pool_cpu(Call& c) {
  const std::string& key = c.key();
  const MaxPool& m = *c.rule_state<MaxPool>();
  const Pool& p = m.p;
  Tensor x = contiguous(c.tensor(0), key);
  int64_t* ind = data_of<int64_t>(c.results[1].tensor, key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
      const bool fast = std::is_same_v<T, float> && avx2 && p.kh == 2 && p.kw == 2 &&
                        p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 && p.dh == 1 &&
                        p.dw == 1 && p.id == 1 && p.kd == 1 &&
                        p.ih * p.iw < (int64_t{1} << 30);
      // Planes are independent: split between threads (each output element is computed as on
      // one thread).
      parallel_for(0, p.planes, plane_grain(p.out_plane()), [&](int64_t pl0, int64_t pl1) {
        for (int64_t pl = pl0; pl < pl1; ++pl)
          max_pool_plane<T>(p, in + pl * p.in_plane(), out + pl * p.out_plane(),
                            ind + pl * p.out_plane(), fast);
      });
    } else {
      TN_FAIL(NotImplemented, m.is_3d ? "\"max_pool3d\"" : "\"max_pool2d\"",
              " not implemented for '", enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::max_pool2d_with_indices", max_pool_rule<false>, max_pool_cpu);
TN_REGISTER_STRUCTURED("aten::max_pool3d_with_indices", max_pool_rule<true>, max_pool_cpu);

// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size,
//   int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor
// and max_pool3d_with_indices_backward (int[3] lists; upstream takes the output sizes from
// grad_output and checks grad_output and indices against them).
template <bool kIs3d>
void max_pool_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1), &ind = c.tensor(7);
  MaxPool m = max_pool_params(c, 1, kIs3d);
  if (kIs3d) {
    Pool& p = m.p;
    int64_t nd = x->dim(), gd = go->dim();
    p.od = go->size(gd - 3);
    p.oh = go->size(gd - 2);
    p.ow = go->size(gd - 1);
    pool3d_shape_check(x, p, "max_pool3d_with_indices_backward_out_cpu_template()", false);
    int64_t want[4] = {x->size(nd - 4), p.od, p.oh, p.ow};
    for (const Tensor* t : {&go, &ind})
      for (int64_t k = 0; k < 4; ++k) check_dim_size(*t, nd, nd - 4 + k, want[k]);
  } else {
    Dims want = pooled_sizes(x, m.p, false);
    TN_CHECK(go->sizes() == want && ind->sizes() == want, "max_pool2d_with_indices_backward: "
             "expected grad_output and indices of size ", dims_str(want), ", but got ",
             dims_str(go->sizes()), " and ", dims_str(ind->sizes()));
  }
  TN_CHECK(ind->dtype() == ScalarType::Long, kIs3d ? "max_pool3d" : "max_pool2d",
           "_with_indices_backward: expected indices of dtype Long, but got ",
           enum_name(ind->dtype()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(m);
}

}  // namespace

namespace pool {
void scatter_max_grad(const Tensor& go_in, const Tensor& ind_in, const Tensor& gi, int64_t planes,
                      int64_t plane_in, int64_t plane_out, const std::string& key,
                      const char* name) {
  Tensor go = contiguous(go_in, key), ind = contiguous(ind_in, key);
  const int64_t* ip = data_of<int64_t>(ind, key);
  if (!indices_in_range(ip, planes * plane_out, plane_in))  // then find the first bad one
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t k = 0; k < plane_out; ++k) {
        int64_t m = ip[pl * plane_out + k];
        TN_CHECK_KIND(m == -1 || (m >= 0 && m < plane_in), Index, name, ": index ", m,
                      " out of range");
      }
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kPoolType<T>) {
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      // Each plane sums into its own gradient plane, in the same order on any thread.
      parallel_for(0, planes, plane_grain(plane_out), [&](int64_t pl0, int64_t pl1) {
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
      TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", enum_name(gi->dtype()),
              "'");
    }
  });
}
}  // namespace pool

namespace {
void max_pool_backward_cpu(Call& c) {
  const MaxPool& m = *c.rule_state<MaxPool>();
  pool::scatter_max_grad(c.tensor(0), c.tensor(7), c.results[0].tensor, m.p.planes,
                         m.p.in_plane(), m.p.out_plane(), c.key(),
                         m.is_3d ? "max_pool3d_with_indices_backward"
                                 : "max_pool2d_with_indices_backward");
}
TN_REGISTER_STRUCTURED("aten::max_pool2d_with_indices_backward", max_pool_backward_rule<false>,
                       max_pool_backward_cpu);
TN_REGISTER_STRUCTURED("aten::max_pool3d_with_indices_backward", max_pool_backward_rule<true>,
                       max_pool_backward_cpu);

// max_pool2d / max_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode): the values
// of max_poolNd_with_indices, as upstream's CPU composites.
template <const char* kOp>
void max_pool_values(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + 6);
  c.ret(call(kOp, std::move(args))[0]);
}
constexpr char kMax2d[] = "aten::max_pool2d_with_indices";
constexpr char kMax3d[] = "aten::max_pool3d_with_indices";
TN_REGISTER_COMPOSITE("aten::max_pool2d", max_pool_values<kMax2d>);
TN_REGISTER_COMPOSITE("aten::max_pool3d", max_pool_values<kMax3d>);

// A 1-d list argument of a 1-d pool as a 2-d one: (fill, v) ([] stays []).
Value one_to_two(const Dims& v, int64_t fill) {
  if (v.empty()) return ops::ints({});
  Dims d = v;
  d.insert(d.begin(), fill);
  return ops::ints(d);
}

// max_pool1d_with_indices: upstream's composite, a 2-d pool over an inserted height of 1.
std::vector<Value> max_pool1d_both(const Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->dim() == 2 || x->dim() == 3, "max_pool1d() Expected 2D or 3D input tensor, but "
           "got ", dims_str(x->sizes()));
  Tensor x2 = call_tensor("aten::unsqueeze", {ops::t(x), ops::i64(-2)});
  std::vector<Value> r = call("aten::max_pool2d_with_indices",
                              {ops::t(x2), one_to_two(c.int_list(1), 1),
                               one_to_two(c.int_list(2), 1), one_to_two(c.int_list(3), 0),
                               one_to_two(c.int_list(4), 1), c.arg(5)});
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
// and avg_pool3d (int[3] lists).
struct AvgPool {
  Pool p;
  bool count_pad;
  int64_t divisor;  // 0: none
  bool is_3d;
};
AvgPool avg_pool_params(const Call& c, size_t first, bool is_3d) {
  const Tensor& x = c.tensor(first);
  AvgPool a;
  a.is_3d = is_3d;
  const Value& dv = c.arg(first + 6);
  a.divisor = dv.is_none() ? 0 : dv.i;
  bool ceil = c.to_bool(first + 4);
  if (is_3d) {
    a.p = pool3d_lists(x, c.int_list(first + 1), c.int_list(first + 2), c.int_list(first + 3),
                       nullptr, false);
    TN_CHECK(dv.is_none() || a.divisor != 0, "divisor must be not zero");
    // The backward checks against the sizes its forward had; its caller names itself.
    pool3d_out(x, a.p, ceil, first == 0 ? "avg_pool3d()" : "avg_pool3d_backward()", true);
  } else {
    TN_CHECK(dv.is_none() || a.divisor != 0, "divisor must be not zero");
    a.p = pool2d_params(x, c.int_list(first + 1), c.int_list(first + 2), c.int_list(first + 3),
                        nullptr, ceil, "avg_pool2d", false);
  }
  a.count_pad = c.to_bool(first + 5);
  return a;
}

// Every output's window (clipped to the image) and divisor, as upstream's cpu_avg_pool and
// avg_pool3d_out_frame: f(output offset in the plane, z0, z1, h0, h1, w0, w1, divisor).
template <typename F>
void for_each_avg_window(const AvgPool& a, F&& f) {
  const Pool& p = a.p;
  for (int64_t t = 0; t < p.od; ++t)
    for (int64_t i = 0; i < p.oh; ++i)
      for (int64_t j = 0; j < p.ow; ++j) {
        int64_t z0 = t * p.sd - p.pd, h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
        int64_t z1 = std::min(z0 + p.kd, p.id + p.pd);
        int64_t h1 = std::min(h0 + p.kh, p.ih + p.ph), w1 = std::min(w0 + p.kw, p.iw + p.pw);
        int64_t pool_size = (z1 - z0) * (h1 - h0) * (w1 - w0);
        z0 = std::max<int64_t>(z0, 0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        z1 = std::min(z1, p.id);
        h1 = std::min(h1, p.ih);
        w1 = std::min(w1, p.iw);
        int64_t div = a.divisor ? a.divisor
                      : a.count_pad ? pool_size
                                    : (z1 - z0) * (h1 - h0) * (w1 - w0);
        f((t * p.oh + i) * p.ow + j, z0, z1, h0, h1, w0, w1, div);
      }
}

// The dtypes upstream's average pools compute: 2-d the floating types and Long, 3-d float,
// double and Long.
template <typename T>
constexpr bool kAvg3dType = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                            std::is_same_v<T, int64_t>;
template <typename T>
constexpr bool kAvg2dType = kAvg3dType<T> || std::is_same_v<T, Half> ||
                            std::is_same_v<T, BFloat16>;

template <bool kIs3d>
void avg_pool_rule(Call& c) {
  const Tensor& x = c.tensor(0);
  AvgPool a = avg_pool_params(c, 0, kIs3d);
  c.ret(new_on(x, pooled_sizes(x, a.p, kIs3d), x->dtype()));
  c.keep_rule_state(a);
}
void avg_pool_cpu(Call& c) {
  const std::string& key = c.key();
  const AvgPool& a = *c.rule_state<AvgPool>();
  const Pool& p = a.p;
  Tensor x = contiguous(c.tensor(0), key);
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kAvg2dType<T>) {
      TN_CHECK_KIND(!a.is_3d || kAvg3dType<T>, NotImplemented, "\"avg_pool3d_out_frame\" not "
                    "implemented for '", enum_name(x->dtype()), "'");
      using A = std::conditional_t<std::is_integral_v<T>, int64_t, acc_t<T>>;
      const T* in = data_of<T>(x, key);
      T* out = data_of<T>(c.results[0].tensor, key);
      const int64_t hw = p.ih * p.iw;
      for (int64_t pl = 0; pl < p.planes; ++pl) {
        const T* ip = in + pl * p.in_plane();
        T* op = out + pl * p.out_plane();
        for_each_avg_window(a, [&](int64_t o, int64_t z0, int64_t z1, int64_t h0, int64_t h1,
                                   int64_t w0, int64_t w1, int64_t div) {
          if (z0 >= z1 || h0 >= h1 || w0 >= w1) {
            op[o] = T(0);
            return;
          }
          A sum = 0;
          for (int64_t z = z0; z < z1; ++z)
            for (int64_t y = h0; y < h1; ++y)
              for (int64_t xx = w0; xx < w1; ++xx)
                sum += static_cast<A>(ip[z * hw + y * p.iw + xx]);
          op[o] = T(sum / static_cast<A>(div));
        });
      }
    } else {
      TN_FAIL(NotImplemented, a.is_3d ? "\"avg_pool3d_out_frame\"" : "\"avg_pool2d\"",
              " not implemented for '", enum_name(x->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::avg_pool2d", avg_pool_rule<false>, avg_pool_cpu);
TN_REGISTER_STRUCTURED("aten::avg_pool3d", avg_pool_rule<true>, avg_pool_cpu);

// avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride,
//   int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor
// and avg_pool3d_backward.
template <bool kIs3d>
void avg_pool_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1);
  AvgPool a = avg_pool_params(c, 1, kIs3d);
  Dims want = pooled_sizes(x, a.p, kIs3d);
  if (kIs3d) {
    int64_t nd = x->dim();
    for (int64_t k = 0; k < 4; ++k) check_dim_size(go, nd, nd - 4 + k, want[nd - 4 + k]);
  } else {
    TN_CHECK(go->sizes() == want, "avg_pool2d_backward: expected grad_output of size ",
             dims_str(want), ", but got ", dims_str(go->sizes()));
  }
  c.ret(new_on(x, x->sizes(), x->dtype()));
  c.keep_rule_state(a);
}
void avg_pool_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const AvgPool& a = *c.rule_state<AvgPool>();
  const Pool& p = a.p;
  Tensor go = contiguous(c.tensor(0), key);
  const Tensor& gi = c.results[0].tensor;
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kAvg2dType<T>) {
      TN_CHECK_KIND(!a.is_3d || kAvg3dType<T>, NotImplemented, "\"avg_pool3d_backward_out_"
                    "frame\" not implemented for '", enum_name(gi->dtype()), "'");
      const T* g = data_of<T>(go, key);
      T* d = data_of<T>(gi, key);
      const int64_t hw = p.ih * p.iw;
      for (int64_t i = 0; i < gi->numel(); ++i) d[i] = T(0);
      for (int64_t pl = 0; pl < p.planes; ++pl) {
        const T* gp = g + pl * p.out_plane();
        T* dp = d + pl * p.in_plane();
        for_each_avg_window(a, [&](int64_t o, int64_t z0, int64_t z1, int64_t h0, int64_t h1,
                                   int64_t w0, int64_t w1, int64_t div) {
          T delta = T(static_cast<acc_t<T>>(gp[o]) / static_cast<acc_t<T>>(div));
          for (int64_t z = z0; z < z1; ++z)
            for (int64_t y = h0; y < h1; ++y)
              for (int64_t xx = w0; xx < w1; ++xx) {
                T& dst = dp[z * hw + y * p.iw + xx];
                dst = T(static_cast<acc_t<T>>(dst) + static_cast<acc_t<T>>(delta));
              }
        });
      }
    } else {
      TN_FAIL(NotImplemented, a.is_3d ? "\"avg_pool3d_backward_out_frame\""
                                      : "\"avg_pool2d_backward_out_frame\"",
              " not implemented for '", enum_name(gi->dtype()), "'");
    }
  });
}
TN_REGISTER_STRUCTURED("aten::avg_pool2d_backward", avg_pool_backward_rule<false>,
                       avg_pool_backward_cpu);
TN_REGISTER_STRUCTURED("aten::avg_pool3d_backward", avg_pool_backward_rule<true>,
                       avg_pool_backward_cpu);

// Upstream's check1d: a 1-d pool's list argument holds one int.
void check1d(const char* fn, const char* arg, const Dims& v) {
  TN_CHECK(v.size() == 1, fn, "() argument '", arg, "' should contain one int (got ", v.size(),
           ")");
}

// avg_pool1d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True):
// avg_pool2d over an inserted height of 1, that dim dropped again (upstream's composite).
void avg_pool1d(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& k = c.int_list(1);
  const Dims& s = c.int_list(2).empty() ? k : c.int_list(2);
  TN_CHECK(x->dim() == 2 || x->dim() == 3, "Expected 2 to 3 dimensions, but got ", x->dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for "
           "avg_pool1d)");
  check1d("avg_pool1d", "kernel_size", k);
  check1d("avg_pool1d", "stride", s);
  check1d("avg_pool1d", "padding", c.int_list(3));
  Tensor x2 = call_tensor("aten::unsqueeze", {ops::t(x), ops::i64(-2)});
  Tensor y = call_tensor("aten::avg_pool2d",
                         {ops::t(x2), ops::ints({1, k[0]}), ops::ints({1, s[0]}),
                          ops::ints({0, c.int_list(3)[0]}), c.arg(4), c.arg(5), Value{}});
  c.ret(call_tensor("aten::squeeze.dim", {ops::t(y), ops::i64(-2)}));
}
TN_REGISTER_COMPOSITE("aten::avg_pool1d", avg_pool1d);

}  // namespace
}  // namespace tn
