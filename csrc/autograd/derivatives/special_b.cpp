// Derivatives of logit, special_erfcx and special_log_ndtr (kernels/cpu/elementwise_logit.cpp,
// elementwise_erfcx.cpp): upstream's derivatives.yaml formulas, in its order of door ops.
#include <cmath>
#include <limits>

#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {V(cond), V(a), V(b)});
}
Tensor cmp(const char* op, const Tensor& a, double v) { return call_tensor(op, {V(a), S(v)}); }
// A 0-d tensor of x's dtype and device holding v (upstream's at::zeros({}) / empty({}).fill_).
Tensor full0(double v, const Tensor& x) {
  return call_tensor("aten::scalar_tensor", {S(v), Value::of_dtype(x->dtype()), Value{},
                                             Value::of_device(x->device())});
}

// logit: upstream's logit_backward kernel when grad mode is off (a first backward); under grad
// mode its infinitely_differentiable_logit_backward in door ops, so that double backward
// records: where(lo <= x <= hi, grad / (x (1 - x)), 0), or NaN outside [0, 1] without eps.
Grads logit_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(0);
  if (!grad_mode_enabled())
    return {call_tensor("aten::logit_backward", {V(g[0]), V(x), s.arg(1)})};
  const bool has_eps = !s.arg(1).is_none();
  const double lo = has_eps ? s.scalar(1).to_double() : 0.0;
  const double hi = has_eps ? 1.0 - lo : 1.0;
  Tensor in = call_tensor("aten::logical_and",
                          {V(cmp("aten::ge.Scalar", x, lo)), V(cmp("aten::le.Scalar", x, hi))});
  Tensor slope = div(g[0], mul(x, rsub(x, Scalar::from_double(1.0))));
  const double outside = has_eps ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return {where(in, slope, full0(outside, x))};
}

// special_erfcx: (2.0 * self * result - 2.0 / sqrt(M_PI)) * grad.
Grads erfcx_backward(const Saved& s, const Grads& g) {
  Tensor a = mul(mul(s.tensor(0), Scalar::from_double(2.0)), s.result(0));
  Tensor b = call_tensor("aten::sub.Scalar", {V(a), S(2.0 / std::sqrt(M_PI))});
  return {mul(b, g[0])};
}

// special_log_ndtr: grad / std::sqrt(2 * M_PI) * (result + self.pow(2) / 2).neg().exp().
Grads log_ndtr_backward(const Saved& s, const Grads& g) {
  Tensor scaled = div(g[0], Scalar::from_double(std::sqrt(2 * M_PI)));
  Tensor half_sq = div(pow(s.tensor(0), Scalar::from_int(2)), Scalar::from_int(2));
  return {mul(scaled, exp(neg(add(s.result(0), half_sq))))};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::logit", {"LogitBackward0", {0}, {{0}}, 0, logit_backward});
TN_REGISTER_DERIVATIVE("aten::special_erfcx",
                       {"SpecialErfcxBackward0", {0}, {{0}}, 1, erfcx_backward});
TN_REGISTER_DERIVATIVE("aten::special_log_ndtr",
                       {"SpecialLogNdtrBackward0", {0}, {{0}}, 1, log_ndtr_backward});

}  // namespace tn::autograd
