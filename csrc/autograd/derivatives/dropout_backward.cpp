// Derivative of native_dropout_backward (NativeDropoutBackwardBackward0): upstream's
// native_dropout_double_backward, ggI.type_as(grad_output) * (mask.type_as(grad_output) * scale).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads dropout_double_backward(const Saved& s, const Grads& g) {
  const ScalarType dt = s.meta(0).dtype;
  Tensor scaled = mul(to_dtype(s.tensor(1), dt), Scalar::from_double(s.scalar(2).to_double()));
  return {mul(to_dtype(g[0], dt), scaled)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::native_dropout_backward",
                       {"NativeDropoutBackwardBackward0", {0}, {{1}}, 0,
                        dropout_double_backward});

}  // namespace tn::autograd
