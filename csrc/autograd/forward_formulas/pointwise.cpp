// Forward formulas of the pointwise ops, from derivatives.yaml's `result:` entries. A missing
// tangent is left out of a sum (upstream's zero tensors drop out the same way), so each value
// is the same expression upstream evaluates.
#include "autograd/derivatives/helpers.h"
#include "autograd/forward_ad.h"

namespace tn::autograd {
namespace {

using namespace d;  // NOLINT: the formulas read as derivatives.yaml's

// a + b where either may be absent.
Tensor plus(const Tensor& a, const Tensor& b) {
  if (!a) return b;
  if (!b) return a;
  return add(a, b);
}
// Upstream's maybe_multiply: t * s unless s is one.
Tensor maybe_multiply(const Tensor& t, Scalar s) {
  if (!t) return t;
  bool one = s.is_floating() ? s.d == 1.0 : s.to_int() == 1;
  return one ? t : mul(t, s);
}
Tensor times(const Tensor& a, const Tensor& b) { return a ? mul(a, b) : Tensor(); }

// self_t + maybe_multiply(other_t, alpha)
std::vector<Tensor> add_jvp(const Duals& x) {
  return {plus(x.t(0), maybe_multiply(x.t(1), x.scalar(2)))};
}
// self_t - maybe_multiply(other_t, alpha)
std::vector<Tensor> sub_jvp(const Duals& x) {
  Tensor o = maybe_multiply(x.t(1), x.scalar(2));
  if (!o) return {x.t(0)};
  return {x.t(0) ? sub(x.t(0), o) : neg(o)};
}
// -maybe_multiply(self_t, alpha) + other_t
std::vector<Tensor> rsub_jvp(const Duals& x) {
  Tensor s = maybe_multiply(x.t(0), x.scalar(2));
  if (!s) return {x.t(1)};
  return {plus(neg(s), x.t(1))};
}
// other_t * self_p + self_t * other_p
std::vector<Tensor> mul_jvp(const Duals& x) {
  return {plus(times(x.t(1), x.p(0)), times(x.t(0), x.p(1)))};
}
// (self_t - other_t * result) / other_p
std::vector<Tensor> div_jvp(const Duals& x) {
  Tensor o = times(x.t(1), x.result(0));
  Tensor num = !o ? x.t(0) : x.t(0) ? sub(x.t(0), o) : neg(o);
  return {div(num, x.p(1))};
}
std::vector<Tensor> self_clone(const Duals& x) {
  return {call_tensor("aten::clone", {V(x.t(0))})};
}
std::vector<Tensor> mul_scalar(const Duals& x) { return {mul(x.t(0), x.scalar(1))}; }
std::vector<Tensor> div_scalar(const Duals& x) { return {div(x.t(0), x.scalar(1))}; }
// self_t * self_p.sgn() (complex tangents are refused before, so sgn is sign)
std::vector<Tensor> abs_jvp(const Duals& x) {
  return {mul(x.t(0), call_tensor("aten::sign", {V(x.p(0))}))};  // sgn of a real tensor
}
// where(condition, self_t, other_t)
std::vector<Tensor> where_jvp(const Duals& x) {
  return {call_tensor("aten::where.self", {V(x.p(0)), V(x.tz(1)), V(x.tz(2))})};
}
// self_t.masked_fill(mask, 0) / self_t.masked_fill(mask, value_t)
std::vector<Tensor> masked_fill_scalar(const Duals& x) {
  return {call_tensor("aten::masked_fill.Scalar", {V(x.tz(0)), V(x.p(1)), S(0.0)})};
}
std::vector<Tensor> masked_fill_tensor(const Duals& x) {
  return {call_tensor("aten::masked_fill.Tensor", {V(x.tz(0)), V(x.p(1)), V(x.tz(2))})};
}

constexpr ForwardKind kElementWise = ForwardKind::ElementWise;

TN_REGISTER_FORWARD("aten::add.Tensor", {ForwardKind::Formula, add_jvp});
TN_REGISTER_FORWARD("aten::add.Scalar", {ForwardKind::Formula, self_clone});
TN_REGISTER_FORWARD("aten::sub.Tensor", {ForwardKind::Formula, sub_jvp});
TN_REGISTER_FORWARD("aten::sub.Scalar", {kElementWise});
TN_REGISTER_FORWARD("aten::rsub.Tensor", {ForwardKind::Formula, rsub_jvp});
TN_REGISTER_FORWARD("aten::rsub.Scalar", {kElementWise});
TN_REGISTER_FORWARD("aten::mul.Tensor", {ForwardKind::Formula, mul_jvp});
TN_REGISTER_FORWARD("aten::mul.Scalar", {ForwardKind::Formula, mul_scalar});
TN_REGISTER_FORWARD("aten::div.Tensor", {ForwardKind::Formula, div_jvp});
TN_REGISTER_FORWARD("aten::div.Scalar", {ForwardKind::Formula, div_scalar});
TN_REGISTER_FORWARD("aten::abs", {ForwardKind::Formula, abs_jvp});
TN_REGISTER_FORWARD("aten::where.self", {ForwardKind::Formula, where_jvp});
TN_REGISTER_FORWARD("aten::masked_fill.Scalar", {ForwardKind::Formula, masked_fill_scalar});
TN_REGISTER_FORWARD("aten::masked_fill.Tensor", {ForwardKind::Formula, masked_fill_tensor});
// upstream's auto_element_wise entries
TN_REGISTER_FORWARD("aten::neg", {kElementWise});
TN_REGISTER_FORWARD("aten::exp", {kElementWise});
TN_REGISTER_FORWARD("aten::log", {kElementWise});
TN_REGISTER_FORWARD("aten::sin", {kElementWise});
TN_REGISTER_FORWARD("aten::cos", {kElementWise});
TN_REGISTER_FORWARD("aten::tanh", {kElementWise});
TN_REGISTER_FORWARD("aten::sigmoid", {kElementWise});
TN_REGISTER_FORWARD("aten::relu", {kElementWise});
TN_REGISTER_FORWARD("aten::gelu", {kElementWise});
TN_REGISTER_FORWARD("aten::silu", {kElementWise});
TN_REGISTER_FORWARD("aten::pow.Tensor_Scalar", {kElementWise});
TN_REGISTER_FORWARD("aten::sqrt", {kElementWise});
TN_REGISTER_FORWARD("aten::rsqrt", {kElementWise});
TN_REGISTER_FORWARD("aten::clamp", {kElementWise});

}  // namespace
}  // namespace tn::autograd
