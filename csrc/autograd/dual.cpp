// The dual-tensor ops (upstream's VariableTypeManual _make_dual / _fw_primal and the composite
// _unpack_dual): a dual tensor is an alias of its primal carrying the tangent at the level;
// its primal, unpacked, is an alias carrying none. Backward goes through them unchanged.
#include "autograd/forward_ad.h"
#include "autograd/formula.h"

namespace tn::autograd {
namespace {

Tensor alias(const Tensor& t) { return call_tensor("aten::alias", {Value::of(t)}); }

void make_dual(Call& c) {
  const Tensor& primal = c.tensor(0);
  const Tensor& tangent = c.tensor(1);
  int64_t level = c.to_int(2);
  TN_CHECK(!fw_grad(primal, level), "Making a dual Tensor based on a Tensor that already has a "
           "forward gradient at the same level ", level, " is not supported.");
  Tensor r = alias(primal);
  TN_CHECK(level == 0, "Invalid level given to _make_dual");
  set_fw_grad(r, tangent, level, false);
  c.ret(r);
}

void fw_primal(Call& c) {
  Tensor r = alias(c.tensor(0));
  set_not_forward_view(r);
  c.ret(r);
}

void unpack_dual(Call& c) {
  Tensor tangent = fw_grad(c.tensor(0), c.to_int(1));
  c.ret(call_tensor("aten::_fw_primal", {Value::of(c.tensor(0)), Value::of_int(c.to_int(1))}));
  c.ret(tangent ? Value::of(tangent) : Value{});
}

Grads pass_through(const Saved&, const Grads& grads) { return {grads[0]}; }

TN_REGISTER_KERNEL("aten::_make_dual", CompositeExplicit, make_dual);
TN_REGISTER_KERNEL("aten::_fw_primal", CompositeExplicit, fw_primal);
TN_REGISTER_KERNEL("aten::_unpack_dual", Composite, unpack_dual);
TN_REGISTER_DERIVATIVE("aten::_make_dual", {"ViewBackward0", {0}, {}, false, pass_through});
TN_REGISTER_DERIVATIVE("aten::_fw_primal",
                       {"torch::autograd::Identity", {0}, {}, false, pass_through});
TN_REGISTER_FORWARD("aten::_make_dual", {ForwardKind::Manual});
TN_REGISTER_FORWARD("aten::_fw_primal", {ForwardKind::Manual});
TN_REGISTER_FORWARD("aten::_unpack_dual", {ForwardKind::Manual});

}  // namespace
}  // namespace tn::autograd
