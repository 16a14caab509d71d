// aten::convolution and aten::convolution_backward on dense CPU tensors: 1-, 2- and 3-d, with
// stride, padding, dilation, groups, transposed and output_padding, as im2col (or col2im) plus
// our GEMM (gemm.h) per batch element and group, the structure of upstream's slow_conv2d
// (ConvolutionMM2d.cpp): the bias copied into the output first and the product added with
// beta = 1, the weight gradient summed over the batch in order through beta = 1. Upstream's
// CPU float32 convolution takes oneDNN for most shapes, so float32 results agree within
// upstream's own error rather than bit for bit (tests/autograd/test_conv_pool.py states the
// rule). Ungrouped stride-1 undilated 2-d float32 convolutions take direct AVX2 kernels instead
// (Note [Direct float32 convolution]). The rules (checks, output shapes, upstream's messages)
// serve every back end.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// The spatial parameters of one convolution, each expanded to the weight's spatial rank (fixed
// arrays: the rule hands them to the compute inside the call, which holds 192 bytes).
using Spatial = std::array<int64_t, 3>;
struct ConvParams {
  int64_t dim = 0;  // spatial dims (1..3)
  Spatial stride{}, padding{}, dilation{}, output_padding{};
  bool transposed = false;
  int64_t groups = 1;
};

// Upstream's expand_param_if_needed: one value repeats, otherwise the list must have dim values.
Spatial expand_param(const Dims& p, const char* name, int64_t dim) {
  TN_CHECK(p.size() == 1 || static_cast<int64_t>(p.size()) == dim, "expected ", name,
           " to be a single integer value or a list of ", dim,
           " values to match the convolution dimensions, but got ", name, "=", dims_str(p));
  TN_CHECK_KIND(dim <= 3, NotImplemented, "torchnative: convolutions of more than 3 spatial "
                "dims are not implemented");
  Spatial out{};
  for (int64_t i = 0; i < dim; ++i) out[i] = p.size() == 1 ? p[0] : p[i];
  return out;
}

// "torch.FloatTensor": a dense CPU tensor's legacy type name, as upstream's toString prints it.
std::string type_string(const Tensor& t) {
  return std::string("torch.") + info(t->dtype()).legacy_name;
}

// _convolution's parameter checks and upstream's check_shape_forward (bias null when absent).
ConvParams check_conv(const Tensor& input, const Dims& wsizes, const Tensor* bias,
                      const Dims& stride, const Dims& padding, const Dims& dilation,
                      bool transposed, const Dims& output_padding, int64_t groups) {
  int64_t k = static_cast<int64_t>(wsizes.size());
  ConvParams p;
  p.dim = k - 2;
  TN_CHECK(p.dim > 0, "weight should have at least three dimensions");
  TN_CHECK(groups > 0, "non-positive groups is not supported");
  p.stride = expand_param(stride, "stride", p.dim);
  p.padding = expand_param(padding, "padding", p.dim);
  p.dilation = expand_param(dilation, "dilation", p.dim);
  p.output_padding = expand_param(output_padding, "output_padding", p.dim);
  p.transposed = transposed;
  p.groups = groups;
  for (int64_t i = 0; i < p.dim; ++i) {
    TN_CHECK(p.padding[i] >= 0, "negative padding is not supported");
    TN_CHECK(p.output_padding[i] >= 0, "negative output_padding is not supported");
  }
  for (int64_t i = 0; i < p.dim; ++i)
    TN_CHECK(p.stride[i] > 0, "non-positive stride is not supported");
  for (int64_t i = 0; i < p.dim; ++i)
    TN_CHECK(p.dilation[i] >= 0, "dilation should be greater than zero");
  const Dims& in = input->sizes();
  TN_CHECK(input->dim() == k, "Expected ", k, "-dimensional input for ", k,
           "-dimensional weight ", dims_str(wsizes), ", but got ", input->dim(),
           "-dimensional input of size ", dims_str(in), " instead");
  TN_CHECK(wsizes[0] >= groups, "Given groups=", groups, ", expected weight to be at least ",
           groups, " at dimension 0, but got weight of size ", dims_str(wsizes), " instead");
  TN_CHECK(wsizes[0] % groups == 0, "Given groups=", groups,
           ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of "
           "size [", dims_str(wsizes), "] instead");
  if (!transposed) {
    TN_CHECK(in[1] == wsizes[1] * groups, "Given groups=", groups, ", weight of size ",
             dims_str(wsizes), ", expected input", dims_str(in), " to have ",
             wsizes[1] * groups, " channels, but got ", in[1], " channels instead");
    TN_CHECK(!bias || ((*bias)->dim() == 1 && (*bias)->size(0) == wsizes[0]),
             "Given weight of size ", dims_str(wsizes), ", expected bias to be 1-dimensional with ",
             wsizes[0], " elements, but got bias of size ", dims_str((*bias)->sizes()),
             " instead");
    bool fits = true;
    std::string padded, kernel;
    for (int64_t i = 0; i < p.dim; ++i) {
      int64_t pi = in[i + 2] + 2 * p.padding[i];
      int64_t ki = p.dilation[i] * (wsizes[i + 2] - 1) + 1;
      fits = fits && pi >= ki;
      padded += (i ? " x " : "") + std::to_string(pi);
      kernel += (i ? " x " : "") + std::to_string(ki);
    }
    TN_CHECK(fits, "Calculated padded input size per channel: (", padded, "). Kernel size: (",
             kernel, "). Kernel size can't be greater than actual input size");
  } else {
    TN_CHECK(in[1] == wsizes[0], "Given transposed=1, weight of size ", dims_str(wsizes),
             ", expected input", dims_str(in), " to have ", wsizes[0],
             " channels, but got ", in[1], " channels instead");
    TN_CHECK(!bias || ((*bias)->dim() == 1 && (*bias)->size(0) == wsizes[1] * groups),
             "Given transposed=1, weight of size ", dims_str(wsizes),
             ", expected bias to be 1-dimensional with ", wsizes[1] * groups,
             " elements, but got bias of size ", dims_str((*bias)->sizes()), " instead");
    // upstream's slow_conv_transpose{2,3}d shape check
    bool small = true;
    for (int64_t i = 0; i < p.dim; ++i)
      small = small && (p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i]);
    if (!small) {
      static const char* kAxis[3][3] = {{"width", "", ""}, {"height", "width", ""},
                                        {"depth", "height", "width"}};
      std::string s = "output padding must be smaller than either stride or dilation, but got";
      const char* const* ax = kAxis[p.dim - 1];
      for (int64_t i = 0; i < p.dim; ++i)
        s += std::string(" output_padding_") + ax[i] + ": " + std::to_string(p.output_padding[i]);
      for (int64_t i = 0; i < p.dim; ++i)
        s += std::string(" stride_") + ax[i] + ": " + std::to_string(p.stride[i]);
      for (int64_t i = 0; i < p.dim; ++i)
        s += std::string(" dilation_") + ax[i] + ": " + std::to_string(p.dilation[i]);
      TN_FAIL(Runtime, s);
    }
  }
  return p;
}

// The output shape of a checked convolution.
Dims conv_output_sizes(const Dims& in, const Dims& w, const ConvParams& p) {
  Dims out{in[0], p.transposed ? w[1] * p.groups : w[0]};
  for (int64_t i = 0; i < p.dim; ++i) {
    int64_t ext = p.dilation[i] * (w[i + 2] - 1);
    out.push_back(p.transposed
                      ? (in[i + 2] - 1) * p.stride[i] - 2 * p.padding[i] + ext +
                            p.output_padding[i] + 1
                      : (in[i + 2] + 2 * p.padding[i] - ext - 1) / p.stride[i] + 1);
  }
  return out;
}

void check_same_type(const Tensor& x, const Tensor& w, const Tensor* b) {
  // upstream's oneDNN path (every float32 input on CPU) words it longer
  bool onednn = x->dtype() == ScalarType::Float;
  const char* tail = onednn ? " should be the same or input should be a MKLDNN tensor and weight "
                              "is a dense tensor" : " should be the same";
  TN_CHECK(x->dtype() == w->dtype() && x->device() == w->device(), "Input type (",
           type_string(x), ") and weight type (", type_string(w), ")", tail);
  const char* btail = onednn ? " should be the same or input should be a MKLDNN tensor and bias "
                               "is a dense tensor" : " should be the same";
  TN_CHECK(!b || ((*b)->dtype() == x->dtype() && (*b)->device() == x->device()), "Input type (",
           type_string(x), ") and bias type (", type_string(*b), ")", btail);
}

// What the rule hands the compute.
struct ConvState {
  ConvParams p;
};

// convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
//             SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups)
void convolution_rule(Call& c) {
  const Tensor &x = c.tensor(0), &w = c.tensor(1);
  const Tensor* b = c.optional_tensor(2);
  ConvParams p = check_conv(x, w->sizes(), b, c.int_list(3), c.int_list(4), c.int_list(5),
                            c.to_bool(6), c.int_list(7), c.to_int(8));
  check_same_type(x, w, b);
  c.ret(new_on(x, conv_output_sizes(x->sizes(), w->sizes(), p), x->dtype()));
  c.keep_rule_state(ConvState{std::move(p)});
}

// The geometry of one im2col/col2im: an "image" (the input of a convolution, the output of a
// transposed one) and the "grid" of kernel positions over it (the other), as 3-d with leading
// dims of size 1 for 1-d and 2-d convolutions.
struct Geom {
  std::array<int64_t, 3> img{1, 1, 1}, grid{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0},
      dl{1, 1, 1};
  int64_t img_n = 1, grid_n = 1, k_n = 1;
};

Geom make_geom(const Dims& image, const Dims& grid, const Dims& wsizes, const ConvParams& cp) {
  Geom g;
  int64_t off = 3 - cp.dim;
  for (int64_t i = 0; i < cp.dim; ++i) {
    g.img[off + i] = image[i + 2];
    g.grid[off + i] = grid[i + 2];
    g.k[off + i] = wsizes[i + 2];
    g.s[off + i] = cp.stride[i];
    g.p[off + i] = cp.padding[i];
    g.dl[off + i] = cp.dilation[i];
  }
  for (int i = 0; i < 3; ++i) {
    g.img_n *= g.img[i];
    g.grid_n *= g.grid[i];
    g.k_n *= g.k[i];
  }
  return g;
}

// Walks the rows of the column buffer, one per (channel, kernel offset, od, oh), in order:
// f(col, in, img, lo, hi) for the row's first column `col` (grid[2] columns); columns col + ow
// with lo <= ow < hi read the image at img + ow * s[2] (img itself may be before the plane), the
// others read padding (all of them when !in). The bounds are worked out once a row, so the loops over ow have no branches.
template <typename F>
void walk_rows(const Geom& g, int64_t channels, F&& f) {
  const int64_t ow_n = g.grid[2], sw = g.s[2];
  int64_t col = 0;
  for (int64_t ch = 0; ch < channels; ++ch)
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
      for (int64_t kh = 0; kh < g.k[1]; ++kh)
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t off = kw * g.dl[2] - g.p[2];  // iw = ow * sw + off
          int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
          int64_t hi = g.img[2] - off > 0 ? (g.img[2] - off + sw - 1) / sw : 0;
          lo = std::min(lo, ow_n);
          hi = std::max(lo, std::min(hi, ow_n));
          for (int64_t od = 0; od < g.grid[0]; ++od) {
            int64_t id = od * g.s[0] - g.p[0] + kd * g.dl[0];
            for (int64_t oh = 0; oh < g.grid[1]; ++oh, col += ow_n) {
              int64_t ih = oh * g.s[1] - g.p[1] + kh * g.dl[1];
              bool row_in = id >= 0 && id < g.img[0] && ih >= 0 && ih < g.img[1];
              int64_t base = ch * g.img_n + (id * g.img[1] + ih) * g.img[2] + off;
              f(col, row_in, base, lo, hi);
            }
          }
        }
}

// cols (channels * k_n, grid_n) = the image's values under each kernel offset (0 in padding).
// Rows are short (a grid's width): the zeros and a stride-1 row go through memset and memcpy,
// which copy whole vectors, rather than a scalar loop (im2col was a fifth of a 3x3 conv's time).
template <typename T>
void im2col(const T* img, int64_t channels, const Geom& g, T* cols) {
  const int64_t ow_n = g.grid[2], sw = g.s[2];
  walk_rows(g, channels, [&](int64_t col, bool in, int64_t i, int64_t lo, int64_t hi) {
    T* c = cols + col;
    if (!in) {
      std::memset(c, 0, sizeof(T) * ow_n);  // T(0) is all zero bits for every conv dtype
      return;
    }
    if (lo > 0) std::memset(c, 0, sizeof(T) * lo);
    if (sw == 1) {
      if (hi > lo) std::memcpy(c + lo, img + i + lo, sizeof(T) * (hi - lo));
    } else {
      for (int64_t ow = lo; ow < hi; ++ow) c[ow] = img[i + ow * sw];
    }
    if (hi < ow_n) std::memset(c + hi, 0, sizeof(T) * (ow_n - hi));
  });
}

// dst[j] += src[j] for j < n, each element one add (the order of the adds to any one element is
// the caller's): an AVX2 body for float and double, since the rows are too short for the
// compiler's -O2 vectoriser to take them.
#define TN_CONV_AVX2 __attribute__((target("avx2,fma")))
TN_CONV_AVX2 void add_row_avx2(float* dst, const float* src, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(dst + j, _mm256_add_ps(_mm256_loadu_ps(dst + j), _mm256_loadu_ps(src + j)));
  for (; j < n; ++j) dst[j] += src[j];
}
TN_CONV_AVX2 void add_row_avx2(double* dst, const double* src, int64_t n) {
  int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    _mm256_storeu_pd(dst + j, _mm256_add_pd(_mm256_loadu_pd(dst + j), _mm256_loadu_pd(src + j)));
  for (; j < n; ++j) dst[j] += src[j];
}

// img += every column value at the image position it was read from (col2im's adjoint sum), in
// the columns' order.
template <typename T>
void col2im(const T* cols, int64_t channels, const Geom& g, T* img) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  const int64_t sw = g.s[2];
  walk_rows(g, channels, [&](int64_t col, bool in, int64_t i, int64_t lo, int64_t hi) {
    if (!in) return;
    const T* c = cols + col;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (sw == 1 && avx2) {
        add_row_avx2(img + i + lo, c + lo, hi - lo);
        return;
      }
    }
    for (int64_t ow = lo; ow < hi; ++ow) {
      T& dst = img[i + ow * sw];
      dst = T(static_cast<acc_t<T>>(dst) + static_cast<acc_t<T>>(c[ow]));
    }
  });
}

// Row-major m x n at p (leading dim ld) as a MatRef, or its transpose.
MatRef rows(const void* p, int64_t ld) { return {p, ld, 1}; }
MatRef cols_of(const void* p, int64_t ld) { return {p, 1, ld}; }

// One convolution's sizes, by group: the input and output channels of a group and the lengths
// of the image and grid planes.
struct Sizes {
  int64_t n, cin, cout, gi, go, l_in, l_out;
};
Sizes sizes_of(const Dims& in, const Dims& out, const ConvParams& p) {
  Sizes s{in[0], in[1], out[1], in[1] / p.groups, out[1] / p.groups, 1, 1};
  for (int64_t i = 0; i < p.dim; ++i) s.l_in *= in[i + 2], s.l_out *= out[i + 2];
  return s;
}

bool is_pointwise(const Geom& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0) return false;
  return true;
}

// Note [Direct float32 convolution]: an ungrouped, stride-1, undilated 2-d float32 convolution
// runs without im2col: the input is copied once into a zero-padded buffer, and each output row
// of a block of kBlockOut output channels is kept in registers (kBlockOut x 16 outputs, two
// AVX2 vectors along the width) while every (input channel, kernel row, kernel column) adds a
// shifted input row times a broadcast weight. No column buffer, no GEMM packing, no bias pass;
// the loads feed 12 fused multiply-adds per 8 (AVX-512: 16 channels x 16 columns, or 8 x 32 for
// wider rows, in zmm registers; direct_kernel chooses). The input gradient of such a convolution
// is the same kernel over the zero-padded output gradient with the weight transposed and flipped
// (padding k - 1 - p). float32 only: each output sums its products in another order than
// slow_conv2d's, within upstream's own error as its oneDNN kernels are
// (tests/autograd/test_conv_pool.py); float64 keeps slow_conv2d's order, bit for bit.
constexpr int kBlockOut = 6;

// One direct convolution's geometry: the padded input (cin, hp, wp) and the output (cout, ho,
// wo) of a (kh, kw) kernel, per sample.
struct Direct {
  int64_t n, cin, cout, hp, wp, kh, kw, ho, wo;
};

// Output channels [co0, co0 + valid) of one sample's output row: xr is the padded input at that
// row (channel 0), wb the block's packed weights (cin, kh, kw, kBlockOut), bias kBlockOut values
// (or null), y the output at (co0, row).
TN_CONV_AVX2 void direct_row(const Direct& d, const float* xr, const float* wb, const float* bias,
                             float* y, int valid) {
  const int64_t plane = d.hp * d.wp, yplane = d.ho * d.wo;
  for (int64_t ow = 0; ow < d.wo; ow += 16) {
    __m256 acc[kBlockOut][2];
#pragma GCC unroll 6
    for (int c = 0; c < kBlockOut; ++c)
      acc[c][0] = acc[c][1] = bias ? _mm256_set1_ps(bias[c]) : _mm256_setzero_ps();
    for (int64_t ci = 0; ci < d.cin; ++ci)
      for (int64_t i = 0; i < d.kh; ++i) {
        const float* r = xr + ci * plane + i * d.wp + ow;
        const float* wr = wb + (ci * d.kh + i) * d.kw * kBlockOut;
        for (int64_t j = 0; j < d.kw; ++j, wr += kBlockOut) {
          const __m256 a0 = _mm256_loadu_ps(r + j), a1 = _mm256_loadu_ps(r + j + 8);
#pragma GCC unroll 6
          for (int c = 0; c < kBlockOut; ++c) {
            const __m256 b = _mm256_broadcast_ss(wr + c);
            acc[c][0] = _mm256_fmadd_ps(a0, b, acc[c][0]);
            acc[c][1] = _mm256_fmadd_ps(a1, b, acc[c][1]);
          }
        }
      }
    const int64_t rem = d.wo - ow;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(
                                              rem, 16))), lane);
    const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(
                                              rem, 16)) - 8), lane);
#pragma GCC unroll 6
    for (int c = 0; c < kBlockOut; ++c) {  // constant indices keep acc in registers
      if (c >= valid) break;
      float* yc = y + c * yplane + ow;
      if (rem >= 16) {
        _mm256_storeu_ps(yc, acc[c][0]);
        _mm256_storeu_ps(yc + 8, acc[c][1]);
      } else {
        _mm256_maskstore_ps(yc, m0, acc[c][0]);
        _mm256_maskstore_ps(yc + 8, m1, acc[c][1]);
      }
    }
  }
}

// direct_row on AVX-512: CB output channels x V vectors of 16 columns in registers (CB * V <= 16
// of the 32), each weight broadcast straight from memory into its multiply-adds, the row's tail
// stored through a mask.
#define TN_CONV_AVX512 __attribute__((target("avx512f,avx2,fma")))
template <int CB, int V>
TN_CONV_AVX512 void direct_row512(const Direct& d, const float* xr, const float* wb,
                                  const float* bias, float* y, int valid) {
  const int64_t plane = d.hp * d.wp, yplane = d.ho * d.wo;
  for (int64_t ow = 0; ow < d.wo; ow += 16 * V) {
    __m512 acc[CB][V];
#pragma GCC unroll 16
    for (int c = 0; c < CB; ++c)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[c][v] = bias ? _mm512_set1_ps(bias[c]) : _mm512_setzero_ps();
    for (int64_t ci = 0; ci < d.cin; ++ci)
      for (int64_t i = 0; i < d.kh; ++i) {
        const float* r = xr + ci * plane + i * d.wp + ow;
        const float* wr = wb + (ci * d.kh + i) * d.kw * CB;
        for (int64_t j = 0; j < d.kw; ++j, wr += CB) {
          __m512 a[V];
#pragma GCC unroll 2
          for (int v = 0; v < V; ++v) a[v] = _mm512_loadu_ps(r + j + 16 * v);
#pragma GCC unroll 16
          for (int c = 0; c < CB; ++c) {
            const __m512 b = _mm512_set1_ps(wr[c]);
#pragma GCC unroll 2
            for (int v = 0; v < V; ++v) acc[c][v] = _mm512_fmadd_ps(a[v], b, acc[c][v]);
          }
        }
      }
    __mmask16 m[V];
    for (int v = 0; v < V; ++v) {
      const int64_t left = d.wo - ow - 16 * v;
      m[v] = left >= 16 ? __mmask16(0xffff) : left <= 0 ? __mmask16(0)
                                                        : __mmask16((1u << left) - 1);
    }
#pragma GCC unroll 16
    for (int c = 0; c < CB; ++c) {  // constant indices keep acc in registers
      if (c >= valid) break;
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        _mm512_mask_storeu_ps(y + c * yplane + ow + 16 * v, m[v], acc[c][v]);
    }
  }
}

// The row kernel for a convolution and its output block (Note [Direct float32 convolution]):
// AVX-512 with 16 channels x 16 columns, or 8 x 32 for rows wider than 16; else AVX2's 6 x 16.
struct DirectKernel {
  void (*row)(const Direct&, const float*, const float*, const float*, float*, int);
  int block;
};
DirectKernel direct_kernel(const Direct& d) {
  static const bool avx512 = cpu::cpu_runs(cpu::Isa::Avx512);
  if (!avx512) return {direct_row, kBlockOut};
  if (d.wo > 16) return {direct_row512<8, 2>, 8};
  return {direct_row512<16, 1>, 16};
}

// y (n, cout, ho, wo) = the direct convolution of xp (n, cin, hp, wp, padded, with 32 floats of
// slack after it for the last row's loads) by the weights packed for k (ceil(cout / k.block),
// cin, kh, kw, k.block), plus bias (cout, or null).
void direct_conv(const Direct& d, const DirectKernel& k, const float* xp, const float* wpk,
                 const float* bias, float* y) {
  const int64_t blocks = (d.cout + k.block - 1) / k.block;
  const int64_t wblock = d.cin * d.kh * d.kw * k.block;
  parallel_for(0, d.n * blocks, 1, [&](int64_t t0, int64_t t1) {
    float bb[16];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / blocks, cb = t % blocks, co0 = cb * k.block;
      const int valid = static_cast<int>(std::min<int64_t>(k.block, d.cout - co0));
      for (int c = 0; c < k.block; ++c) bb[c] = bias && c < valid ? bias[co0 + c] : 0.0f;
      const float* xn = xp + n * d.cin * d.hp * d.wp;
      float* yn = y + (n * d.cout + co0) * d.ho * d.wo;
      for (int64_t oh = 0; oh < d.ho; ++oh)
        k.row(d, xn + oh * d.wp, wpk + cb * wblock, bias ? bb : nullptr, yn + oh * d.wo, valid);
    }
  });
}

// x (n, c, h, w) copied into a (n, c, h + 2 ph, w + 2 pw) buffer with zero borders, plus 32
// zero floats of slack; the buffer is this thread's scratch (grown, never shrunk), so a training
// step's convolutions reuse its pages rather than fault in a fresh zeroed megabyte every call
// (a freed large buffer goes back to the system). Valid until the next pad_planes on this
// thread: each caller uses one at a time.
const float* pad_planes(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, int64_t ph,
                        int64_t pw) {
  thread_local std::vector<float> scratch;
  const int64_t hp = h + 2 * ph, wp = w + 2 * pw, total = n * c * hp * wp + 32;
  if (static_cast<int64_t>(scratch.size()) < total) scratch.resize(static_cast<size_t>(total));
  float* out = scratch.data();
  parallel_for(0, n * c, std::max<int64_t>(1, kGrainSize / (hp * wp)), [&](int64_t p0,
                                                                            int64_t p1) {
    for (int64_t pl = p0; pl < p1; ++pl) {
      float* o = out + pl * hp * wp;
      std::memset(o, 0, sizeof(float) * ph * wp);  // the top rows
      for (int64_t i = 0; i < h; ++i) {
        float* row = o + (i + ph) * wp;
        for (int64_t k = 0; k < pw; ++k) row[k] = row[pw + w + k] = 0.0f;
        std::memcpy(row + pw, x + (pl * h + i) * w, sizeof(float) * w);
      }
      std::memset(o + (h + ph) * wp, 0, sizeof(float) * ph * wp);  // the bottom rows
    }
  });
  std::memset(out + n * c * hp * wp, 0, sizeof(float) * 32);
  return out;
}

// The weights packed for direct_conv in blocks of `block` output channels from a
// (cout, cin, kh, kw) read through at(co, ci, i, j).
template <typename At>
std::vector<float> pack_weights(int64_t block, int64_t cout, int64_t cin, int64_t kh, int64_t kw,
                                At at) {
  const int64_t blocks = (cout + block - 1) / block;
  std::vector<float> out(static_cast<size_t>(blocks * cin * kh * kw * block), 0.0f);
  for (int64_t co = 0; co < cout; ++co)
    for (int64_t ci = 0; ci < cin; ++ci)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          out[(((co / block * cin + ci) * kh + i) * kw + j) * block + co % block] =
              at(co, ci, i, j);
  return out;
}

// direct_weight_taps's products of the 8 columns at ow: g[c] is channel c's output gradient
// row (channels past the block's valid ones read channel 0's and are never stored), r the input
// row; masked: only the lanes of `tail` read the output gradient.
TN_CONV_AVX2 __attribute__((always_inline)) inline void weight_step(
    __m256 (&acc)[4][3], const float* const* g, const float* r, int64_t ow, bool masked,
    __m256i tail) {
  // masked, the input's lanes are zeroed too: past the row they may hold an infinity
  const __m256 a0 = masked ? _mm256_maskload_ps(r + ow, tail) : _mm256_loadu_ps(r + ow);
  const __m256 a1 = masked ? _mm256_maskload_ps(r + ow + 1, tail) : _mm256_loadu_ps(r + ow + 1);
  const __m256 a2 = masked ? _mm256_maskload_ps(r + ow + 2, tail) : _mm256_loadu_ps(r + ow + 2);
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m256 gv = masked ? _mm256_maskload_ps(g[c] + ow, tail) : _mm256_loadu_ps(g[c] + ow);
    acc[c][0] = _mm256_fmadd_ps(gv, a0, acc[c][0]);
    acc[c][1] = _mm256_fmadd_ps(gv, a1, acc[c][1]);
    acc[c][2] = _mm256_fmadd_ps(gv, a2, acc[c][2]);
  }
}

// dw[co0 + c, ci, i, j] for c < valid, j < kw (kw <= 3) of one (output block, input channel,
// kernel row): the sum over samples, rows and columns of go[n, co, oh, ow] *
// xp[n, ci, oh + i, ow + j], eight columns at a time in the lanes of 4 x 3 accumulators (the
// output gradient's loads masked past the row's end, so the padding's lanes add nothing), the
// lanes summed at the end.
TN_CONV_AVX2 void direct_weight_taps(const Direct& d, const float* go, const float* xp,
                                     int64_t co0, int valid, int64_t ci, int64_t i, float* dw) {
  __m256 acc[4][3];
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) acc[c][0] = acc[c][1] = acc[c][2] = _mm256_setzero_ps();
  const int64_t yplane = d.ho * d.wo, plane = d.hp * d.wp, whole = d.wo - d.wo % 8;
  const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(d.wo % 8)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t oh = 0; oh < d.ho; ++oh) {
      const float* g0 = go + (n * d.cout + co0) * yplane + oh * d.wo;
      const float* g[4] = {g0, valid > 1 ? g0 + yplane : g0, valid > 2 ? g0 + 2 * yplane : g0,
                           valid > 3 ? g0 + 3 * yplane : g0};
      const float* r = xp + (n * d.cin + ci) * plane + (oh + i) * d.wp;
      for (int64_t ow = 0; ow < whole; ow += 8) weight_step(acc, g, r, ow, false, tail);
      if (whole < d.wo) weight_step(acc, g, r, whole, true, tail);
    }
  alignas(32) float lanes[8];
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c)  // constant indices keep acc in registers
#pragma GCC unroll 3
    for (int j = 0; j < 3; ++j) {
      if (c >= valid || j >= d.kw) continue;
      _mm256_store_ps(lanes, acc[c][j]);
      float v = 0.0f;
      for (float l : lanes) v += l;
      dw[(((co0 + c) * d.cin + ci) * d.kh + i) * d.kw + j] = v;
    }
}

// direct_weight_taps on AVX-512 for 8 output channels: 16 columns a step in the lanes of 8 x 3
// accumulators (32 registers hold them without spilling, which 4 x 3 on AVX2's 16 do barely), the
// row's tail through masked loads that zero both factors.
TN_CONV_AVX512 void direct_weight_taps512(const Direct& d, const float* go, const float* xp,
                                          int64_t co0, int valid, int64_t ci, int64_t i,
                                          float* dw) {
  __m512 acc[8][3];
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c) acc[c][0] = acc[c][1] = acc[c][2] = _mm512_setzero_ps();
  const int64_t yplane = d.ho * d.wo, plane = d.hp * d.wp;
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t oh = 0; oh < d.ho; ++oh) {
      const float* g0 = go + (n * d.cout + co0) * yplane + oh * d.wo;
      const float* r = xp + (n * d.cin + ci) * plane + (oh + i) * d.wp;
      for (int64_t ow = 0; ow < d.wo; ow += 16) {
        const __mmask16 m = d.wo - ow >= 16 ? __mmask16(0xffff)
                                            : __mmask16((1u << (d.wo - ow)) - 1);
        const __m512 a0 = _mm512_maskz_loadu_ps(m, r + ow);
        const __m512 a1 = _mm512_maskz_loadu_ps(m, r + ow + 1);
        const __m512 a2 = _mm512_maskz_loadu_ps(m, r + ow + 2);
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {  // channels past `valid` read channel 0, never stored
          const __m512 gv = _mm512_maskz_loadu_ps(m, g0 + (c < valid ? c : 0) * yplane + ow);
          acc[c][0] = _mm512_fmadd_ps(gv, a0, acc[c][0]);
          acc[c][1] = _mm512_fmadd_ps(gv, a1, acc[c][1]);
          acc[c][2] = _mm512_fmadd_ps(gv, a2, acc[c][2]);
        }
      }
    }
  alignas(64) float lanes[16];
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c)  // constant indices keep acc in registers
#pragma GCC unroll 3
    for (int j = 0; j < 3; ++j) {
      if (c >= valid || j >= d.kw) continue;
      _mm512_store_ps(lanes, acc[c][j]);
      float v = 0.0f;
      for (float l : lanes) v += l;
      dw[(((co0 + c) * d.cin + ci) * d.kh + i) * d.kw + j] = v;
    }
}

// dw (cout, cin, kh, kw) of a direct-kernel convolution with kw <= 3: each (output block, input
// channel) on one thread, so the bits do not depend on the thread count.
void direct_weight_grad(const float* go, const float* x, float* dw, const Dims& in,
                        const Dims& out, const Dims& ws, const ConvParams& p) {
  Direct d{in[0], in[1], out[1], in[2] + 2 * p.padding[0], in[3] + 2 * p.padding[1],
           ws[2], ws[3], out[2], out[3]};
  const float* xp = pad_planes(x, d.n, d.cin, in[2], in[3], p.padding[0], p.padding[1]);
  static const bool avx512 = cpu::cpu_runs(cpu::Isa::Avx512);
  const int64_t width = avx512 ? 8 : 4, blocks = (d.cout + width - 1) / width;
  parallel_for(0, blocks * d.cin, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t cb = t / d.cin, ci = t % d.cin;
      const int valid = static_cast<int>(std::min<int64_t>(width, d.cout - cb * width));
      for (int64_t i = 0; i < d.kh; ++i) {
        if (avx512)
          direct_weight_taps512(d, go, xp, cb * width, valid, ci, i, dw);
        else
          direct_weight_taps(d, go, xp, cb * width, valid, ci, i, dw);
      }
    }
  });
}

// Whether a convolution takes the direct kernels (Note [Direct float32 convolution]).
bool direct_applies(const ConvParams& p) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  return avx2 && p.dim == 2 && !p.transposed && p.groups == 1 && p.stride[0] == 1 &&
         p.stride[1] == 1 && p.dilation[0] == 1 && p.dilation[1] == 1;
}

// y = conv(x, w) + b through the direct kernel (x (n, cin, h, w), w (cout, cin, kh, kw)).
void direct_forward(const float* x, const float* w, const float* b, float* y, const Dims& in,
                    const Dims& out, const Dims& ws, const ConvParams& p) {
  Direct d{in[0], in[1], out[1], in[2] + 2 * p.padding[0], in[3] + 2 * p.padding[1],
           ws[2], ws[3], out[2], out[3]};
  const float* xp = pad_planes(x, d.n, d.cin, in[2], in[3], p.padding[0], p.padding[1]);
  const DirectKernel k = direct_kernel(d);
  std::vector<float> wpk = pack_weights(k.block, d.cout, d.cin, d.kh, d.kw,
                                        [&](int64_t co, int64_t ci, int64_t i, int64_t j) {
    return w[((co * d.cin + ci) * d.kh + i) * d.kw + j];
  });
  direct_conv(d, k, xp, wpk.data(), b, y);
}

// dx = the input gradient through the direct kernel: go (n, cout, ho, wo) padded by k - 1 - p,
// convolved with w transposed (cin, cout) and flipped.
void direct_input_grad(const float* go, const float* w, float* dx, const Dims& in,
                       const Dims& out, const Dims& ws, const ConvParams& p) {
  const int64_t kh = ws[2], kw = ws[3], qh = kh - 1 - p.padding[0], qw = kw - 1 - p.padding[1];
  Direct d{in[0], out[1], in[1], out[2] + 2 * qh, out[3] + 2 * qw, kh, kw, in[2], in[3]};
  const float* gp = pad_planes(go, d.n, d.cin, out[2], out[3], qh, qw);
  const int64_t wc = ws[1];
  const DirectKernel k = direct_kernel(d);
  std::vector<float> wpk = pack_weights(k.block, d.cout, d.cin, kh, kw,
                                        [&](int64_t ci, int64_t co, int64_t i, int64_t j) {
    return w[((co * wc + ci) * kh + (kh - 1 - i)) * kw + (kw - 1 - j)];
  });
  direct_conv(d, k, gp, wpk.data(), nullptr, dx);
}

// y = conv(x, w) + b for one dtype; every buffer contiguous.
template <typename T>
void conv_forward(const T* x, const T* w, const T* b, T* y, const Dims& in, const Dims& out,
                  const Dims& wsizes, const ConvParams& p) {
  if constexpr (std::is_same_v<T, float>) {
    if (direct_applies(p)) return direct_forward(x, w, b, y, in, out, wsizes, p);
  }
  Sizes s = sizes_of(in, out, p);
  if (!p.transposed) {
    Geom g = make_geom(in, out, wsizes, p);
    int64_t kk = s.gi * g.k_n;  // a group's weight row: (gi, k...)
    bool direct = is_pointwise(g);
    // Samples are independent: each thread takes a run of them with its own column buffer (the
    // GEMMs inside run on that thread: MKL does not start threads inside a parallel region).
    parallel_for(0, s.n, 1, [&](int64_t n0, int64_t n1) {
      std::vector<T> cols(direct ? 0 : static_cast<size_t>(kk * s.l_out));
      for (int64_t n = n0; n < n1; ++n) {
        T* yn = y + n * s.cout * s.l_out;
        if (b)
          for (int64_t o = 0; o < s.cout; ++o)
            for (int64_t l = 0; l < s.l_out; ++l) yn[o * s.l_out + l] = b[o];
        for (int64_t gr = 0; gr < p.groups; ++gr) {
          const T* xg = x + (n * s.cin + gr * s.gi) * s.l_in;
          const T* src = xg;
          if (!direct) {
            im2col(xg, s.gi, g, cols.data());
            src = cols.data();
          }
          gemm<T>(s.go, s.l_out, kk, rows(w + gr * s.go * kk, kk), rows(src, s.l_out),
                  yn + gr * s.go * s.l_out, 1.0, b ? 1.0 : 0.0);
        }
      }
    });
    return;
  }
  // transposed: the output is the image; weight is (cin, go, k...)
  Geom g = make_geom(out, in, wsizes, p);
  int64_t kk = s.go * g.k_n;
  std::vector<T> cols(static_cast<size_t>(kk * s.l_in));
  for (int64_t i = 0; i < s.n * s.cout * s.l_out; ++i) y[i] = T(0);
  for (int64_t n = 0; n < s.n; ++n) {
    T* yn = y + n * s.cout * s.l_out;
    for (int64_t gr = 0; gr < p.groups; ++gr) {
      const T* xg = x + (n * s.cin + gr * s.gi) * s.l_in;
      gemm<T>(kk, s.l_in, s.gi, cols_of(w + gr * s.gi * kk, kk), rows(xg, s.l_in), cols.data(),
              1.0, 0.0);
      col2im(cols.data(), s.go, g, yn + gr * s.go * s.l_out);
    }
    if (b)
      for (int64_t o = 0; o < s.cout; ++o)
        for (int64_t l = 0; l < s.l_out; ++l)
          yn[o * s.l_out + l] = T(static_cast<acc_t<T>>(yn[o * s.l_out + l]) +
                                  static_cast<acc_t<T>>(b[o]));
  }
}

template <typename T>
constexpr bool kConvType = !std::is_same_v<T, bool>;

[[noreturn]] void no_conv_kernel(ScalarType t) {
  TN_FAIL(NotImplemented, "\"slow_conv2d_cpu\" not implemented for '", enum_name(t), "'");
}

// A complex convolution as upstream's complex_convolution computes it: three real ones (Gauss's
// trick) on the parts, a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi,
// br + bi); the result is (a - b) + (c - a - b)i.
void complex_convolution(Call& c, const Tensor& out) {
  auto parts = [](const Value& v) {
    Tensor r = call_tensor("aten::view_as_real",
                           {Value::of(call_tensor("aten::resolve_conj", {v}))});
    int64_t last = r->dim() - 1;
    return std::pair<Tensor, Tensor>{
        call_tensor("aten::select.int", {Value::of(r), Value::of_int(last), Value::of_int(0)}),
        call_tensor("aten::select.int", {Value::of(r), Value::of_int(last), Value::of_int(1)})};
  };
  auto add = [](const Tensor& a, const Tensor& b) {
    return call_tensor("aten::add.Tensor", {Value::of(a), Value::of(b)});
  };
  auto sub = [](const Tensor& a, const Tensor& b) {
    return call_tensor("aten::sub.Tensor", {Value::of(a), Value::of(b)});
  };
  auto conv = [&](const Tensor& x, const Tensor& w, const Tensor& b) {
    std::vector<Value> args = c.args;
    args[0] = Value::of(x);
    args[1] = Value::of(w);
    args[2] = b ? Value::of(b) : Value{};
    return call_tensor("aten::convolution", std::move(args));
  };
  auto [xr, xi] = parts(c.arg(0));
  auto [wr, wi] = parts(c.arg(1));
  Tensor br, bsum;
  if (const Tensor* bias = c.optional_tensor(2)) {
    auto [r, i] = parts(Value::of(*bias));
    br = r;
    bsum = add(r, i);
  }
  Tensor a = conv(xr, wr, br), b = conv(xi, wi, Tensor()), m = conv(add(xr, xi), add(wr, wi), bsum);
  Tensor o = call_tensor("aten::view_as_real", {Value::of(out)});
  int64_t last = o->dim() - 1;
  auto part = [&](int64_t k) {
    return call_tensor("aten::select.int", {Value::of(o), Value::of_int(last), Value::of_int(k)});
  };
  call("aten::copy_", {Value::of(part(0)), Value::of(sub(a, b))});
  call("aten::copy_", {Value::of(part(1)), Value::of(sub(sub(m, a), b))});
}

void convolution_cpu(Call& c) {
  const std::string& key = c.key();
  const ConvParams& p = c.rule_state<ConvState>()->p;
  const Tensor& out = c.results[0].tensor;
  if (out->numel() == 0) return;
  if (is_complex(c.tensor(0)->dtype())) return complex_convolution(c, out);
  Tensor x = contiguous(c.tensor(0), key), w = contiguous(c.tensor(1), key);
  const Tensor* bp = c.optional_tensor(2);
  Tensor b = bp ? contiguous(*bp, key) : Tensor();
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kConvType<T>) {
      conv_forward<T>(data_of<T>(x, key), data_of<T>(w, key), b ? data_of<T>(b, key) : nullptr,
                      data_of<T>(out, key), x->sizes(), out->sizes(), w->sizes(), p);
    } else {
      no_conv_kernel(x->dtype());
    }
  });
}
TN_REGISTER_STRUCTURED("aten::convolution", convolution_rule, convolution_cpu);

// convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes,
//   SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed,
//   SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
struct ConvBackwardState {
  ConvParams p;
  std::array<bool, 3> mask;
};

void convolution_backward_rule(Call& c) {
  const Tensor &go = c.tensor(0), &x = c.tensor(1), &w = c.tensor(2);
  ConvParams p = check_conv(x, w->sizes(), nullptr, c.int_list(4), c.int_list(5), c.int_list(6),
                            c.to_bool(7), c.int_list(8), c.to_int(9));
  TN_CHECK(go->dtype() == x->dtype() && w->dtype() == x->dtype(),
           "convolution_backward: expected grad_output, input and weight of one dtype, but got ",
           enum_name(go->dtype()), ", ", enum_name(x->dtype()), " and ", enum_name(w->dtype()));
  Dims expect = conv_output_sizes(x->sizes(), w->sizes(), p);
  TN_CHECK(go->sizes() == expect, "convolution_backward: expected grad_output of size ",
           dims_str(expect), ", but got ", dims_str(go->sizes()));
  const std::vector<bool>& m = c.arg(10).bools;
  TN_CHECK(m.size() == 3, "convolution_backward: output_mask must have 3 values");
  std::array<bool, 3> mask{m[0], m[1], m[2]};
  Dims bias_sizes = c.arg(3).is_none() ? Dims{expect[1]} : c.int_list(3);
  if (mask[0]) c.ret(new_on(x, x->sizes(), x->dtype())); else c.ret(Value{});
  if (mask[1]) c.ret(new_on(w, w->sizes(), w->dtype())); else c.ret(Value{});
  if (mask[2]) c.ret(new_on(go, bias_sizes, go->dtype())); else c.ret(Value{});
  c.keep_rule_state(ConvBackwardState{std::move(p), mask});
}

// dw (cout, kk), zeroed, = sum over the batch of go_n . im2col(x_n)^T for an ungrouped float32
// convolution, whose bits are not upstream's anyway (its float32 convolution is oneDNN's;
// tests/autograd/test_conv_pool.py): each thread sums its run of samples into its own buffer,
// unfolding each sample just before its product (while its columns are in cache), and the
// buffers are added at the end. The product is taken as dw^T = im2col(x_n) . go_n^T when kk is
// not a multiple of 8 and cout is: oneMKL's kernels run such narrow shapes (3 input channels:
// kk = 27, cout = 16) about 1.5x faster that way round (measured, 1 thread).
void weight_grad_f32(const float* go, const float* x, float* dw, const Sizes& s, const Geom& g,
                     int64_t kk) {
  const int64_t plane = kk * s.l_out, wn = s.cout * kk;
  const bool flip = kk % 8 != 0 && s.cout % 8 == 0;
  const int threads = std::max<int64_t>(1, std::min<int64_t>(intra_op_threads(), s.n));
  // part[t] (wn): thread t's sum, dw itself for thread 0 unless flipped
  std::vector<float> parts(static_cast<size_t>(wn) * (threads - (flip ? 0 : 1)), 0.0f);
  const int64_t per = (s.n + threads - 1) / threads;
  parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
    std::vector<float> cols(static_cast<size_t>(plane));
    for (int64_t t = t0; t < t1; ++t) {
      float* acc = flip ? parts.data() + t * wn : (t == 0 ? dw : parts.data() + (t - 1) * wn);
      for (int64_t n = t * per; n < std::min(s.n, (t + 1) * per); ++n) {
        im2col(x + n * s.cin * s.l_in, s.cin, g, cols.data());
        const float* gon = go + n * s.cout * s.l_out;
        if (flip)
          gemm<float>(kk, s.cout, s.l_out, rows(cols.data(), s.l_out), cols_of(gon, s.l_out),
                      acc, 1.0, 1.0);
        else
          gemm<float>(s.cout, kk, s.l_out, rows(gon, s.l_out), cols_of(cols.data(), s.l_out),
                      acc, 1.0, 1.0);
      }
    }
  });
  if (flip) {  // parts hold dw^T (kk, cout) per thread
    for (int64_t o = 0; o < s.cout; ++o)
      for (int64_t j = 0; j < kk; ++j) {
        float v = 0.0f;
        for (int t = 0; t < threads; ++t) v += parts[t * wn + j * s.cout + o];
        dw[o * kk + j] = v;
      }
    return;
  }
  for (int t = 1; t < threads; ++t)
    for (int64_t i = 0; i < wn; ++i) dw[i] += parts[(t - 1) * wn + i];
}

// dx (if wanted) and dw (if wanted, summed over the batch) of a convolution.
template <typename T>
void conv_backward(const T* go, const T* x, const T* w, T* dx, T* dw, const Dims& in,
                   const Dims& out, const Dims& wsizes, const ConvParams& p) {
  Sizes s = sizes_of(in, out, p);
  bool direct_dx = false;  // the direct kernel writes every element of dx
  if constexpr (std::is_same_v<T, float>)
    direct_dx = dx && direct_applies(p) && p.padding[0] < wsizes[2] && p.padding[1] < wsizes[3];
  if (dx && !direct_dx)
    for (int64_t i = 0; i < s.n * s.cin * s.l_in; ++i) dx[i] = T(0);
  if (dw)
    for (int64_t i = 0; i < numel_of(wsizes); ++i) dw[i] = T(0);
  if (!p.transposed) {
    Geom g = make_geom(in, out, wsizes, p);
    int64_t kk = s.gi * g.k_n;
    int64_t plane = kk * s.l_out;  // one (sample, group)'s columns
    if constexpr (std::is_same_v<T, float>) {
      if (direct_dx) direct_input_grad(go, w, dx, in, out, wsizes, p);
    }
    if (dx && !direct_dx)  // per sample: cols = w_g^T . go_g, then summed back into its own image
      parallel_for(0, s.n, 1, [&](int64_t n0, int64_t n1) {
        std::vector<T> cols(static_cast<size_t>(plane));
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t gr = 0; gr < p.groups; ++gr) {
            const T* gog = go + (n * s.cout + gr * s.go) * s.l_out;
            gemm<T>(kk, s.l_out, s.go, cols_of(w + gr * s.go * kk, kk), rows(gog, s.l_out),
                    cols.data(), 1.0, 0.0);
            col2im(cols.data(), s.gi, g, dx + (n * s.cin + gr * s.gi) * s.l_in);
          }
      });
    if (!dw) return;
    if constexpr (std::is_same_v<T, float>) {
      // rows narrower than 16 would leave most of the direct kernel's lanes idle (masked)
      if (direct_applies(p) && wsizes[3] <= 3 && out[3] >= 16)
        return direct_weight_grad(go, x, dw, in, out, wsizes, p);
      if (p.groups == 1) return weight_grad_f32(go, x, dw, s, g, kk);
    }
    // dw_g += go_g . im2col(x_g)^T, sample after sample (the order of the sum over the batch is
    // that of one thread): the columns of a block of samples are unfolded in parallel first.
    const int64_t block = std::max<int64_t>(1, std::min<int64_t>(
                                                   s.n, (int64_t{1} << 22) / (plane * p.groups)));
    std::vector<T> cols(static_cast<size_t>(block * p.groups * plane));
    for (int64_t nb = 0; nb < s.n; nb += block) {
      int64_t count = std::min(block, s.n - nb);
      parallel_for(0, count * p.groups, 1, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
          int64_t n = nb + i / p.groups, gr = i % p.groups;
          im2col(x + (n * s.cin + gr * s.gi) * s.l_in, s.gi, g, cols.data() + i * plane);
        }
      });
      for (int64_t i = 0; i < count * p.groups; ++i) {
        int64_t n = nb + i / p.groups, gr = i % p.groups;
        const T* gog = go + (n * s.cout + gr * s.go) * s.l_out;
        gemm<T>(s.go, kk, s.l_out, rows(gog, s.l_out), cols_of(cols.data() + i * plane, s.l_out),
                dw + gr * s.go * kk, 1.0, 1.0);
      }
    }
    return;
  }
  // transposed: the gradient of the output (the image) unfolded over the input's grid
  Geom g = make_geom(out, in, wsizes, p);
  int64_t kk = s.go * g.k_n;
  std::vector<T> cols(static_cast<size_t>(kk * s.l_in));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t gr = 0; gr < p.groups; ++gr) {
      im2col(go + (n * s.cout + gr * s.go) * s.l_out, s.go, g, cols.data());
      const T* wg = w + gr * s.gi * kk;
      if (dx)
        gemm<T>(s.gi, s.l_in, kk, rows(wg, kk), rows(cols.data(), s.l_in),
                dx + (n * s.cin + gr * s.gi) * s.l_in, 1.0, 0.0);
      if (dw)
        gemm<T>(s.gi, kk, s.l_in, rows(x + (n * s.cin + gr * s.gi) * s.l_in, s.l_in),
                cols_of(cols.data(), s.l_in), dw + gr * s.gi * kk, 1.0, 1.0);
    }
}

// The float32 bias gradient: per channel, each sample's plane summed in 8 lanes (AVX2) and the
// planes added in sample order. upstream's float32 convolution computes it inside oneDNN, in
// its own order, so ours agrees within upstream's error (tests/autograd/test_conv_pool.py);
// float64 keeps aten::sum's order. Channels split between threads change no bits.
TN_CONV_AVX2 float plane_sum_avx2(const float* p, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
  }
  alignas(32) float l[8];
  _mm256_store_ps(l, _mm256_add_ps(a0, a1));
  float s = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
  for (; i < n; ++i) s += p[i];
  return s;
}
void bias_grad_f32(const float* go, int64_t n, int64_t ch, int64_t plane, float* gb) {
  static const bool avx2 = cpu::cpu_runs(cpu::Isa::Avx2);
  parallel_for(0, ch, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * plane)),
               [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      float s = 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        const float* p = go + (k * ch + c) * plane;
        if (avx2) {
          s += plane_sum_avx2(p, plane);
        } else {
          float t = 0.0f;
          for (int64_t i = 0; i < plane; ++i) t += p[i];
          s += t;
        }
      }
      gb[c] = s;
    }
  });
}

void convolution_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const auto* st = c.rule_state<ConvBackwardState>();
  const ConvParams& p = st->p;
  Tensor go = contiguous(c.tensor(0), key);
  Tensor x = contiguous(c.tensor(1), key), w = contiguous(c.tensor(2), key);
  const Tensor* dx = st->mask[0] ? &c.results[0].tensor : nullptr;
  const Tensor* dw = st->mask[1] ? &c.results[1].tensor : nullptr;
  // The plane sums for 2-d convolutions only: a 3-d transposed convolution's bias gradient summed
  // so went past upstream's own error (make agree: conv_transpose3d, 5.4e-7 against 4.8e-7);
  // the others keep aten::sum's cascade, which is upstream's at::sum.
  if (st->mask[2] && go->dtype() == ScalarType::Float && go->dim() == 4 &&
      c.results[2].tensor->numel() == go->size(1)) {
    bias_grad_f32(data_of<float>(go, key), go->size(0), go->size(1),
                  go->numel() / std::max<int64_t>(1, go->size(0) * go->size(1)),
                  data_of<float>(c.results[2].tensor, key));
  } else if (st->mask[2]) {  // upstream: grad_output summed over every dim but the channels'
    Dims dims{0};
    for (int64_t i = 2; i < go->dim(); ++i) dims.push_back(i);
    Tensor gb = call_tensor("aten::sum.dim_IntList", {Value::of(go), Value::of_ints(dims)});
    copy_cast(c.results[2].tensor, gb, key);
  }
  if (!dx && !dw) return;
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kConvType<T>) {
      conv_backward<T>(data_of<T>(go, key), data_of<T>(x, key), data_of<T>(w, key),
                       dx ? data_of<T>(*dx, key) : nullptr, dw ? data_of<T>(*dw, key) : nullptr,
                       x->sizes(), go->sizes(), w->sizes(), p);
    } else {
      no_conv_kernel(x->dtype());
    }
  });
}
TN_REGISTER_STRUCTURED("aten::convolution_backward", convolution_backward_rule,
                       convolution_backward_cpu);

}  // namespace
}  // namespace tn
