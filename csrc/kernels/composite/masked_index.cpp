// _unsafe_masked_index(self, mask, indices, fill) and _unsafe_masked_index_put_accumulate(self,
// mask, indices, values), upstream's eager versions (CompositeExplicitAutograd; compilers fuse
// them): each index clamped to [-size, size - 1] of its dim (int64/int32 only), then
//   masked_index     self[indices] with fill where mask is false (an empty self: a tensor of
//                    fill, size 1 in the indexed empty dims, indexed the same way);
//   put_accumulate   index_put(self, indices, values with 0 where mask is false, accumulate).
// Derivatives: autograd/derivatives/masked_index.cpp.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

Value clamped_indices(const Tensor& self, const Value& indices) {
  Value out = indices;
  const Dims& sizes = self->sizes();
  for (size_t i = 0; i < out.tensors.size(); ++i) {
    Tensor& idx = out.tensors[i];
    if (!idx) continue;
    const ScalarType dt = idx->dtype();
    TN_CHECK(dt == ScalarType::Long || dt == ScalarType::Int,
             "_unsafe_masked_index found unexpected index type ", enum_name(dt));
    TN_CHECK(i < sizes.size(), "too many indices for tensor of dimension ", self->dim(),
             " (got ", out.tensors.size(), ")");
    const int64_t size = sizes[i];
    idx = call_tensor("aten::clamp", {t(idx), Value::of_scalar(Scalar::from_int(-size)),
                                      Value::of_scalar(Scalar::from_int(size - 1))});
  }
  return out;
}
Tensor not_mask(const Tensor& mask) { return call_tensor("aten::logical_not", {t(mask)}); }

// _unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill)
void unsafe_masked_index(Call& c) {
  const Tensor& self = c.tensor(0);
  Value indices = clamped_indices(self, c.arg(2));
  TN_CHECK_KIND(!indices.tensors.empty(), Index, "at least one index must be provided");
  if (self->numel() == 0) {
    Dims sizes = self->sizes();
    for (size_t i = 0; i < indices.tensors.size() && i < sizes.size(); ++i)
      if (indices.tensors[i] && sizes[i] == 0) sizes[i] = 1;
    Tensor filled = call_tensor("aten::new_full", {t(self), ints(sizes), c.arg(3)});
    return c.ret(call_tensor("aten::index.Tensor", {t(filled), indices}));
  }
  Tensor r = call_tensor("aten::index.Tensor", {t(self), indices});
  c.ret(call_tensor("aten::masked_fill.Scalar", {t(r), t(not_mask(c.tensor(1))), c.arg(3)}));
}
// _unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices,
//   Tensor values)
void unsafe_masked_index_put_accumulate(Call& c) {
  const Tensor& self = c.tensor(0);
  if (self->numel() == 0) return c.ret(call_tensor("aten::clone", {t(self)}));
  Value indices = clamped_indices(self, c.arg(2));
  Tensor masked = call_tensor("aten::masked_fill.Scalar",
                              {c.arg(3), t(not_mask(c.tensor(1))),
                               Value::of_scalar(Scalar::from_int(0))});
  c.ret(call_tensor("aten::index_put", {t(self), indices, t(masked), Value::of_bool(true)}));
}

TN_REGISTER_COMPOSITE("aten::_unsafe_masked_index", unsafe_masked_index);
TN_REGISTER_COMPOSITE("aten::_unsafe_masked_index_put_accumulate",
                      unsafe_masked_index_put_accumulate);

}  // namespace
}  // namespace tn
