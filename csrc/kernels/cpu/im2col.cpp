// im2col (F.unfold) and col2im (F.fold) on dense CPU tensors: (N, C, H, W) (or unbatched
// (C, H, W)) to sliding blocks (N, C * kh * kw, L), row c * kh * kw + i * kw + j holding
// x[c, oy * sh - ph + i * dh, ox * sw - pw + j * dw] (0 outside) at column oy * ow + ox;
// col2im adds the blocks back. Upstream's shape checks and messages; floating dtypes and bool.
#include <algorithm>
#include <string>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

struct Geometry {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

Geometry geometry(const Call& c, size_t k_at) {
  const Dims &k = c.int_list(k_at), &d = c.int_list(k_at + 1), &p = c.int_list(k_at + 2),
             &s = c.int_list(k_at + 3);
  for (const Dims* v : {&k, &d, &p, &s})
    TN_CHECK(v->size() == 2, "It is expected kernel_size, dilation, padding and stride to have "
             "2 elements each");
  Geometry g{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]};
  TN_CHECK(g.kh > 0 && g.kw > 0, "kernel size should be greater than zero, but got "
           "kernel_height: ", g.kh, " kernel_width: ", g.kw);
  TN_CHECK(g.dh > 0 && g.dw > 0, "dilation should be greater than zero, but got "
           "dilation_height: ", g.dh, " dilation_width: ", g.dw);
  TN_CHECK(g.ph >= 0 && g.pw >= 0, "padding should be non-negative, but got pad_height: ", g.ph,
           " pad_width: ", g.pw);
  TN_CHECK(g.sh > 0 && g.sw > 0, "stride should be greater than zero, but got stride_height: ",
           g.sh, " stride_width: ", g.sw);
  return g;
}

int64_t blocks(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s) {
  return (size + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

// Floating dtypes and bool, as upstream's kernels dispatch them.
void check_dtype(ScalarType dt, const char* name) {
  TN_CHECK_KIND(is_floating(dt) || dt == ScalarType::Bool || dt == ScalarType::ComplexFloat ||
                    dt == ScalarType::ComplexDouble,
                NotImplemented, "\"", name,
                "\" not implemented for '", c10_dtype_name(dt), "'");
}

// im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride)
template <bool Fill>
void im2col(Call& c) {
  const Tensor& self = c.tensor(0);
  const Geometry g = geometry(c, 1);
  const int64_t nd = self->dim();
  TN_CHECK((nd == 3 && self->size(0) != 0 && self->size(1) != 0 && self->size(2) != 0) ||
               (nd == 4 && self->size(1) != 0 && self->size(2) != 0 && self->size(3) != 0),
           "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
           "dimensions for input, but got: ", dims_str(self->sizes()));
  check_supported(self, c.key());
  check_dtype(self->dtype(), "im2col_out_cpu");
  const bool batched = nd == 4;
  const int64_t n = batched ? self->size(0) : 1, ch = self->size(nd - 3);
  const int64_t h = self->size(nd - 2), w = self->size(nd - 1);
  const int64_t oh = blocks(h, g.kh, g.dh, g.ph, g.sh), ow = blocks(w, g.kw, g.dw, g.pw, g.sw);
  TN_CHECK(oh >= 1 && ow >= 1, "Given input with spatial size (", h, ", ", w, "), kernel_size=(",
           g.kh, ", ", g.kw, "), dilation=(", g.dh, ", ", g.dw, "), padding=(", g.ph, ", ", g.pw,
           "), calculated shape of the array of sliding blocks as (", oh, ", ", ow,
           "), but its components must be at least one.");
  const int64_t rows = ch * g.kh * g.kw, cols = oh * ow;
  Dims shape = batched ? Dims{n, rows, cols} : Dims{rows, cols};
  Tensor out = new_on(self, shape, self->dtype());
  if constexpr (Fill) {
    const std::string& key = c.key();
    Tensor x = contiguous(self, key);
    dispatch_dtype_complex(x->dtype(), key, [&](auto zero) {
      using T = decltype(zero);
      const T* src = data_of<T>(x, key);
      T* dst = data_of<T>(out, key);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t cc = r / (g.kh * g.kw), i = (r / g.kw) % g.kh, j = r % g.kw;
          const T* plane = src + (b * ch + cc) * h * w;
          T* o = dst + (b * rows + r) * cols;
          for (int64_t y = 0; y < oh; ++y) {
            const int64_t iy = y * g.sh - g.ph + i * g.dh;
            for (int64_t xo = 0; xo < ow; ++xo) {
              const int64_t ix = xo * g.sw - g.pw + j * g.dw;
              o[y * ow + xo] = (iy >= 0 && iy < h && ix >= 0 && ix < w) ? plane[iy * w + ix]
                                                                       : T(0);
            }
          }
        }
    });
  }
  c.ret(out);
}

// col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation,
// int[2] padding, int[2] stride)
template <bool Fill>
void col2im(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims& out_size = c.int_list(1);
  TN_CHECK(out_size.size() == 2, "It is expected output_size equals to 2, but got size ",
           out_size.size());
  const Geometry g = geometry(c, 2);
  const int64_t nd = self->dim();
  TN_CHECK((nd == 2 && self->size(0) != 0 && self->size(1) != 0) ||
               (nd == 3 && self->size(1) != 0 && self->size(2) != 0),
           "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
           "dimensions for input, but got: ", dims_str(self->sizes()));
  check_supported(self, c.key());
  check_dtype(self->dtype(), "col2im_out_cpu");
  const bool batched = nd == 3;
  const int64_t n = batched ? self->size(0) : 1;
  const int64_t rows = self->size(nd - 2), cols = self->size(nd - 1);
  const int64_t kk = g.kh * g.kw;
  TN_CHECK(rows % kk == 0, "Expected size of input's dimension 1 to be divisible by the product "
           "of kernel_size, but got input.size(1)=", rows, " and kernel_size=(", g.kh, ", ",
           g.kw, ")");
  const int64_t h = out_size[0], w = out_size[1];
  const int64_t oh = blocks(h, g.kh, g.dh, g.ph, g.sh), ow = blocks(w, g.kw, g.dw, g.pw, g.sw);
  TN_CHECK(oh >= 1 && ow >= 1, "Given output_size=(", h, ", ", w, "), kernel_size=(", g.kh, ", ",
           g.kw, "), dilation=(", g.dh, ", ", g.dw, "), padding=(", g.ph, ", ", g.pw,
           "), stride=(", g.sh, ", ", g.sw, "), calculated shape of the array of sliding blocks "
           "as (", oh, ", ", ow, "), which is too small (non-positive)");
  TN_CHECK(cols == oh * ow, "Given output_size=(", h, ", ", w, "), kernel_size=(", g.kh, ", ",
           g.kw, "), dilation=(", g.dh, ", ", g.dw, "), padding=(", g.ph, ", ", g.pw,
           "), stride=(", g.sh, ", ", g.sw, "), expected size of input's dimension 2 to match the "
           "calculated number of sliding blocks ", oh, " * ", ow, " = ", oh * ow,
           ", but got input.size(2)=", cols, ".");
  const int64_t ch = rows / kk;
  Dims shape = batched ? Dims{n, ch, h, w} : Dims{ch, h, w};
  Tensor out = new_on(self, shape, self->dtype());
  if constexpr (Fill) {
    const std::string& key = c.key();
    Tensor x = contiguous(self, key);
    dispatch_dtype_complex(x->dtype(), key, [&](auto zero) {
      using T = decltype(zero);
      using A = acc_t<T>;
      // bool adds up as integers (any block set makes the element set, as upstream's += on
      // bool does).
      using Acc = std::conditional_t<std::is_same_v<T, bool>, int64_t, A>;
      if constexpr (!std::is_integral_v<A> || std::is_same_v<A, bool>) {  // floats and bool
        const T* src = data_of<T>(x, key);
        T* dst = data_of<T>(out, key);
        std::vector<Acc> acc(static_cast<size_t>(h * w));
        for (int64_t b = 0; b < n; ++b)
          for (int64_t cc = 0; cc < ch; ++cc) {
            std::fill(acc.begin(), acc.end(), Acc(0));
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j) {
                const T* col = src + (b * rows + (cc * g.kh + i) * g.kw + j) * cols;
                for (int64_t y = 0; y < oh; ++y) {
                  const int64_t iy = y * g.sh - g.ph + i * g.dh;
                  if (iy < 0 || iy >= h) continue;
                  for (int64_t xo = 0; xo < ow; ++xo) {
                    const int64_t ix = xo * g.sw - g.pw + j * g.dw;
                    if (ix >= 0 && ix < w)
                      acc[static_cast<size_t>(iy * w + ix)] += Acc(col[y * ow + xo]);
                  }
                }
              }
            T* plane = dst + (b * ch + cc) * h * w;
            for (int64_t k = 0; k < h * w; ++k) {
              if constexpr (std::is_same_v<T, bool>) plane[k] = acc[static_cast<size_t>(k)] != 0;
              else plane[k] = T(acc[static_cast<size_t>(k)]);
            }
          }
      }
    });
  }
  c.ret(out);
}

}  // namespace

TN_REGISTER_KERNEL("aten::im2col", DenseCPU, im2col<true>);
TN_REGISTER_KERNEL("aten::im2col", Meta, im2col<false>);
TN_REGISTER_KERNEL("aten::col2im", DenseCPU, col2im<true>);
TN_REGISTER_KERNEL("aten::col2im", Meta, col2im<false>);

}  // namespace tn
