// The derivative of mode (kernels/cpu/mode.cpp): upstream's derivatives.yaml formula,
// value_selecting_reduction_backward, written again with door ops.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// mode(self, dim, keepdim) -> (values, indices): grad scattered at the indices along dim into
// zeros of self's shape (the dim put back first unless kept); a 0-d self takes grad as it is.
Grads mode_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  const int64_t n = static_cast<int64_t>(m.sizes.size());
  if (n == 0) return {g[0]};
  const int64_t dim = wrap(s.to_int(1), n);
  Tensor grad = g[0], idx = s.result(1);
  if (!s.to_bool(2)) {
    grad = unsqueeze(grad, dim);
    idx = unsqueeze(idx, dim);
  }
  Tensor zero = zeros(m.sizes, grad->dtype(), m.device);
  return {call_tensor("aten::scatter.src", {V(zero), Value::of_int(dim), V(idx), V(grad)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::mode", {"ModeBackward0", {0}, {}, 2, mode_backward, 2});

}  // namespace tn::autograd
