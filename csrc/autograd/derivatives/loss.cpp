// Derivatives of the losses and the ops they reach: nll_loss_forward, mse_loss, masked_fill
// (upstream's derivatives.yaml entries; their backward kernels are ops of their own, in
// kernels/cpu/nn_loss.cpp and kernels/composite/loss.cpp). Double backward of the loss
// kernels is not recorded yet: their backward ops have no formula, so it refuses by name.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Value optional_arg(const Saved& s, size_t i) {
  const Value& v = s.arg(i);
  return v.tag == Value::Tag::Tensor && v.tensor ? v : Value{};
}

// nll_loss_forward(self, target, weight?, reduction, ignore_index) -> (output, total_weight):
// self gets nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight).
Grads nll_loss_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::nll_loss_backward",
                      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), optional_arg(s, 2),
                       Value::of_int(s.to_int(3)), Value::of_int(s.to_int(4)),
                       V(s.result(1))})};
}

// mse_loss(self, target, reduction): self gets mse_loss_backward(grad, self, target), target
// the same with the two swapped.
Grads mse_loss_backward(const Saved& s, const Grads& g) {
  Value red = Value::of_int(s.to_int(2));
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::mse_loss_backward",
                         {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), red});
  if (s.need(1))
    out[1] = call_tensor("aten::mse_loss_backward",
                         {V(g[0]), V(s.tensor(1)), V(s.tensor(0)), red});
  return out;
}

// masked_fill(self, mask, value): self gets grad with zeros where mask is set.
Grads masked_fill_scalar_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::masked_fill.Scalar",
                      {V(g[0]), V(s.tensor(1)), S(Scalar::from_int(0))})};
}
// masked_fill.Tensor: self as above; the 0-dim value gets the sum of grad where mask is set
// (upstream's masked_fill_backward: grad.masked_select(mask).sum()).
Grads masked_fill_tensor_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = masked_fill_scalar_backward(s, g)[0];
  if (s.need(1)) {
    Tensor picked = call_tensor("aten::masked_select", {V(g[0]), V(s.tensor(1))});
    out[1] = call_tensor("aten::sum", {V(picked)});
  }
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::nll_loss_forward",
                       {"NllLossBackward0", {0}, {{0}, {1}, {2}}, 0b10, nll_loss_backward, 0b10, {2}});
TN_REGISTER_DERIVATIVE("aten::mse_loss",
                       {"MseLossBackward0", {0, 1}, {{0}, {1}}, 0, mse_loss_backward});
TN_REGISTER_DERIVATIVE("aten::masked_fill.Scalar",
                       {"MaskedFillBackward0", {0}, {{1}}, 0, masked_fill_scalar_backward});
TN_REGISTER_DERIVATIVE("aten::masked_fill.Tensor",
                       {"MaskedFillBackward1", {0, 2}, {{1}}, 0, masked_fill_tensor_backward});

}  // namespace tn::autograd
