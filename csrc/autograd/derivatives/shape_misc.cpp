// Derivatives of rot90 and narrow_copy (Rot90Backward0, NarrowCopyBackward0): derivatives.yaml's
// grad.rot90(-k, dims), and slice_backward_wrapper (grad written into zeros of self's sizes at
// the narrowed range).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads rot90_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::rot90", {V(g[0]), Value::of_int(-s.to_int(1)), s.arg(2)})};
}
Grads narrow_copy_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  int64_t dim = wrap(s.to_int(1), n), start = s.to_int(2), length = s.to_int(3);
  if (start < 0) start += m.sizes[dim];
  Tensor z = zeros(m.sizes, g[0]->dtype(), m.device);
  ops::copy_(narrow(z, dim, start, length), g[0]);
  return {z};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::rot90", {"Rot90Backward0", {0}, {}, 0, rot90_backward});
TN_REGISTER_DERIVATIVE("aten::narrow_copy",
                       {"NarrowCopyBackward0", {0}, {}, 0, narrow_copy_backward});
TN_COMPLEX_READY("aten::rot90", "aten::narrow_copy");

}  // namespace tn::autograd
