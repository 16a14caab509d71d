// Softmax family: _softmax / softmax.int and _log_softmax / log_softmax.int. Numerically
// stable (the slice max is subtracted first); float16/bfloat16 compute in float. Contiguous
// float32 over the last dim takes vec::softmax_row_f32 (upstream's vectorised steps and bits,
// 6x15x384: 231 -> ~20 us); elsewhere the sum runs sequentially with std::exp, within an ulp
// or two of upstream.
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/vec_math.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// _softmax/_log_softmax(Tensor self, int dim, bool half_to_float)
template <bool Log>
void softmax_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  wrap_dim(c.to_int(1), self->dim());
  TN_CHECK(!c.to_bool(2), "softmax with half to float conversion is not supported on CPU");
  TN_CHECK_KIND(is_floating(self->dtype()), NotImplemented, "\"",
                Log ? "log_softmax_lastdim_kernel_impl" : "softmax_kernel_impl",
                "\" not implemented for '", enum_name(self->dtype()), "'");
  c.ret(new_on(self, self->sizes(), self->dtype()));
}

template <bool Log>
void softmax_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &out = c.results[0].tensor;
  std::vector<bool> mask(self->dim(), false);
  if (self->dim() > 0) mask[wrap_dim(c.to_int(1), self->dim())] = true;
  ReduceGeom gi = reduce_geom(self, mask), go = reduce_geom(out, mask);
  size_t n = gi.inner.size();
  bool last_dim = self->dim() > 0 && wrap_dim(c.to_int(1), self->dim()) == self->dim() - 1;
  if (self->dtype() == ScalarType::Float && last_dim && self->is_contiguous() &&
      out->is_contiguous() && n > 0 && vec::vec_width() != 0) {
    const float* x = data_of<float>(self, key);
    float* o = data_of<float>(out, key);
    for (size_t i = 0; i < gi.outer.size(); ++i)
      vec::softmax_row_f32(x + gi.outer[i], o + go.outer[i], int64_t(n), Log);
    return;
  }
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* x = data_of<T>(self, key);
      T* o = data_of<T>(out, key);
      std::vector<A> e(n);
      for (size_t i = 0; i < gi.outer.size(); ++i) {
        const T* b = x + gi.outer[i];
        A mx = -INFINITY;
        for (size_t k = 0; k < n; ++k) {
          A v = A(b[gi.inner[k]]);
          mx = (std::isnan(v) || v > mx) ? v : mx;
        }
        A s = 0;
        for (size_t k = 0; k < n; ++k) {
          e[k] = A(b[gi.inner[k]]) - mx;
          s += std::exp(e[k]);
        }
        T* ob = o + go.outer[i];
        if (Log) {
          A ls = std::log(s);
          for (size_t k = 0; k < n; ++k) ob[go.inner[k]] = T(e[k] - ls);
        } else {
          A r = A(1) / s;
          for (size_t k = 0; k < n; ++k) ob[go.inner[k]] = T(std::exp(e[k]) * r);
        }
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::_softmax", softmax_rule<false>, softmax_cpu<false>);
TN_REGISTER_STRUCTURED("aten::_log_softmax", softmax_rule<true>, softmax_cpu<true>);

// softmax.int/log_softmax.int(Tensor self, int dim, ScalarType? dtype=None): self.to(dtype)
// through the door (a composite: every back end casts its own way), then the underscore op (as
// upstream).
template <bool Log>
void softmax_int(Call& c) {
  Tensor in = c.tensor(0);
  if (auto dt = c.optional_dtype(2); dt && *dt != in->dtype())  // Tensor.to, as upstream's
    in = call_tensor("aten::_to_copy", {Value::of(in), Value::of_dtype(*dt)});
  c.ret(call_tensor(Log ? "aten::_log_softmax" : "aten::_softmax",
                    {Value::of(in), c.arg(1), Value::of_bool(false)}));
}
TN_REGISTER_COMPOSITE("aten::softmax.int", softmax_int<false>);
TN_REGISTER_COMPOSITE("aten::log_softmax.int", softmax_int<true>);

}  // namespace
}  // namespace tn
