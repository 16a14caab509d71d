// aminmax (and aminmax.out) on dense CPU tensors and Meta: the least and greatest element over
// every element or along one dim, upstream's structured aminmax (its meta function's checks
// and shapes; NaN propagates), computed by this core's amin and amax, which reduce the same.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

bool aminmax_dtype(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: case ScalarType::Byte: case ScalarType::Char:
    case ScalarType::Short: case ScalarType::Int: case ScalarType::Long:
    case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::Float:
    case ScalarType::Double: return true;
    default: return false;
  }
}

// aminmax(self, *, dim=None, keepdim=False) -> (min, max), and .out(..., min, max).
template <bool Cpu, bool Out>
void aminmax(Call& c) {
  const Tensor& self = c.tensor(0);
  if (Out) {  // (upstream's decomposition copies out last: a wrong device is refused first)
    check_out_device(c.tensor(3), self->device());
    check_out_device(c.tensor(4), self->device());
  }
  const bool given = !c.arg(1).is_none();
  const bool keepdim = c.to_bool(2);
  Dims dims;
  if (given) {
    const int64_t dim = wrap_dim(c.to_int(1), self->dim());
    TN_CHECK_KIND(self->dim() == 0 || self->size(dim) != 0, Index,
                  "aminmax: Expected reduction dim ", dim, " to have non-zero size.");
    if (self->dim() > 0) dims.push_back(dim);
  } else {
    TN_CHECK(self->numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as "
             "the operation has no identity.");
  }
  Dims shape;
  if (given) shape = reduced_sizes(self->sizes(), reduce_mask(self->dim(), dims), keepdim);
  else if (keepdim) shape = Dims(static_cast<size_t>(self->dim()), 1);
  if (Out) {
    ops::check_out_dtype(c.tensor(3), self->dtype());
    ops::check_out_dtype(c.tensor(4), self->dtype());
  }
  Tensor lo, hi;
  if (Cpu) {
    TN_CHECK_KIND(aminmax_dtype(self->dtype()), NotImplemented,
                  "\"aminmax_cpu\" not implemented for '", c10_dtype_name(self->dtype()), "'");
    // (an empty dim list reduces every dim, as aminmax without a dim)
    Value d = Value::of_ints(dims), k = Value::of_bool(keepdim);
    lo = call_tensor("aten::amin", {ops::t(self), d, k});
    hi = call_tensor("aten::amax", {ops::t(self), d, k});
  } else {
    lo = ops::empty(shape, self->dtype(), self->device());
    hi = ops::empty(shape, self->dtype(), self->device());
  }
  if (!Out) {
    c.ret(lo);
    return c.ret(hi);
  }
  ops::ret_all(c, {lo, hi}, 3);
}

}  // namespace

TN_REGISTER_KERNEL("aten::aminmax", DenseCPU, (aminmax<true, false>));
TN_REGISTER_KERNEL("aten::aminmax", Meta, (aminmax<false, false>));
TN_REGISTER_KERNEL("aten::aminmax.out", DenseCPU, (aminmax<true, true>));
TN_REGISTER_KERNEL("aten::aminmax.out", Meta, (aminmax<false, true>));

}  // namespace tn
