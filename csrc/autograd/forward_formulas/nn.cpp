// Forward formulas of softmax, log_softmax and nll_loss_forward (the cross-entropy path), from
// derivatives.yaml's `result:` entries and upstream's logsumexp_jvp.
#include "autograd/derivatives/helpers.h"
#include "autograd/forward_ad.h"

namespace tn::autograd {
namespace {

using namespace d;  // NOLINT: the formulas read as derivatives.yaml's

// Upstream's logsumexp_jvp(self_p, self_t, {dim}, keepdim=true): the tangent of
// log(sum(exp(self))) over dim, with the max taken out first (exp-normalize).
Tensor logsumexp_jvp(const Tensor& self_p, const Tensor& self_t, int64_t dim) {
  Tensor e = self_p;
  if (self_p->numel() > 0)
    e = sub(self_p, call_tensor("aten::amax", {V(self_p), Value::of_ints(Dims{dim}),
                                               Value::of_bool(true)}));
  e = exp(e);
  Tensor sumexp_p = sum_keep(e, dim);
  Tensor sumexp_t = sum_keep(mul(e, self_t), dim);
  return div(sumexp_t, sumexp_p);
}

// self_t - logsumexp_jvp(self_p, self_t, {dim}, true)
std::vector<Tensor> log_softmax_jvp(const Duals& x) {
  int64_t dim = x.args[1].i;
  if (dim < 0) dim += x.p(0)->dim();
  return {sub(x.t(0), logsumexp_jvp(x.p(0), x.t(0), dim))};
}
// result * (self_t - logsumexp_jvp(self_p, self_t, {dim}, true))
std::vector<Tensor> softmax_jvp(const Duals& x) {
  return {mul(x.result(0), log_softmax_jvp(x)[0])};
}

TN_REGISTER_FORWARD("aten::_log_softmax", {ForwardKind::Formula, log_softmax_jvp});
TN_REGISTER_FORWARD("aten::_softmax", {ForwardKind::Formula, softmax_jvp});
// output: std::get<0>(nll_loss_forward(self_t, target, weight, reduction, ignore_index));
// total_weight is not differentiable (its backward formula's mask).
TN_REGISTER_FORWARD("aten::nll_loss_forward", {ForwardKind::Linear});

}  // namespace
}  // namespace tn::autograd
