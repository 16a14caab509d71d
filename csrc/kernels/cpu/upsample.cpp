// Interpolation over the last one, two or three dims, as upstream's CPU kernels compute it:
// upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d, upsample_linear1d,
// upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d, their .vec forms (output size
// from scale factors), out= forms and backward kernels.
//
// Each spatial axis gets, per output position, a few source indices and weights (upstream's
// compute_indices_weights_*): nearest one (floor(i * scale), with upstream's shortcuts for
// scale 1 and 2; nearest-exact floor((i + 0.5) * scale), no shortcuts), linear two (the
// source position scale * (i + 0.5) - 0.5 clamped at 0, or
// scale * i with align_corners), cubic four (Keys' kernel, A = -0.75, indices clamped into the
// input). The scale is 1 / scale_factor when one is given, else input / output. Sums are in
// the compute type (float for the 16-bit floats; cubic weights rounded to the input dtype, as
// upstream stores them), the inner axis first:
// sum_i w_h[i] * (sum_j w_w[j] * x[h_i][w_j]), each step after the first fused (a * b + c in
// one rounding, as upstream's vectorised build compiles its loops). Nearest agrees bit for bit;
// linear and cubic agree bit for bit in most cases and otherwise within an ulp or two (the
// harness's tolerance). Backward adds each output gradient times its weights into the input
// positions, in output order.
#include <algorithm>
#include <array>
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

enum class Mode { Nearest, NearestExact, Linear, Cubic };

// The op's name (upsample_nearest1d ... _upsample_nearest_exact3d).
const char* op_name(Mode m, int nd) {
  static const char* const names[4][3] = {
      {"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
      {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
      {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
      {"upsample_bicubic2d", "upsample_bicubic2d", "upsample_bicubic2d"}};
  return names[static_cast<int>(m)][nd - 1];
}
// The name upstream's forward kernel refuses a dtype with (its dispatch macro's name, which for
// the 3-d and nearest-exact kernels is the index computation's).
const char* forward_kernel_name(Mode m, int nd) {
  if (m == Mode::NearestExact)
    return nd == 2 ? "upsample_nearest2d_channels_last" : "compute_indices_weights_nearest";
  if (nd == 3) return m == Mode::Nearest ? "compute_indices_weights_nearest"
                                         : "compute_indices_weights_linear";
  return op_name(m, nd);
}

std::optional<double> opt_double(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.to_double(i);
}

// One axis: for each output position, `taps` source indices and weights.
struct Axis {
  int taps = 1;
  std::vector<int64_t> index;  // output * taps
  std::vector<double> weight;  // output * taps, already rounded to the dtype
};

template <typename A>
A scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0. ? static_cast<A>(1.0 / *scale)
                              : static_cast<A>(in) / static_cast<A>(out);
}
template <typename A>
A area_scale(int64_t in, int64_t out, bool align, std::optional<double> scale) {
  if (align) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  return scale_value<A>(scale, in, out);
}
// a * b + c in one rounding, as upstream's AVX2/AVX-512 build contracts its loops; integers
// as they are.
template <typename A>
A madd(A a, A b, A c) {
  if constexpr (std::is_floating_point_v<A>) return std::fma(a, b, c);
  else return a * b + c;
}

template <typename A>
A source_index(A scale, int64_t i, bool align, bool cubic, bool fused) {
  if (align) return scale * static_cast<A>(i);
  A src = fused ? madd<A>(scale, static_cast<A>(i) + A(0.5), A(-0.5))
                : scale * (static_cast<A>(i) + A(0.5)) - A(0.5);
  return (!cubic && src < A(0)) ? A(0) : src;
}

// The weights of a cubic convolution at distance t from the left neighbour (A = -0.75).
// Upstream's steps: t + 1, t, 1 - t and (1 - t) + 1, each multiply-add fused as its build
// compiles them.
template <typename A>
void cubic_coefficients(A t, A* w) {
  const A a = A(-0.75);
  auto near = [a](A x) { return ((a + A(2)) * x - (a + A(3))) * x * x + A(1); };
  auto far = [a](A x) { return ((a * x - A(5) * a) * x + A(8) * a) * x - A(4) * a; };
  const A u = A(1) - t;
  w[0] = far(t + A(1));
  w[1] = near(t);
  w[2] = near(u);
  w[3] = far(u + A(1));
}

template <typename T>
// fused: the source position's multiply-add in one rounding (upstream's vectorised kernels);
// its bicubic backward, built without FMA, rounds twice.
Axis make_axis(Mode mode, int64_t in, int64_t out, bool align, std::optional<double> scale,
               bool fused = true) {
  using A = std::conditional_t<std::is_integral_v<T>, float, acc_t<T>>;
  Axis ax;
  ax.taps = mode == Mode::Linear ? 2 : mode == Mode::Cubic ? 4 : 1;
  ax.index.resize(static_cast<size_t>(out * ax.taps));
  ax.weight.resize(ax.index.size());
  // Cubic weights are stored in the input dtype (upstream's scalar_t weight tensors), linear
  // ones in the compute type.
  auto round = [mode](A w) {
    return mode == Mode::Cubic ? static_cast<double>(static_cast<A>(T(w))) : static_cast<double>(w);
  };
  for (int64_t i = 0; i < out; ++i) {
    int64_t* idx = &ax.index[static_cast<size_t>(i * ax.taps)];
    double* w = &ax.weight[static_cast<size_t>(i * ax.taps)];
    if (mode == Mode::NearestExact) {  // floor((i + 0.5) * scale), the product in double
      const float s = scale_value<float>(scale, in, out);
      const float src = static_cast<float>((static_cast<double>(i) + 0.5) * s);
      idx[0] = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
      w[0] = 1.0;
      continue;
    }
    if (mode == Mode::Nearest) {
      if (out == in) idx[0] = i;
      else if (out == 2 * in) idx[0] = i >> 1;
      else {
        const float s = scale_value<float>(scale, in, out);
        idx[0] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(i) * s)), in - 1);
      }
      w[0] = 1.0;
      continue;
    }
    const A s = area_scale<A>(in, out, align, scale);
    const A real = source_index<A>(s, i, align, mode == Mode::Cubic, fused);
    const int64_t base = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const A lambda = std::min(std::max(real - static_cast<A>(base), A(0)), A(1));
    if (mode == Mode::Linear) {
      idx[0] = base;
      idx[1] = base + (base < in - 1 ? 1 : 0);
      w[0] = round(A(1) - lambda);
      w[1] = round(lambda);
    } else {
      A c[4];
      cubic_coefficients<A>(lambda, c);
      for (int k = 0; k < 4; ++k) {
        idx[k] = std::max<int64_t>(std::min<int64_t>(base - 1 + k, in - 1), 0);
        w[k] = round(c[k]);
      }
    }
  }
  return ax;
}

// The checks upstream's upsample_{1,2}d_common_check and meta functions make.
void check_sizes(const Dims& in, const Dims& out_size, int nd, Mode m) {
  TN_CHECK(static_cast<int>(out_size.size()) == nd, "It is expected output_size equals to ", nd,
           ", but got size ", out_size.size());
  TN_CHECK(static_cast<int>(in.size()) == nd + 2, "It is expected input_size equals to ", nd + 2,
           ", but got size ", in.size());
  bool positive = true;
  for (int i = 0; i < nd; ++i) positive = positive && out_size[i] > 0 && in[2 + i] > 0;
  if (nd == 3)
    TN_CHECK(positive, "Input and output sizes should be greater than 0, but got input (D: ",
             in[2], ", H: ", in[3], ", W: ", in[4], ") output (D: ", out_size[0], ", H: ",
             out_size[1], ", W: ", out_size[2], ")");
  else if (nd == 1)
    TN_CHECK(positive, "Input and output sizes should be greater than 0, but got input (W: ",
             in[2], ") and output (W: ", out_size[0], ")");
  else
    TN_CHECK(positive, "Input and output sizes should be greater than 0, but got input (H: ",
             in[2], ", W: ", in[3], ") output (H: ", out_size[0], ", W: ", out_size[1], ")");
  (void)m;
}

// The dtypes each kernel computes: the floating ones, and uint8 for the nearest forwards and
// the 2-d bilinear / bicubic ones (kernels/cpu/upsample_aa.cpp).
void check_dtype(ScalarType dt, Mode m, int nd, bool backward) {
  const bool nearest = m == Mode::Nearest || m == Mode::NearestExact;
  const bool u8 = nearest || nd == 2;
  const bool ok = is_floating(dt) || (u8 && !backward && dt == ScalarType::Byte);
  std::string name = backward ? (nd == 3 || m == Mode::NearestExact
                                     ? std::string(op_name(m, nd)) + "_backward"
                                     : std::string(op_name(m, nd)))
                              : forward_kernel_name(m, nd);
  TN_CHECK_KIND(ok, NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(dt),
                "'");
}

// The spatial scales (depth, height, width: the last nd of them given) as optionals.
using Scales = std::array<std::optional<double>, 3>;
Scales scales_from(const Call& c, size_t first, int nd) {
  Scales s;
  for (int i = 0; i < nd; ++i) s[static_cast<size_t>(3 - nd + i)] = opt_double(c, first + i);
  return s;
}

// Forward: x (N, C, [D,] [H,] W) any strides -> out contiguous. Axes a tensor lacks have one
// position and no weight; sums run the width first, then height, then depth (upstream's
// Interpolate recursion), each step after the first fused.
void interpolate(const Tensor& x, const Tensor& out, Mode mode, int nd, bool align,
                 const Scales& sc, const std::string& key) {
  Tensor in = contiguous(x, key);
  const int64_t planes = in->size(0) * in->size(1);
  auto dim_or_1 = [&](const Tensor& t, int axis) {  // axis 0 depth, 1 height, 2 width
    return axis >= 3 - nd ? t->size(t->dim() - 3 + axis) : 1;
  };
  const int64_t id = dim_or_1(in, 0), ih = dim_or_1(in, 1), iw = dim_or_1(in, 2);
  const int64_t od = dim_or_1(out, 0), oh = dim_or_1(out, 1), ow = dim_or_1(out, 2);
  dispatch_dtype(in->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = std::conditional_t<std::is_integral_v<T>, float, acc_t<T>>;
    if constexpr (!std::is_same_v<T, bool>) {
      const Axis unit{1, {0}, {1.0}};
      Axis az = nd == 3 ? make_axis<T>(mode, id, od, align, sc[0]) : unit;
      Axis ay = nd >= 2 ? make_axis<T>(mode, ih, oh, align, sc[1]) : unit;
      Axis ax = make_axis<T>(mode, iw, ow, align, sc[2]);
      const T* src = data_of<T>(in, key);
      T* dst = data_of<T>(out, key);
      for (int64_t p = 0; p < planes; ++p) {
        const T* plane = src + p * id * ih * iw;
        T* o = dst + p * od * oh * ow;
        for (int64_t z = 0; z < od; ++z) {
          const int64_t* zi = &az.index[static_cast<size_t>((nd == 3 ? z : 0) * az.taps)];
          const double* zw = &az.weight[static_cast<size_t>((nd == 3 ? z : 0) * az.taps)];
          for (int64_t y = 0; y < oh; ++y) {
            const int64_t* yi = &ay.index[static_cast<size_t>((nd >= 2 ? y : 0) * ay.taps)];
            const double* yw = &ay.weight[static_cast<size_t>((nd >= 2 ? y : 0) * ay.taps)];
            for (int64_t xo = 0; xo < ow; ++xo) {
              const int64_t* xi = &ax.index[static_cast<size_t>(xo * ax.taps)];
              const double* xw = &ax.weight[static_cast<size_t>(xo * ax.taps)];
              A total = A(0);
              for (int k = 0; k < az.taps; ++k) {
                A acc = A(0);
                for (int i = 0; i < ay.taps; ++i) {
                  const T* row = plane + (zi[k] * ih + yi[i]) * iw;
                  A inner = A(row[xi[0]]) * static_cast<A>(xw[0]);
                  for (int j = 1; j < ax.taps; ++j)
                    inner = madd<A>(A(row[xi[j]]), static_cast<A>(xw[j]), inner);
                  if (nd < 2) acc = inner;
                  else if (i == 0) acc = inner * static_cast<A>(yw[0]);
                  else acc = madd<A>(inner, static_cast<A>(yw[i]), acc);
                }
                if (nd < 3) total = acc;
                else if (k == 0) total = acc * static_cast<A>(zw[0]);
                else total = madd<A>(acc, static_cast<A>(zw[k]), total);
              }
              T& dst_at = o[(z * oh + y) * ow + xo];
              if constexpr (std::is_integral_v<T>) dst_at = static_cast<T>(total);
              else dst_at = T(total);
            }
          }
        }
      }
    }
  });
}

// Backward: grad_out (N, C, [od,] [oh,] ow) -> grad_in (N, C, [id,] [ih,] iw) contiguous,
// zero-filled here: each output gradient times its weights (depth, height, width, then the
// gradient) added into its input positions, in output order.
void interpolate_backward(const Tensor& g, const Tensor& gi, Mode mode, int nd, bool align,
                          const Scales& sc, const std::string& key) {
  Tensor go = contiguous(g, key);
  const int64_t planes = gi->size(0) * gi->size(1);
  auto dim_or_1 = [&](const Tensor& t, int axis) {
    return axis >= 3 - nd ? t->size(t->dim() - 3 + axis) : 1;
  };
  const int64_t id = dim_or_1(gi, 0), ih = dim_or_1(gi, 1), iw = dim_or_1(gi, 2);
  const int64_t od = dim_or_1(go, 0), oh = dim_or_1(go, 1), ow = dim_or_1(go, 2);
  dispatch_dtype(gi->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const bool fused = mode != Mode::Cubic;
      const Axis unit{1, {0}, {1.0}};
      Axis az = nd == 3 ? make_axis<T>(mode, id, od, align, sc[0], fused) : unit;
      Axis ay = nd >= 2 ? make_axis<T>(mode, ih, oh, align, sc[1], fused) : unit;
      Axis ax = make_axis<T>(mode, iw, ow, align, sc[2], fused);
      const T* src = data_of<T>(go, key);
      T* dst = data_of<T>(gi, key);
      std::vector<A> acc(static_cast<size_t>(id * ih * iw));
      for (int64_t p = 0; p < planes; ++p) {
        std::fill(acc.begin(), acc.end(), A(0));
        const T* gp = src + p * od * oh * ow;
        for (int64_t z = 0; z < od; ++z) {
          const int64_t* zi = &az.index[static_cast<size_t>((nd == 3 ? z : 0) * az.taps)];
          const double* zw = &az.weight[static_cast<size_t>((nd == 3 ? z : 0) * az.taps)];
          for (int64_t y = 0; y < oh; ++y) {
            const int64_t* yi = &ay.index[static_cast<size_t>((nd >= 2 ? y : 0) * ay.taps)];
            const double* yw = &ay.weight[static_cast<size_t>((nd >= 2 ? y : 0) * ay.taps)];
            for (int64_t xo = 0; xo < ow; ++xo) {
              const A gv = A(gp[(z * oh + y) * ow + xo]);
              const int64_t* xi = &ax.index[static_cast<size_t>(xo * ax.taps)];
              const double* xw = &ax.weight[static_cast<size_t>(xo * ax.taps)];
              if (mode == Mode::Cubic) {  // upstream's bicubic: (g * w_y) * w_x, x taps outside
                for (int j = 0; j < ax.taps; ++j)
                  for (int i = 0; i < ay.taps; ++i)
                    acc[static_cast<size_t>(yi[i] * iw + xi[j])] +=
                        gv * static_cast<A>(yw[i]) * static_cast<A>(xw[j]);
                continue;
              }
              for (int k = 0; k < az.taps; ++k)
                for (int i = 0; i < ay.taps; ++i)
                  for (int j = 0; j < ax.taps; ++j) {
                    A w = nd == 3 ? static_cast<A>(zw[k]) * static_cast<A>(yw[i]) *
                                        static_cast<A>(xw[j])
                                  : static_cast<A>(yw[i]) * static_cast<A>(xw[j]);
                    acc[static_cast<size_t>((zi[k] * ih + yi[i]) * iw + xi[j])] += w * gv;
                  }
            }
          }
        }
        T* o = dst + p * id * ih * iw;
        for (int64_t k = 0; k < id * ih * iw; ++k) o[k] = T(acc[static_cast<size_t>(k)]);
      }
    }
  });
}

// The forward ops: upsample_X(self, output_size, [align_corners,] scales...). Fill: CPU
// computes; Meta checks and allocates.
template <Mode M, int ND, bool Fill>
void upsample(Call& c) {
  constexpr bool kAlign = M == Mode::Linear || M == Mode::Cubic;
  const Tensor& x = c.tensor(0);
  const Dims& out_size = c.int_list(1);
  const size_t s0 = kAlign ? 3 : 2;
  const bool align = kAlign && c.to_bool(2);
  check_supported(x, c.key());
  check_sizes(x->sizes(), out_size, ND, M);
  int64_t inner = 1;  // an empty batch is allowed, no other empty dim
  for (int64_t d = 1; d < x->dim(); ++d) inner *= x->size(d);
  TN_CHECK(x->numel() != 0 || inner != 0, "Non-empty ", ND + 2, "D data tensor expected but got "
           "a tensor with sizes ", dims_str(x->sizes()));
  check_dtype(x->dtype(), M, ND, false);
  Dims shape{x->size(0), x->size(1)};
  shape.insert(shape.end(), out_size.begin(), out_size.end());
  Tensor out = new_on(x, shape, x->dtype());
  if constexpr (Fill) {
    if constexpr (ND == 2 && (M == Mode::Linear || M == Mode::Cubic))
      if (x->dtype() == ScalarType::Byte) {  // in the layout x suggests, as upstream's
        Tensor o = ops::empty_strided(shape, pad_strides_like(x, shape), x->dtype(),
                                      x->device());
        upsample_uint8_2d(x, o, M == Mode::Cubic, false, align, opt_double(c, s0),
                          opt_double(c, s0 + 1), c.key());
        c.ret(o);
        return;
      }
    if (out->numel() > 0)
      interpolate(x, out, M, ND, align, scales_from(c, s0, ND), c.key());
  }
  c.ret(out);
}

// The backward ops: upsample_X_backward(grad_output, output_size, input_size, [align_corners,]
// scales...).
template <Mode M, int ND, bool Fill>
void upsample_backward(Call& c) {
  constexpr bool kAlign = M == Mode::Linear || M == Mode::Cubic;
  const Tensor& g = c.tensor(0);
  const Dims& out_size = c.int_list(1);
  const Dims& in_size = c.int_list(2);
  const size_t s0 = kAlign ? 4 : 3;
  const bool align = kAlign && c.to_bool(3);
  check_supported(g, c.key());
  check_sizes(in_size, out_size, ND, M);
  check_dtype(g->dtype(), M, ND, true);
  Dims expect{in_size[0], in_size[1]};
  expect.insert(expect.end(), out_size.begin(), out_size.end());
  TN_CHECK(g->sizes() == expect, "Expected grad_output to have the same shape as output; output."
           "size(dim) = ", dims_str(expect), " but got grad_output.size(dim) = ",
           dims_str(g->sizes()));
  Tensor gi = new_on(g, in_size, g->dtype());
  if constexpr (Fill)
    if (gi->numel() > 0)
      interpolate_backward(g, gi, M, ND, align, scales_from(c, s0, ND), c.key());
  c.ret(gi);
}

TN_REGISTER_KERNEL("aten::upsample_nearest1d", DenseCPU, (upsample<Mode::Nearest, 1, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest1d", Meta, (upsample<Mode::Nearest, 1, false>));
TN_REGISTER_KERNEL("aten::upsample_nearest1d_backward", DenseCPU,
                   (upsample_backward<Mode::Nearest, 1, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest1d_backward", Meta,
                   (upsample_backward<Mode::Nearest, 1, false>));
TN_REGISTER_KERNEL("aten::upsample_nearest2d", DenseCPU, (upsample<Mode::Nearest, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest2d", Meta, (upsample<Mode::Nearest, 2, false>));
TN_REGISTER_KERNEL("aten::upsample_nearest2d_backward", DenseCPU,
                   (upsample_backward<Mode::Nearest, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest2d_backward", Meta,
                   (upsample_backward<Mode::Nearest, 2, false>));
TN_REGISTER_KERNEL("aten::upsample_linear1d", DenseCPU, (upsample<Mode::Linear, 1, true>));
TN_REGISTER_KERNEL("aten::upsample_linear1d", Meta, (upsample<Mode::Linear, 1, false>));
TN_REGISTER_KERNEL("aten::upsample_linear1d_backward", DenseCPU,
                   (upsample_backward<Mode::Linear, 1, true>));
TN_REGISTER_KERNEL("aten::upsample_linear1d_backward", Meta,
                   (upsample_backward<Mode::Linear, 1, false>));
TN_REGISTER_KERNEL("aten::upsample_bilinear2d", DenseCPU, (upsample<Mode::Linear, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_bilinear2d", Meta, (upsample<Mode::Linear, 2, false>));
TN_REGISTER_KERNEL("aten::upsample_bilinear2d_backward", DenseCPU,
                   (upsample_backward<Mode::Linear, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_bilinear2d_backward", Meta,
                   (upsample_backward<Mode::Linear, 2, false>));
TN_REGISTER_KERNEL("aten::upsample_nearest3d", DenseCPU, (upsample<Mode::Nearest, 3, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest3d", Meta, (upsample<Mode::Nearest, 3, false>));
TN_REGISTER_KERNEL("aten::upsample_nearest3d_backward", DenseCPU,
                   (upsample_backward<Mode::Nearest, 3, true>));
TN_REGISTER_KERNEL("aten::upsample_nearest3d_backward", Meta,
                   (upsample_backward<Mode::Nearest, 3, false>));
TN_REGISTER_KERNEL("aten::upsample_trilinear3d", DenseCPU, (upsample<Mode::Linear, 3, true>));
TN_REGISTER_KERNEL("aten::upsample_trilinear3d", Meta, (upsample<Mode::Linear, 3, false>));
TN_REGISTER_KERNEL("aten::upsample_trilinear3d_backward", DenseCPU,
                   (upsample_backward<Mode::Linear, 3, true>));
TN_REGISTER_KERNEL("aten::upsample_trilinear3d_backward", Meta,
                   (upsample_backward<Mode::Linear, 3, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact1d", DenseCPU,
                   (upsample<Mode::NearestExact, 1, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact1d", Meta,
                   (upsample<Mode::NearestExact, 1, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact1d_backward", DenseCPU,
                   (upsample_backward<Mode::NearestExact, 1, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact1d_backward", Meta,
                   (upsample_backward<Mode::NearestExact, 1, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact2d", DenseCPU,
                   (upsample<Mode::NearestExact, 2, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact2d", Meta,
                   (upsample<Mode::NearestExact, 2, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact2d_backward", DenseCPU,
                   (upsample_backward<Mode::NearestExact, 2, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact2d_backward", Meta,
                   (upsample_backward<Mode::NearestExact, 2, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact3d", DenseCPU,
                   (upsample<Mode::NearestExact, 3, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact3d", Meta,
                   (upsample<Mode::NearestExact, 3, false>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact3d_backward", DenseCPU,
                   (upsample_backward<Mode::NearestExact, 3, true>));
TN_REGISTER_KERNEL("aten::_upsample_nearest_exact3d_backward", Meta,
                   (upsample_backward<Mode::NearestExact, 3, false>));
TN_REGISTER_KERNEL("aten::upsample_bicubic2d", DenseCPU, (upsample<Mode::Cubic, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_bicubic2d", Meta, (upsample<Mode::Cubic, 2, false>));
TN_REGISTER_KERNEL("aten::upsample_bicubic2d_backward", DenseCPU,
                   (upsample_backward<Mode::Cubic, 2, true>));
TN_REGISTER_KERNEL("aten::upsample_bicubic2d_backward", Meta,
                   (upsample_backward<Mode::Cubic, 2, false>));

// The .vec forms (upstream's composites): the output size given, or each spatial size times its
// scale factor (truncated); the scale factors passed on as the kernel's scales.
template <Mode M, int ND>
void upsample_vec(Call& c) {
  constexpr bool kAlign = M == Mode::Linear || M == Mode::Cubic;
  const Tensor& x = c.tensor(0);
  const bool has_size = !c.arg(1).is_none();
  const size_t sf_at = kAlign ? 3 : 2;
  const bool has_scales = !c.arg(sf_at).is_none();
  TN_CHECK(has_size != has_scales, "Must specify exactly one of output_size and scale_factors");
  Dims out_size;
  std::vector<double> scales;
  if (has_size) {
    out_size = c.int_list(1);
  } else {
    const Value& sf = c.arg(sf_at);
    for (double v : sf.doubles) scales.push_back(v);
    TN_CHECK(static_cast<int>(scales.size()) == ND, "It is expected scale_factors equals to ", ND,
             ", but got size ", scales.size());
    TN_CHECK(x->dim() == ND + 2, "It is expected input_size equals to ", ND + 2, ", but got size ",
             x->dim());
    for (int i = 0; i < ND; ++i)
      out_size.push_back(static_cast<int64_t>(static_cast<double>(x->size(2 + i)) * scales[i]));
  }
  std::vector<Value> args{c.arg(0), Value::of_ints(out_size)};
  if (kAlign) args.push_back(c.arg(2));
  for (int i = 0; i < ND; ++i)
    args.push_back(has_scales ? Value::of_double(scales[static_cast<size_t>(i)]) : Value{});
  const std::string op = std::string("aten::") + op_name(M, ND);
  c.ret(call_tensor(op.c_str(), std::move(args)));
}
TN_REGISTER_COMPOSITE("aten::upsample_nearest1d.vec", (upsample_vec<Mode::Nearest, 1>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest2d.vec", (upsample_vec<Mode::Nearest, 2>));
TN_REGISTER_COMPOSITE("aten::upsample_linear1d.vec", (upsample_vec<Mode::Linear, 1>));
TN_REGISTER_COMPOSITE("aten::upsample_bilinear2d.vec", (upsample_vec<Mode::Linear, 2>));
TN_REGISTER_COMPOSITE("aten::upsample_bicubic2d.vec", (upsample_vec<Mode::Cubic, 2>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest3d.vec", (upsample_vec<Mode::Nearest, 3>));
TN_REGISTER_COMPOSITE("aten::upsample_trilinear3d.vec", (upsample_vec<Mode::Linear, 3>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact1d.vec",
                      (upsample_vec<Mode::NearestExact, 1>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact2d.vec",
                      (upsample_vec<Mode::NearestExact, 2>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact3d.vec",
                      (upsample_vec<Mode::NearestExact, 3>));

// The out= forms: the functional result written into out (same dtype required).
using ops::generated_out;
constexpr char kN1[] = "aten::upsample_nearest1d", kN2[] = "aten::upsample_nearest2d";
constexpr char kL1[] = "aten::upsample_linear1d", kB2[] = "aten::upsample_bilinear2d";
constexpr char kC2[] = "aten::upsample_bicubic2d";
constexpr char kN1b[] = "aten::upsample_nearest1d_backward";
constexpr char kN2b[] = "aten::upsample_nearest2d_backward";
constexpr char kL1b[] = "aten::upsample_linear1d_backward";
constexpr char kB2b[] = "aten::upsample_bilinear2d_backward";
constexpr char kC2b[] = "aten::upsample_bicubic2d_backward";
TN_REGISTER_COMPOSITE("aten::upsample_nearest1d.out", (generated_out<kN1>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest2d.out", (generated_out<kN2>));
TN_REGISTER_COMPOSITE("aten::upsample_linear1d.out", (generated_out<kL1>));
TN_REGISTER_COMPOSITE("aten::upsample_bilinear2d.out", (generated_out<kB2>));
TN_REGISTER_COMPOSITE("aten::upsample_bicubic2d.out", (generated_out<kC2>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest1d_backward.grad_input", (generated_out<kN1b>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest2d_backward.grad_input", (generated_out<kN2b>));
TN_REGISTER_COMPOSITE("aten::upsample_linear1d_backward.grad_input", (generated_out<kL1b>));
TN_REGISTER_COMPOSITE("aten::upsample_bilinear2d_backward.grad_input", (generated_out<kB2b>));
TN_REGISTER_COMPOSITE("aten::upsample_bicubic2d_backward.grad_input", (generated_out<kC2b>));
constexpr char kN3[] = "aten::upsample_nearest3d", kT3[] = "aten::upsample_trilinear3d";
constexpr char kE1[] = "aten::_upsample_nearest_exact1d", kE2[] = "aten::_upsample_nearest_exact2d";
constexpr char kE3[] = "aten::_upsample_nearest_exact3d";
constexpr char kN3b[] = "aten::upsample_nearest3d_backward";
constexpr char kT3b[] = "aten::upsample_trilinear3d_backward";
constexpr char kE1b[] = "aten::_upsample_nearest_exact1d_backward";
constexpr char kE2b[] = "aten::_upsample_nearest_exact2d_backward";
constexpr char kE3b[] = "aten::_upsample_nearest_exact3d_backward";
TN_REGISTER_COMPOSITE("aten::upsample_nearest3d.out", (generated_out<kN3>));
TN_REGISTER_COMPOSITE("aten::upsample_trilinear3d.out", (generated_out<kT3>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact1d.out", (generated_out<kE1>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact2d.out", (generated_out<kE2>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact3d.out", (generated_out<kE3>));
TN_REGISTER_COMPOSITE("aten::upsample_nearest3d_backward.grad_input", (generated_out<kN3b>));
TN_REGISTER_COMPOSITE("aten::upsample_trilinear3d_backward.grad_input",
                      (generated_out<kT3b>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact1d_backward.grad_input",
                      (generated_out<kE1b>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact2d_backward.grad_input",
                      (generated_out<kE2b>));
TN_REGISTER_COMPOSITE("aten::_upsample_nearest_exact3d_backward.grad_input",
                      (generated_out<kE3b>));

}  // namespace
}  // namespace tn
