// Pointwise ops that upstream defines as CompositeImplicitAutograd: isfinite and the Python
// operator spellings of the bitwise ops (__and__, __iand__, ...). They run at Autograd, so a
// dispatch mode sees the ops they decompose into, in upstream's order. Door ops only.
#include <cmath>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

// isfinite(Tensor self) -> Tensor: integers and bools are always finite (ones_like, bool,
// preserving the layout); a floating x is finite where x == x and |x| != inf. Upstream's order
// of the pieces: abs, ne.Scalar, eq.Tensor, then mul.Tensor(eq, ne).
void isfinite(Call& c) {
  const Tensor& self = c.tensor(0);
  if (is_complex(self->dtype())) {  // both parts finite, as upstream composes it
    Tensor re = call_tensor("aten::isfinite", {Value::of(call_tensor("aten::real", {c.arg(0)}))});
    Tensor im = call_tensor("aten::isfinite", {Value::of(call_tensor("aten::imag", {c.arg(0)}))});
    return c.ret(call_tensor("aten::logical_and", {Value::of(re), Value::of(im)}));
  }
  if (!is_floating(self->dtype())) {
    Value preserve;
    preserve.tag = Value::Tag::MemoryFormat;
    preserve.memory_format = MemoryFormatKind::Preserve;
    c.ret(call_tensor("aten::ones_like", {Value::of(self), Value::of_dtype(ScalarType::Bool),
                                          Value{}, Value{}, Value{}, preserve}));
    return;
  }
  Tensor magnitude = call_tensor("aten::abs", {Value::of(self)});
  Value inf = Value::of_scalar(Scalar::from_double(INFINITY));
  Tensor bounded = call_tensor("aten::ne.Scalar", {Value::of(magnitude), inf});
  Tensor not_nan = call_tensor("aten::eq.Tensor", {Value::of(self), Value::of(self)});
  c.ret(call_tensor("aten::mul.Tensor", {Value::of(not_nan), Value::of(bounded)}));
}
TN_REGISTER_COMPOSITE("aten::isfinite", isfinite);

// __and__ / __or__ / __xor__ (Tensor or Scalar other) -> Tensor and their in-place __i*__
// forms: upstream's are the bitwise op of the same overload, called as is (ops::forward_to).

constexpr char kAndT[] = "aten::bitwise_and.Tensor", kAndS[] = "aten::bitwise_and.Scalar";
constexpr char kOrT[] = "aten::bitwise_or.Tensor", kOrS[] = "aten::bitwise_or.Scalar";
constexpr char kXorT[] = "aten::bitwise_xor.Tensor", kXorS[] = "aten::bitwise_xor.Scalar";
constexpr char kIAndT[] = "aten::bitwise_and_.Tensor", kIAndS[] = "aten::bitwise_and_.Scalar";
constexpr char kIOrT[] = "aten::bitwise_or_.Tensor", kIOrS[] = "aten::bitwise_or_.Scalar";
constexpr char kIXorT[] = "aten::bitwise_xor_.Tensor", kIXorS[] = "aten::bitwise_xor_.Scalar";
// relu6(self) / relu6_(self): upstream's hardtanh(self, 0, 6) / hardtanh_(self, 0, 6).
template <bool InPlace>
void relu6(Call& c) {
  c.ret(call_tensor(InPlace ? "aten::hardtanh_" : "aten::hardtanh",
                    {Value::of(c.tensor(0)), Value::of_scalar(Scalar::from_int(0)),
                     Value::of_scalar(Scalar::from_int(6))}));
}
TN_REGISTER_COMPOSITE("aten::relu6", relu6<false>);
TN_REGISTER_COMPOSITE("aten::relu6_", relu6<true>);

// min.other / max.other(Tensor self, Tensor other): upstream's at::minimum / at::maximum.
constexpr char kMinimum[] = "aten::minimum", kMaximum[] = "aten::maximum";
TN_REGISTER_COMPOSITE("aten::min.other", ops::forward_to<kMinimum>);
TN_REGISTER_COMPOSITE("aten::max.other", ops::forward_to<kMaximum>);
TN_REGISTER_COMPOSITE("aten::__and__.Tensor", ops::forward_to<kAndT>);
TN_REGISTER_COMPOSITE("aten::__and__.Scalar", ops::forward_to<kAndS>);
TN_REGISTER_COMPOSITE("aten::__or__.Tensor", ops::forward_to<kOrT>);
TN_REGISTER_COMPOSITE("aten::__or__.Scalar", ops::forward_to<kOrS>);
TN_REGISTER_COMPOSITE("aten::__xor__.Tensor", ops::forward_to<kXorT>);
TN_REGISTER_COMPOSITE("aten::__xor__.Scalar", ops::forward_to<kXorS>);
TN_REGISTER_COMPOSITE("aten::__iand__.Tensor", ops::forward_to<kIAndT>);
TN_REGISTER_COMPOSITE("aten::__iand__.Scalar", ops::forward_to<kIAndS>);
TN_REGISTER_COMPOSITE("aten::__ior__.Tensor", ops::forward_to<kIOrT>);
TN_REGISTER_COMPOSITE("aten::__ior__.Scalar", ops::forward_to<kIOrS>);
TN_REGISTER_COMPOSITE("aten::__ixor__.Tensor", ops::forward_to<kIXorT>);
TN_REGISTER_COMPOSITE("aten::__ixor__.Scalar", ops::forward_to<kIXorS>);

// floor_divide(self, other) and its Scalar, out= and in-place overloads: upstream's div with
// rounding_mode="floor" (the argument put before out=, where div's schemas take it).
template <const char* kDiv>
void floor_divide(Call& c) {
  std::vector<Value> args{c.arg(0), c.arg(1), Value::of_string("floor")};
  for (size_t i = 2; i < c.args.size(); ++i) args.push_back(c.arg(i));  // out=
  for (Value& v : call(kDiv, std::move(args))) c.ret(std::move(v));
}
constexpr char kDivTM[] = "aten::div.Tensor_mode", kDivSM[] = "aten::div.Scalar_mode";
constexpr char kDivOutM[] = "aten::div.out_mode", kDivSMOut[] = "aten::div.Scalar_mode_out";
constexpr char kDivTM_[] = "aten::div_.Tensor_mode", kDivSM_[] = "aten::div_.Scalar_mode";
TN_REGISTER_COMPOSITE("aten::floor_divide", floor_divide<kDivTM>);
TN_REGISTER_COMPOSITE("aten::floor_divide.Scalar", floor_divide<kDivSM>);
TN_REGISTER_COMPOSITE("aten::floor_divide.out", floor_divide<kDivOutM>);
TN_REGISTER_COMPOSITE("aten::floor_divide.Scalar_out", floor_divide<kDivSMOut>);
TN_REGISTER_COMPOSITE("aten::floor_divide_.Tensor", floor_divide<kDivTM_>);
TN_REGISTER_COMPOSITE("aten::floor_divide_.Scalar", floor_divide<kDivSM_>);

}  // namespace
}  // namespace tn
