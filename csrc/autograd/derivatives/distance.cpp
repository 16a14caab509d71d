// Derivatives of the distance ops (kernels/cpu/cdist.cpp, pdist.cpp), upstream's
// derivatives.yaml formulas: _cdist_forward's two _cdist_backward calls (x2's on the transposed
// gradient and distances), _euclidean_dist_backward's products, _pdist_backward; the backward
// ops themselves have upstream's not_implemented nodes.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor contig(const Tensor& x) { return call_tensor("aten::contiguous", {V(x)}); }
Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }

// _cdist_forward(x1, x2, p, compute_mode) -> result.
Grads cdist_forward_backward(const Saved& s, const Grads& g) {
  const Tensor &x1 = s.tensor(0), &x2 = s.tensor(1), &res = s.result(0);
  Tensor g1, g2;
  if (s.need(0))
    g1 = call_tensor("aten::_cdist_backward", {V(contig(g[0])), V(x1), V(x2), s.arg(2), V(res)});
  if (s.need(1))
    g2 = call_tensor("aten::_cdist_backward",
                     {V(contig(mT(g[0]))), V(x2), V(x1), s.arg(2), V(contig(mT(res)))});
  return {g1, g2};
}

// _euclidean_dist(x1, x2) -> res: ratio = grad / res (0 where res is 0);
// x1: x1 * ratio.sum(-1, true) - ratio @ x2; x2: x2 * ratio.sum(-2).unsqueeze(-1) - ratio^T @ x1.
Grads euclidean_dist_backward(const Saved& s, const Grads& g) {
  const Tensor &x1 = s.tensor(0), &x2 = s.tensor(1), &res = s.result(0);
  Tensor ratio = div(g[0], res);
  Tensor zero = call_tensor("aten::eq.Scalar", {V(res), S(Scalar::from_int(0))});
  call("aten::masked_fill_.Scalar", {V(ratio), V(zero), S(Scalar::from_int(0))});
  auto matmul = [](const Tensor& a, const Tensor& b) {
    return call_tensor("aten::matmul", {V(a), V(b)});
  };
  Tensor g1 = sub(mul(x1, sum_keep(ratio, -1)), matmul(ratio, x2));
  Tensor rs = call_tensor("aten::sum.dim_IntList", {V(ratio), Value::of_ints({-2}),
                                                     Value::of_bool(false)});
  Tensor g2 = sub(mul(x2, unsqueeze(rs, -1)), matmul(mT(ratio), x1));
  return {s.need(0) ? g1 : Tensor(), s.need(1) ? g2 : Tensor()};
}

// _pdist_forward(self, p) -> result.
Grads pdist_forward_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::_pdist_backward", {V(g[0]), V(s.tensor(0)), s.arg(1),
                                                V(s.result(0))})};
}

constexpr char kCdistBackward[] = "_cdist_backward";
constexpr char kPdistBackward[] = "_pdist_backward";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_cdist_forward",
                       {"CdistBackward0", {0, 1}, {{0}, {1}}, 1, cdist_forward_backward});
TN_REGISTER_DERIVATIVE("aten::_euclidean_dist",
                       {"EuclideanDistBackward0", {0, 1}, {{0}, {1}}, 1, euclidean_dist_backward});
TN_REGISTER_DERIVATIVE("aten::_pdist_forward",
                       {"PdistBackward0", {0}, {{0}}, 1, pdist_forward_backward});
TN_REGISTER_DERIVATIVE("aten::_cdist_backward", {"CdistBackwardBackward0", {0, 1, 2, 4}, {}, 0,
                                                 not_implemented<kCdistBackward>});
TN_REGISTER_DERIVATIVE("aten::_pdist_backward", {"PdistBackwardBackward0", {0, 1, 3}, {}, 0,
                                                 not_implemented<kPdistBackward>});

}  // namespace tn::autograd
