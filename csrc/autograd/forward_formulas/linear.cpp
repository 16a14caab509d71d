// Forward formulas of matrix products (derivatives.yaml's `result:` entries) and of the ops
// upstream marks auto_linear (views, shape ops, reductions, copies: the op applied to the
// tangent), plus copy_ and fill_ as upstream's VariableTypeManual writes them.
#include "autograd/derivatives/helpers.h"
#include "autograd/forward_ad.h"

namespace tn::autograd {
namespace {

using namespace d;  // NOLINT: the formulas read as derivatives.yaml's

Tensor plus(const Tensor& a, const Tensor& b) {
  if (!a) return b;
  if (!b) return a;
  return add(a, b);
}
Tensor maybe_multiply(const Tensor& t, Scalar s) {
  if (!t) return t;
  bool one = s.is_floating() ? s.d == 1.0 : s.to_int() == 1;
  return one ? t : mul(t, s);
}

// at::mm(self_t, mat2_p) + at::mm(self_p, mat2_t)
std::vector<Tensor> mm_jvp(const Duals& x) {
  return {plus(x.t(0) ? mm(x.t(0), x.p(1)) : Tensor(), x.t(1) ? mm(x.p(0), x.t(1)) : Tensor())};
}
std::vector<Tensor> bmm_jvp(const Duals& x) {
  return {plus(x.t(0) ? bmm(x.t(0), x.p(1)) : Tensor(),
               x.t(1) ? bmm(x.p(0), x.t(1)) : Tensor())};
}
// maybe_multiply(self_t, beta) + maybe_multiply(mat1_t.mm(mat2_p), alpha)
//   + maybe_multiply(mat1_p.mm(mat2_t), alpha)
std::vector<Tensor> addmm_jvp(const Duals& x) {
  Scalar beta = x.scalar(3), alpha = x.scalar(4);
  Tensor r = maybe_multiply(x.t(0), beta);
  if (x.t(1)) r = plus(r, maybe_multiply(mm(x.t(1), x.p(2)), alpha));
  if (x.t(2)) r = plus(r, maybe_multiply(mm(x.p(1), x.t(2)), alpha));
  return {r};
}
// VariableTypeManual's copy_: src's tangent (broadcast to self), zeros when it has none.
std::vector<Tensor> copy_jvp(const Duals& x) {
  Tensor t = x.t(1);
  if (!t) return {Tensor()};
  if (t->sizes() != x.p(0)->sizes()) return {expand(t, x.p(0)->sizes())};
  return {call_tensor("aten::clone", {V(t)})};
}
std::vector<Tensor> zeros_jvp(const Duals&) { return {Tensor()}; }

constexpr ForwardKind kLinear = ForwardKind::Linear;

TN_REGISTER_FORWARD("aten::mm", {ForwardKind::Formula, mm_jvp});
TN_REGISTER_FORWARD("aten::bmm", {ForwardKind::Formula, bmm_jvp});
TN_REGISTER_FORWARD("aten::addmm", {ForwardKind::Formula, addmm_jvp});
TN_REGISTER_FORWARD("aten::copy_", {ForwardKind::Formula, copy_jvp});
TN_REGISTER_FORWARD("aten::fill_.Scalar", {ForwardKind::Formula, zeros_jvp});
TN_REGISTER_FORWARD("aten::zero_", {ForwardKind::Formula, zeros_jvp});
TN_REGISTER_FORWARD("aten::view", {kLinear});
TN_REGISTER_FORWARD("aten::_unsafe_view", {kLinear});
TN_REGISTER_FORWARD("aten::_reshape_alias", {kLinear});
TN_REGISTER_FORWARD("aten::alias", {kLinear});
TN_REGISTER_FORWARD("aten::as_strided", {kLinear});
TN_REGISTER_FORWARD("aten::expand", {kLinear});
TN_REGISTER_FORWARD("aten::permute", {kLinear});
TN_REGISTER_FORWARD("aten::transpose.int", {kLinear});
TN_REGISTER_FORWARD("aten::t", {kLinear});
TN_REGISTER_FORWARD("aten::squeeze", {kLinear});
TN_REGISTER_FORWARD("aten::squeeze.dim", {kLinear});
TN_REGISTER_FORWARD("aten::squeeze.dims", {kLinear});
TN_REGISTER_FORWARD("aten::unsqueeze", {kLinear});
TN_REGISTER_FORWARD("aten::slice.Tensor", {kLinear});
TN_REGISTER_FORWARD("aten::select.int", {kLinear});
TN_REGISTER_FORWARD("aten::split.Tensor", {kLinear});
TN_REGISTER_FORWARD("aten::split_with_sizes", {kLinear});
TN_REGISTER_FORWARD("aten::unbind.int", {kLinear});
TN_REGISTER_FORWARD("aten::cat", {kLinear});
TN_REGISTER_FORWARD("aten::stack", {kLinear});
TN_REGISTER_FORWARD("aten::clone", {kLinear});
TN_REGISTER_FORWARD("aten::_to_copy", {kLinear});
TN_REGISTER_FORWARD("aten::sum", {kLinear});
TN_REGISTER_FORWARD("aten::sum.dim_IntList", {kLinear});
TN_REGISTER_FORWARD("aten::mean", {kLinear});
TN_REGISTER_FORWARD("aten::mean.dim", {kLinear});
TN_REGISTER_FORWARD("aten::index_select", {kLinear});
TN_REGISTER_FORWARD("aten::embedding", {kLinear});

}  // namespace
}  // namespace tn::autograd
