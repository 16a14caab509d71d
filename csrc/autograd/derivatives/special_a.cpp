// Derivatives of erfinv, special_entr, special_xlog1py (and its Scalar spellings), frexp,
// ldexp and special_ndtri (kernels/cpu/elementwise_special_a.cpp) and mvlgamma
// (kernels/composite/mvlgamma.cpp): upstream's derivatives.yaml formulas, op for op.
#include <cmath>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Scalar int_scalar(int64_t v) { return Scalar::from_int(v); }

// erfinv: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
Grads erfinv_backward(const Saved& s, const Grads& g) {
  Tensor e = exp(pow(op1("aten::erfinv", s.tensor(0)), int_scalar(2)));
  return {mul(mul(e, Scalar::from_double(0.5 * std::sqrt(M_PI))), g[0])};
}

// special_entr: grad * (-(1 + self.log()))
Grads entr_backward(const Saved& s, const Grads& g) {
  Tensor l = call_tensor("aten::add.Scalar", {V(op1("aten::log", s.tensor(0))),
                                              S(int_scalar(1))});
  return {mul(g[0], neg(l))};
}

// special_xlog1py(self, other): self gets xlog1py(grad, other), zero where self == 0 and
// other <= -1; other gets grad * self / (other + 1).
Tensor plus_one(const Tensor& y) {
  return call_tensor("aten::add.Scalar", {V(y), S(int_scalar(1))});
}
Grads xlog1py_backward(const Saved& s, const Grads& g) {
  const Tensor &x = s.tensor(0), &y = s.tensor(1);
  Grads out(2);
  if (s.need(0)) {
    Tensor both = call_tensor("aten::bitwise_and.Tensor",
                              {V(call_tensor("aten::eq.Scalar", {V(x), S(0.0)})),
                               V(call_tensor("aten::le.Scalar", {V(y), S(-1.0)}))});
    out[0] = call_tensor("aten::masked_fill.Scalar",
                         {V(call_tensor("aten::special_xlog1py", {V(g[0]), V(y)})), V(both),
                          S(0.0)});
  }
  if (s.need(1)) out[1] = div(mul(g[0], x), plus_one(y));
  return out;
}
// special_xlog1py.self_scalar(self, other): other gets grad * self / (other + 1).
Grads xlog1py_self_scalar_backward(const Saved& s, const Grads& g) {
  return {div(mul(g[0], s.scalar(0)), plus_one(s.tensor(1)))};
}
// special_xlog1py.other_scalar(self, other): self gets xlog1py(grad, other), zeroed where
// self == 0 unless other > -1.
Grads xlog1py_other_scalar_backward(const Saved& s, const Grads& g) {
  const Scalar other = s.scalar(1);
  Tensor r = call_tensor("aten::special_xlog1py.other_scalar", {V(g[0]), S(other)});
  if (other.to_double() > -1.) return {r};
  Tensor zero = call_tensor("aten::eq.Scalar", {V(s.tensor(0)), S(0.0)});
  return {call_tensor("aten::masked_fill.Scalar", {V(r), V(zero), S(0.0)})};
}

// frexp: self gets grad / exponent.exp2() (the exponent output is not differentiable).
Grads frexp_backward(const Saved& s, const Grads& g) {
  return {div(g[0], op1("aten::exp2", s.result(1)))};
}

// ldexp(self, other): self gets grad * pow(2, other), other grad * result * ln 2.
Grads ldexp_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = mul(g[0], call_tensor("aten::pow.Scalar", {S(int_scalar(2)), V(s.tensor(1))}));
  if (s.need(1)) out[1] = mul(mul(g[0], s.result(0)), Scalar::from_double(M_LN2));
  return out;
}

// mvlgamma(self, p): upstream's mvlgamma_backward: grad * digamma(arange(-p / 2 + 1/2, 1/2,
// 1/2) + self.unsqueeze(-1)).sum(-1), the arange in self's dtype.
Grads mvlgamma_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const double p = static_cast<double>(s.to_int(1));
  Tensor args = call_tensor("aten::arange.start_step",
                            {S(-p / 2. + 0.5), S(0.5), S(0.5), Value::of_dtype(self->dtype()),
                             Value{}, Value::of_device(self->device())});
  args = add(args, unsqueeze(self, -1));
  call_tensor("aten::digamma_", {V(args)});
  Tensor sum = call_tensor("aten::sum.dim_IntList",
                           {V(args), Value::of_ints(Dims{-1}), Value::of_bool(false), Value{}});
  return {mul(g[0], sum)};
}

// special_ndtri: grad * std::sqrt(2 * M_PI) * (result.square() / 2).exp()
Grads ndtri_backward(const Saved& s, const Grads& g) {
  Tensor e = exp(div(op1("aten::square", s.result(0)), int_scalar(2)));
  return {mul(mul(g[0], Scalar::from_double(std::sqrt(2 * M_PI))), e)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::special_ndtri",
                       {"SpecialNdtriBackward0", {0}, {}, 1, ndtri_backward});
TN_REGISTER_DERIVATIVE("aten::mvlgamma", {"MvlgammaBackward0", {0}, {{0}}, 0, mvlgamma_backward});
TN_REGISTER_DERIVATIVE("aten::erfinv", {"ErfinvBackward0", {0}, {{0}}, 0, erfinv_backward});
TN_REGISTER_DERIVATIVE("aten::special_entr",
                       {"SpecialEntrBackward0", {0}, {{0}}, 0, entr_backward});
TN_REGISTER_DERIVATIVE("aten::special_xlog1py",
                       {"SpecialXlog1PyBackward0", {0, 1}, {{0}, {1}}, 0, xlog1py_backward});
TN_REGISTER_DERIVATIVE("aten::special_xlog1py.self_scalar",
                       {"SpecialXlog1PyBackward1", {1}, {{1}}, 0,
                        xlog1py_self_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::special_xlog1py.other_scalar",
                       {"SpecialXlog1PyBackward2", {0}, {{0}}, 0,
                        xlog1py_other_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::frexp.Tensor",
                       {"FrexpBackward0", {0}, {}, 0b10, frexp_backward, 0b10});
TN_REGISTER_DERIVATIVE("aten::ldexp.Tensor",
                       {"LdexpBackward0", {0, 1}, {{1}}, 0b1, ldexp_backward});

}  // namespace tn::autograd
