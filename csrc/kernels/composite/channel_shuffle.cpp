// channel_shuffle(Tensor self, SymInt groups): upstream's checks and words, then its math:
// channels viewed as (groups, C / groups), the two swapped, written into a tensor of self's
// sizes in self's suggested memory format. A permutation only, so values are exact. Derivative
// at Autograd (autograd/derivatives/shape_misc.cpp).
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// The checks, shared by the kernel and Meta's; then an empty self's result: upstream returns an
// alias made inside its kernel (no view for autograd, nothing to read), for which a new empty
// tensor of the same geometry stands. Returns whether that answered.
bool checked_or_empty(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t groups = c.to_int(1);
  TN_CHECK(self->dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with "
           "sizes ", dims_str(self->sizes()));
  TN_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of "
           "groups:", groups);
  TN_CHECK(self->size(1) % groups == 0, "Number of channels must be divisible by groups. Got ",
           self->size(1), " channels and ", groups, " groups.");
  if (self->numel() != 0) return false;
  c.ret(ops::empty_strided(self->sizes(), self->strides(), self->dtype(), self->device()));
  return true;
}

void channel_shuffle(Call& c) {
  if (checked_or_empty(c)) return;
  const Tensor& self = c.tensor(0);
  int64_t groups = c.to_int(1), channels = self->size(1);
  Tensor grouped = call_tensor("aten::reshape", {V(self), ops::ints({self->size(0), groups,
                                                                     channels / groups, -1})});
  Tensor swapped = call_tensor("aten::permute", {V(grouped), ops::ints({0, 2, 1, 3})});
  Tensor flat = ops::view(ops::clone_contiguous(swapped), self->sizes());
  Tensor out = ops::empty_strided(self->sizes(),
                                  strides_in_format(*self, suggested_format(*self)),
                                  self->dtype(), self->device());
  ops::copy_(out, flat);
  c.ret(out);
}
// Meta: upstream's Python reference, whose result is contiguous whatever self's layout.
void channel_shuffle_meta(Call& c) {
  if (checked_or_empty(c)) return;
  const Tensor& self = c.tensor(0);
  c.ret(ops::empty(self->sizes(), self->dtype(), self->device()));
}
TN_REGISTER_KERNEL("aten::channel_shuffle", Meta, channel_shuffle_meta);
TN_REGISTER_COMPOSITE("aten::channel_shuffle", channel_shuffle);

}  // namespace
}  // namespace tn
