// Derivatives of acos, asin, atan, sinh, cosh, acosh, asinh, atanh, erfc, lgamma, digamma,
// polygamma and frac (elementwise_unary2.cpp): upstream's derivatives.yaml formulas, step for
// step in its order (conj is the identity on real dtypes).
#include <cmath>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Tensor plus_one(const Tensor& a) {
  return call_tensor("aten::add.Scalar", {V(a), S(Scalar::from_int(1))});
}
// -self * self + 1
Tensor one_minus_square(const Tensor& self) { return plus_one(mul(neg(self), self)); }

// acos: grad * -conj((-self * self + 1).rsqrt()).
Grads acos_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], neg(conj(op1("aten::rsqrt", one_minus_square(s.tensor(0))))))};
}
// asin: grad * conj((-self * self + 1).rsqrt()).
Grads asin_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(op1("aten::rsqrt", one_minus_square(s.tensor(0)))))};
}
// atan: grad / conj(self * self + 1).
Grads atan_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  return {div(g[0], conj(plus_one(mul(self, self))))};
}
// sinh: grad * conj(self.cosh()); cosh: grad * conj(self.sinh()) (complex too).
Grads sinh_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(op1("aten::cosh", s.tensor(0))))};
}
Grads cosh_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(op1("aten::sinh", s.tensor(0))))};
}
// acosh: grad * (self * self - 1).rsqrt(); complex: grad * ((self + 1).rsqrt() *
// (self - 1).rsqrt()).conj().
Tensor add_int(const Tensor& a, int64_t k) {
  return call_tensor("aten::add.Scalar", {V(a), S(Scalar::from_int(k))});
}
Grads acosh_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  if (is_complex(self->dtype()))
    return {mul(g[0], conj(mul(op1("aten::rsqrt", add_int(self, 1)),
                               op1("aten::rsqrt", add_int(self, -1)))))};
  return {mul(g[0], op1("aten::rsqrt", call_tensor("aten::sub.Scalar",
                                                   {V(mul(self, self)),
                                                    S(Scalar::from_int(1))})))};
}
// asinh: grad * (self.pow(2) + 1).rsqrt().conj().
Grads asinh_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], conj(op1("aten::rsqrt", plus_one(pow(s.tensor(0), Scalar::from_int(2))))))};
}
// atanh: grad * 1 / (1 - self.pow(2)).conj() (grad * 1 is grad itself).
Grads atanh_backward(const Saved& s, const Grads& g) {
  Tensor one_minus = call_tensor("aten::rsub.Scalar", {V(pow(s.tensor(0), Scalar::from_int(2))),
                                                       S(Scalar::from_int(1))});
  return {div(g[0], conj(one_minus))};
}
// Their in-place spellings: upstream's not_implemented("inplace version of ...") nodes.
constexpr char kAcoshInplace[] = "inplace version of acosh";
constexpr char kAsinhInplace[] = "inplace version of asinh";
constexpr char kAtanhInplace[] = "inplace version of atanh";

// erfc: -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad (the constant in double, as upstream's
// C++ computes it).
Grads erfc_backward(const Saved& s, const Grads& g) {
  const double c = -2.0 / std::sqrt(M_PI);
  Tensor e = exp(neg(pow(s.tensor(0), Scalar::from_int(2))));
  return {mul(mul(e, Scalar::from_double(c)), g[0])};
}
// lgamma: grad * digamma(self).
Grads lgamma_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], op1("aten::digamma", s.tensor(0)))};
}
// polygamma(n, self) at order k: grad * polygamma(k + 1, self).
Tensor polygamma_times(const Tensor& grad, int64_t order, const Tensor& self) {
  return mul(grad, call_tensor("aten::polygamma", {Value::of_int(order + 1), V(self)}));
}
// digamma: grad * polygamma(1, self).
Grads digamma_backward(const Saved& s, const Grads& g) {
  return {polygamma_times(g[0], 0, s.tensor(0))};
}
// polygamma(n, self): grad * polygamma(n + 1, self).
Grads polygamma_backward(const Saved& s, const Grads& g) {
  return {polygamma_times(g[0], s.to_int(0), s.tensor(1))};
}
// polygamma_(self, n): the same, of the original self.
Grads polygamma_inplace_backward(const Saved& s, const Grads& g) {
  return {polygamma_times(g[0], s.to_int(1), s.tensor(0))};
}
// frac: grad.
Grads frac_backward(const Saved&, const Grads& g) { return {g[0]}; }

}  // namespace

TN_REGISTER_DERIVATIVE("aten::acos", {"AcosBackward0", {0}, {{0}}, 0, acos_backward});
TN_REGISTER_DERIVATIVE("aten::asin", {"AsinBackward0", {0}, {{0}}, 0, asin_backward});
TN_REGISTER_DERIVATIVE("aten::atan", {"AtanBackward0", {0}, {{0}}, 0, atan_backward});
TN_REGISTER_DERIVATIVE("aten::sinh", {"SinhBackward0", {0}, {{0}}, 0, sinh_backward});
TN_REGISTER_DERIVATIVE("aten::cosh", {"CoshBackward0", {0}, {{0}}, 0, cosh_backward});
TN_COMPLEX_READY("aten::sinh", "aten::cosh", "aten::acos", "aten::asin", "aten::atan");
TN_REGISTER_DERIVATIVE("aten::acosh", {"AcoshBackward0", {0}, {{0}}, 0, acosh_backward});
TN_REGISTER_DERIVATIVE("aten::asinh", {"AsinhBackward0", {0}, {{0}}, 0, asinh_backward});
TN_REGISTER_DERIVATIVE("aten::atanh", {"AtanhBackward0", {0}, {{0}}, 0, atanh_backward});
TN_COMPLEX_READY("aten::acosh", "aten::asinh", "aten::atanh");
TN_REGISTER_DERIVATIVE("aten::acosh_", {"AcoshBackward1", {0}, {}, 0,
                                        not_implemented<kAcoshInplace>});
TN_REGISTER_DERIVATIVE("aten::asinh_", {"AsinhBackward1", {0}, {}, 0,
                                        not_implemented<kAsinhInplace>});
TN_REGISTER_DERIVATIVE("aten::atanh_", {"AtanhBackward1", {0}, {}, 0,
                                        not_implemented<kAtanhInplace>});
TN_REGISTER_DERIVATIVE("aten::erfc", {"ErfcBackward0", {0}, {{0}}, 0, erfc_backward});
TN_REGISTER_DERIVATIVE("aten::lgamma", {"LgammaBackward0", {0}, {{0}}, 0, lgamma_backward});
TN_REGISTER_DERIVATIVE("aten::digamma",
                       {"DigammaBackward0", {0}, {{0}}, 0, digamma_backward});
TN_REGISTER_DERIVATIVE("aten::polygamma",
                       {"PolygammaBackward0", {1}, {{1}}, 0, polygamma_backward});
TN_REGISTER_DERIVATIVE("aten::polygamma_",
                       {"PolygammaBackward1", {0}, {{0}}, 0, polygamma_inplace_backward});
TN_REGISTER_DERIVATIVE("aten::frac", {"FracBackward0", {0}, {}, 0, frac_backward});

}  // namespace tn::autograd
