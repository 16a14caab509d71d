// grid_sampler_2d and grid_sampler_2d_backward on dense CPU tensors, as upstream's
// GridSampler.cpp and cpu/GridSamplerKernel.cpp compute them (float32 and float64), plus Meta,
// and the composite grid_sampler (4-D input to grid_sampler_2d, else grid_sampler_3d).
// See Note [Grid sampler arithmetic] for how each element reproduces upstream's vector code.
// float16 and bfloat16 are computed in float32 and rounded once at the end (upstream's
// Vectorized<Half> / <BFloat16> round after every vector op: within its tolerance, not bit
// for bit). Not here: grid_sampler_3d.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "core/promotion.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

// Note [Grid sampler arithmetic]
// Upstream's 2-D kernel is vectorised (ApplyGridSample over Vectorized<T>); each lane's
// arithmetic is scalar arithmetic in T, which this file spells out element by element with
// upstream's operand order. Its AVX2 build (the one REGISTER_DISPATCH kernels run on AVX-512
// machines too, cpu_isa.h) is compiled with FMA contraction; measured against upstream, these
// are fused: unnormalize's (g + 1) * s - 0.5, the sum of corner products (the first product
// plain, each later one fused onto the running sum), the reflection's |x| - flips * span, the
// inner cubic coefficients' steps and the gradient accumulations (cubic_coeffs says which are
// not). The masks are upstream's
// integer ones: a coordinate is floored (or rounded half to even), then converted as
// cvttps/cvttpd do (NaN or out of range gives the integer type's minimum), then compared.
// Gradients for the input are scatter-added in upstream's order: per block of `kLanes`
// positions (32 bytes of T), channel by channel, corner by corner, lane by lane.

enum Interp { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Pad { kZeros = 0, kBorder = 1, kReflection = 2 };

template <bool F, typename T>
T madd(T a, T b, T c) {
  if constexpr (F) return std::fma(a, b, c);
  else return a * b + c;
}
// a - b * c as the AVX2 build's fnmadd computes it.
template <bool F, typename T>
T nmadd(T b, T c, T a) {
  if constexpr (F) return std::fma(-b, c, a);
  else return a - b * c;
}
// _mm256_max_ps(x, 0) / _mm256_min_ps(x, m): the second operand unless x compares greater/less.
template <typename T> T max_ps(T x, T y) { return x > y ? x : y; }
template <typename T> T min_ps(T x, T y) { return x < y ? x : y; }
// Vectorized's maximum/minimum: NaN when either is NaN.
template <typename T> T maximum(T x, T y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<T>::quiet_NaN() : max_ps(x, y);
}
template <typename T> T minimum(T x, T y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<T>::quiet_NaN() : min_ps(x, y);
}
// convert_to_int_of_same_size: truncation; NaN or out of range gives the minimum.
template <typename T>
int64_t to_int(T v) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  constexpr T lim = static_cast<T>(-static_cast<double>(std::numeric_limits<I>::min()));
  if (!(v >= -lim && v < lim)) return std::numeric_limits<I>::min();
  return static_cast<int64_t>(v);
}
template <typename T> bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// upstream's ComputeLocation for one spatial dim: unnormalisation, padding, and the gradient
// multiplier of both.
template <typename T, bool F>
struct Loc {
  T max_val, scale, low, twice_span;
  bool empty, ac;
  Pad pad;
  Loc(int64_t size, bool align_corners, Pad p)
      : max_val(static_cast<T>(size - 1)),
        scale(align_corners ? static_cast<T>(size - 1) / 2 : static_cast<T>(size) / 2),
        low(align_corners ? T(0) : static_cast<T>(-0.5)),
        twice_span(align_corners ? static_cast<T>(size - 1) * 2 : static_cast<T>(size) * 2),
        empty(align_corners ? size <= 1 : size <= 0), ac(align_corners), pad(p) {}

  T unnormalize(T in) const {
    return ac ? (in + T(1)) * scale : madd<F>(in + T(1), scale, static_cast<T>(-0.5));
  }
  T clip(T in) const { return min_ps(max_ps(in, T(0)), max_val); }
  // (clipped, in bounds strictly inside (0, max_val))
  T clip_grad(T in, bool* inside) const {
    const T lo = maximum(in, T(0));
    const T res = minimum(lo, max_val);
    *inside = !same_bits(lo, T(0)) && !same_bits(res, max_val);
    return res;
  }
  T reflect(T in) const {
    if (ac && empty) return T(0);
    const T shifted = ac ? in : in - low;
    const T a = std::abs(shifted);
    const T extra = nmadd<F>(std::trunc(a / twice_span), twice_span, a);
    const T r = minimum(extra, twice_span - extra);
    return ac ? r : r + low;
  }
  T reflect_grad(T in, T* sign) const {
    if (ac && empty) {
      *sign = T(0);
      return T(0);
    }
    const T shifted = ac ? in : in - low;
    const bool neg = shifted < T(0);
    const T a = std::abs(shifted);
    const T extra = nmadd<F>(std::trunc(a / twice_span), twice_span, a);
    const T reflected = twice_span - extra;
    const bool flip = extra > reflected;
    *sign = (flip != neg) ? T(-1) : T(1);
    const T r = flip ? reflected : extra;
    return ac ? r : r + low;
  }
  T apply(T in) const {
    const T u = unnormalize(in);
    if (pad == kZeros) return u;
    if (pad == kBorder) return clip(u);
    return clip(reflect(u));
  }
  T apply_grad(T in, T* mult) const {
    const T u = unnormalize(in);
    if (pad == kZeros) {
      *mult = scale;
      return u;
    }
    bool inside = false;
    if (pad == kBorder) {
      const T r = clip_grad(u, &inside);
      *mult = inside ? scale : T(0);
      return r;
    }
    T sign;
    const T r = clip_grad(reflect_grad(u, &sign), &inside);
    *mult = inside ? sign * scale : T(0);
    return r;
  }
  // bicubic's taps: the padding applied to an already unnormalised coordinate
  T coordinates(T in) const {
    if (pad == kZeros) return in;
    if (pad == kBorder) return clip(in);
    return clip(reflect(in));
  }
};

// One batch element's planes: input (read by strides), sizes, and the padding rule.
template <typename T>
struct Plane {
  const T* inp;
  int64_t C, H, W, sC, sH, sW;
  // upstream's lane mask: the integer corner inside the plane (with border or reflection
  // padding every in-range coordinate is, and upstream reads unmasked; a NaN coordinate there
  // would make it read outside the plane, here it reads 0)
  bool in(int64_t iy, int64_t ix) const { return ix > -1 && ix < W && iy > -1 && iy < H; }
  // the value at integer (iy, ix) of channel c, 0 where the mask is off
  T at(int64_t c, int64_t iy, int64_t ix) const {
    return in(iy, ix) ? inp[c * sC + iy * sH + ix * sW] : T(0);
  }
};

// upstream's get_cubic_coefficients (A = -0.75). Its AVX2 build fuses a product into an
// addition only where the addition's other operand is not itself a product (or is the first
// of two): so the outer taps' Horner steps, each adding a constant times A, stay unfused, and
// the inner taps' (A + 2) * x - (A + 3) and (...) * x * x + 1 are fused.
template <typename T, bool F>
void cubic_coeffs(T tx, T out[4]) {
  const T A = static_cast<T>(-0.75);
  auto outer = [&](T x) { return ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A; };
  auto inner = [&](T x) { return madd<F>(madd<F>(A + T(2), x, -(A + T(3))) * x, x, T(1)); };
  out[0] = outer(tx + T(1));
  out[1] = inner(tx);
  out[2] = inner(T(1) - tx);
  out[3] = outer(T(2) - tx);
}

// upstream's get_cubic_coefficients_grad: every step adds a product of constants, so none
// is fused.
template <typename T>
void cubic_coeffs_grad(T tx, T out[4]) {
  const T A = static_cast<T>(-0.75);
  T x = T(-1) - tx;
  out[0] = (T(-3) * A * x - T(10) * A) * x - T(8) * A;
  x = T(0) - tx;
  out[1] = (T(-3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(1) - tx;
  out[2] = (T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
  x = T(2) - tx;
  out[3] = (T(3) * A * x - T(10) * A) * x + T(8) * A;
}

// c0 * v0 + c1 * v1 + c2 * v2 + c3 * v3 as the AVX2 build contracts it in the bicubic forward
// (measured: the x pass and the y pass are contracted differently).
template <bool F, typename T>
T dot4_x(const T c[4], const T v[4]) {
  return madd<F>(c[2], v[2], madd<F>(c[0], v[0], c[1] * v[1])) + c[3] * v[3];
}
template <bool F, typename T>
T dot4_y(const T c[4], const T v[4]) {
  return madd<F>(c[3], v[3], madd<F>(c[2], v[2], madd<F>(c[1], v[1], c[0] * v[0])));
}

// One of upstream's blocks of grid positions (the lanes of one vector).
struct Block {
  int64_t first, len;  // output spatial offset of lane 0 (lanes are consecutive), lane count
};

bool geometry_contiguous(std::initializer_list<int64_t> sizes,
                         std::initializer_list<int64_t> strides) {
  int64_t expected = 1;
  auto st = strides.end();
  for (auto sz = sizes.end(); sz != sizes.begin();) {
    --sz, --st;
    if (*sz == 1) continue;
    if (*st != expected) return false;
    expected *= *sz;
  }
  return true;
}

// upstream's grid_sample_2d_grid_slice_iterator's blocking: over the flattened H * W when the
// grid is contiguous (or its [H, W] is, with W contiguous), else row by row.
std::vector<Block> blocks_of(int64_t H, int64_t W, int64_t sH, int64_t sW, int64_t sCoor,
                             int64_t lanes) {
  std::vector<Block> out;
  const bool flat = geometry_contiguous({H, W, 2}, {sH, sW, sCoor}) ||
                    ((sW == 1 || W == 1) && geometry_contiguous({H, W}, {sH, sW}));
  if (flat) {
    for (int64_t p = 0; p < H * W; p += lanes)
      out.push_back({p, std::min(lanes, H * W - p)});
  } else {
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; w += lanes) out.push_back({h * W + w, std::min(lanes, W - w)});
  }
  return out;
}

struct Args {
  Interp interp;
  Pad pad;
  bool ac;
};

// Forward for batch element n: out (contiguous, C x H x W) from its input planes and grid.
template <typename T, bool F>
void forward_n(const Plane<T>& p, const T* grid, int64_t gH, int64_t gW, int64_t g_sH,
               int64_t g_sW, int64_t g_sC, T* out, const Args& a) {
  const Loc<T, F> lx(p.W, a.ac, a.pad), ly(p.H, a.ac, a.pad);
  for (int64_t h = 0; h < gH; ++h)
    for (int64_t w = 0; w < gW; ++w) {
      const T* g = grid + h * g_sH + w * g_sW;
      T* o = out + h * gW + w;
      const int64_t plane = gH * gW;
      if (a.interp == kBilinear) {
        const T x = lx.apply(g[0]), y = ly.apply(g[g_sC]);
        const T xw = std::floor(x), yn = std::floor(y);
        const T wd = x - xw, e = T(1) - wd, nd = y - yn, s = T(1) - nd;
        const T nw = s * e, ne = s * wd, sw = nd * e, se = nd * wd;
        const int64_t ix = to_int(xw), iy = to_int(yn);
        for (int64_t c = 0; c < p.C; ++c) {
          const T v_nw = p.at(c, iy, ix), v_ne = p.at(c, iy, ix + 1);
          const T v_sw = p.at(c, iy + 1, ix), v_se = p.at(c, iy + 1, ix + 1);
          o[c * plane] = madd<F>(v_se, se, madd<F>(v_sw, sw, madd<F>(v_ne, ne, v_nw * nw)));
        }
      } else if (a.interp == kNearest) {
        const int64_t ix = to_int(std::nearbyint(lx.apply(g[0])));
        const int64_t iy = to_int(std::nearbyint(ly.apply(g[g_sC])));
        for (int64_t c = 0; c < p.C; ++c) o[c * plane] = p.at(c, iy, ix);
      } else {
        const T x = lx.unnormalize(g[0]), y = ly.unnormalize(g[g_sC]);
        const T fx = std::floor(x), fy = std::floor(y);
        T cx[4], cy[4];
        cubic_coeffs<T, F>(x - fx, cx);
        cubic_coeffs<T, F>(y - fy, cy);
        int64_t ixs[4], iys[4];
        for (int k = 0; k < 4; ++k) {
          ixs[k] = to_int(lx.coordinates(fx + static_cast<T>(k - 1)));
          iys[k] = to_int(ly.coordinates(fy + static_cast<T>(k - 1)));
        }
        for (int64_t c = 0; c < p.C; ++c) {
          T rows[4];
          for (int i = 0; i < 4; ++i) {
            T v[4];
            for (int k = 0; k < 4; ++k) v[k] = p.at(c, iys[i], ixs[k]);
            rows[i] = dot4_x<F>(cx, v);
          }
          o[c * plane] = dot4_y<F>(cy, rows);
        }
      }
    }
}

// Per-lane quantities of one block in the backward pass.
template <typename T>
struct Lane {
  T gx = T(0), gy = T(0), xm = T(0), ym = T(0);
  T wts[4] = {};          // bilinear corner weights nw, ne, sw, se
  T n = T(0), s = T(0), w = T(0), e = T(0);
  int64_t ix = 0, iy = 0;  // bilinear nw corner / nearest index / bicubic floor
  T cx[4] = {}, cy[4] = {}, cxg[4] = {}, cyg[4] = {};
  int64_t ixs[4] = {}, iys[4] = {};
};

// Backward for batch element n: gGrid (contiguous H x W x 2), and gInp (contiguous C x H x W)
// when given, in upstream's block order.
template <typename T, bool F>
void backward_n(const Plane<T>& p, const T* grid, int64_t gH, int64_t gW, int64_t g_sH,
                int64_t g_sW, int64_t g_sC, const T* gout, T* ginp, T* ggrid, const Args& a,
                int64_t lanes) {
  const Loc<T, F> lx(p.W, a.ac, a.pad), ly(p.H, a.ac, a.pad);
  const int64_t plane = gH * gW;
  std::vector<Lane<T>> L(static_cast<size_t>(lanes));
  // gInp is contiguous: in-bounds (iy, ix) of channel c
  auto add = [&](int64_t c, int64_t iy, int64_t ix, T v) {
    if (p.in(iy, ix)) ginp[(c * p.H + iy) * p.W + ix] += v;
  };
  for (const Block& b : blocks_of(gH, gW, g_sH, g_sW, g_sC, lanes)) {
    for (int64_t l = 0; l < b.len; ++l) {
      Lane<T>& q = L[l];
      q = Lane<T>();
      const int64_t h = (b.first + l) / gW, w = (b.first + l) % gW;
      const T* g = grid + h * g_sH + w * g_sW;
      if (a.interp == kBilinear) {
        const T x = lx.apply_grad(g[0], &q.xm), y = ly.apply_grad(g[g_sC], &q.ym);
        const T xw = std::floor(x), yn = std::floor(y);
        q.w = x - xw, q.e = T(1) - q.w, q.n = y - yn, q.s = T(1) - q.n;
        q.wts[0] = q.s * q.e, q.wts[1] = q.s * q.w, q.wts[2] = q.n * q.e, q.wts[3] = q.n * q.w;
        q.ix = to_int(xw), q.iy = to_int(yn);
      } else if (a.interp == kNearest) {
        q.ix = to_int(std::nearbyint(lx.apply(g[0])));
        q.iy = to_int(std::nearbyint(ly.apply(g[g_sC])));
      } else {
        const T x = lx.unnormalize(g[0]), y = ly.unnormalize(g[g_sC]);
        q.xm = lx.scale, q.ym = ly.scale;
        const T fx = std::floor(x), fy = std::floor(y);
        cubic_coeffs<T, F>(x - fx, q.cx);
        cubic_coeffs<T, F>(y - fy, q.cy);
        cubic_coeffs_grad<T>(x - fx, q.cxg);
        cubic_coeffs_grad<T>(y - fy, q.cyg);
        for (int k = 0; k < 4; ++k) {
          q.ixs[k] = to_int(lx.coordinates(fx + static_cast<T>(k - 1)));
          q.iys[k] = to_int(ly.coordinates(fy + static_cast<T>(k - 1)));
        }
      }
    }
    for (int64_t c = 0; c < p.C; ++c) {
      const T* go = gout + c * plane + b.first;
      if (a.interp == kBilinear) {
        if (ginp)
          for (int k = 0; k < 4; ++k)
            for (int64_t l = 0; l < b.len; ++l)
              add(c, L[l].iy + k / 2, L[l].ix + k % 2, L[l].wts[k] * go[l]);
        for (int64_t l = 0; l < b.len; ++l) {
          Lane<T>& q = L[l];
          const T v_nw = p.at(c, q.iy, q.ix), v_ne = p.at(c, q.iy, q.ix + 1);
          const T v_sw = p.at(c, q.iy + 1, q.ix), v_se = p.at(c, q.iy + 1, q.ix + 1);
          q.gx = madd<F>(madd<F>(v_se - v_sw, q.n, (v_ne - v_nw) * q.s), go[l], q.gx);
          q.gy = madd<F>(madd<F>(v_se - v_ne, q.w, (v_sw - v_nw) * q.e), go[l], q.gy);
        }
      } else if (a.interp == kNearest) {
        if (ginp)
          for (int64_t l = 0; l < b.len; ++l) add(c, L[l].iy, L[l].ix, go[l]);
      } else {
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) {
            if (ginp)
              for (int64_t l = 0; l < b.len; ++l)
                add(c, L[l].iys[j], L[l].ixs[i], go[l] * L[l].cx[i] * L[l].cy[j]);
            for (int64_t l = 0; l < b.len; ++l) {
              Lane<T>& q = L[l];
              const T vg = p.at(c, q.iys[j], q.ixs[i]) * go[l];
              q.gx = nmadd<F>(vg * q.cxg[i], q.cy[j], q.gx);
              q.gy = nmadd<F>(vg * q.cyg[j], q.cx[i], q.gy);
            }
          }
      }
    }
    for (int64_t l = 0; l < b.len; ++l) {
      T* gg = ggrid + (b.first + l) * 2;
      gg[0] = a.interp == kNearest ? T(0) : L[l].gx * L[l].xm;
      gg[1] = a.interp == kNearest ? T(0) : L[l].gy * L[l].ym;
    }
  }
}

std::string sizes_str(const Tensor& x) { return dims_str(x->sizes()); }

// check_grid_sampler_common, then check_grid_sampler_2d (dims 4) or _3d (dims 5, no bicubic),
// in upstream's order and words.
void check_common(const Tensor& input, const Tensor& grid) {
  TN_CHECK(input->device() == grid->device(), "grid_sampler(): expected input and grid to be on "
           "same device, but input is on ", input->device().str(), " and grid is on ",
           grid->device().str());
  const int64_t in0 = input->dim() > 0 ? input->size(0) : 1;
  TN_CHECK_KIND(input->dim() > 0, Index, "Dimension specified as 0 but tensor has no dimensions");
  TN_CHECK_KIND(grid->dim() > 0, Index, "Dimension specified as 0 but tensor has no dimensions");
  TN_CHECK(in0 == grid->size(0), "grid_sampler(): expected grid and input to have same batch "
           "size, but got input with sizes ", sizes_str(input), " and grid with sizes ",
           sizes_str(grid));
  TN_CHECK(grid->size(grid->dim() - 1) == input->dim() - 2, "grid_sampler(): expected grid to "
           "have size ", input->dim() - 2, " in last dimension, but got grid with sizes ",
           sizes_str(grid));
  for (int64_t i = 2; i < input->dim(); ++i)
    TN_CHECK(input->size(i) > 0, "grid_sampler(): expected input to have non-empty spatial "
             "dimensions, but input has sizes ", sizes_str(input), " with dimension ", i,
             " being empty");
}
void check_2d(const Tensor& input, const Tensor& grid) {
  check_common(input, grid);
  TN_CHECK(input->dim() == 4 && input->dim() == grid->dim(), "grid_sampler(): expected 4D input "
           "and grid with same number of dimensions, but got input with sizes ",
           sizes_str(input), " and grid with sizes ", sizes_str(grid));
}
void check_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode) {
  check_common(input, grid);
  TN_CHECK(input->dim() == 5 && input->dim() == grid->dim(), "grid_sampler(): expected 5D input "
           "and grid with same number of dimensions, but got input with sizes ",
           sizes_str(input), " and grid with sizes ", sizes_str(grid));
  TN_CHECK(interpolation_mode != kBicubic, "grid_sampler(): bicubic interpolation only supports "
           "4D input");
}

// The bool[2] output_mask as upstream's argument parsing takes it.
bool need_input_grad(const Call& c) {
  const std::vector<bool>& mask = c.arg(6).bools;
  TN_CHECK(mask.size() == 2, "Tried to convert a List with ", mask.size(), " elements to a "
           "fixed-size array of size 2");
  return mask[0];
}

// Modes outside upstream's enums: upstream's switch falls through and returns its output
// uninitialised, which cannot be reproduced; refused by name instead.
Args args_of(const Call& c, size_t at) {
  const int64_t im = c.to_int(at), pm = c.to_int(at + 1);
  TN_CHECK_KIND(im >= 0 && im <= 2, NotImplemented, c.key(), ": interpolation_mode ", im,
                " is none of upstream's (0 bilinear, 1 nearest, 2 bicubic); upstream returns "
                "uninitialised memory for it");
  TN_CHECK_KIND(pm >= 0 && pm <= 2, NotImplemented, c.key(), ": padding_mode ", pm,
                " is none of upstream's (0 zeros, 1 border, 2 reflection); upstream returns "
                "uninitialised memory for it");
  return {static_cast<Interp>(im), static_cast<Pad>(pm), c.to_bool(at + 2)};
}

// The dtype checks of upstream's kernel: its dispatch, then each accessor's dtype.
void check_dtypes(const Call& c, const char* kname, ScalarType dt,
                  std::initializer_list<const Tensor*> accessed) {
  const bool known = dt == ScalarType::Float || dt == ScalarType::Double ||
                     dt == ScalarType::Half || dt == ScalarType::BFloat16;
  TN_CHECK_KIND(known, NotImplemented, "\"", kname, "\" not implemented for '",
                c10_dtype_name(dt), "'");
  for (const Tensor* t : accessed) {
    TN_CHECK((*t)->dim() == 4, "TensorAccessor expected 4 dims but tensor has ", (*t)->dim());
    TN_CHECK((*t)->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
             enum_name((*t)->dtype()));
  }
}

// float16 and bfloat16 are computed in float32 and rounded once (see the file's header).
ScalarType work_dtype(ScalarType dt) { return dt == ScalarType::Double ? dt : ScalarType::Float; }

// upstream falls back to a scalar kernel when a float gather offset passes int32; not here.
void check_gather(const Call& c, const Tensor& x, const Tensor& grid) {
  if (x->dtype() != ScalarType::Float) return;
  const int64_t off = std::max((x->size(2) - 1) * x->stride(2) + (x->size(3) - 1) * x->stride(3),
                               grid->stride(2) * 7);
  TN_CHECK_KIND(off <= std::numeric_limits<int32_t>::max(), NotImplemented, c.key(),
                ": offsets past int32 take upstream's scalar fallback kernel, which torchnative "
                "lacks");
}

template <typename T>
Plane<T> plane_of(const Tensor& x, const T* base, int64_t n) {
  return {base + n * x->stride(0), x->size(1), x->size(2), x->size(3), x->stride(1),
          x->stride(2), x->stride(3)};
}

template <typename B>
void with_fusing(B&& body) {
  if (cpu::avx2_registered_isa() != cpu::Isa::Base) body(std::true_type{});
  else body(std::false_type{});
}

// grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//                 bool align_corners) -> Tensor
void grid_sampler_2d_cpu(Call& c) {
  const Tensor &x = c.tensor(0), &grid = c.tensor(1);
  check_2d(x, grid);
  check_gather(c, x, grid);
  const int64_t N = x->size(0), C = x->size(1), gH = grid->size(1), gW = grid->size(2);
  Tensor out = ops::empty({N, C, gH, gW}, x->dtype(), x->device());
  if (out->numel() == 0) return c.ret(out);
  check_dtypes(c, "grid_sampler_2d_cpu_kernel_impl", x->dtype(), {&out, &x, &grid});
  Args a = args_of(c, 2);
  const std::string& key = c.key();
  const ScalarType wt = work_dtype(x->dtype());
  const Tensor xw = cast_to(x, wt, key), gw = cast_to(grid, wt, key);
  const Tensor ow = wt == x->dtype() ? out : ops::empty(out->sizes(), wt, out->device());
  dispatch_dtype(wt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xi = data_of<T>(xw, key);
      const T* gi = data_of<T>(gw, key);
      T* o = data_of<T>(ow, key);
      with_fusing([&](auto fused) {
        parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
          for (int64_t n = b; n < e; ++n) {
            Plane<T> p = plane_of(xw, xi, n);
            forward_n<T, decltype(fused)::value>(
                p, gi + n * gw->stride(0), gH, gW, gw->stride(1), gw->stride(2),
                gw->stride(3), o + n * C * gH * gW, a);
          }
        });
      });
    }
  });
  if (ow.get() != out.get()) copy_cast(out, ow, key);
  c.ret(out);
}

// grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
//                          align_corners, bool[2] output_mask) -> (Tensor, Tensor)
void grid_sampler_2d_backward_cpu(Call& c) {
  const Tensor &go_in = c.tensor(0), &x = c.tensor(1), &grid = c.tensor(2);
  const bool need_input = need_input_grad(c);
  check_2d(x, grid);
  if (x->dtype() == ScalarType::Float) {
    const Tensor& g = go_in;
    const int64_t go_off = g->dim() == 4 ? (g->size(2) - 1) * g->stride(2) +
                                               (g->size(3) - 1) * g->stride(3) : 0;
    TN_CHECK_KIND(go_off <= std::numeric_limits<int32_t>::max(), NotImplemented, c.key(),
                  ": offsets past int32 take upstream's scalar fallback kernel, which "
                  "torchnative lacks");
    check_gather(c, x, grid);
  }
  Tensor ginp = need_input ? call_tensor("aten::zeros", {ops::ints(x->sizes()),
                                                         Value::of_dtype(x->dtype())})
                           : Tensor();
  Tensor ggrid = ops::empty(grid->sizes(), grid->dtype(), grid->device());
  if (go_in->numel() == 0) {
    call("aten::zero_", {ops::t(ggrid)});
  } else {
    Tensor go = contiguous(go_in, c.key());
    std::initializer_list<const Tensor*> acc = {&ggrid, &x, &grid, &go};
    check_dtypes(c, "grid_sampler_2d_backward_cpu_kernel_impl", x->dtype(), acc);
    const Dims want = {x->size(0), x->size(1), grid->size(1), grid->size(2)};
    TN_CHECK(go->sizes() == want, c.key(), ": grad_output has sizes ", dims_str(go->sizes()),
             " where the output's are ", dims_str(want), " (upstream reads past it)");
    Args a = args_of(c, 3);
    const int64_t N = x->size(0), C = x->size(1), gH = grid->size(1), gW = grid->size(2);
    const std::string& key = c.key();
    const ScalarType wt = work_dtype(x->dtype());
    const bool narrow = wt != x->dtype();
    const Tensor xw = cast_to(x, wt, key), gw = cast_to(grid, wt, key);
    const Tensor gow = cast_to(go, wt, key);
    const Tensor giw = narrow && need_input ? call_tensor("aten::zeros", {ops::ints(x->sizes()),
                                                                         Value::of_dtype(wt)})
                                            : ginp;
    const Tensor ggw = narrow ? ops::empty(grid->sizes(), wt, grid->device()) : ggrid;
    // upstream's vectors hold 32 bytes of the tensor's own dtype
    const int64_t lanes = 32 / static_cast<int64_t>(itemsize(x->dtype()));
    dispatch_dtype(wt, key, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const T *xi = data_of<T>(xw, key), *gi = data_of<T>(gw, key);
        const T* gop = data_of<T>(gow, key);
        T* gin = need_input ? data_of<T>(giw, key) : nullptr;
        T* gg = data_of<T>(ggw, key);
        const int64_t in_plane = C * x->size(2) * x->size(3);
        with_fusing([&](auto fused) {
          parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
            for (int64_t n = b; n < e; ++n) {
              Plane<T> p = plane_of(xw, xi, n);
              backward_n<T, decltype(fused)::value>(
                  p, gi + n * gw->stride(0), gH, gW, gw->stride(1), gw->stride(2),
                  gw->stride(3), gop + n * C * gH * gW, gin ? gin + n * in_plane : nullptr,
                  gg + n * gH * gW * 2, a, lanes);
            }
          });
        });
      }
    });
    if (narrow) {
      copy_cast(ggrid, ggw, key);
      if (need_input) copy_cast(ginp, giw, key);
    }
  }
  c.ret(need_input ? Value::of(ginp) : Value{});
  c.ret(ggrid);
}

// Meta: upstream's meta for the backward (zeros_like / empty_like, no checks); the forward's
// is its Python decomposition (torch/_decomp's _grid_sampler_2d): the mode checks, the shapes
// unpacked (ValueError in Python's words), the grid viewed as (N, 1, oH, oW, 2), and a result
// of the promoted dtype of input and grid. Its AssertionError for a last grid dim other than 2
// is a RuntimeError here (the door has no AssertionError).
void grid_sampler_2d_meta(Call& c) {
  const Tensor &x = c.tensor(0), &grid = c.tensor(1);
  const int64_t im = c.to_int(2), pm = c.to_int(3);
  TN_CHECK(im >= 0 && im <= 2, "Invalid interpolation mode ", im);
  TN_CHECK(pm >= 0 && pm <= 2, "Invalid padding mode ", pm);
  for (const Tensor* t : {&x, &grid}) {
    TN_CHECK_KIND((*t)->dim() >= 4, Value, "not enough values to unpack (expected 4, got ",
                  (*t)->dim(), ")");
    TN_CHECK_KIND((*t)->dim() <= 4, Value, "too many values to unpack (expected 4)");
  }
  TN_CHECK(grid->size(3) == 2, "grid last dimension must be 2 (for x,y coords), got ",
           grid->size(3));
  const int64_t N = x->size(0), C = x->size(1), oH = grid->size(1), oW = grid->size(2);
  ops::view(grid, {N, 1, oH, oW, 2});
  const ScalarType dt = promote_types(x->dtype(), grid->dtype());
  c.ret(ops::empty({N, C, oH, oW}, dt, x->device()));
}

void grid_sampler_2d_backward_meta(Call& c) {
  const Tensor &x = c.tensor(1), &grid = c.tensor(2);
  const bool need_input = need_input_grad(c);
  c.ret(need_input ? Value::of(ops::empty(x->sizes(), x->dtype(), x->device())) : Value{});
  c.ret(ops::empty(grid->sizes(), grid->dtype(), grid->device()));
}

// grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners): upstream's
// composite (cudnn's branch never applies on the CPU). Other than 4-D input goes to
// grid_sampler_3d, which torchnative lacks: its checks run first, so bad input raises as
// upstream's, and only good input meets the refusal.
void grid_sampler(Call& c) {
  const bool two = c.tensor(0)->dim() == 4;
  if (!two) check_3d(c.tensor(0), c.tensor(1), c.to_int(2));
  const char* op = two ? "aten::grid_sampler_2d" : "aten::grid_sampler_3d";
  c.ret(call_tensor(op, {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)}));
}

}  // namespace

TN_REGISTER_KERNEL("aten::grid_sampler_2d", DenseCPU, grid_sampler_2d_cpu);
TN_REGISTER_KERNEL("aten::grid_sampler_2d", Meta, grid_sampler_2d_meta);
TN_REGISTER_KERNEL("aten::grid_sampler_2d_backward", DenseCPU, grid_sampler_2d_backward_cpu);
TN_REGISTER_KERNEL("aten::grid_sampler_2d_backward", Meta, grid_sampler_2d_backward_meta);
TN_REGISTER_COMPOSITE("aten::grid_sampler", grid_sampler);

}  // namespace tn
