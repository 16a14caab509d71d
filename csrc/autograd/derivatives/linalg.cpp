// Derivatives of the LU family (kernels/cpu/linalg_lu.cpp: linalg_inv_ex, _linalg_solve_ex,
// _linalg_det, _linalg_slogdet) and of the Cholesky family (linalg_cholesky.cpp), upstream's
// derivatives.yaml formulas and FunctionsManual helpers written again with door ops. The solves
// reuse the forward's LU factors (of A, or of A^T where det factored the transpose) when
// backward records nothing; under create_graph they solve again with linalg_solve so that the
// result is itself differentiable, as upstream.
#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor mH(const Tensor& x) { return conj(transpose(x, -2, -1)); }
Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {V(a), V(b)});
}
// det and slogdet factored A^T for a contiguous real A: that LU solves A^{-T} untransposed.
bool det_factored_transposed(const Tensor& A) { return A->is_contiguous() && !cx(A); }

// A^{-H} R (R A^{-H} when not left): from the saved factors (of A, or of A^T when
// `transposed`), or by a new solve under create_graph.
Tensor solve_adjoint(const Tensor& A, const Tensor& LU, const Tensor& pivots, const Tensor& R,
                     bool left, bool transposed) {
  if (grad_mode_enabled())
    return call_tensor("aten::linalg_solve", {V(mH(A)), V(R), Value::of_bool(left)});
  return call_tensor("aten::linalg_lu_solve", {V(LU), V(pivots), V(R), Value::of_bool(left),
                                               Value::of_bool(!transposed)});
}

// linalg_inv_ex(A): -A^{-H} grad A^{-H}.
Grads inv_ex_backward(const Saved& s, const Grads& g) {
  Tensor ih = mH(s.result(0));
  return {neg(matmul(ih, matmul(g[0], ih)))};
}

// _linalg_solve_ex(A, B, left): gB = A^{-H} gX (gX A^{-H} when right), gA = -gB X^H (-X^H gB).
// A vector B is solved as a one-column matrix.
Grads solve_ex_backward(const Saved& s, const Grads& g) {
  const Tensor &A = s.tensor(0), &X = s.result(0), &LU = s.result(1), &pivots = s.result(2);
  const bool left = s.arg(2).tag == Value::Tag::Bool ? s.to_bool(2) : true;
  const ArgMeta& b = s.meta(1);
  Dims a_front(s.meta(0).sizes.begin(), s.meta(0).sizes.end() - 1);
  const bool vector_case = b.sizes.size() == 1 ||
                           (s.meta(0).sizes.size() - 1 == b.sizes.size() && b.sizes == a_front);
  auto to_matrix = [&](const Tensor& x) { return vector_case ? unsqueeze(x, -1) : x; };
  Tensor gB = solve_adjoint(A, LU, pivots, to_matrix(g[0]), left, /*transposed=*/false);
  Tensor gA;
  if (s.need(0)) {
    Tensor xh = mH(to_matrix(X));
    gA = neg(left ? matmul(gB, xh) : matmul(xh, gB));
  }
  return {gA, s.need(1) ? (vector_case ? squeeze(gB, -1) : gB) : Tensor()};
}

// diag_embed(v) for v of shape (*, n) made from a (*)-shaped value per matrix.
Tensor diagonal_matrix(const Tensor& per_matrix, const Tensor& pivots) {
  Tensor v = expand(unsqueeze(per_matrix, -1), pivots->sizes());
  return call_tensor("aten::diag_embed", {V(v), Value::of_int(0), Value::of_int(-2),
                                          Value::of_int(-1)});
}

// _linalg_det(A): grad conj(det) A^{-H} where det != 0. At a singular matrix upstream goes
// through linalg_svd, which torchnative does not have yet: refused by name there.
Grads det_backward(const Saved& s, const Grads& g) {
  const Tensor &A = s.tensor(0), &det = s.result(0), &LU = s.result(1), &pivots = s.result(2);
  if (A->numel() == 0) return {zeros(A->sizes(), A->dtype(), A->device())};
  Tensor singular = call_tensor("aten::any", {V(call_tensor("aten::eq.Scalar", {V(det), S(0.0)}))});
  TN_CHECK_KIND(call("aten::_local_scalar_dense", {V(singular)})[0].scalar.to_int() == 0,
                NotImplemented, "torchnative: the derivative of linalg.det at a singular matrix "
                "(det = 0) goes through linalg_svd, which is not implemented yet");
  Tensor d = diagonal_matrix(mul(conj(det), g[0]), pivots);
  return {solve_adjoint(A, LU, pivots, d, /*left=*/true, det_factored_transposed(A))};
}

// _linalg_slogdet(A): A^{-H} diag(g)^H with g = grad_logabsdet (less i Im(grad_sign conj(sign))
// for complex A; a real sign is piecewise constant).
Grads slogdet_backward(const Saved& s, const Grads& g) {
  const Tensor &A = s.tensor(0), &sign = s.result(0), &LU = s.result(2), &pivots = s.result(3);
  Tensor gl = g.size() > 1 && g[1] ? g[1] : zeros(sign->sizes(), to_real_type(A->dtype()),
                                                  A->device());
  Tensor coef = gl;
  if (cx(A) && g[0]) {
    Tensor im = call_tensor("aten::imag", {V(mul(g[0], conj(sign)))});
    Tensor i_im = mul(to_dtype(im, A->dtype()), Scalar::from_complex(0.0, 1.0));
    coef = sub(to_dtype(gl, A->dtype()), i_im);
  } else if (cx(A)) {
    coef = to_dtype(gl, A->dtype());
  }
  // upstream takes the adjoint of diag(g): conj(g) on the diagonal
  return {solve_adjoint(A, LU, pivots, diagonal_matrix(conj(coef), pivots), /*left=*/true,
                       det_factored_transposed(A))};
}

Tensor tril(const Tensor& x, int64_t k) {
  return call_tensor("aten::tril", {V(x), Value::of_int(k)});
}
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left) {
  return call_tensor("aten::linalg_solve_triangular",
                     {V(A), V(B), Value::of_bool(upper), Value::of_bool(left),
                      Value::of_bool(false)});
}

// linalg_cholesky_ex / cholesky (self, upper): upstream's cholesky_backward (Iain Murray,
// arXiv 1602.07527): Phi(L^H gL) symmetrised, then L^{-H} . L^{-1}.
Grads cholesky_backward(const Saved& s, const Grads& g) {
  Tensor L = s.result(0), gL = g[0];
  if (s.to_bool(1)) {  // upper: work with the lower factor
    L = mH(L);
    gL = mH(gL);
  }
  Tensor gA = tril(matmul(mH(L), gL), 0);
  gA = mul(add(gA, mH(tril(gA, -1))), Scalar::from_double(0.5));
  gA = solve_triangular(mH(L), gA, /*upper=*/true, /*left=*/true);
  return {solve_triangular(L, gA, /*upper=*/false, /*left=*/false)};
}

// cholesky_solve(self, input2, upper): gB = cholesky_solve(grad, input2), and the factor's
// gradient from the symmetrised gB X^H.
Grads cholesky_solve_backward(const Saved& s, const Grads& g) {
  const Tensor &F = s.tensor(1), &X = s.result(0);
  const bool upper = s.to_bool(2);
  Tensor gB = call_tensor("aten::cholesky_solve", {V(g[0]), V(F), Value::of_bool(upper)});
  Tensor gF;
  if (s.need(1)) {
    Tensor common = matmul(gB, mH(X));
    common = add(common, mH(common));
    gF = neg(upper ? matmul(F, common) : matmul(common, F));
  }
  return {s.need(0) ? gB : Tensor(), gF};
}

// cholesky_inverse(self, upper): -(L (S + S^H)-term), with S the inverse-sandwiched gradient.
Grads cholesky_inverse_backward(const Saved& s, const Grads& g) {
  const Tensor &L = s.tensor(0), &inv = s.result(0);
  Tensor common = add(g[0], mH(g[0]));
  common = matmul(inv, matmul(common, inv));
  return {neg(s.to_bool(1) ? matmul(L, common) : matmul(common, L))};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_cholesky_ex",
                       {"LinalgCholeskyExBackward0", {0}, {}, 1, cholesky_backward, 2});
TN_REGISTER_DERIVATIVE("aten::cholesky", {"CholeskyBackward0", {0}, {}, 1, cholesky_backward});
TN_REGISTER_DERIVATIVE("aten::cholesky_solve",
                       {"CholeskySolveBackward0", {0, 1}, {{1}}, 1, cholesky_solve_backward});
TN_REGISTER_DERIVATIVE("aten::cholesky_inverse",
                       {"CholeskyInverseBackward0", {0}, {{0}}, 1, cholesky_inverse_backward});
TN_COMPLEX_READY("aten::linalg_cholesky_ex", "aten::cholesky", "aten::cholesky_solve",
                 "aten::cholesky_inverse");
TN_REGISTER_DERIVATIVE("aten::linalg_inv_ex",
                       {"LinalgInvExBackward0", {0}, {}, 1, inv_ex_backward, 2});
TN_REGISTER_DERIVATIVE("aten::_linalg_solve_ex",
                       {"LinalgSolveExBackward0", {0, 1}, {{0}}, 7, solve_ex_backward, 14});
TN_REGISTER_DERIVATIVE("aten::_linalg_det",
                       {"LinalgDetBackward0", {0}, {{0}}, 7, det_backward, 6});
TN_REGISTER_DERIVATIVE("aten::_linalg_slogdet",
                       {"LinalgSlogdetBackward0", {0}, {{0}}, 13, slogdet_backward, 12});
TN_COMPLEX_READY("aten::linalg_inv_ex", "aten::_linalg_solve_ex", "aten::_linalg_det",
                 "aten::_linalg_slogdet");

}  // namespace tn::autograd
