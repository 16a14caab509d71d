// Derivatives of the ops language-model training reaches that no other family file holds
// (upstream's derivatives.yaml entries): constant_pad_nd's, whose backward is constant_pad_nd
// of the gradient with every pad negated (upstream's constant_pad_nd_backward).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// constant_pad_nd(self, pad, value): self gets constant_pad_nd(grad, -pad, 0).
Grads constant_pad_nd_backward(const Saved& s, const Grads& g) {
  Dims negated = s.ints(1);
  for (int64_t& p : negated) p = -p;
  return {call_tensor("aten::constant_pad_nd",
                      {V(g[0]), Value::of_ints(negated), S(Scalar::from_int(0))})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::constant_pad_nd",
                       {"ConstantPadNdBackward0", {0}, {}, 0, constant_pad_nd_backward});

}  // namespace tn::autograd
