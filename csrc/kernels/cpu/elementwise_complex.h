// The complex64/complex128 computes of elementwise ops whose real computes live in the other
// elementwise files: each of those calls in here first, and each function here returns false
// when the loop's dtype is not complex (the caller then goes on with its real dtypes). Kept in
// one file so that the complex arithmetic (c10::complex's formulas, spelled out on real() and
// imag()) is written once.
#pragma once

#include "dispatch/value.h"

namespace tn {

struct EwIter;

enum class CxUnary {
  Neg, Conj, Reciprocal, Exp, Log, Log2, Log10, Sqrt, Rsqrt, Sin, Cos, Tan, Sinh, Cosh, Tanh,
  Sigmoid, Sgn, Square, Exp2, Expm1, Log1p, Asin, Acos, Atan, Silu, Acosh, Asinh, Atanh
};
bool cx_unary(EwIter& it, CxUnary op);
// self + alpha * other (sub passes alpha negated).
bool cx_add(EwIter& it, const Scalar& alpha);
bool cx_mul(EwIter& it);
bool cx_div(EwIter& it);
// pow.Tensor_Tensor and pow.Scalar (both operands tensors or numbers in the loop).
bool cx_pow(EwIter& it);
// pow.Tensor_Scalar: upstream's special exponents (0.5, -0.5, -1, 2, 3, -2) first.
bool cx_pow_scalar(EwIter& it, const Scalar& exponent);
// abs and angle: complex in, real out.
bool cx_abs(EwIter& it);
bool cx_angle(EwIter& it);
bool cx_eq(EwIter& it, bool equal);
enum class CxPredicate { IsNan, IsInf, IsFinite };
// addcmul: self + value * t1 * t2; addcdiv: self + value * t1 / t2 (the operands in that order).
bool cx_addcmul(EwIter& it, const Scalar& value);
bool cx_addcdiv(EwIter& it, const Scalar& value);
// lerp with a number or a tensor weight: self + w (end - self) where |w| < 1/2, else
// end - (end - self)(1 - w).
bool cx_lerp(EwIter& it, const Scalar& weight);
bool cx_lerp_tensor(EwIter& it);
bool cx_predicate(EwIter& it, CxPredicate p);

}  // namespace tn
