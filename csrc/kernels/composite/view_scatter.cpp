// select_scatter, diagonal_scatter and as_strided_scatter as upstream composes them
// (CompositeExplicit): self copied with its layout kept (clone_preserve_strides), the view of
// the copy taken, src's sizes checked against it, src copied in. Their derivatives are at Autograd
// (autograd/derivatives/view_scatter.cpp).
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// Upstream's clone_preserve_strides: a self with a dim of stride 0 and more than one element
// (internal overlap) is cloned plainly; any other self has its storage copied (the whole of it
// in TensorShape.cpp's; up to self's last element in torch/_prims_common's, which its Python
// meta functions use: `whole` false), and the result is the same view of that copy.
Tensor clone_preserve_strides(const Tensor& self, bool whole) {
  int64_t needed = self->storage_offset() + 1;
  for (int64_t d = 0; d < self->dim(); ++d) {
    if (self->stride(d) == 0 && self->size(d) > 1) return call_tensor("aten::clone", {V(self)});
    needed += (self->size(d) - 1) * self->stride(d);
  }
  if (self->numel() == 0) needed = 0;
  if (whole) needed = static_cast<int64_t>(self->storage()->nbytes() / self->itemsize());
  Tensor full = call_tensor("aten::as_strided", {V(self), ops::ints({needed}), ops::ints({1}),
                                                 ops::i64(0)});
  Tensor buffer = call_tensor("aten::clone", {V(full)});
  return call_tensor("aten::as_strided", {V(buffer), ops::ints(self->sizes()),
                                          ops::ints(self->strides()),
                                          ops::i64(self->storage_offset())});
}

// The copy of self, its view `key`(copy, rest...) overwritten with src.
Tensor scatter_into_view(const Tensor& self, const Tensor& src, const char* key,
                         std::vector<Value> rest) {
  Tensor output = clone_preserve_strides(self, true);
  rest.insert(rest.begin(), V(output));
  Tensor slice = call_tensor(key, std::move(rest));
  TN_CHECK(slice->sizes() == src->sizes(),
           "expected src to have a size equal to the slice of self. src size = ",
           dims_str(src->sizes()), ", slice size = ", dims_str(slice->sizes()));
  ops::copy_(slice, src);
  return output;
}

// select_scatter(Tensor self, Tensor src, int dim, SymInt index)
void select_scatter(Call& c) {
  c.ret(scatter_into_view(c.tensor(0), c.tensor(1), "aten::select.int", {c.arg(2), c.arg(3)}));
}
// diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1)
void diagonal_scatter(Call& c) {
  c.ret(scatter_into_view(c.tensor(0), c.tensor(1), "aten::diagonal",
                          {c.arg(2), c.arg(3), c.arg(4)}));
}
// as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride,
// SymInt? storage_offset=None): upstream supports autograd only for a contiguous self.
void as_strided_scatter(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(!self->requires_grad() || self->is_contiguous(),
           "as_strided_scatter is currently only supported for contiguous inputs");
  c.ret(scatter_into_view(self, c.tensor(1), "aten::as_strided",
                          {c.arg(2), c.arg(3), c.arg(4)}));
}
// Meta: upstream's Python meta functions of select_scatter and diagonal_scatter return the copy
// of self alone, checking nothing.
void scatter_meta(Call& c) { c.ret(clone_preserve_strides(c.tensor(0), false)); }
TN_REGISTER_KERNEL("aten::select_scatter", Meta, scatter_meta);
TN_REGISTER_KERNEL("aten::diagonal_scatter", Meta, scatter_meta);
TN_REGISTER_COMPOSITE("aten::select_scatter", select_scatter);
TN_REGISTER_COMPOSITE("aten::diagonal_scatter", diagonal_scatter);
TN_REGISTER_COMPOSITE("aten::as_strided_scatter", as_strided_scatter);

}  // namespace
}  // namespace tn
