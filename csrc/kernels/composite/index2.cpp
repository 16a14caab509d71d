// take_along_dim as upstream's runs (TensorAdvancedIndexing.cpp): along a dim, indices taken
// modulo its size and self and indices broadcast against each other apart from dim, then
// gather; without dim, both flattened. Its gradient comes from gather's and expand's (it is
// CompositeImplicitAutograd upstream).
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

Tensor gather0(const Tensor& self, int64_t dim, const Tensor& index) {
  return call_tensor("aten::gather", {t(self), i64(dim), t(index), Value::of_bool(false)});
}

// take_along_dim(Tensor self, Tensor indices, int? dim=None)
void take_along_dim(Call& c) {
  const Tensor &self = c.tensor(0), &indices = c.tensor(1);
  if (c.arg(2).tag != Value::Tag::Int)  // upstream checks no dtype here: gather's own
    return c.ret(gather0(view(self, {-1}), 0, view(indices, {-1})));
  TN_CHECK(self->dim() == indices->dim(), "torch.take_along_dim(): input and indices should "
           "have the same number of dimensions, but got ", self->dim(),
           " dimensions for input, and ", indices->dim(), " dimensions for indices");
  TN_CHECK(indices->dtype() == ScalarType::Long, "torch.take_along_dim(): dtype of indices "
           "should be Long but got ", enum_name(indices->dtype()));
  int64_t dim = wrap_dim(c.to_int(2), self->dim());
  Dims self_sizes = self->sizes(), index_sizes = indices->sizes();
  if (self->dim() > 0) {
    self_sizes[dim] = indices->size(dim);
    index_sizes[dim] = self->size(dim);
  }
  // Along a dim upstream takes every index modulo the dim's size (-1 is the last, 7 of 4 is
  // 3), so none is out of range; flattened, it does not.
  Value size = Value::of_scalar(Scalar::from_int(self->dim() > 0 ? self->size(dim) : 1));
  Tensor wrapped = call_tensor("aten::remainder.Scalar", {t(indices), size});
  Tensor idx = call_tensor("aten::expand",
                           {t(wrapped), ints(broadcast_shapes(self_sizes, indices->sizes()))});
  Tensor src = call_tensor("aten::expand",
                           {t(self), ints(broadcast_shapes(index_sizes, self->sizes()))});
  c.ret(gather0(src, dim, idx));
}
TN_REGISTER_COMPOSITE("aten::take_along_dim", take_along_dim);

}  // namespace
}  // namespace tn
