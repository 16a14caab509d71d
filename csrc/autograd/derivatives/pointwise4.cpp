// Derivatives of fmax, fmin, copysign, nextafter, deg2rad, rad2deg, elu and celu (and their
// in-place forms), threshold, hardshrink, softshrink, mish, glu, atan2, hypot and
// logaddexp(2) (kernels/cpu/elementwise_exact.cpp, kernels/composite/angles.cpp,
// kernels/cpu/elementwise_activation.cpp): upstream's
// derivatives.yaml formulas, step for step.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor cmp(const char* op, const Tensor& a, const Tensor& b) {
  return call_tensor(op, {V(a), V(b)});
}
Tensor zero_where(const Tensor& g, const Tensor& mask) {
  return call_tensor("aten::masked_fill.Scalar", {V(g), V(mask), S(Scalar::from_int(0))});
}

// fmax: self: grad.masked_fill((self >= other).logical_or_(other.isnan()).logical_not_(), 0);
// other: grad.masked_fill((self >= other).logical_or_(other.isnan()), 0). fmin with <=.
template <bool Max>
Grads fmaxmin_backward(const Saved& s, const Grads& g) {
  const Tensor &self = s.tensor(0), &other = s.tensor(1);
  Tensor picks_self = cmp("aten::logical_or", cmp(Max ? "aten::ge.Tensor" : "aten::le.Tensor",
                                                  self, other),
                          call_tensor("aten::isnan", {V(other)}));
  Grads out(2);
  if (s.need(0)) out[0] = zero_where(g[0], call_tensor("aten::logical_not", {V(picks_self)}));
  if (s.need(1)) out[1] = zero_where(g[0], picks_self);
  return out;
}

// copysign: self: grad * (result / self), 0 where self is 0 (copysign_tensor_self_backward);
// other (Tensor): zeros_like(other).
Grads copysign_backward(const Saved& s, const Grads& g) {
  Grads out(s.needs.size());
  if (s.need(0)) {
    const Tensor& self = s.tensor(0);
    Tensor ratio = div(s.result(0), self);
    call("aten::masked_fill_.Scalar", {V(ratio), V(call_tensor("aten::eq.Scalar",
                                                               {V(self), S(Scalar::from_int(0))})),
                                       S(Scalar::from_int(0))});
    out[0] = mul(g[0], ratio);
  }
  if (s.needs.size() > 1 && s.need(1))
    out[1] = call_tensor("aten::zeros_like", {V(s.tensor(1))});
  return out;
}

// nextafter: self: where(self != other, grad, 0); other: zeros_like(other).
Grads nextafter_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::where.ScalarOther", {V(cmp("aten::ne.Tensor", s.tensor(0),
                                                            s.tensor(1))),
                                                     V(g[0]), S(Scalar::from_int(0))});
  if (s.need(1)) out[1] = call_tensor("aten::zeros_like", {V(s.tensor(1))});
  return out;
}

// deg2rad / rad2deg: grad times the constant (deg2rad_backward, rad2deg_backward).
constexpr double kPi180 = 0.017453292519943295769236907684886127134428718885417;
constexpr double k180Pi = 57.295779513082320876798154814105170332405472466564;
Grads deg2rad_backward(const Saved&, const Grads& g) {
  return {mul(g[0], Scalar::from_double(kPi180))};
}
Grads rad2deg_backward(const Saved&, const Grads& g) {
  return {mul(g[0], Scalar::from_double(k180Pi))};
}


// elu(self, alpha, scale, input_scale): elu_backward(grad, alpha, scale, input_scale, false,
// self); elu_ (kFromResult): the same from the result (is_result true). celu(self, alpha) and
// celu_: elu_backward with scale 1 and input scale 1.0 / float(alpha) (upstream's toFloat).
template <bool kFromResult, bool kCelu>
Grads elu_backward(const Saved& s, const Grads& g) {
  Value scale, input_scale;  // celu has no arguments 2 and 3
  if (kCelu) {
    scale = Value::of_scalar(Scalar::from_int(1));
    double alpha = static_cast<float>(s.scalar(1).to_double());
    input_scale = Value::of_scalar(Scalar::from_double(1.0 / alpha));
  } else {
    scale = s.arg(2);
    input_scale = s.arg(3);
  }
  return {call_tensor("aten::elu_backward",
                      {V(g[0]), s.arg(1), scale, input_scale, Value::of_bool(kFromResult),
                       V(kFromResult ? s.result(0) : s.tensor(0))})};
}
// threshold(self, threshold, value) (threshold_ too): threshold_backward(grad, self,
// threshold); hardshrink / softshrink(self, lambd): their backward kernels; mish(self):
// mish_backward(grad, self) (upstream differentiates twice through door ops with grad mode on;
// ours calls the kernel, whose own gradient refuses by name).
Grads threshold_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::threshold_backward", {V(g[0]), V(s.tensor(0)), s.arg(1)})};
}
template <const char* kBackward>
Grads shrink_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), s.arg(1)})};
}
constexpr char kHardshrinkBackward[] = "aten::hardshrink_backward";
constexpr char kSoftshrinkBackward[] = "aten::softshrink_backward";
Grads mish_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::mish_backward", {V(g[0]), V(s.tensor(0))})};
}
// glu(self, dim): glu_backward(grad, self, dim).
Grads glu_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::glu_backward", {V(g[0]), V(s.tensor(0)), s.arg(1)})};
}
// atan2(self, other): upstream's atan2_backward, grad * other * r and grad * -self * r with
// r = 1 / (self * self + other * other).
Grads atan2_backward(const Saved& s, const Grads& g) {
  const Tensor &self = s.tensor(0), &other = s.tensor(1);
  Tensor recip = call_tensor("aten::reciprocal", {V(add(mul(self, self), mul(other, other)))});
  Grads out(2);
  if (s.need(0)) out[0] = mul(mul(g[0], other), recip);
  if (s.need(1)) out[1] = mul(mul(g[0], call_tensor("aten::neg", {V(self)})), recip);
  return out;
}
// hypot(self, other): grad * self / result and grad * other / result.
Grads hypot_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = div(mul(g[0], s.tensor(0)), s.result(0));
  if (s.need(1)) out[1] = div(mul(g[0], s.tensor(1)), s.result(0));
  return out;
}
// logaddexp(self, other): grad / (1 + exp(other - self)) and grad / (1 + exp(self - other));
// logaddexp2 with pow(2, .) for exp.
template <bool kBase2>
Grads logaddexp_backward(const Saved& s, const Grads& g) {
  const Tensor &self = s.tensor(0), &other = s.tensor(1);
  auto weight = [&](const Tensor& a, const Tensor& b) {
    Tensor d = sub(a, b);
    Tensor e = kBase2 ? call_tensor("aten::pow.Scalar", {S(Scalar::from_int(2)), V(d)})
                      : call_tensor("aten::exp", {V(d)});
    return call_tensor("aten::add.Scalar", {V(e), S(Scalar::from_int(1))});
  };
  Grads out(2);
  if (s.need(0)) out[0] = div(g[0], weight(other, self));
  if (s.need(1)) out[1] = div(g[0], weight(self, other));
  return out;
}
// hardshrink_backward / softshrink_backward(grad_out, self, lambd): grad_out gets the same
// kernel of the incoming gradient; self zeros.
template <const char* kBackward>
Grads shrink_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = call_tensor(kBackward, {V(g[0]), V(s.tensor(1)), s.arg(2)});
  if (s.need(1)) out[1] = zeros(s.meta(1).sizes, g[0]->dtype(), g[0]->device());
  return out;
}
// elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
// grad_output gets elu_backward of the incoming gradient; self_or_result upstream's
// elu_double_backward, grad * grad_output * input_scale (through elu_backward when it is self)
// where self_or_result < 0.
Grads elu_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& go = s.tensor(0);
  const Tensor& x = s.tensor(5);
  const bool is_result = s.to_bool(4);
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::elu_backward",
                         {V(g[0]), s.arg(1), s.arg(2), s.arg(3), s.arg(4), V(x)});
  if (s.need(1)) {
    Tensor prod = mul(mul(g[0], go), s.scalar(3));
    if (!is_result)
      prod = call_tensor("aten::elu_backward",
                         {V(prod), s.arg(1), s.arg(2), s.arg(3), s.arg(4), V(x)});
    Tensor negative = call_tensor("aten::type_as", {V(call_tensor("aten::lt.Scalar",
                                                                  {V(x), S(Scalar::from_int(0))})),
                                                    V(g[0])});
    out[1] = mul(prod, negative);
  }
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::fmax", {"FmaxBackward0", {0, 1}, {{0}, {1}}, 0,
                                      fmaxmin_backward<true>});
TN_REGISTER_DERIVATIVE("aten::fmin", {"FminBackward0", {0, 1}, {{0}, {1}}, 0,
                                      fmaxmin_backward<false>});
TN_REGISTER_DERIVATIVE("aten::copysign.Tensor", {"CopysignBackward0", {0, 1}, {{0}, {1}}, 1,
                                                 copysign_backward});
TN_REGISTER_DERIVATIVE("aten::copysign.Scalar", {"CopysignBackward1", {0}, {{0}}, 1,
                                                 copysign_backward});
TN_REGISTER_DERIVATIVE("aten::nextafter", {"NextafterBackward0", {0, 1}, {{0}, {1}}, 0,
                                           nextafter_backward});
TN_REGISTER_DERIVATIVE("aten::deg2rad", {"Deg2RadBackward0", {0}, {}, 0, deg2rad_backward});
TN_REGISTER_DERIVATIVE("aten::rad2deg", {"Rad2DegBackward0", {0}, {}, 0, rad2deg_backward});
TN_REGISTER_DERIVATIVE("aten::elu", {"EluBackward0", {0}, {{0}}, 0, elu_backward<false, false>});
TN_REGISTER_DERIVATIVE("aten::elu_", {"EluBackward1", {0}, {}, 1, elu_backward<true, false>});
TN_REGISTER_DERIVATIVE("aten::celu", {"CeluBackward0", {0}, {{0}}, 0, elu_backward<false, true>});
TN_REGISTER_DERIVATIVE("aten::threshold",
                       {"ThresholdBackward0", {0}, {{0}}, 0, threshold_backward});
TN_REGISTER_DERIVATIVE("aten::threshold_",
                       {"ThresholdBackward1", {0}, {{0}}, 0, threshold_backward});
TN_REGISTER_DERIVATIVE("aten::hardshrink", {"HardshrinkBackward0", {0}, {{0}}, 0,
                                           shrink_backward<kHardshrinkBackward>});
TN_REGISTER_DERIVATIVE("aten::softshrink", {"SoftshrinkBackward0", {0}, {{0}}, 0,
                                           shrink_backward<kSoftshrinkBackward>});
TN_REGISTER_DERIVATIVE("aten::mish", {"MishBackward0", {0}, {{0}}, 0, mish_backward});
TN_REGISTER_DERIVATIVE("aten::hardshrink_backward",
                       {"HardshrinkBackwardBackward0", {0, 1}, {{1, 0}}, 0,
                        shrink_backward_backward<kHardshrinkBackward>});
TN_REGISTER_DERIVATIVE("aten::softshrink_backward",
                       {"SoftshrinkBackwardBackward0", {0, 1}, {{1, 0}}, 0,
                        shrink_backward_backward<kSoftshrinkBackward>});
TN_REGISTER_DERIVATIVE("aten::elu_backward",
                       {"EluBackwardBackward0", {0, 5}, {{0}, {5}}, 0, elu_backward_backward});
TN_REGISTER_DERIVATIVE("aten::glu", {"GluBackward0", {0}, {{0}}, 0, glu_backward});
TN_REGISTER_DERIVATIVE("aten::atan2", {"Atan2Backward0", {0, 1}, {{0}, {1}}, 0, atan2_backward});
TN_REGISTER_DERIVATIVE("aten::hypot", {"HypotBackward0", {0, 1}, {{0}, {1}}, 1, hypot_backward});
TN_REGISTER_DERIVATIVE("aten::logaddexp", {"LogaddexpBackward0", {0, 1}, {{0}, {1}}, 0,
                                          logaddexp_backward<false>});
TN_REGISTER_DERIVATIVE("aten::logaddexp2", {"Logaddexp2Backward0", {0, 1}, {{0}, {1}}, 0,
                                           logaddexp_backward<true>});
TN_REGISTER_DERIVATIVE("aten::celu_", {"CeluBackward1", {0}, {}, 1, elu_backward<true, true>});

}  // namespace tn::autograd
