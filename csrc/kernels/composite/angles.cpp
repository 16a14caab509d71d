// deg2rad and rad2deg (functional, in place, out=): a multiplication by pi/180 or 180/pi as
// upstream's UnaryOps.cpp spells it (complex refused), with their own derivatives
// (Deg2RadBackward0, Rad2DegBackward0); and float_power in its nine spellings, upstream's
// CompositeImplicit pow in float64 (complex128 when an operand is complex).
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

constexpr double kPi180 = 0.017453292519943295769236907684886127134428718885417;
constexpr double k180Pi = 57.295779513082320876798154814105170332405472466564;

struct AngleOp {
  const char* name;
  double factor;
};
constexpr AngleOp kDeg2Rad{"deg2rad", kPi180}, kRad2Deg{"rad2deg", k180Pi};

template <const AngleOp& K>
void check_real(const Tensor& x) {
  TN_CHECK(!is_complex(x->dtype()), K.name, " is not supported for complex tensors.");
}

template <const AngleOp& K>
void angle_op(Call& c) {
  check_real<K>(c.tensor(0));
  c.ret(call_tensor("aten::mul.Scalar", {c.arg(0), ops::f64(K.factor)}));
}
template <const AngleOp& K>
void angle_op_(Call& c) {
  check_real<K>(c.tensor(0));
  c.ret(call_tensor("aten::mul_.Scalar", {c.arg(0), ops::f64(K.factor)}));
}
// (upstream's out= multiplies by a wrapped number through mul.out: any out dtype the result
// casts to)
template <const AngleOp& K>
void angle_op_out(Call& c) {
  check_real<K>(c.tensor(0));
  Tensor f = call_tensor("aten::scalar_tensor", {ops::f64(K.factor),
                                                 Value::of_dtype(ScalarType::Double), Value{},
                                                 Value::of_device(c.tensor(0)->device())});
  f->set_wrapped_number(true);
  c.ret(call_tensor("aten::mul.out", {c.arg(0), t(f), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::deg2rad", angle_op<kDeg2Rad>);
TN_REGISTER_COMPOSITE("aten::deg2rad_", angle_op_<kDeg2Rad>);
TN_REGISTER_COMPOSITE("aten::deg2rad.out", angle_op_out<kDeg2Rad>);
TN_REGISTER_COMPOSITE("aten::rad2deg", angle_op<kRad2Deg>);
TN_REGISTER_COMPOSITE("aten::rad2deg_", angle_op_<kRad2Deg>);
TN_REGISTER_COMPOSITE("aten::rad2deg.out", angle_op_out<kRad2Deg>);

// --- float_power -----------------------------------------------------------------------------

bool complex_arg(const Value& v) {
  return v.tag == Value::Tag::Tensor ? is_complex(v.tensor->dtype())
                                     : v.tag == Value::Tag::Scalar && v.scalar.is_complex();
}
ScalarType float_power_dtype(const Value& base, const Value& exp) {
  return complex_arg(base) || complex_arg(exp) ? ScalarType::ComplexDouble : ScalarType::Double;
}
// A tensor argument converted to dt (Tensor.to: a copy only when the dtype changes), a number
// to dt's kind of number.
Value in_dtype(const Value& v, ScalarType dt) {
  if (v.tag == Value::Tag::Tensor) {
    if (v.tensor->dtype() == dt) return v;
    return Value::of(call_tensor("aten::to.dtype", {v, Value::of_dtype(dt), Value::of_bool(false),
                                                    Value::of_bool(false), Value{}}));
  }
  const Scalar& s = v.scalar;
  if (dt == ScalarType::ComplexDouble) return Value::of_scalar(Scalar::from_complex(s.to_double(),
                                                                                    s.imag()));
  return Value::of_scalar(Scalar::from_double(s.to_double()));
}

// float_power.Tensor_Tensor / .Tensor_Scalar / .Scalar (functional): pow in the float type.
template <const char* kPow>
void float_power(Call& c) {
  const ScalarType dt = float_power_dtype(c.arg(0), c.arg(1));
  c.ret(call_tensor(kPow, {in_dtype(c.arg(0), dt), in_dtype(c.arg(1), dt)}));
}
// The out= spellings: out must already have that dtype.
template <const char* kPowOut>
void float_power_out(Call& c) {
  const ScalarType dt = float_power_dtype(c.arg(0), c.arg(1));
  const Tensor& out = c.tensor(2);
  TN_CHECK(out->dtype() == dt, "the output given to float_power has dtype ",
           enum_name(out->dtype()), " but the operation's result requires dtype ",
           enum_name(dt));
  c.ret(call_tensor(kPowOut, {in_dtype(c.arg(0), dt), in_dtype(c.arg(1), dt), c.arg(2)}));
}
// float_power_.Tensor / .Scalar: self must already have that dtype.
template <const char* kPowInPlace>
void float_power_inplace(Call& c) {
  const ScalarType dt = float_power_dtype(c.arg(0), c.arg(1));
  TN_CHECK(c.tensor(0)->dtype() == dt, "the base given to float_power_ has dtype ",
           enum_name(c.tensor(0)->dtype()), " but the operation's result requires dtype ",
           enum_name(dt));
  c.ret(call_tensor(kPowInPlace, {c.arg(0), in_dtype(c.arg(1), dt)}));
}
constexpr char kPowTT[] = "aten::pow.Tensor_Tensor", kPowTS[] = "aten::pow.Tensor_Scalar",
               kPowS[] = "aten::pow.Scalar", kPowTTo[] = "aten::pow.Tensor_Tensor_out",
               kPowTSo[] = "aten::pow.Tensor_Scalar_out", kPowSo[] = "aten::pow.Scalar_out",
               kPowT_[] = "aten::pow_.Tensor", kPowS_[] = "aten::pow_.Scalar";
TN_REGISTER_COMPOSITE("aten::float_power.Tensor_Tensor", float_power<kPowTT>);
TN_REGISTER_COMPOSITE("aten::float_power.Tensor_Scalar", float_power<kPowTS>);
TN_REGISTER_COMPOSITE("aten::float_power.Scalar", float_power<kPowS>);
TN_REGISTER_COMPOSITE("aten::float_power.Tensor_Tensor_out", float_power_out<kPowTTo>);
TN_REGISTER_COMPOSITE("aten::float_power.Tensor_Scalar_out", float_power_out<kPowTSo>);
TN_REGISTER_COMPOSITE("aten::float_power.Scalar_out", float_power_out<kPowSo>);
TN_REGISTER_COMPOSITE("aten::float_power_.Tensor", float_power_inplace<kPowT_>);
TN_REGISTER_COMPOSITE("aten::float_power_.Scalar", float_power_inplace<kPowS_>);

}  // namespace
}  // namespace tn
