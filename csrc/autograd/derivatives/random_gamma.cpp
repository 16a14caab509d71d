// Derivatives of the Gamma sampler (kernels/cpu/random_gamma.cpp), upstream's derivatives.yaml:
// _standard_gamma's reparameterised gradient grad * _standard_gamma_grad(self, result), and
// _standard_gamma_grad's own, which upstream refuses by name. _sample_dirichlet and binomial
// have no formula upstream (their gradients refuse as any op's without one).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads standard_gamma_backward(const Saved& s, const Grads& g) {
  return {mul(g[0], call_tensor("aten::_standard_gamma_grad", {V(s.tensor(0)), V(s.result(0))}))};
}

Grads standard_gamma_grad_backward(const Saved&, const Grads&) {
  TN_FAIL(NotImplemented, "the derivative for '_standard_gamma_grad' is not implemented.");
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_standard_gamma",
                       {"StandardGammaBackward0", {0}, {{0}}, 1, standard_gamma_backward});
TN_REGISTER_DERIVATIVE("aten::_standard_gamma_grad",
                       {"StandardGammaGradBackward0", {0}, {}, 0, standard_gamma_grad_backward});

}  // namespace tn::autograd
