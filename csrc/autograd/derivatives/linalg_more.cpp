// Derivatives of the linear-algebra ops of kernels/cpu/cross.cpp (and the others of that batch),
// as upstream's derivatives.yaml writes them, with its node names.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor conj_of(const Tensor& x) { return call_tensor("aten::conj", {V(x)}); }

// linalg_cross(self, other, dim): self gets linalg_cross(other.conj(), grad, dim), other
// linalg_cross(grad, self.conj(), dim) (the engine sums each to its input's shape).
Grads linalg_cross_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::linalg_cross", {V(conj_of(s.tensor(1))), V(g[0]), s.arg(2)});
  if (s.need(1))
    out[1] = call_tensor("aten::linalg_cross", {V(g[0]), V(conj_of(s.tensor(0))), s.arg(2)});
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_cross", {"LinalgCrossBackward0", {0, 1}, {{1, 0}, {0, 1}},
                                              0, linalg_cross_backward});
TN_COMPLEX_READY("aten::linalg_cross");

}  // namespace tn::autograd
