// isclose and allclose as upstream composes them (TensorCompare.cpp): equality, NaN equality on
// request, then |self - other| <= atol + |rtol * other| where the error is finite. Door ops
// only, so every back end has them. torch.autograd.gradcheck compares through allclose.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

Value dbl(double v) { return Value::of_scalar(Scalar::from_double(v)); }

// isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)
Tensor isclose_of(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  double rtol = c.to_double(2), atol = c.to_double(3);
  bool equal_nan = c.to_bool(4);
  TN_CHECK(a->dtype() == b->dtype(), name(a->dtype()), " did not match ", name(b->dtype()));
  TN_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  TN_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = call_tensor("aten::eq.Tensor", {t(a), t(b)});
  if (equal_nan && is_floating(a->dtype())) {
    Tensor nan = call_tensor("aten::isnan", {t(a)});
    call("aten::__iand__.Tensor", {t(nan), t(call_tensor("aten::isnan", {t(b)}))});
    call("aten::__ior__.Tensor", {t(close), t(nan)});
  }
  if (rtol == 0 && atol == 0) return close;
  Tensor x = a, y = b;
  if (a->dtype() == ScalarType::Bool) {  // upstream widens bool to the default dtype
    x = call_tensor("aten::_to_copy", {t(a), Value::of_dtype(ScalarType::Float)});
    y = call_tensor("aten::_to_copy", {t(b), Value::of_dtype(ScalarType::Float)});
  }
  Tensor scaled = call_tensor("aten::mul.Scalar", {t(y), dbl(rtol)});
  Tensor allowed = call_tensor("aten::abs", {t(scaled)});
  allowed = call_tensor("aten::add.Scalar", {t(allowed), dbl(atol), Value::of_int(1)});
  Tensor actual = call_tensor("aten::abs", {t(call_tensor("aten::sub.Tensor", {t(x), t(y)}))});
  Tensor finite = call_tensor("aten::isfinite", {t(actual)});
  call("aten::__iand__.Tensor", {t(finite), t(call_tensor("aten::le.Tensor",
                                                           {t(actual), t(allowed)}))});
  call("aten::__ior__.Tensor", {t(close), t(finite)});
  return close;
}

void isclose(Call& c) { c.ret(isclose_of(c)); }

// allclose(...same...) -> bool: isclose(...).all().item()
void allclose(Call& c) {
  Tensor all = call_tensor("aten::all", {t(isclose_of(c))});
  c.ret(Value::of_bool(call("aten::_local_scalar_dense", {t(all)})[0].scalar.to_double() != 0));
}

TN_REGISTER_COMPOSITE("aten::isclose", isclose);
TN_REGISTER_COMPOSITE("aten::allclose", allclose);

}  // namespace
}  // namespace tn
