// Derivatives of addmv, addr and addbmm (AddmvBackward0, AddrBackward0, AddbmmBackward0):
// upstream's derivatives.yaml formulas, with the other operand and the factors conjugated.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor mv(const Tensor& m, const Tensor& v) { return call_tensor("aten::mv", {V(m), V(v)}); }

// addmv(self, mat, vec, beta, alpha): self: grad * conj(beta); mat: outer(grad, conj(vec)) *
// conj(alpha); vec: conj(mat)^T . grad * conj(alpha).
Grads addmv_backward(const Saved& s, const Grads& g) {
  Scalar beta = conj(s.scalar(3)), alpha = conj(s.scalar(4));
  Tensor outer = s.need(1) ? mul(unsqueeze(g[0], 1), unsqueeze(conj(s.tensor(2)), 0)) : Tensor();
  return {s.need(0) ? maybe_multiply(g[0], beta) : Tensor(),
          s.need(1) ? maybe_multiply(outer, alpha) : Tensor(),
          s.need(2) ? maybe_multiply(mv(conj(t(s.tensor(1))), g[0]), alpha) : Tensor()};
}

// addr(self, vec1, vec2, beta, alpha): self: grad * conj(beta); vec1: grad . conj(vec2) *
// conj(alpha); vec2: grad^T . conj(vec1) * conj(alpha).
Grads addr_backward(const Saved& s, const Grads& g) {
  Scalar beta = conj(s.scalar(3)), alpha = conj(s.scalar(4));
  return {s.need(0) ? maybe_multiply(g[0], beta) : Tensor(),
          s.need(1) ? maybe_multiply(mv(g[0], conj(s.tensor(2))), alpha) : Tensor(),
          s.need(2) ? maybe_multiply(mv(t(g[0]), conj(s.tensor(1))), alpha) : Tensor()};
}

// addbmm(self, batch1, batch2, beta, alpha): the gradient expanded over the batch, then bmm
// with the other operand's conjugate transpose, times conj(alpha).
Grads addbmm_backward(const Saved& s, const Grads& g) {
  Scalar beta = conj(s.scalar(3)), alpha = conj(s.scalar(4));
  Grads out(3);
  if (s.need(0)) out[0] = maybe_multiply(g[0], beta);
  if (!s.need(1) && !s.need(2)) return out;
  const Dims &b1 = s.meta(1).sizes, &b2 = s.meta(2).sizes;
  Tensor ge = expand(unsqueeze(g[0], 0), {b1[0], b1[1], b2[2]});
  if (s.need(1)) out[1] = maybe_multiply(bmm(ge, transpose(conj(s.tensor(2)), 1, 2)), alpha);
  if (s.need(2)) out[2] = maybe_multiply(bmm(transpose(conj(s.tensor(1)), 1, 2), ge), alpha);
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::addmv",
                       {"AddmvBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, 0, addmv_backward});
TN_REGISTER_DERIVATIVE("aten::addr",
                       {"AddrBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, 0, addr_backward});
TN_REGISTER_DERIVATIVE("aten::addbmm",
                       {"AddbmmBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, 0, addbmm_backward});
TN_COMPLEX_READY("aten::addmv", "aten::addr", "aten::addbmm");

}  // namespace tn::autograd
