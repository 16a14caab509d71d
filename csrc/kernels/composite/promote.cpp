// Type promotion as operators: aten::promote_types over dtypes (core/promotion.h's table, which
// refuses the dtypes we do not compute with upstream's TypeError; torch.autograd.gradcheck
// reaches it), result_type over tensors and numbers (a 0-dim tensor or a number only raises the
// category, as in every elementwise op), and can_cast. No tensor bytes are read.
#include "core/promotion.h"
#include "dispatch/kernel.h"

namespace tn {
namespace {

// promote_types(ScalarType type1, ScalarType type2) -> ScalarType
void promote_types_op(Call& c) {
  c.ret(Value::of_dtype(promote_types(c.arg(0).dtype, c.arg(1).dtype)));
}

// One operand of result_type: a tensor (a wrapped number counts as a number) or a Scalar.
void add_operand(ResultType& rt, const Value& v) {
  if (v.tag == Value::Tag::Tensor) {
    const Tensor& t = v.tensor;
    if (t->is_wrapped_number()) rt.add_number(t->dtype());
    else rt.add_tensor(t->dtype(), t->dim() == 0);
  } else {
    rt.add_number(v.scalar.default_dtype());
  }
}

// result_type.Tensor / .Scalar / .Scalar_Tensor / .Scalar_Scalar -> ScalarType
void result_type_op(Call& c) {
  ResultType rt;
  add_operand(rt, c.arg(0));
  add_operand(rt, c.arg(1));
  c.ret(Value::of_dtype(rt.result()));
}

// can_cast(ScalarType from_, ScalarType to) -> bool
void can_cast_op(Call& c) { c.ret(Value::of_bool(can_cast(c.arg(0).dtype, c.arg(1).dtype))); }

TN_REGISTER_COMPOSITE("aten::promote_types", promote_types_op);
TN_REGISTER_COMPOSITE("aten::result_type.Tensor", result_type_op);
TN_REGISTER_COMPOSITE("aten::result_type.Scalar", result_type_op);
TN_REGISTER_COMPOSITE("aten::result_type.Scalar_Tensor", result_type_op);
TN_REGISTER_COMPOSITE("aten::result_type.Scalar_Scalar", result_type_op);
TN_REGISTER_COMPOSITE("aten::can_cast", can_cast_op);

}  // namespace
}  // namespace tn
