// Derivatives of more pointwise ops (unary math, rounding, clamps, where, maximum/minimum, pow
// with a tensor exponent, fmod/remainder, rounding division): upstream's derivatives.yaml
// formulas and their FunctionsManual helpers (clamp_backward, pow_backward_exponent...), written
// again with door ops. The engine reduces broadcast gradients (sum_to) and casts each to its
// input's dtype, as pointwise.cpp's header says.
#include <cmath>
#include <complex>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Tensor op2(const char* op, const Tensor& a, const Tensor& b) {
  return call_tensor(op, {V(a), V(b)});
}
Tensor cmp(const char* op, const Tensor& a, const Value& b) { return call_tensor(op, {V(a), b}); }
Tensor add_scalar(const Tensor& a, double x) {
  return call_tensor("aten::add.Scalar", {V(a), S(Scalar::from_double(x))});
}
// where(cond, grad, 0) and where(cond, 0, grad): upstream's where(cond, grad,
// scalar_tensor(0.)), the same values.
Tensor grad_where(const Tensor& cond, const Tensor& grad) {
  return call_tensor("aten::where.ScalarOther", {V(cond), V(grad), S(Scalar::from_int(0))});
}
Tensor grad_where_not(const Tensor& cond, const Tensor& grad) {
  return call_tensor("aten::where.ScalarSelf", {V(cond), S(Scalar::from_int(0)), V(grad)});
}
Tensor zeros_like(const Tensor& a) { return op1("aten::zeros_like", a); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return op2("aten::logical_and", a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return op2("aten::logical_or", a, b); }
// A comparison against a tensor or scalar argument as the forward call held it.
Tensor compare(const char* tensor_op, const char* scalar_op, const Tensor& a, const Value& b) {
  return b.tag == Value::Tag::Tensor ? op2(tensor_op, a, b.tensor) : cmp(scalar_op, a, b);
}

// The formulas marked TN_COMPLEX_READY below conjugate their factors as upstream's do (d::conj
// leaves a real tensor itself).
// abs: grad * self.sgn() (sign, for real dtypes; a complex self's gradient is complex).
Grads abs_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], op1(cx(s.tensor(0)) ? "aten::sgn" : "aten::sign", s.tensor(0)))};
}
// sin: grad * conj(self.cos()); cos: grad * -conj(self.sin()).
Grads sin_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(op1("aten::cos", s.tensor(0))))};
}
Grads cos_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], neg(conj(op1("aten::sin", s.tensor(0)))))};
}
// tan: grad * conj(1 + result^2).
Grads tan_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(add_scalar(pow(s.result(0), Scalar::from_int(2)), 1.0)))};
}
// erf: 2 / sqrt(pi) * exp(-(self^2)) * grad.
Grads erf_backward(const Saved& s, const Grads& g) {
  Tensor e = exp(neg(pow(s.tensor(0), Scalar::from_int(2))));
  return {mul(mul(e, Scalar::from_double(M_2_SQRTPI)), g[0])};
}
// exp2: grad * conj(result) * ln 2; expm1: grad * conj(result + 1).
Grads exp2_backward(const Saved& s, const Grads& g) {
  return {mul(mul(g[0], conj(s.result(0))), Scalar::from_double(M_LN2))};
}
Grads expm1_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(add_scalar(s.result(0), 1.0)))};
}
// log10: grad / (conj(self) * ln 10); log2: grad / (conj(self) * ln 2); log1p:
// grad / conj(self + 1).
Grads log10_backward(const Saved& s, const Grads& g) {
  return {div(g[0], mul(conj(s.tensor(0)), Scalar::from_double(2.3025850929940456)))};
}
Grads log2_backward(const Saved& s, const Grads& g) {
  return {div(g[0], mul(conj(s.tensor(0)), Scalar::from_double(0.6931471805599453)))};
}
Grads log1p_backward(const Saved& s, const Grads& g) {
  return {div(g[0], conj(add_scalar(s.tensor(0), 1.0)))};
}
// reciprocal: -grad * conj(result * result).
Grads reciprocal_backward(const Saved& s, const Grads& g) {
  return {mul(neg(g[0]), conj(mul(s.result(0), s.result(0))))};
}
// sign, ceil, floor, round, trunc: zeros_like(grad) (piecewise constant); bernoulli and
// bernoulli_.float too (bernoulli.p has none upstream: it records upstream's NotImplemented).
Grads zero_backward(const Saved&, const Grads& g) { return {zeros_like(g[0])}; }
// The ops of complex numbers. On real tensors angle and sgn are piecewise constant (zeros) and
// conj_physical is the identity. On complex ones (upstream's angle_backward, sgn_backward):
//   angle: where(self == 0, 0, grad * self / |self|^2 * 1j);
//   sgn:   where(|self| == 0, 0, (grad - result * real(grad * conj(result))) / |self|);
//   _conj_physical: conj_physical(grad). _neg_view's gradient is -grad.
Grads angle_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  if (!cx(self)) return {zeros_like(g[0])};
  Tensor abs = op1("aten::abs", self);
  Tensor v = mul(div(mul(g[0], self), mul(abs, abs)), Scalar::from_complex(0.0, 1.0));
  return {grad_where_not(cmp("aten::eq.Scalar", abs, S(Scalar::from_int(0))), v)};
}
Grads sgn_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  if (!cx(self)) return {zeros_like(g[0])};
  const Tensor& y = s.result(0);
  Tensor abs = op1("aten::abs", self);
  Tensor v = div(sub(g[0], mul(y, real(mul(g[0], conj(y))))), abs);
  return {grad_where_not(cmp("aten::eq.Scalar", abs, S(Scalar::from_int(0))), v)};
}
Grads conj_physical_backward(const Saved&, const Grads& g) {
  return {cx(g[0]) ? op1("aten::_conj_physical", g[0]) : g[0]};
}
Grads identity_backward(const Saved&, const Grads& g) { return {g[0]}; }
Grads neg_view_backward(const Saved&, const Grads& g) { return {op1("aten::neg", g[0])}; }
// nan_to_num: grad * isfinite(self).
Grads nan_to_num_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], op1("aten::isfinite", s.tensor(0)))};
}

// clamp(self, min, max), min and max scalars or tensors, either absent (upstream's
// clamp_backward): grad where min <= self <= max (each bound that is given), else 0.
Tensor clamp_self_grad(const Tensor& grad, const Tensor& self, const Value& lo, const Value& hi) {
  if (!lo.is_none() && !hi.is_none())
    return grad_where(logical_and(compare("aten::ge.Tensor", "aten::ge.Scalar", self, lo),
                                  compare("aten::le.Tensor", "aten::le.Scalar", self, hi)),
                      grad);
  if (!lo.is_none())
    return grad_where(compare("aten::ge.Tensor", "aten::ge.Scalar", self, lo), grad);
  if (!hi.is_none())
    return grad_where(compare("aten::le.Tensor", "aten::le.Scalar", self, hi), grad);
  return grad;
}
Grads clamp_backward(const Saved& s, const Grads& g) {
  return {clamp_self_grad(g[0], s.tensor(0), s.arg(1), s.arg(2))};
}
// clamp.Tensor: min, max as upstream's clamp_backward_min_max: min gets grad where
// self < min (and min < max when both are given); max where self > max (or max < min).
Grads clamp_tensor_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Value& lo = s.arg(1);
  const Value& hi = s.arg(2);
  Grads out{s.need(0) ? clamp_self_grad(g[0], self, lo, hi) : Tensor(), Tensor(), Tensor()};
  bool both = !lo.is_none() && !hi.is_none();
  if (s.need(1) && !lo.is_none()) {
    Tensor pred = op2("aten::lt.Tensor", self, lo.tensor);
    if (both) pred = logical_and(pred, op2("aten::lt.Tensor", lo.tensor, hi.tensor));
    out[1] = grad_where(pred, g[0]);
  }
  if (s.need(2) && !hi.is_none()) {
    Tensor pred = op2("aten::gt.Tensor", self, hi.tensor);
    if (both) pred = logical_or(pred, op2("aten::lt.Tensor", hi.tensor, lo.tensor));
    out[2] = grad_where(pred, g[0]);
  }
  return out;
}
// clamp_min(self, min): self: grad where self >= min; min (tensor): grad where self < min.
Grads clamp_min_backward(const Saved& s, const Grads& g) {
  return {grad_where(compare("aten::ge.Tensor", "aten::ge.Scalar", s.tensor(0), s.arg(1)), g[0])};
}
Grads clamp_min_tensor_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& lo = s.tensor(1);
  return {s.need(0) ? grad_where(op2("aten::ge.Tensor", self, lo), g[0]) : Tensor(),
          s.need(1) ? grad_where(op2("aten::lt.Tensor", self, lo), g[0]) : Tensor()};
}
// clamp_max(self, max): self: grad where self <= max; max (tensor): grad where self > max.
Grads clamp_max_backward(const Saved& s, const Grads& g) {
  return {grad_where(compare("aten::le.Tensor", "aten::le.Scalar", s.tensor(0), s.arg(1)), g[0])};
}
Grads clamp_max_tensor_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& hi = s.tensor(1);
  return {s.need(0) ? grad_where(op2("aten::le.Tensor", self, hi), g[0]) : Tensor(),
          s.need(1) ? grad_where(op2("aten::gt.Tensor", self, hi), g[0]) : Tensor()};
}

// where.self(condition, self, other): self: where(condition, grad, 0); other:
// where(condition, 0, grad). The condition gets none.
Grads where_backward(const Saved& s, const Grads& g) {
  const Tensor& cond = s.tensor(0);
  return {s.need(0) ? grad_where(cond, g[0]) : Tensor(),
          s.need(1) ? grad_where_not(cond, g[0]) : Tensor()};
}

// maximum / minimum: where(self == other, grad / 2, grad), zeroed where the other side wins.
Tensor max_min_grad(const Tensor& grad, const Tensor& self, const Tensor& other,
                    const char* loses) {
  Tensor shared = call_tensor("aten::where.self", {V(op2("aten::eq.Tensor", self, other)),
                                                    V(div(grad, Scalar::from_int(2))), V(grad)});
  return call_tensor("aten::masked_fill.Scalar",
                     {V(shared), V(op2(loses, self, other)), S(Scalar::from_int(0))});
}
Grads maximum_backward(const Saved& s, const Grads& g) {
  const Tensor& a = s.tensor(0);
  const Tensor& b = s.tensor(1);
  return {s.need(0) ? max_min_grad(g[0], a, b, "aten::lt.Tensor") : Tensor(),
          s.need(1) ? max_min_grad(g[0], a, b, "aten::gt.Tensor") : Tensor()};
}
Grads minimum_backward(const Saved& s, const Grads& g) {
  const Tensor& a = s.tensor(0);
  const Tensor& b = s.tensor(1);
  return {s.need(0) ? max_min_grad(g[0], a, b, "aten::gt.Tensor") : Tensor(),
          s.need(1) ? max_min_grad(g[0], a, b, "aten::lt.Tensor") : Tensor()};
}

Tensor scalar_zero_like(const Tensor& grad) {
  return call_tensor("aten::zeros", {Value::of_ints({}), Value::of_dtype(grad->dtype()), Value{},
                                     Value::of_device(grad->device())});
}
// pow.Tensor_Tensor(self, exponent), upstream's pow_backward_self and pow_backward_exponent:
// self: where(exponent == 0, 0, grad * (exponent * self^(exponent - 1)));
// exponent: grad * where(self == 0 and exponent >= 0, 0, result * log(self)).
Grads pow_tensor_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& e = s.tensor(1);
  Grads out{Tensor(), Tensor()};
  if (s.need(0)) {
    Tensor em1 = call_tensor("aten::sub.Scalar", {V(e), S(Scalar::from_int(1))});
    Tensor d = mul(g[0], conj(mul(e, op2("aten::pow.Tensor_Tensor", self, em1))));
    out[0] = call_tensor("aten::where.self", {V(cmp("aten::eq.Scalar", e, S(Scalar::from_int(0)))),
                                               V(scalar_zero_like(g[0])), V(d)});
  }
  if (s.need(1)) {
    const Tensor& result = s.result(0);
    Tensor cond = logical_and(cmp("aten::eq.Scalar", self, S(Scalar::from_int(0))),
                              cmp("aten::ge.Scalar", real(e), S(Scalar::from_int(0))));
    Tensor lg = op1("aten::log", to_dtype(self, result->dtype()));
    out[1] = mul(g[0], call_tensor("aten::where.self", {V(cond), V(scalar_zero_like(g[0])),
                                                        V(conj(mul(result, lg)))}));
  }
  return out;
}
// pow.Scalar(self scalar, exponent): grad * result * log(self); where self is 0, 0 where
// exponent >= 0.
Grads pow_scalar_base_backward(const Saved& s, const Grads& g) {
  const Scalar b = s.scalar(0);
  const Tensor& result = s.result(0);
  double base = b.to_double();
  Tensor d;
  if (b.is_complex() || cx(result)) {  // log of the base as a complex number, conjugated
    std::complex<double> lb = std::log(std::complex<double>(base, b.imag()));
    d = conj(mul(result, Scalar::from_complex(lb.real(), lb.imag())));
  } else {
    d = mul(result, Scalar::from_double(std::log(base)));
  }
  if (base == 0.0 && b.imag() == 0.0)
    d = call_tensor("aten::where.self",
                    {V(cmp("aten::ge.Scalar", real(s.tensor(1)), S(Scalar::from_int(0)))),
                     V(scalar_zero_like(g[0])), V(d)});
  return {mul(g[0], d)};
}

// fmod / remainder by a tensor: self: grad; other: -grad * self.div(other, rounding_mode=
// "trunc" for fmod, "floor" for remainder). By a scalar: self: grad.
Tensor div_mode(const Tensor& a, const Tensor& b, const char* mode) {
  return call_tensor("aten::div.Tensor_mode", {V(a), V(b), Value::of_string(mode)});
}
Grads pass_backward(const Saved&, const Grads& g) { return {g[0]}; }
Grads fmod_tensor_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? mul(neg(g[0]), div_mode(s.tensor(0), s.tensor(1), "trunc")) : Tensor()};
}
Grads remainder_tensor_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(),
          s.need(1) ? mul(neg(g[0]), div_mode(s.tensor(0), s.tensor(1), "floor")) : Tensor()};
}

// rsub.Tensor(self, other, alpha) = other - alpha * self: self: -grad * alpha; other: grad.
Grads rsub_tensor_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? maybe_multiply(neg(g[0]), conj(s.scalar(2))) : Tensor(),
          s.need(1) ? g[0] : Tensor()};
}
// div with a rounding mode (upstream's div_tensor_self_backward / _other_backward): zeros when
// a mode is given (the result is piecewise constant), else true division's gradients.
Grads div_mode_backward(const Saved& s, const Grads& g) {
  bool rounded = !s.arg(2).is_none();
  const Tensor& self = s.tensor(0);
  const Tensor& other = s.tensor(1);
  Grads out{Tensor(), Tensor()};
  if (s.need(0)) out[0] = rounded ? zeros_like(g[0]) : div(g[0], other);
  if (s.need(1))
    out[1] = rounded ? zeros_like(g[0]) : mul(neg(g[0]), div(div(self, other), other));
  return out;
}
Grads div_scalar_mode_backward(const Saved& s, const Grads& g) {
  if (!s.arg(2).is_none()) return {zeros_like(g[0])};
  return {div(g[0], s.scalar(1))};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::abs", {"AbsBackward0", {0}, {{0}}, 0, abs_backward});
TN_REGISTER_DERIVATIVE("aten::sin", {"SinBackward0", {0}, {{0}}, 0, sin_backward});
TN_REGISTER_DERIVATIVE("aten::cos", {"CosBackward0", {0}, {{0}}, 0, cos_backward});
TN_REGISTER_DERIVATIVE("aten::tan", {"TanBackward0", {0}, {}, 1, tan_backward});
TN_REGISTER_DERIVATIVE("aten::erf", {"ErfBackward0", {0}, {{0}}, 0, erf_backward});
TN_REGISTER_DERIVATIVE("aten::exp2", {"Exp2Backward0", {0}, {}, 1, exp2_backward});
TN_REGISTER_DERIVATIVE("aten::expm1", {"Expm1Backward0", {0}, {}, 1, expm1_backward});
TN_REGISTER_DERIVATIVE("aten::log10", {"Log10Backward0", {0}, {{0}}, 0, log10_backward});
TN_REGISTER_DERIVATIVE("aten::log2", {"Log2Backward0", {0}, {{0}}, 0, log2_backward});
TN_REGISTER_DERIVATIVE("aten::log1p", {"Log1PBackward0", {0}, {{0}}, 0, log1p_backward});
TN_REGISTER_DERIVATIVE("aten::reciprocal",
                       {"ReciprocalBackward0", {0}, {}, 1, reciprocal_backward});
TN_REGISTER_DERIVATIVE("aten::sign", {"SignBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::sgn", {"SgnBackward0", {0}, {{0}}, 1, sgn_backward});
TN_REGISTER_DERIVATIVE("aten::angle", {"AngleBackward0", {0}, {{0}}, 0, angle_backward});
TN_REGISTER_DERIVATIVE("aten::_conj_physical",
                       {"ConjPhysicalBackward0", {0}, {}, 0, conj_physical_backward});
// conj_physical_ (in place; conj_physical itself composes _conj_physical): the same gradient.
TN_REGISTER_DERIVATIVE("aten::conj_physical_",
                       {"ConjPhysicalBackward1", {0}, {}, 0, conj_physical_backward});
TN_REGISTER_DERIVATIVE("aten::_neg_view", {"NegViewBackward0", {0}, {}, 0, neg_view_backward});
TN_REGISTER_DERIVATIVE("aten::ceil", {"CeilBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::floor", {"FloorBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::round", {"RoundBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::round.decimals", {"RoundBackward1", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::bernoulli", {"BernoulliBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::bernoulli_.float",
                       {"BernoulliBackward2", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::trunc", {"TruncBackward0", {0}, {}, 0, zero_backward});
TN_REGISTER_DERIVATIVE("aten::nan_to_num",
                       {"NanToNumBackward0", {0}, {{0}}, 0, nan_to_num_backward});
TN_REGISTER_DERIVATIVE("aten::clamp", {"ClampBackward1", {0}, {{0}}, 0, clamp_backward});
TN_REGISTER_DERIVATIVE("aten::clamp.Tensor",
                       {"ClampBackward0", {0, 1, 2}, {{0}, {1}, {2}}, 0, clamp_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::clamp_min",
                       {"ClampMinBackward0", {0}, {{0}}, 0, clamp_min_backward});
TN_REGISTER_DERIVATIVE("aten::clamp_min.Tensor",
                       {"ClampMinBackward1", {0, 1}, {{0}, {1}}, 0, clamp_min_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::clamp_max",
                       {"ClampMaxBackward0", {0}, {{0}}, 0, clamp_max_backward});
TN_REGISTER_DERIVATIVE("aten::clamp_max.Tensor",
                       {"ClampMaxBackward1", {0, 1}, {{0}, {1}}, 0, clamp_max_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::where.self", {"WhereBackward0", {1, 2}, {{0}}, 0, where_backward});
TN_REGISTER_DERIVATIVE("aten::maximum",
                       {"MaximumBackward0", {0, 1}, {{0}, {1}}, 0, maximum_backward});
TN_REGISTER_DERIVATIVE("aten::minimum",
                       {"MinimumBackward0", {0, 1}, {{0}, {1}}, 0, minimum_backward});
TN_REGISTER_DERIVATIVE("aten::pow.Tensor_Tensor",
                       {"PowBackward1", {0, 1}, {{0}, {1}}, 1, pow_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::pow.Scalar",
                       {"PowBackward2", {1}, {{1}}, 1, pow_scalar_base_backward});
TN_REGISTER_DERIVATIVE("aten::fmod.Scalar", {"FmodBackward0", {0}, {}, 0, pass_backward});
TN_REGISTER_DERIVATIVE("aten::fmod.Tensor",
                       {"FmodBackward1", {0, 1}, {{0, 1}, {1, 1}}, 0, fmod_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::remainder.Scalar",
                       {"RemainderBackward0", {0}, {}, 0, pass_backward});
TN_REGISTER_DERIVATIVE("aten::remainder.Tensor",
                       {"RemainderBackward1", {0, 1}, {{0, 1}, {1, 1}}, 0,
                        remainder_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::rsub.Tensor",
                       {"RsubBackward0", {0, 1}, {}, 0, rsub_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::div.Tensor_mode",
                       {"DivBackward2", {0, 1}, {{1}, {0, 1}}, 0, div_mode_backward});
TN_REGISTER_DERIVATIVE("aten::div.Scalar_mode",
                       {"DivBackward3", {0}, {}, 0, div_scalar_mode_backward});
TN_COMPLEX_READY("aten::exp2", "aten::expm1", "aten::log1p", "aten::abs", "aten::sin", "aten::cos", "aten::tan", "aten::log10", "aten::log2",
                 "aten::reciprocal", "aten::sgn", "aten::angle", "aten::_conj_physical",
                 "aten::conj_physical_", "aten::_neg_view", "aten::where.self", "aten::pow.Tensor_Tensor",
                 "aten::pow.Scalar", "aten::rsub.Tensor");

}  // namespace tn::autograd
