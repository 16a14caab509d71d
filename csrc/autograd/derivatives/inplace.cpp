// Derivatives of the writes that overwrite a tensor (upstream's derivatives.yaml entries for
// copy_, fill_ and zero_): the overwritten values get no gradient; copy_'s source gets the
// gradient (the engine casts it to the source's dtype and sums a broadcast away). Written into a
// view, they are what CopySlices runs for the view's elements (autograd/view_history.h).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor zeros_like(const Tensor& g) { return call_tensor("aten::zeros_like", {V(g)}); }

// Overwritten: self gets zeros.
Grads overwritten_backward(const Saved& s, const Grads& g) {
  Grads out(1);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  return out;
}

// copy_(self, src, non_blocking): self gets zeros, src the gradient.
Grads copy_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  if (s.need(1)) out[1] = g[0];
  return out;
}

// fill_.Tensor(self, value): self gets zeros, the 0-dim value the sum of the gradient.
Grads fill_tensor_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  if (s.need(1)) out[1] = call_tensor("aten::sum", {V(g[0])});
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::copy_",
                       {"torch::autograd::CopyBackwards", {0, 1}, {}, 0, copy_backward});
TN_REGISTER_DERIVATIVE("aten::fill_.Scalar", {"FillBackward2", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::fill_.Tensor",
                       {"FillBackward3", {0, 1}, {}, 0, fill_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::zero_", {"ZeroBackward0", {0}, {}, 0, overwritten_backward});

}  // namespace tn::autograd
