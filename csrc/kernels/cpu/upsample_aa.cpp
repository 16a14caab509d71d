// Antialiased interpolation over the last two dims, as upstream's CPU computes it:
// _upsample_bilinear2d_aa and _upsample_bicubic2d_aa (float32 / float64), their .vec forms,
// out= forms and backward kernels; and uint8 input to these and to upsample_bilinear2d /
// upsample_bicubic2d (Note [uint8 through int16 weights]).
//
// Note [Antialiased weights and their sums]
// Each axis gets, per output position i, a run of source positions [xmin, xmin + xsize) and
// normalised weights (upstream's _compute_indices_min_size_weights_aa, Pillow's method): in
// the dtype T, center = scale * (i + 0.5); support = taps / 2, times the scale when it
// downsamples; weights filter((j + xmin - center + 0.5) / scale) divided by their sum. The
// filters are the triangle (bilinear) and Keys' cubic with A = -0.5 (bicubic), the cubic's
// polynomial steps fused as upstream's build contracts them. The forward resizes the width
// first into a T buffer, then the height; an axis whose size does not change is skipped, and
// equal shapes copy. Each output is x_0 w_0 + x_1 w_1 + ... in T, summed in source order as
// upstream's AVX-512 build compiles that loop: the taps 1 .. k * floor((n - 1) / k) go k
// products at a time (k = 4 floats or 2 doubles, one 128-bit vector; each product rounded,
// then added in order), the rest one fused multiply-add each. The backward adds
// (w_x * w_y) * g into each source, fused, in output order (upstream's
// cpu_upsample_genNd_backward_aa); it skips no axis. Values agree bit for bit.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/pad_layout.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/upsample_uint8.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

std::optional<double> opt_double(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.to_double(i);
}

// Upstream's area_pixel_compute_scale<T>: input / output (or 1 / scale factor), or with
// align_corners (input - 1) / (output - 1).
template <typename T>
T aa_scale(int64_t in, int64_t out, bool align, std::optional<double> scale) {
  if (align) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale && *scale > 0.) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// The filters (Pillow's): triangle, and Keys' cubic convolution with A = -0.5 (-0.75 for
// uint8 without antialias, OpenCV's), its multiply-adds fused as upstream's build contracts
// them.
template <typename T>
T aa_filter(T x, bool cubic, T a = T(-0.5)) {
  x = std::abs(x);
  if (!cubic) return x < T(1) ? static_cast<T>(1.0 - x) : T(0);
  if (x < T(1)) return std::fma(std::fma(a + T(2), x, -(a + T(3))) * x, x, T(1));
  if (x < T(2)) {
    const T t = std::fma(std::fma(a, x, -(T(5) * a)), x, T(8) * a);
    return std::fma(t, x, -(T(4) * a));
  }
  return T(0);
}

// One axis (Note [Antialiased weights and their sums]): per output position its first source
// position, how many there are, and `taps` weights (zero past the count).
template <typename T>
struct AaAxis {
  int64_t taps = 0;
  std::vector<int64_t> first, count;  // [out]
  std::vector<T> weight;              // [out][taps]
};

// backward: upstream's backward sizes its weight rows with ceilf (in float) where the forward
// uses ceil in T.
template <typename T>
AaAxis<T> aa_axis(int64_t in, int64_t out, bool align, std::optional<double> sc, bool cubic,
                  bool backward) {
  const T scale = aa_scale<T>(in, out, align, sc);
  const double half = cubic ? 2.0 : 1.0;
  const T support = scale >= 1.0 ? static_cast<T>(half * scale) : static_cast<T>(half);
  const T invscale = scale >= 1.0 ? static_cast<T>(1.0 / scale) : T(1);
  AaAxis<T> ax;
  ax.taps = 2 * static_cast<int64_t>(backward ? std::ceil(static_cast<float>(support))
                                              : std::ceil(support)) + 1;
  ax.first.resize(static_cast<size_t>(out));
  ax.count.resize(static_cast<size_t>(out));
  ax.weight.assign(static_cast<size_t>(out * ax.taps), T(0));
  for (int64_t i = 0; i < out; ++i) {
    const T center = static_cast<T>(static_cast<double>(scale) * (static_cast<double>(i) + 0.5));
    // Truncation toward zero, as upstream's casts (then clamped at 0).
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>((center - support) + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>((center + support) + 0.5), in);
    const int64_t n = std::clamp<int64_t>(hi - lo, 0, ax.taps);
    T* w = &ax.weight[static_cast<size_t>(i * ax.taps)];
    T total = T(0);
    for (int64_t j = 0; j < n; ++j) {
      const T d = static_cast<T>(j + lo) - center;
      w[j] = aa_filter<T>(static_cast<T>((d + 0.5) * invscale), cubic);
      total += w[j];
    }
    if (total != T(0))
      for (int64_t j = 0; j < n; ++j) w[j] /= total;
    ax.first[static_cast<size_t>(i)] = lo;
    ax.count[static_cast<size_t>(i)] = n;
  }
  return ax;
}

// sum_j src[j * stride] * w[j] over n taps in upstream's order (Note [Antialiased weights and
// their sums]). With no taps (a scale factor that maps an output past the input's end) upstream
// still reads src[0], past its row, times a zero weight: the sign of that zero (or a NaN) is the
// element's there, which is read here while it lies inside the buffer (src_exists).
template <typename T>
T sum_taps(const T* src, int64_t stride, const T* w, int64_t n, bool src_exists) {
  if (n == 0) return src_exists ? src[0] * w[0] : T(0);
  T acc = src[0] * w[0];
  // One 128-bit vector of products at a time: 4 floats or 2 doubles.
  constexpr int64_t kBlock = 16 / sizeof(T);
  const int64_t unfused = (n - 1) / kBlock * kBlock;
  for (int64_t j = 1; j < n; ++j) {
    const T x = src[j * stride];
    if (j <= unfused) {
      const T p = x * w[j];
      acc = acc + p;
    } else {
      acc = std::fma(x, w[j], acc);
    }
  }
  return acc;
}

// One pass along an axis of `planes` (in, other) blocks, contiguous: horizontal (taps 1
// apart, `other` rows of `in`) or vertical (taps `other` apart, `other` columns).
template <typename T>
void resize_axis(const T* src, T* dst, const AaAxis<T>& ax, int64_t planes, int64_t in,
                 int64_t out, int64_t other, bool horizontal) {
  const int64_t size = planes * in * other, step = horizontal ? 1 : other;
  for (int64_t p = 0; p < planes; ++p) {
    T* dp = dst + p * out * other;
    for (int64_t r = 0; r < other; ++r)
      for (int64_t o = 0; o < out; ++o) {
        const int64_t lo = ax.first[static_cast<size_t>(o)];
        const int64_t at = p * in * other + (horizontal ? r * in + lo : lo * other + r);
        const T* w = &ax.weight[static_cast<size_t>(o * ax.taps)];
        dp[horizontal ? r * out + o : o * other + r] =
            sum_taps<T>(src + at, step, w, ax.count[static_cast<size_t>(o)], at < size);
      }
  }
}

// Copies planes (N * C, h, w), contiguous, into out (N, C, h, w) with out's strides (upstream's
// results are channels_last where the input suggests it).
template <typename T>
void store_planes(const T* r, const Tensor& out, const std::string& key) {
  T* dst = data_of<T>(out, key);
  const Dims& st = out->strides();
  const int64_t channels = out->size(1), h = out->size(2), w = out->size(3);
  for (int64_t p = 0; p < out->size(0) * channels; ++p) {
    T* o = dst + (p / channels) * st[0] + (p % channels) * st[1];
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) o[y * st[2] + x * st[3]] = r[(p * h + y) * w + x];
  }
}

// Note [uint8 through int16 weights]
// Upstream resizes uint8 images (bilinear / bicubic, antialiased or not) in integers, as Pillow
// does: each axis's weights are computed in double (antialiased: as the float path's; plain:
// upstream's _compute_indices_min_size_weights, the taps clamped into the image and the weights
// of clamped taps summed onto the edge one), then scaled by 2^p and rounded half away from zero
// to int16, p the largest precision (at most 22) whose largest weight still fits below 2^15.
// An output is clamp((2^(p-1) + sum_j x_j k_j) >> p, 0, 255), the width pass first into a
// uint8 image, then the height; sizes that do not change are skipped. Integer sums do not
// depend on their order, so upstream's AVX2 kernels (C <= 4) and its generic ones agree.
struct Int16Axis {
  int64_t taps = 0;
  unsigned precision = 0;
  std::vector<int64_t> first, count;  // [out]
  std::vector<int16_t> weight;        // [out][taps]
};

// Plain (not antialiased) bilinear / bicubic weights in double, with the largest partial sum
// of a clamped tap as upstream tracks it.
AaAxis<double> plain_axis(int64_t in, int64_t out, bool align, std::optional<double> sc,
                          bool cubic, double& wt_max) {
  const double scale = aa_scale<double>(in, out, align, sc);
  AaAxis<double> ax;
  ax.taps = cubic ? 4 : 2;
  const int64_t support = ax.taps / 2;
  ax.first.resize(static_cast<size_t>(out));
  ax.count.resize(static_cast<size_t>(out));
  ax.weight.assign(static_cast<size_t>(out * ax.taps), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    double real = align ? scale * static_cast<double>(i)
                        : std::fma(scale, static_cast<double>(i) + 0.5, -0.5);
    if (!cubic && real < 0) real = 0;
    // upstream's guard_index_and_lambda floors in float
    const int64_t idx =
        std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), in - 1);
    const double lambda = std::min(std::max(real - static_cast<double>(idx), 0.0), 1.0);
    const int64_t lo_unbound = idx - support + 1;
    const int64_t lo = std::max<int64_t>(lo_unbound, 0);
    const int64_t n = std::clamp<int64_t>(std::min(idx + support + 1, in) - lo, 0, ax.taps);
    double* w = &ax.weight[static_cast<size_t>(i * ax.taps)];
    int64_t at = 0;
    for (int64_t j = 0; j < ax.taps; ++j) {
      const double v = aa_filter<double>(static_cast<double>(j + 1 - support) - lambda, cubic,
                                         -0.75);
      if (lo_unbound + j <= 0) at = 0;
      else if (lo_unbound + j >= in - 1) at = n - 1;
      if (at >= 0 && at < ax.taps) {
        w[at] += v;
        wt_max = std::max(wt_max, w[at]);
      }
      ++at;
    }
    ax.first[static_cast<size_t>(i)] = lo;
    ax.count[static_cast<size_t>(i)] = n;
  }
  return ax;
}

Int16Axis int16_axis(int64_t in, int64_t out, bool align, std::optional<double> sc, bool cubic,
                     bool antialias) {
  double wt_max = 0.0;
  AaAxis<double> ax;
  if (antialias) {
    ax = aa_axis<double>(in, out, align, sc, cubic, false);
    for (double w : ax.weight) wt_max = std::max(wt_max, w);
  } else {
    ax = plain_axis(in, out, align, sc, cubic, wt_max);
  }
  Int16Axis q;
  q.taps = ax.taps;
  q.first = std::move(ax.first);
  q.count = std::move(ax.count);
  for (q.precision = 0; q.precision < 22; ++q.precision) {
    const int next = static_cast<int>(0.5 + wt_max * (1 << (q.precision + 1)));
    if (next >= (1 << 15)) break;
  }
  q.weight.resize(ax.weight.size());
  for (size_t k = 0; k < ax.weight.size(); ++k) {
    const double v = ax.weight[k] * (1 << q.precision);
    q.weight[k] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v)
                                             : static_cast<int>(0.5 + v));
  }
  return q;
}

// One uint8 pass along an axis (resize_axis' layout), in integers.
void resize_axis_u8(const uint8_t* src, uint8_t* dst, const Int16Axis& ax, int64_t planes,
                    int64_t in, int64_t out, int64_t other, bool horizontal) {
  const int64_t step = horizontal ? 1 : other;
  for (int64_t p = 0; p < planes; ++p) {
    const uint8_t* sp = src + p * in * other;
    uint8_t* dp = dst + p * out * other;
    for (int64_t r = 0; r < other; ++r)
      for (int64_t o = 0; o < out; ++o) {
        const int64_t lo = ax.first[static_cast<size_t>(o)];
        const int64_t n = ax.count[static_cast<size_t>(o)];
        const int16_t* k = &ax.weight[static_cast<size_t>(o * ax.taps)];
        const uint8_t* s = horizontal ? sp + r * in + lo : sp + lo * other + r;
        int acc = 1 << (ax.precision - 1);
        for (int64_t j = 0; j < n; ++j) acc += static_cast<int>(s[j * step]) * k[j];
        dp[horizontal ? r * out + o : o * other + r] =
            static_cast<uint8_t>(std::clamp(acc >> ax.precision, 0, 255));
      }
  }
}

// The 2-d checks upstream's upsample_2d_common_check makes. meta: upstream's Python meta
// function (upsample_common_check) words the non-positive sizes its own way, the input's sizes
// as a torch.Size when they are a tensor's (in_is_tensor).
void check_sizes(const Dims& in, const Dims& out_size, bool meta, bool in_is_tensor) {
  TN_CHECK(out_size.size() == 2, "It is expected output_size equals to 2, but got size ",
           out_size.size());
  TN_CHECK(in.size() == 4, "It is expected input_size equals to 4, but got size ", in.size());
  const bool positive = out_size[0] > 0 && out_size[1] > 0 && in[2] > 0 && in[3] > 0;
  if (meta)
    TN_CHECK(positive, "Input and output sizes should be greater than 0, but got input size ",
             in_is_tensor ? "torch.Size(" : "", dims_str(in), in_is_tensor ? ")" : "",
             " and output size ", dims_str(out_size));
  TN_CHECK(positive, "Input and output sizes should be greater than 0, but got input (H: ", in[2],
           ", W: ", in[3], ") output (H: ", out_size[0], ", W: ", out_size[1], ")");
}

// Forward: x (N, C, H, W), any strides -> out (N, C, oh, ow) in out's layout.
void aa_forward(const Tensor& x, const Tensor& out, bool cubic, bool align,
                std::optional<double> sh, std::optional<double> sw, const std::string& key) {
  const int64_t ih = x->size(2), iw = x->size(3), oh = out->size(2), ow = out->size(3);
  if (ih == oh && iw == ow) {
    ops::copy_(out, x);
    return;
  }
  const ScalarType dt = x->dtype();
  if (dt == ScalarType::Byte) {
    upsample_uint8_2d(x, out, cubic, true, align, sh, sw, key);
    return;
  }
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                "\"compute_index_ranges_weights\" not implemented for '", c10_dtype_name(dt), "'");
  if (out->numel() == 0) return;
  Tensor in = contiguous(x, key);
  const int64_t planes = x->size(0) * x->size(1);
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      const T* src = data_of<T>(in, key);
      std::vector<T> wide, result(static_cast<size_t>(planes * oh * ow));
      const T* rows = src;  // (planes, ih, ow) after the horizontal pass
      if (iw != ow) {
        AaAxis<T> ax = aa_axis<T>(iw, ow, align, sw, cubic, false);
        T* dst = ih != oh ? (wide.resize(static_cast<size_t>(planes * ih * ow)), wide.data())
                          : result.data();
        resize_axis<T>(src, dst, ax, planes, iw, ow, ih, true);
        rows = dst;
      }
      if (ih != oh) {
        AaAxis<T> ay = aa_axis<T>(ih, oh, align, sh, cubic, false);
        resize_axis<T>(rows, result.data(), ay, planes, ih, oh, ow, false);
      }
      store_planes<T>(result.data(), out, key);
    }
  });
}

// Backward: grad (N, C, oh, ow) -> grad_input (N, C, ih, iw) in its layout, each output
// gradient times (w_x * w_y) added, fused, into its sources, in output order.
void aa_backward(const Tensor& g, const Tensor& gi, bool cubic, bool align,
                 std::optional<double> sh, std::optional<double> sw, const std::string& key) {
  const int64_t ih = gi->size(2), iw = gi->size(3), oh = g->size(2), ow = g->size(3);
  Tensor go = contiguous(g, key);
  const int64_t planes = gi->size(0) * gi->size(1);
  dispatch_dtype(g->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      AaAxis<T> ay = aa_axis<T>(ih, oh, align, sh, cubic, true);
      AaAxis<T> ax = aa_axis<T>(iw, ow, align, sw, cubic, true);
      const T* src = data_of<T>(go, key);
      std::vector<T> sums(static_cast<size_t>(planes * ih * iw), T(0));
      for (int64_t p = 0; p < planes; ++p) {
        T* acc = sums.data() + p * ih * iw;
        const T* gp = src + p * oh * ow;
        for (int64_t y = 0; y < oh; ++y) {
          const int64_t y0 = ay.first[static_cast<size_t>(y)];
          const int64_t ny = ay.count[static_cast<size_t>(y)];
          const T* wy = &ay.weight[static_cast<size_t>(y * ay.taps)];
          for (int64_t xo = 0; xo < ow; ++xo) {
            const int64_t x0 = ax.first[static_cast<size_t>(xo)];
            const int64_t nx = ax.count[static_cast<size_t>(xo)];
            const T* wx = &ax.weight[static_cast<size_t>(xo * ax.taps)];
            const T gv = gp[y * ow + xo];
            for (int64_t i = 0; i < ny; ++i)
              for (int64_t j = 0; j < nx; ++j) {
                T& a = acc[(y0 + i) * iw + x0 + j];
                a = std::fma(wx[j] * wy[i], gv, a);
              }
          }
        }
      }
      store_planes<T>(sums.data(), gi, key);
    }
  });
}

// _upsample_{bilinear,bicubic}2d_aa(self, output_size, align_corners, scales_h, scales_w).
// Fill: CPU computes; Meta checks and allocates (upstream's meta checks no dtype).
template <bool Cubic, bool Fill>
void upsample_aa(Call& c) {
  const Tensor& x = c.tensor(0);
  const Dims& out_size = c.int_list(1);
  check_supported(x, c.key());
  check_sizes(x->sizes(), out_size, !Fill, true);
  int64_t inner = 1;  // an empty batch is allowed, no other empty dim
  for (int64_t d = 1; d < x->dim(); ++d) inner *= x->size(d);
  TN_CHECK(x->numel() != 0 || inner != 0, "Non-empty 4D data tensor expected but got a tensor "
           "with sizes ", Fill ? "" : "torch.Size(", dims_str(x->sizes()), Fill ? "" : ")");
  Dims shape{x->size(0), x->size(1), out_size[0], out_size[1]};
  Tensor out = ops::empty_strided(shape, pad_strides_like(x, shape), x->dtype(), x->device());
  if constexpr (Fill)
    aa_forward(x, out, Cubic, c.to_bool(2), opt_double(c, 3), opt_double(c, 4), c.key());
  c.ret(out);
}

// _upsample_{bilinear,bicubic}2d_aa_backward(grad_output, output_size, input_size,
// align_corners, scales_h, scales_w).
template <bool Cubic, bool Fill>
void upsample_aa_backward(Call& c) {
  const Tensor& g = c.tensor(0);
  const Dims& out_size = c.int_list(1);
  const Dims& in_size = c.int_list(2);
  check_supported(g, c.key());
  // Upstream's meta for the bilinear backward is Python (its own wording); the bicubic one is
  // its structured C++ meta, worded as the CPU kernel.
  constexpr bool kPythonMeta = !Fill && !Cubic;
  check_sizes(in_size, out_size, kPythonMeta, false);
  TN_CHECK(g->dim() == 4, "Expected grad_output to be a tensor of dimension 4 but got: "
           "dimension ", g->dim());
  const Dims full{in_size[0], in_size[1], out_size[0], out_size[1]};
  for (int64_t i = 0; i < 4; ++i)
    TN_CHECK(g->size(i) == full[static_cast<size_t>(i)],
             kPythonMeta ? "\nExpected grad_output to have the same shape as output; output.size("
                         : "Expected grad_output to have the same shape as output; output.size(",
             i, ") = ", full[static_cast<size_t>(i)],
             kPythonMeta ? "\nbut got grad_output_size(" : " but got grad_output.size(", i,
             ") = ", g->size(i));
  Tensor gi = ops::empty_strided(in_size, pad_strides_like(g, in_size), g->dtype(), g->device());
  if constexpr (Fill) {
    const ScalarType dt = g->dtype();
    TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented, "\"",
                  Cubic ? "upsample_bicubic2d_aa_backward_cpu"
                        : "upsample_bilinear2d_aa_backward_cpu",
                  "\" not implemented for '", c10_dtype_name(dt), "'");
    if (gi->numel() > 0)
      aa_backward(g, gi, Cubic, c.to_bool(3), opt_double(c, 4), opt_double(c, 5), c.key());
  }
  c.ret(gi);
}

TN_REGISTER_KERNEL("aten::_upsample_bilinear2d_aa", DenseCPU, (upsample_aa<false, true>));
TN_REGISTER_KERNEL("aten::_upsample_bilinear2d_aa", Meta, (upsample_aa<false, false>));
TN_REGISTER_KERNEL("aten::_upsample_bicubic2d_aa", DenseCPU, (upsample_aa<true, true>));
TN_REGISTER_KERNEL("aten::_upsample_bicubic2d_aa", Meta, (upsample_aa<true, false>));
TN_REGISTER_KERNEL("aten::_upsample_bilinear2d_aa_backward", DenseCPU,
                   (upsample_aa_backward<false, true>));
TN_REGISTER_KERNEL("aten::_upsample_bilinear2d_aa_backward", Meta,
                   (upsample_aa_backward<false, false>));
TN_REGISTER_KERNEL("aten::_upsample_bicubic2d_aa_backward", DenseCPU,
                   (upsample_aa_backward<true, true>));
TN_REGISTER_KERNEL("aten::_upsample_bicubic2d_aa_backward", Meta,
                   (upsample_aa_backward<true, false>));

// The .vec forms (upstream's composites): the output size given, or each spatial size times
// its scale factor (truncated), the factors passed on as scales_h / scales_w.
template <bool Cubic>
void upsample_aa_vec(Call& c) {
  const Tensor& x = c.tensor(0);
  const bool has_size = !c.arg(1).is_none();
  const bool has_scales = !c.arg(3).is_none();
  TN_CHECK(has_size != has_scales, "Must specify exactly one of output_size and scale_factors");
  Dims out_size;
  std::vector<double> scales;
  if (has_size) {
    out_size = c.int_list(1);
  } else {
    scales = c.arg(3).doubles;
    TN_CHECK(static_cast<int64_t>(scales.size()) == x->dim() - 2, "Expected static_cast<int64_t>"
             "(scale_factors->size()) == spatial_dimensions to be true, but got false.  (Could "
             "this error message be improved?  If so, please report an enhancement request to "
             "PyTorch.)");
    for (size_t i = 0; i < scales.size(); ++i)
      out_size.push_back(static_cast<int64_t>(static_cast<double>(x->size(2 + i)) * scales[i]));
  }
  std::vector<Value> args{c.arg(0), Value::of_ints(out_size), c.arg(2)};
  for (size_t i = 0; i < 2; ++i)
    args.push_back(has_scales && i < scales.size() ? Value::of_double(scales[i]) : Value{});
  c.ret(call_tensor(Cubic ? "aten::_upsample_bicubic2d_aa" : "aten::_upsample_bilinear2d_aa",
                    std::move(args)));
}
TN_REGISTER_COMPOSITE("aten::_upsample_bilinear2d_aa.vec", (upsample_aa_vec<false>));
TN_REGISTER_COMPOSITE("aten::_upsample_bicubic2d_aa.vec", (upsample_aa_vec<true>));

// The out= forms: the functional result written into out (same dtype required).
using ops::generated_out;
constexpr char kB[] = "aten::_upsample_bilinear2d_aa", kC[] = "aten::_upsample_bicubic2d_aa";
constexpr char kBb[] = "aten::_upsample_bilinear2d_aa_backward";
constexpr char kCb[] = "aten::_upsample_bicubic2d_aa_backward";
TN_REGISTER_COMPOSITE("aten::_upsample_bilinear2d_aa.out", (generated_out<kB>));
TN_REGISTER_COMPOSITE("aten::_upsample_bicubic2d_aa.out", (generated_out<kC>));
TN_REGISTER_COMPOSITE("aten::_upsample_bilinear2d_aa_backward.grad_input",
                      (generated_out<kBb>));
TN_REGISTER_COMPOSITE("aten::_upsample_bicubic2d_aa_backward.grad_input",
                      (generated_out<kCb>));

}  // namespace

void upsample_uint8_2d(const Tensor& x, const Tensor& out, bool cubic, bool antialias,
                       bool align, std::optional<double> sh, std::optional<double> sw,
                       const std::string& key) {
  const int64_t ih = x->size(2), iw = x->size(3), oh = out->size(2), ow = out->size(3);
  if (ih == oh && iw == ow) {
    ops::copy_(out, x);
    return;
  }
  if (out->numel() == 0) return;
  // Upstream's AVX2 kernel (C <= 4) fails its own assertion, per image, when a 3-channel image
  // in planar layout is resized vertically to 1x1 (its output then counts as channels_last, its
  // buffer as RGBA): the same RuntimeError here.
  TN_CHECK(!(x->size(1) == 3 && x->is_contiguous() && !is_channels_last_contiguous(*x) &&
             oh == 1 && ow == 1 && ih != 1),
           "num_channels == unpacked_output.size(0) INTERNAL ASSERT FAILED at \"/__w/pytorch/"
           "pytorch/aten/src/ATen/native/cpu/UpSampleKernelAVXAntialias.h\":269, please report "
           "a bug to PyTorch. ");
  Tensor in = contiguous(x, key);
  const int64_t planes = x->size(0) * x->size(1);
  const uint8_t* src = data_of<uint8_t>(in, key);
  std::vector<uint8_t> wide, result(static_cast<size_t>(planes * oh * ow));
  const uint8_t* rows = src;  // (planes, ih, ow) after the width pass
  if (iw != ow) {
    Int16Axis ax = int16_axis(iw, ow, align, sw, cubic, antialias);
    uint8_t* dst = ih != oh ? (wide.resize(static_cast<size_t>(planes * ih * ow)), wide.data())
                            : result.data();
    resize_axis_u8(src, dst, ax, planes, iw, ow, ih, true);
    rows = dst;
  }
  if (ih != oh) {
    Int16Axis ay = int16_axis(ih, oh, align, sh, cubic, antialias);
    resize_axis_u8(rows, result.data(), ay, planes, ih, oh, ow, false);
  }
  store_planes<uint8_t>(result.data(), out, key);
}

}  // namespace tn
