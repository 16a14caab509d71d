// Derivatives of _unsafe_masked_index (UnsafeMaskedIndexBackward0) and
// _unsafe_masked_index_put_accumulate (UnsafeMaskedIndexPutAccumulateBackward0), as
// derivatives.yaml writes them; mask is not differentiable.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// self: _unsafe_masked_index_put_accumulate(zeros of self's shape, mask, indices, grad).
Grads masked_index_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  Tensor zeros = call_tensor("aten::new_zeros", {V(g[0]), Value::of_ints(m.sizes),
                                                 Value::of_dtype(m.dtype)});
  return {call_tensor("aten::_unsafe_masked_index_put_accumulate",
                      {V(zeros), V(s.tensor(1)), s.arg(2), V(g[0])})};
}
// self: grad; values: _unsafe_masked_index(grad, mask, indices, 0).
Grads masked_index_put_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = g[0];
  if (s.need(1))
    out[1] = call_tensor("aten::_unsafe_masked_index", {V(g[0]), V(s.tensor(1)), s.arg(2),
                                                        Value::of_scalar(Scalar::from_int(0))});
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_unsafe_masked_index",
                       {"UnsafeMaskedIndexBackward0", {0}, {{1}, {2}}, 0,
                        masked_index_backward});
TN_REGISTER_DERIVATIVE("aten::_unsafe_masked_index_put_accumulate",
                       {"UnsafeMaskedIndexPutAccumulateBackward0", {0, 3}, {{1}, {2}}, 0,
                        masked_index_put_backward});

}  // namespace tn::autograd
