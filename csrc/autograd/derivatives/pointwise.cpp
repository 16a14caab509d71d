// Derivatives of the pointwise ops (upstream's derivatives.yaml entries, its formulas written
// again with door ops). Broadcast inputs get their gradient reduced by the engine (sum_to), and
// each gradient is cast to its input's dtype there too, as upstream's validate_outputs does.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// add(self, other, alpha): self: grad; other: grad * alpha.
Grads add_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(), s.need(1) ? maybe_multiply(g[0], s.scalar(2)) : Tensor()};
}
// sub(self, other, alpha): self: grad; other: -grad * alpha.
Grads sub_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? maybe_multiply(neg(g[0]), s.scalar(2)) : Tensor()};
}
Grads identity_backward(const Saved&, const Grads& g) { return {g[0]}; }
// rsub(self, other, alpha) = other - alpha * self: self: -grad * alpha.
Grads rsub_scalar_backward(const Saved& s, const Grads& g) {
  return {maybe_multiply(neg(g[0]), s.scalar(2))};
}
// mul(self, other): self: grad * other; other: grad * self.
Grads mul_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? mul(g[0], s.tensor(1)) : Tensor(),
          s.need(1) ? mul(g[0], s.tensor(0)) : Tensor()};
}
Grads mul_scalar_backward(const Saved& s, const Grads& g) { return {mul(g[0], s.scalar(1))}; }
// div(self, other): self: grad / other; other: -grad * ((self / other) / other).
Grads div_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& other = s.tensor(1);
  return {s.need(0) ? div(g[0], other) : Tensor(),
          s.need(1) ? mul(neg(g[0]), div(div(self, other), other)) : Tensor()};
}
Grads div_scalar_backward(const Saved& s, const Grads& g) { return {div(g[0], s.scalar(1))}; }
Grads neg_backward(const Saved&, const Grads& g) { return {neg(g[0])}; }
// exp: grad * result.
Grads exp_backward(const Saved& s, const Grads& g) { return {mul(g[0], s.result(0))}; }
// log: grad / self.
Grads log_backward(const Saved& s, const Grads& g) { return {div(g[0], s.tensor(0))}; }
// sqrt: grad / (2 * result).
Grads sqrt_backward(const Saved& s, const Grads& g) {
  return {div(g[0], mul(s.result(0), Scalar::from_int(2)))};
}
// rsqrt: -0.5 * grad * result^3.
Grads rsqrt_backward(const Saved& s, const Grads& g) {
  return {mul(mul(g[0], Scalar::from_double(-0.5)), pow(s.result(0), Scalar::from_int(3)))};
}
// tanh: grad * (1 - result^2) (upstream's tanh_backward).
Grads tanh_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  return {mul(g[0], rsub(mul(y, y), Scalar::from_int(1)))};
}
// sigmoid: grad * (1 - result) * result (upstream's sigmoid_backward).
Grads sigmoid_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  return {mul(mul(g[0], rsub(y, Scalar::from_int(1))), y)};
}
// relu: grad where result > 0, else 0 (upstream's threshold_backward(grad, result, 0)).
Grads relu_backward(const Saved& s, const Grads& g) {
  Tensor positive = call_tensor("aten::gt.Scalar", {V(s.result(0)), S(Scalar::from_int(0))});
  return {call_tensor("aten::where.ScalarOther",
                      {V(positive), V(g[0]), S(Scalar::from_int(0))})};
}
// pow(self, exponent): zeros when exponent is 0, else grad * (exponent * self^(exponent - 1)).
Grads pow_scalar_backward(const Saved& s, const Grads& g) {
  Scalar e = s.scalar(1);
  const Tensor& self = s.tensor(0);
  if (e.to_double() == 0.0) return {d::zeros(self->sizes(), self->dtype(), self->device())};
  double x = e.to_double();
  return {mul(g[0], mul(pow(self, Scalar::from_double(x - 1)), Scalar::from_double(x)))};
}
// _to_copy: the gradient back in self's dtype (the engine casts it: validate_outputs).
Grads to_copy_backward(const Saved& s, const Grads& g) {
  return {to_dtype(g[0], s.meta(0).dtype)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::add.Tensor", {"AddBackward0", {0, 1}, {}, false, add_backward});
TN_REGISTER_DERIVATIVE("aten::add.Scalar", {"AddBackward1", {0}, {}, false, identity_backward});
TN_REGISTER_DERIVATIVE("aten::sub.Tensor", {"SubBackward0", {0, 1}, {}, false, sub_backward});
TN_REGISTER_DERIVATIVE("aten::sub.Scalar", {"SubBackward1", {0}, {}, false, identity_backward});
TN_REGISTER_DERIVATIVE("aten::rsub.Scalar",
                       {"RsubBackward1", {0}, {}, false, rsub_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::mul.Tensor",
                       {"MulBackward0", {0, 1}, {{1, 0}, {0, 1}}, false, mul_backward});
TN_REGISTER_DERIVATIVE("aten::mul.Scalar", {"MulBackward1", {0}, {}, false, mul_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::div.Tensor",
                       {"DivBackward0", {0, 1}, {{1}, {0, 1}}, false, div_backward});
TN_REGISTER_DERIVATIVE("aten::div.Scalar", {"DivBackward1", {0}, {}, false, div_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::neg", {"NegBackward0", {0}, {}, false, neg_backward});
TN_REGISTER_DERIVATIVE("aten::exp", {"ExpBackward0", {0}, {}, true, exp_backward});
TN_REGISTER_DERIVATIVE("aten::log", {"LogBackward0", {0}, {{0}}, false, log_backward});
TN_REGISTER_DERIVATIVE("aten::sqrt", {"SqrtBackward0", {0}, {}, true, sqrt_backward});
TN_REGISTER_DERIVATIVE("aten::rsqrt", {"RsqrtBackward0", {0}, {}, true, rsqrt_backward});
TN_REGISTER_DERIVATIVE("aten::tanh", {"TanhBackward0", {0}, {}, true, tanh_backward});
TN_REGISTER_DERIVATIVE("aten::sigmoid", {"SigmoidBackward0", {0}, {}, true, sigmoid_backward});
TN_REGISTER_DERIVATIVE("aten::relu", {"ReluBackward0", {0}, {}, true, relu_backward});
TN_REGISTER_DERIVATIVE("aten::pow.Tensor_Scalar",
                       {"PowBackward0", {0}, {{0}}, false, pow_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::clone", {"CloneBackward0", {0}, {}, false, identity_backward});
TN_REGISTER_DERIVATIVE("aten::_to_copy", {"ToCopyBackward0", {0}, {}, false, to_copy_backward});

}  // namespace tn::autograd
