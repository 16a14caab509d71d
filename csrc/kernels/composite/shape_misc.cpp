// rot90, narrow_copy (+ out=), new_empty_strided and empty.out, as upstream writes them: rot90
// and narrow_copy in door ops (flip/transpose, narrow then a contiguous clone; derivatives at
// Autograd, autograd/derivatives/shape_misc.cpp), the two factories over empty_strided and
// resize.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// rot90(Tensor self, int k=1, int[] dims=[0,1]): upstream's checks and words, then k mod 4
// quarter turns as flips and a transpose (none: a contiguous clone).
void rot90(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t k = c.to_int(1);
  const Dims& dims = c.int_list(2);
  int64_t n = self->dim(), nd = static_cast<int64_t>(dims.size());
  TN_CHECK(nd == 2, "expected total rotation dims == 2, but got dims = ", nd);
  TN_CHECK(n >= 2, "expected total dims >= 2, but got total dims = ", n);
  for (int64_t d : dims)  // upstream wraps both dims first (IndexError past the rank)
    TN_CHECK_KIND(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [",
                  -n, ", ", n - 1, "], but got ", d, ")");
  TN_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n,
           "expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ",
           dims[1]);
  k = (4 + (k % 4)) % 4;
  auto flip = [&](Dims d) { return call_tensor("aten::flip", {V(self), ops::ints(d)}); };
  auto turn = [&](const Tensor& t) {
    return call_tensor("aten::transpose_", {V(t), ops::i64(dims[0]), ops::i64(dims[1])});
  };
  if (k == 1) return c.ret(turn(flip({dims[1]})));
  if (k == 2) return c.ret(flip({dims[0], dims[1]}));
  if (k == 3) return c.ret(turn(flip({dims[0]})));
  c.ret(ops::clone_contiguous(self));
}
TN_REGISTER_COMPOSITE("aten::rot90", rot90);

// narrow_copy(Tensor self, int dim, SymInt start, SymInt length): upstream's
// narrow_copy_dense_cpu checks, in its words (some are its bare TORCH_CHECKs), then a
// contiguous copy of the narrowed view. `out` (the out= form) is checked for self's dtype.
Tensor narrow_copy(const Call& c, const Tensor* out) {
  const Tensor& self = c.tensor(0);
  int64_t dim = c.to_int(1), start = c.to_int(2), length = c.to_int(3), n = self->dim();
  TN_CHECK(n > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TN_CHECK(!out || (*out)->dtype() == self->dtype(),
           "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this "
           "error message be improved?  If so, please report an enhancement request to "
           "PyTorch.)");
  if (dim < 0) {
    TN_CHECK_KIND(dim >= -n, Index, "Dimension out of range (expected to be in range of [", -n,
                  ", ", n - 1, "], but got ", dim, ")");
    dim += n;
  }
  TN_CHECK(dim < n, "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got "
           "false.  (Could this error message be improved?  If so, please report an "
           "enhancement request to PyTorch.)");
  int64_t cur = self->size(dim);
  TN_CHECK_KIND(-cur <= start && start <= cur, Index, "start out of range (expected to be in "
                "range of [", -cur, ", ", cur, "], but got ", start, ")");
  if (start < 0) start += cur;
  TN_CHECK(length >= 0 && start <= cur - length, "start (", start, ") + length (", length,
           ") exceeds dimension size (", cur, ").");
  Tensor view = call_tensor("aten::narrow", {V(self), ops::i64(dim), ops::i64(start),
                                             ops::i64(length)});
  return ops::clone_contiguous(view);
}
void narrow_copy_kernel(Call& c) { c.ret(narrow_copy(c, nullptr)); }
void narrow_copy_out(Call& c) {
  const Tensor& out = c.tensor(4);
  c.ret(ops::write_out(out, narrow_copy(c, &out), c.key()));
}
// Meta: upstream's composite of the other back ends, narrow's checks alone.
void narrow_copy_meta(Call& c) {
  Tensor view = call_tensor("aten::narrow", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  c.ret(ops::clone_contiguous(view));
}
TN_REGISTER_KERNEL("aten::narrow_copy", Meta, narrow_copy_meta);
TN_REGISTER_COMPOSITE("aten::narrow_copy", narrow_copy_kernel);
TN_REGISTER_COMPOSITE("aten::narrow_copy.out", narrow_copy_out);

// new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, dtype?, layout?, device?,
// pin_memory?): empty_strided with self's dtype and device where none is given.
void new_empty_strided(Call& c) {
  const Tensor& self = c.tensor(0);
  Value dtype = c.arg(3).is_none() ? Value::of_dtype(self->dtype()) : c.arg(3);
  Value device = c.arg(5).is_none() ? Value::of_device(self->device()) : c.arg(5);
  c.ret(call_tensor("aten::empty_strided", {c.arg(1), c.arg(2), dtype, c.arg(4), device,
                                            c.arg(6)}));
}
TN_REGISTER_COMPOSITE("aten::new_empty_strided", new_empty_strided);

// empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out): upstream's
// empty_out: no memory format, sizes non-negative, out resized as resize_ does (no warning).
void empty_out(Call& c) {
  const Tensor& out = c.tensor(2);
  const Dims& size = c.int_list(0);
  TN_CHECK(c.arg(1).is_none(), "'memory_format' argument is incompatible with 'out' tensor "
           "argument");
  for (int64_t s : size)
    TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ",
             dims_str(size));
  ops::resize_out(out, size);
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::empty.out", empty_out);

}  // namespace
}  // namespace tn
