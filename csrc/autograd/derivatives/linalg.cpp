// Derivatives of the LU family (kernels/cpu/linalg_lu.cpp: linalg_inv_ex, _linalg_solve_ex,
// _linalg_det, _linalg_slogdet), of the Cholesky family (linalg_cholesky.cpp) and of trace,
// upstream's derivatives.yaml formulas and FunctionsManual helpers written again with door ops.
// The solves reuse the forward's LU factors (of A, or of A^T where det factored the transpose)
// when backward records nothing; under create_graph they solve again with linalg_solve so that
// the result is itself differentiable, as upstream.
#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"
#include "kernels/composite/ops.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
Tensor mH(const Tensor& x) { return conj(mT(x)); }
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

Tensor diag_embed(const Tensor& v) {
  return call_tensor("aten::diag_embed", {V(v), Value::of_int(0), Value::of_int(-2),
                                          Value::of_int(-1)});
}
Tensor diagonal(const Tensor& x) {
  return call_tensor("aten::diagonal", {V(x), Value::of_int(0), Value::of_int(-2),
                                        Value::of_int(-1)});
}
// x with its last-two-dims diagonal set to v (a copy).
Tensor with_diagonal(const Tensor& x, const Tensor& v) {
  Tensor y = call_tensor("aten::clone", {V(x), Value{}});
  ops::copy_(diagonal(y), v);
  return y;
}
// x[i, j] = v[j] - v[i] off the diagonal, 1 on it (the divisor of the eigen and singular
// vector terms).
Tensor differences(const Tensor& v) {
  Tensor e = sub(unsqueeze(v, -2), unsqueeze(v, -1));
  return with_diagonal(e, call_tensor("aten::ones_like", {V(v), Value{}, Value{}, Value{},
                                                          Value{}, Value{}}));
}

// _linalg_eigh(A, UPLO, compute_v): upstream's linalg_eig_backward for Hermitian A:
// V (skew(V^H gV) / E + diag(gL)) V^H, E[i, j] = L[j] - L[i].
Grads eigh_backward(const Saved& s, const Grads& g) {
  const Tensor &L = s.result(0), &Vec = s.result(1);
  TN_CHECK((s.to_bool(2) && Vec->numel() > 0) || L->numel() == 0, "linalg_eig_backward: "
           "torch.symeig(A, eigenvectors=False) is not differentiable. Use "
           "torch.linalg.eigvalsh(A) instead.");
  Tensor gL = handed_or_null(g, 0), gV = handed_or_null(g, 1);
  if (!gL && !gV) return {Tensor()};
  if (!gL) gL = zeros(L->sizes(), L->dtype(), L->device());
  Tensor ret;
  if (gV) {
    Tensor vhgv = matmul(mH(Vec), gV);
    vhgv = mul(sub(vhgv, mH(vhgv)), Scalar::from_double(0.5));
    ret = with_diagonal(div(vhgv, differences(L)), gL);
  } else {
    ret = diag_embed(to_dtype(gL, Vec->dtype()));
  }
  return {matmul(Vec, matmul(ret, mH(Vec)))};
}

// _linalg_svd(A, full_matrices, compute_uv): upstream's svd_backward on the reduced factors
// (the first k columns of U and rows of V^H when full_matrices), with the projections onto the
// complements of U (m > n) or V (m < n).
Grads svd_backward(const Saved& s, const Grads& g) {
  Tensor U = s.result(0), S = s.result(1), Vh = s.result(2);
  TN_CHECK(s.to_bool(2), "torch.linalg.svdvals: computing gradients requires compute_uv=True");
  const int64_t k = S->size(S->dim() - 1);
  Tensor gU = handed_or_null(g, 0), gS = handed_or_null(g, 1), gVh = handed_or_null(g, 2);
  if (!gU && !gS && !gVh) return {Tensor()};
  if (s.to_bool(1)) {
    U = narrow(U, -1, 0, k);
    Vh = narrow(Vh, -2, 0, k);
    if (gU) gU = narrow(gU, -1, 0, k);
    if (gVh) gVh = narrow(gVh, -2, 0, k);
  }
  const int64_t m = U->size(U->dim() - 2), n = Vh->size(Vh->dim() - 1);
  if (!gU && !gVh) {
    return {m >= n ? matmul(U, mul(unsqueeze(gS, -1), Vh)) : matmul(mul(U, unsqueeze(gS, -2)), Vh)};
  }
  auto skew = [](const Tensor& a) { return sub(a, mH(a)); };
  Tensor UhgU = gU ? skew(matmul(mH(U), gU)) : Tensor();
  Tensor VhgV = gVh ? skew(matmul(Vh, mH(gVh))) : Tensor();
  Tensor E = differences(mul(S, S));
  Tensor ret;
  if (gU && gVh) {
    ret = div(add(mul(UhgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VhgV)), E);
  } else if (gU) {
    ret = mul(div(UhgU, E), unsqueeze(S, -2));
  } else {
    ret = mul(unsqueeze(S, -1), div(VhgV, E));
  }
  if (gS) ret = add(ret, diag_embed(to_dtype(gS, ret->dtype())));
  if (cx(U) && gU)
    ret = add(ret, diag_embed(div(diagonal(UhgU), mul(S, Scalar::from_double(2.0)))));
  if (m > n && gU) {
    Tensor gA = matmul(U, ret);
    Tensor gUSinv = div(gU, unsqueeze(S, -2));
    gA = sub(add(gA, gUSinv), matmul(U, matmul(mH(U), gUSinv)));
    return {matmul(gA, Vh)};
  }
  if (m < n && gVh) {
    Tensor gA = matmul(ret, Vh);
    Tensor SinvgVh = div(gVh, unsqueeze(S, -1));
    gA = sub(add(gA, SinvgVh), matmul(matmul(SinvgVh, mH(Vh)), Vh));
    return {matmul(U, gA)};
  }
  return {m >= n ? matmul(U, matmul(ret, Vh)) : matmul(matmul(U, ret), Vh)};
}

Tensor triu(const Tensor& x, int64_t k) {
  return call_tensor("aten::triu", {V(x), Value::of_int(k)});
}
Tensor solve_unit_upper(const Tensor& A, const Tensor& B) {  // A unit upper, A X = B
  return call_tensor("aten::linalg_solve_triangular",
                     {V(A), V(B), Value::of_bool(true), Value::of_bool(true),
                      Value::of_bool(true)});
}
Tensor cat_last(const Tensor& a, const Tensor& b, int64_t dim) {
  return call_tensor("aten::cat", {Value::of_tensors({a, b}), Value::of_int(dim)});
}
Tensor zeros_like(const Tensor& x) {
  return zeros(x->sizes(), x->dtype(), x->device());
}

// upstream's linalg_lu_backward: from the gradients of L (m x k) and U (k x n) of A = P L U,
// square, wide (m < n) and tall (m > n) cases. Either gradient may be null.
Tensor lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L,
                   const Tensor& U, bool pivot) {
  const int64_t m = L->size(L->dim() - 2), n = U->size(U->dim() - 1), k = std::min(m, n);
  Tensor gA;
  if (m == n) {
    if (gL) gA = tril(matmul(mH(L), gL), -1);
    if (gU) {
      Tensor t = triu(matmul(gU, mH(U)), 0);
      gA = gA ? add(gA, t) : t;
    }
    gA = solve_triangular(mH(U), gA, /*upper=*/false, /*left=*/false);
    gA = solve_unit_upper(mH(L), gA);
  } else if (m < n) {
    Tensor U1 = narrow(U, -1, 0, k), U2 = narrow(U, -1, k, n - k);
    if (gL) gA = matmul(mH(L), gL);
    if (gU) {
      Tensor t = matmul(triu(gU, 0), mH(U));
      gA = gA ? sub(gA, t) : neg(t);
    }
    gA = solve_triangular(mH(U1), tril(gA, -1), /*upper=*/false, /*left=*/false);
    if (gU) gA = cat_last(add(gA, triu(narrow(gU, -1, 0, k), 0)), narrow(gU, -1, k, n - k), -1);
    gA = solve_unit_upper(mH(L), gA);
    if (!gU) gA = cat_last(gA, zeros_like(U2), -1);
  } else {
    Tensor L1 = narrow(L, -2, 0, k), L2 = narrow(L, -2, k, m - k);
    if (gU) gA = matmul(gU, mH(U));
    if (gL) {
      Tensor t = matmul(mH(L), tril(gL, -1));
      gA = gA ? sub(gA, t) : neg(t);
    }
    gA = solve_unit_upper(mH(L1), triu(gA, 0));
    if (gL) gA = cat_last(add(gA, tril(narrow(gL, -2, 0, k), -1)), narrow(gL, -2, k, m - k), -2);
    gA = solve_triangular(mH(U), gA, /*upper=*/false, /*left=*/false);
    if (!gL) gA = cat_last(gA, zeros_like(L2), -2);
  }
  return pivot ? matmul(P, gA) : gA;
}

// linalg_lu(A, pivot) -> (P, L, U)
Grads linalg_lu_backward(const Saved& s, const Grads& g) {
  Tensor gL = handed_or_null(g, 1), gU = handed_or_null(g, 2);
  if (!gL && !gU) return {Tensor()};
  return {lu_backward(gL, gU, s.result(0), s.result(1), s.result(2), s.to_bool(1))};
}

// linalg_lu_factor_ex(A, pivot): the packed gradient split into L's part (m x k) and U's
// (k x n), through the unpacked factors.
Grads lu_factor_ex_backward(const Saved& s, const Grads& g) {
  const Tensor &LU = s.result(0), &pivots = s.result(1);
  const bool pivot = s.to_bool(1);
  std::vector<Value> r = call("aten::lu_unpack", {V(LU), V(pivots), Value::of_bool(true),
                                                  Value::of_bool(pivot)});
  const int64_t m = LU->size(LU->dim() - 2), n = LU->size(LU->dim() - 1), k = std::min(m, n);
  return {lu_backward(narrow(g[0], -1, 0, k), narrow(g[0], -2, 0, k), r[0].tensor, r[1].tensor,
                      r[2].tensor, pivot)};
}

// lu_unpack(LU, pivots, unpack_data, unpack_pivots): L's strict lower part and U's upper part
// written back where the packed LU holds them.
Grads lu_unpack_backward(const Saved& s, const Grads& g) {
  const ArgMeta& lu = s.meta(0);
  const int64_t m = lu.sizes[lu.sizes.size() - 2], n = lu.sizes.back(), k = std::min(m, n);
  Tensor gL = g.size() > 1 ? g[1] : Tensor(), gU = g.size() > 2 ? g[2] : Tensor();
  if (!gL && !gU) return {Tensor()};
  Dims batch(lu.sizes.begin(), lu.sizes.end() - 2), ls = batch, us = batch;
  ls.insert(ls.end(), {m, k});
  us.insert(us.end(), {k, n});
  if (!gL) gL = zeros(ls, lu.dtype, lu.device);
  if (!gU) gU = zeros(us, lu.dtype, lu.device);
  if (m == n) return {add(tril(gL, -1), triu(gU, 0))};
  if (m < n) {  // U is the whole k x n upper part; L's strict lower part is in its first k columns
    Tensor gA = triu(gU, 0);
    ops::copy_(narrow(gA, -1, 0, k), add(narrow(gA, -1, 0, k), tril(gL, -1)));
    return {gA};
  }
  Tensor gA = tril(gL, -1);  // L is the whole m x k strict lower part; U sits in the first k rows
  ops::copy_(narrow(gA, -2, 0, k), add(narrow(gA, -2, 0, k), triu(gU, 0)));
  return {gA};
}

// linalg_lu_solve(LU, pivots, B, left, adjoint): B's gradient is the adjoint solve; LU's is
// upstream's linalg_lu_solve_LU.
Grads lu_solve_backward(const Saved& s, const Grads& g) {
  const Tensor &LU = s.tensor(0), &pivots = s.tensor(1), &X = s.result(0);
  const bool left = s.to_bool(3), adjoint = s.to_bool(4);
  const Tensor& gX = g[0];
  Tensor gB;
  if (s.need(1))
    gB = call_tensor("aten::linalg_lu_solve", {V(LU), V(pivots), V(gX), Value::of_bool(left),
                                               Value::of_bool(!adjoint)});
  Tensor gLU;
  if (s.need(0)) {
    std::vector<Value> r = call("aten::lu_unpack", {V(LU), V(pivots), Value::of_bool(true),
                                                    Value::of_bool(left == adjoint)});
    const Tensor &P = r[0].tensor, &L = r[1].tensor, &U = r[2].tensor;
    if (left != adjoint) {
      Tensor gR = solve_triangular(mH(U), neg(matmul(left ? gX : mH(gX), left ? mH(X) : X)),
                                   /*upper=*/false, /*left=*/true);
      Tensor gL = tril(call_tensor("aten::linalg_solve_triangular",
                                   {V(mH(L)), V(matmul(gR, mH(U))), Value::of_bool(true),
                                    Value::of_bool(true), Value::of_bool(true)}),
                       -1);
      gLU = add(gL, triu(gR, 0));
    } else {
      Tensor gR = neg(matmul(matmul(matmul(mT(P), left ? X : mH(X)), left ? mH(gX) : gX), P));
      gR = call_tensor("aten::linalg_solve_triangular",
                       {V(mH(L)), V(gR), Value::of_bool(true), Value::of_bool(false),
                        Value::of_bool(true)});
      Tensor gU = triu(solve_triangular(mH(U), matmul(mH(L), gR), /*upper=*/false,
                                        /*left=*/false), 0);
      gLU = add(tril(gR, -1), gU);
    }
  }
  return {gLU, gB};
}

// linalg_pinv.atol_rtol_tensor(self, atol, rtol, hermitian): upstream's pinv_backward, ordered
// so that the products stay of the smaller dimension.
Grads pinv_backward(const Saved& s, const Grads& g) {
  const Tensor &A = s.tensor(0), &P = s.result(0);
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1);
  Tensor Ph = mH(P), gh = mH(g[0]);
  if (m <= n) {
    Tensor K = matmul(gh, P);
    Tensor KPh = matmul(K, Ph);
    Tensor r = add(neg(mH(matmul(P, K))), KPh);
    r = sub(r, matmul(matmul(A, P), KPh));
    return {add(r, matmul(matmul(Ph, P), sub(gh, matmul(K, A))))};
  }
  Tensor K = matmul(P, gh);
  Tensor PhK = matmul(Ph, K);
  Tensor r = add(neg(mH(matmul(K, P))), matmul(matmul(sub(gh, matmul(A, K)), P), Ph));
  return {sub(add(r, PhK), matmul(matmul(PhK, P), A))};
}

// trace(self): upstream's trace_backward: zeros of self's shape with grad on the main diagonal.
Grads trace_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  Tensor r = zeros(m.sizes, g[0]->dtype(), g[0]->device());
  call("aten::copy_", {V(call_tensor("aten::diagonal", {V(r), Value::of_int(0), Value::of_int(0),
                                                         Value::of_int(1)})),
                       V(g[0])});
  return {r};
}

}  // namespace

// (atol and rtol are not differentiated: upstream refuses them requiring grad)
TN_REGISTER_DERIVATIVE("aten::trace", {"TraceBackward0", {0}, {}, 0, trace_backward});
TN_COMPLEX_READY("aten::trace");
TN_REGISTER_DERIVATIVE("aten::linalg_pinv.atol_rtol_tensor",
                       {"LinalgPinvBackward0", {0}, {{0}}, 1, pinv_backward, 0, {1, 2}});
TN_COMPLEX_READY("aten::linalg_pinv.atol_rtol_tensor");
TN_REGISTER_DERIVATIVE("aten::linalg_lu", {"LinalgLuBackward0", {0}, {}, 7, linalg_lu_backward, 1});
TN_REGISTER_DERIVATIVE("aten::linalg_lu_factor_ex",
                       {"LinalgLuFactorExBackward0", {0}, {}, 3, lu_factor_ex_backward, 6});
TN_REGISTER_DERIVATIVE("aten::lu_unpack", {"LuUnpackBackward0", {0}, {}, 0, lu_unpack_backward, 1});
TN_REGISTER_DERIVATIVE("aten::linalg_lu_solve",
                       {"LinalgLuSolveBackward0", {0, 2}, {{0}, {1}}, 1, lu_solve_backward});
TN_COMPLEX_READY("aten::linalg_lu", "aten::linalg_lu_factor_ex", "aten::lu_unpack",
                 "aten::linalg_lu_solve");
TN_REGISTER_DERIVATIVE("aten::_linalg_eigh", {"LinalgEighBackward0", {0}, {}, 3, eigh_backward});
TN_REGISTER_DERIVATIVE("aten::_linalg_svd", {"LinalgSvdBackward0", {0}, {}, 7, svd_backward});
TN_COMPLEX_READY("aten::_linalg_eigh", "aten::_linalg_svd");
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
