// Derivatives of _prelu_kernel (PreluKernelBackward0: _prelu_kernel_backward, whose weight
// gradient has the broadcast shape; the engine sums it to weight's) and of
// _prelu_kernel_backward (PreluKernelBackwardBackward0), derivatives.yaml's formulas.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {V(cond), V(a), V(b)});
}
Tensor zero_of(const Tensor& like) {
  return call_tensor("aten::scalar_tensor", {S(0.0), Value::of_dtype(like->dtype()), Value{},
                                             Value::of_device(like->device())});
}
Tensor nonneg(const Tensor& self) { return call_tensor("aten::ge.Scalar", {V(self), S(0.0)}); }

// _prelu_kernel(self, weight): _prelu_kernel_backward(grad, self, weight).
Grads prelu_kernel_backward(const Saved& s, const Grads& g) {
  if (!g[0]) return {Tensor(), Tensor()};
  std::vector<Value> r = call("aten::_prelu_kernel_backward",
                              {V(g[0]), V(s.tensor(0)), V(s.tensor(1))});
  Grads out(2);
  if (s.need(0)) out[0] = r[0].tensor;
  if (s.need(1)) out[1] = r[1].tensor;
  return out;
}

// _prelu_kernel_backward(grad_output, self, weight), given gradients g0 (of grad_self) and g1
// (of grad_weight); edges grad_output, self, weight.
Grads prelu_kernel_backward_backward(const Saved& s, const Grads& g) {
  const Tensor &go = s.tensor(0), &self = s.tensor(1), &w = s.tensor(2);
  const Tensor g0 = handed_or_null(g, 0), g1 = handed_or_null(g, 1);
  Tensor nn = nonneg(self);
  Grads out(3);
  if (s.need(0)) {
    if (g0 && g1) out[0] = where(nn, g0, add(mul(g0, w), mul(g1, self)));
    else if (g0) out[0] = where(nn, g0, mul(g0, w));
    else if (g1) out[0] = where(nn, zero_of(go), mul(g1, self));
  }
  if (s.need(1)) {
    out[1] = g1 ? where(nn, zero_of(self), mul(go, g1))
                : call_tensor("aten::zeros_like", {V(self)});
  }
  if (s.need(2)) {
    out[2] = g0 ? where(nn, zero_of(w), mul(go, g0))
                : call_tensor("aten::zeros_like", {V(self)});
  }
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_prelu_kernel",
                       {"PreluKernelBackward0", {0, 1}, {{0}, {1}}, 0, prelu_kernel_backward});
TN_REGISTER_DERIVATIVE("aten::_prelu_kernel_backward",
                       {"PreluKernelBackwardBackward0", {0, 1, 2}, {{0}, {1}, {2}}, 0,
                        prelu_kernel_backward_backward});

}  // namespace tn::autograd
