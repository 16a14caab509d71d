// resize_ and resize_as_ at the Autograd key: upstream's VariableTypeManual refuses to resize a
// tensor that requires grad (its history could not follow), then runs the kernel below, and
// after it refuses one that carries a forward-mode tangent (which keeps the old shape).
#include "dispatch/kernel.h"

namespace tn::autograd {
namespace {

void resize_guard(Call& c) {
  TN_CHECK(!c.tensor(0)->requires_grad(), "cannot resize variables that require grad");
  redispatch_below(c, DispatchKey::Autograd);
  const AutogradMeta* m = c.tensor(0)->autograd_meta();
  TN_CHECK(!(m && m->has_tangent), "cannot resize variables that has a forward grad");
}

}  // namespace

TN_REGISTER_KERNEL("aten::resize_", Autograd, resize_guard);
TN_REGISTER_KERNEL("aten::resize_as_", Autograd, resize_guard);

}  // namespace tn::autograd
