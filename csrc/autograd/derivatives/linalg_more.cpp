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

// triangular_solve(self=b, A, upper, transpose, unitriangular) -> (x, M): upstream's
// triangular_solve_backward: b gets the solve of grad_x with A^H (transpose flipped); A gets
// -grad_b x^H (or -x grad_b^H transposed when transpose), kept to A's triangle (its diagonal
// dropped when unitriangular), plus grad_M; undefined ones are zeros expanded to the input.
Grads triangular_solve_backward(const Saved& s, const Grads& g) {
  const Tensor &b = s.tensor(0), &A = s.tensor(1), &x = s.result(0);
  const bool upper = s.to_bool(2), transpose = s.to_bool(3), unit = s.to_bool(4);
  Tensor gb, ga;
  if (!g[0] && !g[1]) return {Tensor(), Tensor()};
  if (g[0]) {
    gb = call("aten::triangular_solve", {V(g[0]), V(conj_of(A)), Value::of_bool(upper),
                                          Value::of_bool(!transpose), Value::of_bool(unit)})[0]
             .tensor;
    if (s.need(1)) {
      ga = transpose ? neg(call_tensor("aten::matmul", {V(conj_of(x)), V(ops::mT(gb))}))
                     : neg(call_tensor("aten::matmul", {V(gb), V(ops::mH(x))}));
      ga = upper ? call_tensor("aten::triu", {V(ga), Value::of_int(unit ? 1 : 0)})
                 : call_tensor("aten::tril", {V(ga), Value::of_int(unit ? -1 : 0)});
    }
  }
  auto zeros_as = [](const Tensor& like) {
    Tensor z = call_tensor("aten::zeros", {ops::ints({1}), Value::of_dtype(like->dtype()),
                                           Value{}, Value::of_device(like->device())});
    return call_tensor("aten::expand", {V(z), ops::ints(like->sizes()), Value::of_bool(false)});
  };
  if (!ga) ga = zeros_as(A);
  if (!gb) gb = zeros_as(b);
  if (s.need(1) && g[1]) ga = add(ga, g[1]);
  return {s.need(0) ? gb : Tensor(), s.need(1) ? ga : Tensor()};
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {V(a), V(b)});
}
// x.diagonal(0, -2, -1)'s real (or imaginary) part scaled by 0.5 in place (x real: the diagonal).
void halve_diagonal_part(const Tensor& x, const char* part) {
  Tensor d = call_tensor("aten::diagonal", {V(x), Value::of_int(0), Value::of_int(-2),
                                            Value::of_int(-1)});
  if (is_complex(x->dtype())) d = call_tensor(part, {V(d)});
  call("aten::mul_.Scalar", {V(d), S(0.5)});
}
Tensor solve_right_lower(const Tensor& Rh, const Tensor& B) {
  return call_tensor("aten::linalg_solve_triangular", {V(Rh), V(B), Value::of_bool(false),
                                                       Value::of_bool(false),
                                                       Value::of_bool(false)});
}

// linalg_qr(A, mode) -> (Q, R): upstream's linalg_qr_backward. With M = gR R^H - Q^H gQ (the
// terms present): m >= n gives (Q syminvadj(triu(M)) + gQ) R^{-H}; m < n gives
// [Q trilImInvAdjSkew(-M) R_1^{-H}, 0] + Q gR, R_1 the leading m x m block.
Grads linalg_qr_backward(const Saved& s, const Grads& g) {
  const Tensor &Q = s.result(0), &R = s.result(1), &gQ = g[0], &gR = g[1];
  const std::string& mode = s.arg(1).str;
  TN_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when "
           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
           "differentiate through linalg.qr.");
  const int64_t m = Q->size(Q->dim() - 2), n = R->size(R->dim() - 1);
  TN_CHECK(mode == "reduced" || m <= n, "The QR decomposition is not differentiable when "
           "mode='complete' and nrows > ncols.");
  if (!gQ && !gR) return {Tensor()};
  Tensor gA;
  if (gQ) {
    Tensor qhgq = matmul(ops::mH(Q), gQ);
    gA = gR ? sub(matmul(gR, ops::mH(R)), qhgq) : neg(qhgq);
  } else {
    gA = matmul(gR, ops::mH(R));
  }
  if (m >= n) {
    Tensor t = call_tensor("aten::triu", {V(gA), Value::of_int(0)});
    Tensor sym = add(t, ops::mH(t));
    halve_diagonal_part(sym, "aten::real");
    gA = matmul(Q, sym);
    if (gQ) gA = add(gA, gQ);
    return {solve_right_lower(ops::mH(R), gA)};
  }
  Tensor ng = neg(gA);
  Tensor skew = call_tensor("aten::tril", {V(sub(ng, ops::mH(ng))), Value::of_int(0)});
  if (is_complex(skew->dtype())) halve_diagonal_part(skew, "aten::imag");
  gA = matmul(Q, skew);
  gA = solve_right_lower(ops::mH(ops::narrow(R, -1, 0, m)), gA);
  Dims shape = R->sizes();
  shape.back() = n - m;
  Tensor zeros = call_tensor("aten::zeros", {ops::ints(shape), Value::of_dtype(gA->dtype()),
                                             Value{}, Value::of_device(gA->device())});
  gA = call_tensor("aten::cat", {Value::of_tensors({gA, zeros}), Value::of_int(-1)});
  if (gR) gA = add(gA, matmul(Q, gR));
  return {gA};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_qr", {"LinalgQrBackward0", {0}, {}, 3, linalg_qr_backward});
TN_COMPLEX_READY("aten::linalg_qr");
TN_REGISTER_DERIVATIVE("aten::triangular_solve",
                       {"TriangularSolveBackward0", {0, 1}, {{0}, {1}}, 1,
                        triangular_solve_backward});
TN_COMPLEX_READY("aten::triangular_solve");
TN_REGISTER_DERIVATIVE("aten::linalg_cross", {"LinalgCrossBackward0", {0, 1}, {{1, 0}, {0, 1}},
                                              0, linalg_cross_backward});
TN_COMPLEX_READY("aten::linalg_cross");

}  // namespace tn::autograd
