// aten::promote_types over dtypes (no tensors): core/promotion.h's table, which refuses the
// dtypes we do not compute with upstream's TypeError. torch.autograd.gradcheck reaches it.
#include "core/promotion.h"
#include "dispatch/kernel.h"

namespace tn {
namespace {

// promote_types(ScalarType type1, ScalarType type2) -> ScalarType
void promote_types_op(Call& c) {
  c.ret(Value::of_dtype(promote_types(c.arg(0).dtype, c.arg(1).dtype)));
}

TN_REGISTER_COMPOSITE("aten::promote_types", promote_types_op);

}  // namespace
}  // namespace tn
