// The derivative of linalg_matrix_exp (LinalgMatrixExpBackward0), as upstream's
// linalg_matrix_exp_differential with adjoint=true writes it; matrix_exp, a CompositeImplicit
// alias, records this node too.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// The top-right n x n block of exp([[A^H, grad], [0, A^H]]): the adjoint of exp's
// differential at A applied to grad.
Grads linalg_matrix_exp_backward(const Saved& s, const Grads& g) {
  if (!g[0] || !s.need(0)) return {Tensor()};
  const Tensor A = ops::mH(s.tensor(0));
  const Tensor& grad = g[0];
  const int64_t nd = A->dim(), n = A->size(nd - 1);
  Dims shape = A->sizes();
  shape[nd - 2] *= 2;
  shape[nd - 1] *= 2;
  Tensor meta = zeros(shape, grad->dtype(), grad->device());
  auto block = [&](int64_t r, int64_t c) { return narrow(narrow(meta, -2, r, n), -1, c, n); };
  ops::copy_(block(0, 0), A);
  ops::copy_(block(n, n), A);
  ops::copy_(block(0, n), grad);
  Tensor e = call_tensor("aten::linalg_matrix_exp", {V(meta)});
  return {narrow(narrow(e, -2, 0, n), -1, n, n)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_matrix_exp",
                       {"LinalgMatrixExpBackward0", {0}, {{0}}, 0, linalg_matrix_exp_backward});
TN_COMPLEX_READY("aten::linalg_matrix_exp");

}  // namespace tn::autograd
