// Derivatives of the pointwise ops (upstream's derivatives.yaml entries, its formulas written
// again with door ops). Broadcast inputs get their gradient reduced by the engine (sum_to), and
// each gradient is cast to its input's dtype there too, as upstream's validate_outputs does.
#include <cmath>

#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

// These formulas hold for complex tensors too (TN_COMPLEX_READY below): each factor is
// conjugated as upstream's are (d::conj is the tensor itself for a real one), and a real input's
// complex gradient becomes its real part in the engine.
// add(self, other, alpha): self: grad; other: grad * conj(alpha).
Grads add_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? maybe_multiply(g[0], conj(s.scalar(2))) : Tensor()};
}
// sub(self, other, alpha): self: grad; other: -grad * conj(alpha).
Grads sub_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? maybe_multiply(neg(g[0]), conj(s.scalar(2))) : Tensor()};
}
Grads identity_backward(const Saved&, const Grads& g) { return {g[0]}; }
// rsub(self, other, alpha) = other - alpha * self: self: -grad * conj(alpha).
Grads rsub_scalar_backward(const Saved& s, const Grads& g) {
  return {maybe_multiply(neg(g[0]), conj(s.scalar(2)))};
}
// mul(self, other): self: grad * conj(other); other: grad * conj(self).
Grads mul_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? mul(g[0], conj(s.tensor(1))) : Tensor(),
          s.need(1) ? mul(g[0], conj(s.tensor(0))) : Tensor()};
}
Grads mul_scalar_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(s.scalar(1)))};
}
// div(self, other): self: grad / conj(other); other: -grad * conj((self / other) / other).
Grads div_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& other = s.tensor(1);
  return {s.need(0) ? div(g[0], conj(other)) : Tensor(),
          s.need(1) ? mul(neg(g[0]), conj(div(div(self, other), other))) : Tensor()};
}
Grads div_scalar_backward(const Saved& s, const Grads& g) {
  return {div(g[0], conj(s.scalar(1)))};
}
Grads neg_backward(const Saved&, const Grads& g) { return {neg(g[0])}; }
// exp: grad * conj(result).
Grads exp_backward(const Saved& s, const Grads& g) { return {mul(g[0], conj(s.result(0)))}; }
// log: grad / conj(self).
Grads log_backward(const Saved& s, const Grads& g) { return {div(g[0], conj(s.tensor(0)))}; }
// sqrt: grad / (2 * conj(result)).
Grads sqrt_backward(const Saved& s, const Grads& g) {
  return {div(g[0], mul(conj(s.result(0)), Scalar::from_int(2)))};
}
// rsqrt: -0.5 * grad * conj(result^3).
Grads rsqrt_backward(const Saved& s, const Grads& g) {
  return {mul(mul(g[0], Scalar::from_double(-0.5)), conj(pow(s.result(0), Scalar::from_int(3))))};
}
// tanh: upstream's tanh_backward(grad, result) (elementwise_backward.cpp), whose complex form is
// grad * conj(1 - result^2).
Grads tanh_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  if (cx(y)) return {mul(g[0], conj(rsub(mul(y, y), Scalar::from_int(1))))};
  return {call_tensor("aten::tanh_backward", {V(g[0]), V(y)})};
}
// sigmoid: upstream's sigmoid_backward(grad, result); complex: grad * conj(result (1 - result)).
Grads sigmoid_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  if (cx(y)) return {mul(g[0], conj(mul(y, rsub(y, Scalar::from_int(1)))))};
  return {call_tensor("aten::sigmoid_backward", {V(g[0]), V(y)})};
}
// The backward kernels' own derivatives (double backward), as derivatives.yaml gives them:
// tanh_backward(go, y): go: tanh_backward(grad, y); y: grad * (-2 y go).
Grads tanh_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& go = s.tensor(0);
  const Tensor& y = s.tensor(1);
  return {s.need(0) ? call_tensor("aten::tanh_backward", {V(g[0]), V(y)}) : Tensor(),
          s.need(1) ? mul(g[0], mul(mul(y, Scalar::from_int(-2)), go)) : Tensor()};
}
// sigmoid_backward(go, y): go: sigmoid_backward(grad, y); y: grad * go * (1 - 2 y).
Grads sigmoid_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& go = s.tensor(0);
  const Tensor& y = s.tensor(1);
  Tensor one_minus_2y =
      call_tensor("aten::add.Scalar", {V(mul(y, Scalar::from_int(-2))), S(Scalar::from_int(1))});
  return {s.need(0) ? call_tensor("aten::sigmoid_backward", {V(g[0]), V(y)}) : Tensor(),
          s.need(1) ? mul(mul(g[0], go), one_minus_2y) : Tensor()};
}
// threshold_backward(go, self, threshold): go: threshold_backward(grad, self, threshold);
// self: zeros.
Grads threshold_backward_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(1);
  return {s.need(0) ? call_tensor("aten::threshold_backward", {V(g[0]), V(s.tensor(1)), s.arg(2)})
                    : Tensor(),
          s.need(1) ? d::zeros(m.sizes, m.dtype, m.device) : Tensor()};
}

// softplus: softplus_backward(grad, self, beta, threshold).
Grads softplus_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::softplus_backward", {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2)})};
}
// softplus_backward(go, self, beta, threshold): go: softplus_backward(grad, self, beta,
// threshold); self: grad * go * beta * z / (z + 1)^2, z = exp(self * beta), zero where
// self * beta > threshold (upstream's softplus_double_backward).
Grads softplus_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& go = s.tensor(0);
  const Tensor& x = s.tensor(1);
  Tensor gx;
  if (s.need(1)) {
    const Scalar beta = s.scalar(2);
    Tensor xb = mul(x, beta);
    Tensor z = call_tensor("aten::exp", {V(xb)});
    Tensor z1 = call_tensor("aten::add.Scalar", {V(z), S(Scalar::from_int(1))});
    Tensor d = call_tensor("aten::div.Tensor", {V(mul(z, beta)), V(mul(z1, z1))});
    Tensor above = call_tensor("aten::gt.Scalar", {V(xb), s.arg(3)});
    Tensor zero = call_tensor("aten::zeros_like", {V(d)});
    gx = mul(mul(g[0], go), call_tensor("aten::where.self", {V(above), V(zero), V(d)}));
  }
  return {s.need(0) ? call_tensor("aten::softplus_backward",
                                  {V(g[0]), V(x), s.arg(2), s.arg(3)})
                    : Tensor(),
          gx};
}
// hardtanh: hardtanh_backward(grad, self, min_val, max_val).
Grads hardtanh_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::hardtanh_backward", {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2)})};
}
// hardtanh_backward(go, self, min_val, max_val): go: hardtanh_backward(grad, self, ...);
// self: zeros.
Grads hardtanh_backward_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(1);
  return {s.need(0) ? call_tensor("aten::hardtanh_backward",
                                  {V(g[0]), V(s.tensor(1)), s.arg(2), s.arg(3)})
                    : Tensor(),
          s.need(1) ? d::zeros(m.sizes, m.dtype, m.device) : Tensor()};
}

// leaky_relu(self, slope): leaky_relu_backward(grad, self, slope, false).
Grads leaky_relu_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::leaky_relu_backward",
                      {V(g[0]), V(s.tensor(0)), s.arg(1), Value::of_bool(false)})};
}
// leaky_relu_backward(go, self, slope, self_is_result): go: leaky_relu_backward(grad, self,
// slope, false); self: zeros.
Grads leaky_relu_backward_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(1);
  return {s.need(0) ? call_tensor("aten::leaky_relu_backward",
                                  {V(g[0]), V(s.tensor(1)), s.arg(2), Value::of_bool(false)})
                    : Tensor(),
          s.need(1) ? d::zeros(m.sizes, m.dtype, m.device) : Tensor()};
}
// hardsigmoid: hardsigmoid_backward(grad, self) (which upstream does not differentiate).
Grads hardsigmoid_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::hardsigmoid_backward", {V(g[0]), V(s.tensor(0))})};
}
// hardswish: hardswish_backward(grad, self).
Grads hardswish_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::hardswish_backward", {V(g[0]), V(s.tensor(0))})};
}
// hardswish_backward(go, self): go: hardswish_backward(grad, self); self: grad * go / 3 where
// -3 < self < 3, else 0.
Grads hardswish_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(1);
  Tensor gself;
  if (s.need(1)) {
    Tensor above = call_tensor("aten::gt.Scalar", {V(x), S(Scalar::from_double(-3.0))});
    Tensor below = call_tensor("aten::lt.Scalar", {V(x), S(Scalar::from_double(3.0))});
    Tensor inside = call_tensor("aten::logical_and", {V(above), V(below)});
    Tensor v = div(mul(g[0], s.tensor(0)), Scalar::from_double(3.0));
    Tensor zero = call_tensor("aten::zeros", {Value::of_ints({}), Value::of_dtype(x->dtype()),
                                              Value{}, Value::of_device(x->device())});
    gself = call_tensor("aten::where.self", {V(inside), V(v), V(zero)});
  }
  return {s.need(0) ? call_tensor("aten::hardswish_backward", {V(g[0]), V(x)}) : Tensor(),
          gself};
}

// relu: upstream's threshold_backward(grad, result, 0).
Grads relu_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::threshold_backward",
                      {V(g[0]), V(s.result(0)), S(Scalar::from_int(0))})};
}
// pow(self, exponent): zeros when exponent is 0, else
// grad * conj(exponent * self^(exponent - 1)).
Grads pow_scalar_backward(const Saved& s, const Grads& g) {
  Scalar e = s.scalar(1);
  const Tensor& self = s.tensor(0);
  if (e.to_double() == 0.0 && e.imag() == 0.0)
    return {d::zeros(self->sizes(), self->dtype(), self->device())};
  if (e.is_complex() || cx(self)) {
    Scalar em1 = Scalar::from_complex(e.to_double() - 1, e.imag());
    if (!e.is_complex()) em1 = Scalar::from_double(e.to_double() - 1);
    return {mul(g[0], conj(mul(pow(self, em1), e)))};
  }
  double x = e.to_double();
  return {mul(g[0], mul(pow(self, Scalar::from_double(x - 1)), Scalar::from_double(x)))};
}
// _to_copy: the gradient back in self's dtype (the engine casts it: validate_outputs); a real
// self takes a complex gradient's real part (upstream's _to_copy_backward, without the warning
// that casting complex to real gives).
Grads to_copy_backward(const Saved& s, const Grads& g) {
  ScalarType self = s.meta(0).dtype;
  return {to_dtype(is_complex(self) ? g[0] : real(g[0]), self)};
}

Tensor unary(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Tensor add_scalar(const Tensor& a, double x) {
  return call_tensor("aten::add.Scalar", {V(a), S(Scalar::from_double(x))});
}

// gelu(self, approximate): upstream's gelu_backward kernel (kernels/cpu/elementwise_backward.cpp).
Grads gelu_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::gelu_backward", {V(g[0]), V(s.tensor(0)), s.arg(1)})};
}
// gelu_backward(grad_output, self, approximate): grad_output: gelu_backward(grad, self);
// self: upstream's gelu_double_backward, grad * grad_output * d/dx of gelu's derivative.
//   tanh: with f = x / 2, t = tanh(inner), g = 1 - t^2, h = beta (1 + 3 kappa x^2):
//         2 (g h / 2) + f h g' + f g h', g' = -2 g t h (upstream spells 2 sech (-sech t) h,
//         the same value through cosh, which we have no kernel for), h' = 6 kappa x beta;
//   none: 2 pdf - x^2 pdf, pdf = exp(-x^2 / 2) / sqrt(2 pi).
Grads gelu_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(1);
  Grads out(2);
  if (s.need(0)) out[0] = call_tensor("aten::gelu_backward", {V(g[0]), V(x), s.arg(2)});
  if (!s.need(1)) return out;
  Tensor d;
  if (s.arg(2).str == "tanh") {
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    Tensor inner = mul(add(x, mul(pow(x, Scalar::from_int(3)), Scalar::from_double(kappa))),
                       Scalar::from_double(beta));
    Tensor th = unary("aten::tanh", inner);
    Tensor f = mul(x, Scalar::from_double(0.5));
    Tensor gg = rsub(mul(th, th), Scalar::from_int(1));
    Tensor h = mul(add_scalar(mul(mul(x, Scalar::from_double(3 * kappa)), x), 1.0),
                   Scalar::from_double(beta));
    Tensor f_prime_gh = mul(mul(gg, Scalar::from_double(0.5)), h);
    Tensor g_prime = mul(mul(mul(gg, Scalar::from_double(-2.0)), th), h);
    Tensor g_prime_fh = mul(mul(f, h), g_prime);
    Tensor h_prime = mul(mul(x, Scalar::from_double(6 * kappa)), Scalar::from_double(beta));
    Tensor h_prime_fg = mul(mul(f, gg), h_prime);
    d = add(add(mul(f_prime_gh, Scalar::from_int(2)), g_prime_fh), h_prime_fg);
  } else {
    const double beta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
    Tensor x2 = mul(x, x);
    Tensor pdf = mul(exp(mul(x2, Scalar::from_double(-0.5))), Scalar::from_double(beta));
    d = sub(mul(pdf, Scalar::from_int(2)), mul(x2, pdf));
  }
  out[1] = mul(mul(g[0], s.tensor(0)), d);
  return out;
}
// silu: as upstream's formula chooses, silu_backward's kernel when grad mode is off (a first
// backward), else infinitely_differentiable_silu_backward in door ops so that double backward
// records: grad * s * (1 + x (1 - s)), s = sigmoid(x), in that order.
Grads silu_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(0);
  if (!grad_mode_enabled()) return {call_tensor("aten::silu_backward", {V(g[0]), V(x)})};
  Tensor sg = unary("aten::sigmoid", x);
  return {mul(mul(g[0], sg), add_scalar(mul(x, rsub(sg, Scalar::from_int(1))), 1.0))};
}

// addcmul(self, t1, t2, value): self: grad; t1: grad * (t2 * value); t2: grad * (t1 * value).
Grads addcmul_backward(const Saved& s, const Grads& g) {
  Scalar v = s.scalar(3);
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? mul(g[0], conj(mul(s.tensor(2), v))) : Tensor(),
          s.need(2) ? mul(g[0], conj(mul(s.tensor(1), v))) : Tensor()};
}
// value / t, as upstream's Scalar / Tensor operator spells it: full_like(t, value).div_(t).
Tensor scalar_over(const Scalar& v, const Tensor& t) {
  Tensor full = call_tensor("aten::full_like", {V(t), S(v)});
  return div(full, t);
}
// addcdiv(self, t1, t2, value): self: grad; t1: grad * conj(value / t2);
// t2: -grad * conj(value * t1 / (t2 * t2)).
Grads addcdiv_backward(const Saved& s, const Grads& g) {
  Scalar v = s.scalar(3);
  const Tensor& t1 = s.tensor(1);
  const Tensor& t2 = s.tensor(2);
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? mul(g[0], conj(scalar_over(v, t2))) : Tensor(),
          s.need(2) ? mul(neg(g[0]), conj(div(mul(t1, v), mul(t2, t2)))) : Tensor()};
}
// lerp.Scalar(self, end, weight): self: grad * conj(1 - weight); end: grad * conj(weight).
Grads lerp_scalar_backward(const Saved& s, const Grads& g) {
  Scalar w = conj(s.scalar(2));
  Scalar one_minus = w.is_complex() ? Scalar::from_complex(1.0 - w.to_double(), -w.imag())
                                    : Scalar::from_double(1.0 - w.to_double());
  return {s.need(0) ? mul(g[0], one_minus) : Tensor(), s.need(1) ? mul(g[0], w) : Tensor()};
}
// lerp.Tensor(self, end, weight): self: grad * conj(1 - weight); end: grad * conj(weight);
// weight: grad * conj(end - self).
Grads lerp_tensor_backward(const Saved& s, const Grads& g) {
  const Tensor& w = s.tensor(2);
  return {s.need(0) ? mul(g[0], conj(rsub(w, Scalar::from_int(1)))) : Tensor(),
          s.need(1) ? mul(g[0], conj(w)) : Tensor(),
          s.need(2) ? mul(g[0], conj(sub(s.tensor(1), s.tensor(0)))) : Tensor()};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::tanh_backward",
                       {"TanhBackwardBackward0", {0, 1}, {{1}, {0, 1}}, 0,
                        tanh_backward_backward});
TN_REGISTER_DERIVATIVE("aten::sigmoid_backward",
                       {"SigmoidBackwardBackward0", {0, 1}, {{1}, {0, 1}}, 0,
                        sigmoid_backward_backward});
TN_REGISTER_DERIVATIVE("aten::threshold_backward",
                       {"ThresholdBackwardBackward0", {0, 1}, {{1, 0}}, 0,
                        threshold_backward_backward});
TN_REGISTER_DERIVATIVE("aten::gelu", {"GeluBackward0", {0}, {{0}}, 0, gelu_backward});
TN_REGISTER_DERIVATIVE("aten::silu", {"SiluBackward0", {0}, {{0}}, 0, silu_backward});
TN_REGISTER_DERIVATIVE("aten::softplus", {"SoftplusBackward0", {0}, {{0}}, 0, softplus_backward});
TN_REGISTER_DERIVATIVE("aten::softplus_backward",
                       {"SoftplusBackwardBackward0", {0, 1}, {{0, 1}, {1}}, 0,
                        softplus_backward_backward});
TN_REGISTER_DERIVATIVE("aten::hardtanh", {"HardtanhBackward0", {0}, {{0}}, 0, hardtanh_backward});
TN_REGISTER_DERIVATIVE("aten::leaky_relu",
                       {"LeakyReluBackward0", {0}, {{0}}, 0, leaky_relu_backward});
TN_REGISTER_DERIVATIVE("aten::leaky_relu_backward",
                       {"LeakyReluBackwardBackward0", {0, 1}, {{1}}, 0,
                        leaky_relu_backward_backward});
TN_REGISTER_DERIVATIVE("aten::hardsigmoid",
                       {"HardsigmoidBackward0", {0}, {{0}}, 0, hardsigmoid_backward});
TN_REGISTER_DERIVATIVE("aten::hardswish", {"HardswishBackward0", {0}, {{0}}, 0, hardswish_backward});
TN_REGISTER_DERIVATIVE("aten::hardswish_backward",
                       {"HardswishBackwardBackward0", {0, 1}, {{0, 1}, {1}}, 0,
                        hardswish_backward_backward});
TN_REGISTER_DERIVATIVE("aten::hardtanh_backward",
                       {"HardtanhBackwardBackward0", {0, 1}, {{1}}, 0,
                        hardtanh_backward_backward});
TN_REGISTER_DERIVATIVE("aten::gelu_backward",
                       {"GeluBackwardBackward0", {0, 1}, {{1}, {0, 1}}, 0,
                        gelu_backward_backward});
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
TN_REGISTER_DERIVATIVE("aten::addcmul",
                       {"AddcmulBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, 0, addcmul_backward});
TN_REGISTER_DERIVATIVE("aten::addcdiv",
                       {"AddcdivBackward0", {0, 1, 2}, {{2, 1}, {2, 2}, {1, 2}}, 0,
                        addcdiv_backward});
TN_REGISTER_DERIVATIVE("aten::lerp.Scalar",
                       {"LerpBackward0", {0, 1}, {}, 0, lerp_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::lerp.Tensor",
                       {"LerpBackward1", {0, 1, 2}, {{2}, {0, 2}, {1, 2}}, 0,
                        lerp_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::_to_copy", {"ToCopyBackward0", {0}, {}, false, to_copy_backward});
TN_COMPLEX_READY("aten::add.Tensor", "aten::add.Scalar", "aten::sub.Tensor", "aten::sub.Scalar",
                 "aten::rsub.Scalar", "aten::mul.Tensor", "aten::mul.Scalar", "aten::div.Tensor",
                 "aten::div.Scalar", "aten::neg", "aten::exp", "aten::log", "aten::sqrt",
                 "aten::rsqrt", "aten::tanh", "aten::sigmoid", "aten::pow.Tensor_Scalar",
                 "aten::clone", "aten::_to_copy", "aten::addcmul", "aten::addcdiv",
                 "aten::lerp.Scalar", "aten::lerp.Tensor");

}  // namespace tn::autograd
