// isreal and count_nonzero, as upstream composes them from comparisons: isreal is true where
// the imaginary part is zero (everywhere for a real dtype); count_nonzero sums `self != 0`
// over the dims as int64.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

// isreal(Tensor self) -> Tensor
void isreal(Call& c) {
  const Tensor& self = c.tensor(0);
  if (!is_complex(self->dtype())) {
    Value preserve;
    preserve.tag = Value::Tag::MemoryFormat;
    preserve.memory_format = MemoryFormatKind::Preserve;
    return c.ret(call_tensor("aten::ones_like", {t(self), Value::of_dtype(ScalarType::Bool),
                                                 Value{}, Value{}, Value{}, preserve}));
  }
  Tensor im = call_tensor("aten::imag", {t(self)});
  c.ret(call_tensor("aten::eq.Scalar", {t(im), Value::of_scalar(Scalar::from_int(0))}));
}
TN_REGISTER_COMPOSITE("aten::isreal", isreal);

Tensor count_over(const Tensor& self, const Dims& dims) {
  Tensor nz = call_tensor("aten::ne.Scalar", {t(self), Value::of_scalar(Scalar::from_int(0))});
  return call_tensor("aten::sum.dim_IntList", {t(nz), Value::of_ints(dims), Value::of_bool(false),
                                               Value::of_dtype(ScalarType::Long)});
}
// count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor
void count_nonzero_dims(Call& c) { c.ret(count_over(c.tensor(0), c.int_list(1))); }
// count_nonzero(Tensor self, int? dim=None) -> Tensor
void count_nonzero(Call& c) {
  Dims dims;
  if (!c.arg(1).is_none()) dims.push_back(c.to_int(1));
  c.ret(count_over(c.tensor(0), dims));
}
TN_REGISTER_COMPOSITE("aten::count_nonzero.dim_IntList", count_nonzero_dims);
TN_REGISTER_COMPOSITE("aten::count_nonzero", count_nonzero);

}  // namespace
}  // namespace tn
