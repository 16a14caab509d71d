// Derivatives of i0, special_i0e, special_i1 and special_i1e (kernels/cpu/elementwise_bessel.cpp):
// upstream's derivatives.yaml formulas and its i1_backward / i1e_backward, step for step.
#include <limits>

#include "autograd/derivatives/helpers.h"
#include "kernels/rules/elementwise.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {V(cond), V(a), V(b)});
}
// A 0-d tensor of x's dtype and device (upstream's at::full({}, v, x.options())).
Tensor full0(double v, const Tensor& x) {
  return call_tensor("aten::scalar_tensor", {S(v), Value::of_dtype(x->dtype()), Value{},
                                             Value::of_device(x->device())});
}

// i0: grad * special_i1(self).
Grads i0_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], op1("aten::special_i1", s.tensor(0)))};
}
// special_i0e: grad * (special_i1e(self) - self.sgn() * result).
Grads i0e_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  return {mul(g[0], sub(op1("aten::special_i1e", self),
                        mul(op1("aten::sgn", self), s.result(0))))};
}

// upstream's i1_backward / i1e_backward: the slope lead(x) - result * shift(x) at x, with x
// replaced by eps where |x| <= eps (so no 1/0 reaches the where's other side) and 1/2 there.
// Dispatched on float and double only, as upstream's AT_DISPATCH_FLOATING_TYPES.
template <typename Lead, typename Shift>
Tensor small_x_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                        const char* name, Lead lead, Shift shift) {
  const ScalarType dt = self->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented, "\"",
                name, "\" not implemented for '", c10_dtype_name(dt), "'");
  const double eps = dt == ScalarType::Float ? std::numeric_limits<float>::epsilon()
                                             : std::numeric_limits<double>::epsilon();
  Tensor not_tiny = call_tensor("aten::gt.Scalar", {V(op1("aten::abs", self)), S(eps)});
  Tensor safe = where(not_tiny, self, full0(eps, self));
  Tensor slope = sub(lead(safe), mul(result, shift(safe)));
  return mul(grad, where(not_tiny, slope, full0(0.5, self)));
}

// special_i1: i1_backward(grad, self, result): i0(x) - result / x.
Grads i1_backward(const Saved& s, const Grads& g) {
  return {small_x_backward(g[0], s.tensor(0), s.result(0), "i1_backward",
                           [](const Tensor& x) { return op1("aten::i0", x); },
                           [](const Tensor& x) { return op1("aten::reciprocal", x); })};
}
// special_i1e: i1e_backward(grad, self, result): i0e(x) - result * (sgn(x) + 1 / x).
Grads i1e_backward(const Saved& s, const Grads& g) {
  return {small_x_backward(g[0], s.tensor(0), s.result(0), "i1e_backward",
                           [](const Tensor& x) { return op1("aten::special_i0e", x); },
                           [](const Tensor& x) {
                             return add(op1("aten::sgn", x), op1("aten::reciprocal", x));
                           })};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::i0", {"I0Backward0", {0}, {{0}}, 0, i0_backward});
TN_REGISTER_DERIVATIVE("aten::special_i0e",
                       {"SpecialI0EBackward0", {0}, {{0}}, 1, i0e_backward});
TN_REGISTER_DERIVATIVE("aten::special_i1", {"SpecialI1Backward0", {0}, {{0}}, 1, i1_backward});
TN_REGISTER_DERIVATIVE("aten::special_i1e",
                       {"SpecialI1EBackward0", {0}, {{0}}, 1, i1e_backward});

}  // namespace tn::autograd
