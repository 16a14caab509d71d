// Derivatives of the general eigendecomposition and of least squares (kernels/cpu/linalg_eig.cpp,
// linalg_lstsq.cpp): upstream's linalg_eig_backward (is_hermitian false) and
// linalg_lstsq_backward (through pinv, with the residuals' own term), written again with door
// ops. linalg_eigvals takes linalg_eig when its input requires grad, so its node is
// LinalgEigBackward0 too.
#include "autograd/derivatives/helpers.h"
#include "kernels/composite/ops.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor mH(const Tensor& x) { return conj(transpose(x, -2, -1)); }
Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {V(a), V(b)});
}
Tensor diagonal(const Tensor& x) {
  return call_tensor("aten::diagonal", {V(x), Value::of_int(0), Value::of_int(-2),
                                        Value::of_int(-1)});
}
// A^{-1} B
Tensor solve(const Tensor& A, const Tensor& B) {
  return call_tensor("aten::linalg_solve", {V(A), V(B), Value::of_bool(true)});
}

// linalg_eig(A): gA = V^{-H} (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV))) / E*) V^H,
// E[i, j] = L[j] - L[i] off the diagonal, 1 on it; with gL alone, V^{-H} diag(gL) V^H.
Grads eig_backward(const Saved& s, const Grads& g) {
  const Tensor &L = s.result(0), &Vec = s.result(1);
  Tensor gL = handed_or_null(g, 0), gV = handed_or_null(g, 1);
  if (!gL && !gV) return {Tensor()};
  const Tensor Vh = mH(Vec);
  if (!gV) return {solve(Vh, mul(unsqueeze(gL, -1), Vh))};
  Tensor VhgV = matmul(Vh, gV);
  const Tensor diag = diagonal(VhgV);
  // The loss must not depend on each vector's phase (V -> V e^{i phi}).
  Tensor im = call_tensor("aten::imag", {V(diag)});
  Tensor zero = call_tensor("aten::zeros_like", {V(im), Value{}, Value{}, Value{}, Value{},
                                                  Value{}});
  TN_CHECK(call("aten::allclose", {V(im), V(zero), Value::of_double(1e-2),
                                   Value::of_double(1e-2), Value::of_bool(false)})[0].b,
           "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
           "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
           "so it is ill-defined.");
  VhgV = sub(VhgV, matmul(Vh, mul(Vec, unsqueeze(real(diag), -2))));
  Tensor Lc = conj(L);
  Tensor E = sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1));
  call("aten::fill_.Scalar", {V(diagonal(E)), S(1.0)});
  Tensor ret = div(VhgV, E);
  if (gL) ops::copy_(diagonal(ret), gL);
  return {solve(Vh, matmul(ret, Vh))};
}

// Upstream's linalg_solve_is_vector_rhs: B a vector, or a batch of them matching A's batch.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B->dim() == 1) return true;
  if (B->dim() != A->dim() - 1) return false;
  return Dims(B->sizes().begin(), B->sizes().end()) ==
         Dims(A->sizes().begin(), A->sizes().end() - 1);
}

// Upstream's pinv_backward(grad, pinvA, A), ordered so the products keep the smaller dimension.
Tensor pinv_backward(const Tensor& grad, const Tensor& P, const Tensor& A) {
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1);
  Tensor Ph = mH(P), gh = mH(grad);
  if (m <= n) {
    Tensor K = matmul(gh, P);
    Tensor KPh = matmul(K, Ph);
    Tensor r = add(neg(mH(matmul(P, K))), KPh);
    r = sub(r, matmul(matmul(A, P), KPh));
    return add(r, matmul(matmul(Ph, P), sub(gh, matmul(K, A))));
  }
  Tensor K = matmul(P, gh);
  Tensor PhK = matmul(Ph, K);
  Tensor r = add(neg(mH(matmul(K, P))), matmul(matmul(sub(gh, matmul(A, K)), P), Ph));
  return sub(add(r, PhK), matmul(matmul(PhK, P), A));
}

// linalg_lstsq(A, B, rcond, driver): the solution's gradient as pinv(A) B's (upstream avoids
// re-solving, gelsy not being deterministic), plus the residuals' |A X - B|^2 term (Danskin:
// X held fixed): gA += 2 (gL r) X^H, gB += -2 gL r, r = A X - B.
Grads lstsq_backward(const Saved& s, const Grads& g) {
  const Tensor &A = s.tensor(0), &B_ = s.tensor(1), &X_ = s.result(0);
  const Tensor gX_ = handed_or_null(g, 0), gL_ = handed_or_null(g, 1);
  const bool gL_given = gL_ && gL_->numel() > 0;
  if ((!gX_ && !gL_given) || (!s.need(0) && !s.need(1))) return {Tensor(), Tensor()};
  const bool vec = is_vector_rhs(A, B_);
  auto to_matrix = [vec](const Tensor& x) { return vec ? unsqueeze(x, -1) : x; };
  auto to_vector = [vec](const Tensor& x) { return vec ? squeeze(x, -1) : x; };
  const Tensor B = to_matrix(B_);
  Tensor gA, gB;
  if (gX_) {
    const Tensor gX = to_matrix(gX_);
    const Tensor P = call_tensor("aten::linalg_pinv.atol_rtol_tensor",
                                 {V(A), Value{}, Value{}, Value::of_bool(false)});
    if (s.need(0)) gA = pinv_backward(matmul(gX, mH(B)), P, A);
    if (s.need(1)) gB = to_vector(matmul(mH(P), gX));
  }
  if (gL_given) {
    const Tensor X = to_matrix(X_);
    const Tensor r = sub(matmul(A, X), B);
    const Tensor gL = unsqueeze(gL_, -2);
    if (s.need(0)) {
      Tensor t = mul(matmul(mul(gL, r), mH(X)), Scalar::from_double(2.0));
      gA = gA ? add(gA, t) : t;
    }
    if (s.need(1)) {
      Tensor t = to_vector(mul(mul(gL, Scalar::from_double(-2.0)), r));
      gB = gB ? add(gB, t) : t;
    }
  }
  return {gA, gB};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_eig", {"LinalgEigBackward0", {0}, {}, 3, eig_backward});
// (rank and singular_values have no gradient: upstream's output_differentiability)
TN_REGISTER_DERIVATIVE("aten::linalg_lstsq",
                       {"LinalgLstsqBackward0", {0, 1}, {{0}, {1}}, 1, lstsq_backward, 12});
TN_COMPLEX_READY("aten::linalg_eig", "aten::linalg_lstsq");

}  // namespace tn::autograd
