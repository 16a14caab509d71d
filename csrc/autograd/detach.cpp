// detach_: self leaves the graph in place (upstream's VariableTypeManual detach_): no longer
// requiring grad, no grad_fn. A view refuses, in upstream's words, since its base's history
// would still reach it, whether or not it requires grad. Registered at the Autograd key (where the graph lives) and as the
// composite that every back end runs when no tensor requires grad (then it only returns self).
#include "dispatch/kernel.h"

namespace tn::autograd {
namespace {

void check_not_a_view(const Tensor& self) {
  TN_CHECK(!self->view_base(),
           "Can't detach views in-place. Use detach() instead. If you are using "
           "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
           "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
           "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
           "function in torch/optim/optimizer.py as the solution.");
}

void detach_inplace_autograd(Call& c) {
  const Tensor& self = c.tensor(0);
  check_not_a_view(self);
  AutogradMeta& m = self->ensure_autograd_meta();
  self->set_requires_grad(false);
  m.grad_fn = Ptr<RefCounted>();
  m.is_leaf = true;
  m.output_nr = 0;
  m.grad_accumulator = nullptr;
  c.ret(self);
}

// Upstream refuses a view even when nothing requires grad (its check is in the autograd kernel,
// which every call passes).
void detach_inplace(Call& c) {
  check_not_a_view(c.tensor(0));
  c.ret(c.tensor(0));
}

TN_REGISTER_KERNEL("aten::detach_", Autograd, detach_inplace_autograd);
TN_REGISTER_KERNEL("aten::detach_", CompositeExplicit, detach_inplace);

}  // namespace
}  // namespace tn::autograd
