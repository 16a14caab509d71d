// Reflection and replication padding on the CPU, forward and backward, for 1 to 3 padded dims
// (reflection_pad{1,2,3}d, replication_pad{1,2,3}d and their _backward ops), with upstream's
// checks and messages (ReflectionPad.cpp, ReplicationPadding.cpp, padding.h). Every output
// element reads one input element, so the forward is a copy; the backward adds each output
// gradient into its input element in output order, as upstream's cpu_padding_backward does, so
// sums carry its bits. Not here: constant and circular padding (composite/pad.cpp).
#include <algorithm>
#include <array>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/pad_layout.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

enum class Mode { kReflect, kReplicate };

// One padded call's geometry: k padded dims (the last k), an input of k + 1 dims (no batch) or
// k + 2; per padded dim j (0 = the first of them) its input size, pads and output size.
struct PadGeom {
  int k = 1;
  bool batch = false;
  std::array<int64_t, 3> in{}, lo{}, hi{}, out{};
  Dims out_sizes;
};

const char* op_name(Mode m, int k) {
  static const char* names[2][3] = {{"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"},
                                    {"replication_pad1d", "replication_pad2d",
                                     "replication_pad3d"}};
  return names[m == Mode::kReflect ? 0 : 1][k - 1];
}

// Upstream's "(D: 2, H: 3, W: 4)"-style listing of the padded dims' values.
std::string dims_named(const std::array<int64_t, 3>& v, int k, const char* sep) {
  static const char* letters[3] = {"D", "H", "W"};
  std::string s;
  for (int j = 0; j < k; ++j) {
    if (j) s += sep;
    s += std::string(letters[3 - k + j]) + ": " + std::to_string(v[j]);
  }
  return s;
}

// The checks of upstream's meta functions; pad is (w_lo, w_hi, h_lo, h_hi, d_lo, d_hi).
PadGeom check_pad(Mode m, int k, const Tensor& self, const Dims& pad) {
  if (m == Mode::kReflect)
    TN_CHECK(static_cast<int>(pad.size()) == 2 * k, "padding size is expected to be ", 2 * k,
             ", but got: ", pad.size());
  else
    TN_CHECK(static_cast<int>(pad.size()) == 2 * k, "padding size is expected to be ", 2 * k);
  PadGeom g;
  g.k = k;
  int64_t nd = self->dim();
  g.batch = nd == k + 2;
  bool ok = nd == k + 1 || nd == k + 2;
  for (int64_t d = g.batch ? 1 : 0; ok && d < nd; ++d) ok = self->size(d) != 0;
  TN_CHECK(ok, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch "
           "size and other non-zero dimensions for input, but got: ", dims_str(self->sizes()));
  for (int j = 0; j < k; ++j) {
    g.in[j] = self->size(nd - k + j);
    g.lo[j] = pad[2 * (k - 1 - j)];
    g.hi[j] = pad[2 * (k - 1 - j) + 1];
  }
  if (m == Mode::kReflect) {
    for (int j = k - 1; j >= 0; --j)  // W first, as upstream checks
      TN_CHECK(g.lo[j] < g.in[j] && g.hi[j] < g.in[j], "Argument #", 4 + 2 * (k - 1 - j),
               ": Padding size should be less than the corresponding input dimension, but got: "
               "padding (", g.lo[j], ", ", g.hi[j], ") at dimension ", nd - k + j,
               " of input ", dims_str(self->sizes()));
  }
  // One padded dim: an output of at least one element, as upstream checks. Two or three: upstream
  // checks unevenly (an empty output is fine; a negative one fails somewhere, at the latest in
  // allocating it), so any negative size fails here, with the 1-d message.
  bool positive = true;
  for (int j = 0; j < k; ++j) {
    g.out[j] = g.in[j] + g.lo[j] + g.hi[j];
    positive = positive && g.out[j] >= (k == 1 ? 1 : 0);
  }
  TN_CHECK(positive, "input (", dims_named(g.in, k, ", "), ") is too small. Calculated output ",
           dims_named(g.out, k, " "));
  g.out_sizes = Dims(self->sizes().begin(), self->sizes().end() - k);
  for (int j = 0; j < k; ++j) g.out_sizes.push_back(g.out[j]);
  return g;
}

// The input index output index o reads along one dim (upstream's ReflectionPad / ReplicationPad
// index, less the pad).
int64_t source(Mode m, int64_t o, int64_t size, int64_t lo) {
  int64_t i = o - lo;
  if (m == Mode::kReplicate) return std::min(std::max<int64_t>(i, 0), size - 1);
  if (i < 0) return -i;
  if (i >= size) return 2 * (size - 1) - i;
  return i;
}

// Walks every output element in row-major order, calling f(output offset, input offset), both
// in elements from element 0 of their tensors.
template <typename F>
void walk(Mode m, const PadGeom& g, const Tensor& in, const Dims& out_strides, F&& f) {
  int64_t nd = in->dim(), lead = nd - g.k;
  int64_t planes = 1;
  for (int64_t d = 0; d < lead; ++d) planes *= in->size(d);
  // Padded dims as 3 (missing leading ones of size 1); the leading dims flattened by index.
  std::array<int64_t, 3> osz{1, 1, 1}, isz{1, 1, 1}, los{0, 0, 0}, ist{0, 0, 0}, ost{0, 0, 0};
  for (int j = 0; j < g.k; ++j) {
    int s = 3 - g.k + j;
    osz[s] = g.out[j];
    isz[s] = g.in[j];
    los[s] = g.lo[j];
    ist[s] = in->stride(lead + j);
    ost[s] = out_strides[lead + j];
  }
  for (int64_t p = 0; p < planes; ++p) {
    int64_t rest = p, ibase = 0, obase = 0;
    for (int64_t d = lead - 1; d >= 0; --d) {
      int64_t idx = rest % in->size(d);
      rest /= in->size(d);
      ibase += idx * in->stride(d);
      obase += idx * out_strides[d];
    }
    for (int64_t od = 0; od < osz[0]; ++od) {
      int64_t id = source(m, od, isz[0], los[0]);
      for (int64_t oh = 0; oh < osz[1]; ++oh) {
        int64_t ih = source(m, oh, isz[1], los[1]);
        for (int64_t ow = 0; ow < osz[2]; ++ow) {
          int64_t iw = source(m, ow, isz[2], los[2]);
          f(obase + od * ost[0] + oh * ost[1] + ow * ost[2],
            ibase + id * ist[0] + ih * ist[1] + iw * ist[2]);
        }
      }
    }
  }
}

template <Mode M, int K>
void pad_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  PadGeom g = check_pad(M, K, self, c.int_list(1));
  c.ret(ops::empty_strided(g.out_sizes, pad_strides_like(self, g.out_sizes), self->dtype(),
                           self->device()));
}

template <Mode M, int K>
void pad_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.results[0].tensor;
  PadGeom g = check_pad(M, K, self, c.int_list(1));
  if (out->numel() == 0) return;
  dispatch_dtype_complex(self->dtype(), c.key(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      TN_FAIL(NotImplemented, "\"", op_name(M, K), "\" not implemented for 'Bool'");
    } else {
      const T* src = data_of<T>(self, c.key());
      T* dst = data_of<T>(out, c.key());
      walk(M, g, self, out->strides(), [&](int64_t o, int64_t i) { dst[o] = src[i]; });
    }
  });
}

// *_backward(grad_output, self, padding): grad_output must have the padded output's shape.
template <Mode M, int K>
PadGeom check_backward(const Call& c) {
  const Tensor &grad = c.tensor(0), &self = c.tensor(1);
  PadGeom g = check_pad(M, K, self, c.int_list(2));
  static const char* names[3] = {"depth", "height", "width"};
  for (int j = K - 1; j >= 0; --j) {
    int64_t got = grad->dim() == self->dim() ? grad->size(self->dim() - K + j) : -1;
    if (M == Mode::kReflect)
      TN_CHECK(got == g.out[j], "grad_output ", names[3 - K + j], " unexpected. Expected: ",
               g.out[j], ", Got: ", got);
    else
      TN_CHECK(got == g.out[j], "gradOutput ", names[3 - K + j], " unexpected. Expected: ",
               g.out[j], " Got: ", got);
  }
  TN_CHECK(grad->sizes() == g.out_sizes, "grad_output has shape ", dims_str(grad->sizes()),
           " where ", dims_str(g.out_sizes), " was expected");
  return g;
}

template <Mode M, int K>
void pad_backward_rule(Call& c) {
  const Tensor& self = c.tensor(1);
  check_backward<M, K>(c);
  c.ret(ops::empty_strided(self->sizes(), pad_strides_like(self, self->sizes()), self->dtype(),
                           self->device()));
}

template <Mode M, int K>
void pad_backward_cpu(Call& c) {
  const Tensor &grad = c.tensor(0), &self = c.tensor(1);
  const Tensor& gin = c.results[0].tensor;
  PadGeom g = check_backward<M, K>(c);
  std::string frame = std::string(op_name(M, K)) + "_backward_cpu";
  ScalarType dt = self->dtype();
  TN_CHECK_KIND(info(dt).is_floating, NotImplemented, "\"", frame, "\" not implemented for '",
                c10_dtype_name(dt), "'");
  Tensor go = cast_to(grad, dt, c.key());
  call("aten::zero_", {Value::of(gin)});
  if (go->numel() == 0) return;
  dispatch_dtype(dt, c.key(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>) {
      using A = acc_t<T>;
      const T* src = data_of<T>(go, c.key());
      T* dst = data_of<T>(gin, c.key());
      // walk gives (offset in an output-shaped tensor, offset in an input-shaped one): read the
      // gradient at the first in go's strides, add into the second in gin's.
      walk(M, g, gin, go->strides(), [&](int64_t o, int64_t i) {
        dst[i] = T(static_cast<A>(dst[i]) + static_cast<A>(src[o]));
      });
    }
  });
}

}  // namespace

TN_REGISTER_STRUCTURED("aten::reflection_pad1d", (pad_rule<Mode::kReflect, 1>),
                       (pad_cpu<Mode::kReflect, 1>));
TN_REGISTER_STRUCTURED("aten::reflection_pad2d", (pad_rule<Mode::kReflect, 2>),
                       (pad_cpu<Mode::kReflect, 2>));
TN_REGISTER_STRUCTURED("aten::reflection_pad3d", (pad_rule<Mode::kReflect, 3>),
                       (pad_cpu<Mode::kReflect, 3>));
TN_REGISTER_STRUCTURED("aten::replication_pad1d", (pad_rule<Mode::kReplicate, 1>),
                       (pad_cpu<Mode::kReplicate, 1>));
TN_REGISTER_STRUCTURED("aten::replication_pad2d", (pad_rule<Mode::kReplicate, 2>),
                       (pad_cpu<Mode::kReplicate, 2>));
TN_REGISTER_STRUCTURED("aten::replication_pad3d", (pad_rule<Mode::kReplicate, 3>),
                       (pad_cpu<Mode::kReplicate, 3>));
TN_REGISTER_STRUCTURED("aten::reflection_pad1d_backward", (pad_backward_rule<Mode::kReflect, 1>),
                       (pad_backward_cpu<Mode::kReflect, 1>));
TN_REGISTER_STRUCTURED("aten::reflection_pad2d_backward", (pad_backward_rule<Mode::kReflect, 2>),
                       (pad_backward_cpu<Mode::kReflect, 2>));
TN_REGISTER_STRUCTURED("aten::reflection_pad3d_backward", (pad_backward_rule<Mode::kReflect, 3>),
                       (pad_backward_cpu<Mode::kReflect, 3>));
TN_REGISTER_STRUCTURED("aten::replication_pad1d_backward",
                       (pad_backward_rule<Mode::kReplicate, 1>),
                       (pad_backward_cpu<Mode::kReplicate, 1>));
TN_REGISTER_STRUCTURED("aten::replication_pad2d_backward",
                       (pad_backward_rule<Mode::kReplicate, 2>),
                       (pad_backward_cpu<Mode::kReplicate, 2>));
TN_REGISTER_STRUCTURED("aten::replication_pad3d_backward",
                       (pad_backward_rule<Mode::kReplicate, 3>),
                       (pad_backward_cpu<Mode::kReplicate, 3>));

}  // namespace tn
