// resize_ and resize_as_: a tensor's sizes changed in place, as upstream's Resize.cpp does it
// (its CPU and Meta kernels are one metadata change, so one kernel serves every back end): the
// new sizes with contiguous strides (or those of a memory format) at the same storage offset,
// the storage grown when the new geometry needs more bytes (never shrunk; a storage that is not
// resizable, numpy's memory for one, refuses). Their refusal of a tensor that requires grad is
// the Autograd key's (autograd/resize_guard.cpp). Under torch.use_deterministic_algorithms the
// new elements are filled (kernels/composite/uninitialized_fill.h), as upstream's.
#include <cstdint>
#include <limits>

#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/composite/uninitialized_fill.h"
#include "kernels/rules/factory_rules.h"

namespace tn {
namespace {

// upstream's numel for new sizes: their product as unsigned 64-bit numbers (a negative size is
// a huge one), refused past int64's range.
int64_t checked_numel(const Dims& sizes) {
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  overflow |= n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  TN_CHECK(!overflow, "numel: integer multiplication overflow");
  return static_cast<int64_t>(n);
}

// c10's get_channels_last_strides_2d/3d as empty_tensor_restride uses them: C fastest, then
// the last dims, then N, each step the raw product of sizes (a size of 0 makes the outer
// strides 0, unlike the strides that suggest a layout).
Dims restride_channels_last(const Dims& sz) {
  const size_t n = sz.size();
  Dims st(n, 1);
  st[n - 1] = sz[1];
  for (size_t d = n - 2; d >= 2; --d) st[d] = st[d + 1] * sz[d + 1];
  st[0] = st[2] * sz[2];
  return st;
}

// Restrides self (of its current sizes) for memory format f, upstream's empty_tensor_restride.
void restride(const Tensor& self, const Value& mf) {
  const MemoryFormatKind f = mf.memory_format;
  TN_CHECK(f != MemoryFormatKind::Preserve, "Unsupported memory formatPreserve");
  check_memory_format_rank(mf, self->dim());
  const Dims& sz = self->sizes();
  self->set_sizes_strides(sz, f == MemoryFormatKind::Contiguous ? contiguous_strides(sz)
                                                                : restride_channels_last(sz),
                          self->storage_offset());
}

// upstream's resize_impl_cpu_ then maybe_resize_storage_cpu: nothing when the sizes are self's
// own; no storage change when the new tensor has no elements.
void resize_to(const Tensor& self, const Dims& sizes) {
  if (sizes == self->sizes()) return;
  const int64_t numel = checked_numel(sizes);
  self->set_sizes_strides(sizes, contiguous_strides(sizes), self->storage_offset());
  if (numel == 0) return;
  uint64_t need = 0;
  const bool overflow = __builtin_mul_overflow(
      static_cast<uint64_t>(numel) + static_cast<uint64_t>(self->storage_offset()),
      static_cast<uint64_t>(self->itemsize()), &need);
  TN_CHECK(!overflow, "Storage size calculation overflowed with sizes=", dims_str(sizes));
  const auto had = static_cast<int64_t>(self->storage()->nbytes());
  if (need > self->storage()->nbytes()) self->storage()->resize(need);
  fill_uninitialized_storage_tail(self, had);
}

// resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None)
void resize(Call& c) {
  const Tensor& self = c.tensor(0);
  resize_to(self, c.int_list(1));
  if (!c.arg(2).is_none()) restride(self, c.arg(2));
  c.ret(self);
}

// resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None):
// self.resize_(the_template.sizes()), then restrided when a format is given (preserve: the
// template's suggested one).
void resize_as(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& tmpl = c.tensor(1);
  call("aten::resize_", {ops::t(self), ops::ints(tmpl->sizes()), Value{}});
  if (!c.arg(2).is_none()) {
    Value mf = c.arg(2);
    if (mf.memory_format == MemoryFormatKind::Preserve) mf.memory_format = suggested_format(*tmpl);
    restride(self, mf);
  }
  c.ret(self);
}

}  // namespace

// At the ADInplaceOrView key: upstream's resize_ counts as a write of self only when its sizes
// change (a restride alone, or the same sizes, leaves the version as it was).
void bump_if_resized(Call& c) {
  const Tensor& self = c.tensor(0);
  const Dims before = self->sizes();
  redispatch_below(c, DispatchKey::ADInplaceOrView);
  if (self->sizes() != before) self->bump_version();
}

TN_REGISTER_KERNEL("aten::resize_", ADInplaceOrView, bump_if_resized);
TN_REGISTER_KERNEL("aten::resize_as_", ADInplaceOrView, bump_if_resized);
TN_REGISTER_KERNEL("aten::resize_", CompositeExplicit, resize);
TN_REGISTER_KERNEL("aten::resize_as_", CompositeExplicit, resize_as);

}  // namespace tn
