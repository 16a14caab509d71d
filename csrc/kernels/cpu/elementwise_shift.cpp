// The bit shifts on dense CPU tensors: bitwise_left_shift / bitwise_right_shift (Tensor,
// Tensor_Scalar and Scalar_Tensor, in place and out=) and the Python-operator spellings
// __lshift__, __rshift__, __ilshift__, __irshift__ (Tensor and Scalar). Integers only (bool and
// floating results refuse as upstream's "lshift_cpu" / "rshift_cpu"), in the operands' common
// dtype, with upstream's rule for shifts out of range:
//   a << b  is 0 when b is negative (as a signed number of a's width) or >= the width;
//   a >> b  is a >> (width - 1) for signed types (the sign filled in), 0 for unsigned, then;
// otherwise the C++ shift (a left shift in the unsigned type, so that it wraps).
#include <climits>
#include <string>
#include <type_traits>

#include "kernels/cpu/elementwise_loop.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

template <typename T>
T shift_left(T a, T b) {
  constexpr T kWidth = sizeof(T) * CHAR_BIT;
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= kWidth) return 0;
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b);
}
template <typename T>
T shift_right(T a, T b) {
  constexpr T kMax = sizeof(T) * CHAR_BIT - (std::is_signed_v<T> ? 1 : 0);
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= kMax) return static_cast<T>(a >> kMax);
  return static_cast<T>(a >> b);
}

void lshift_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwInts>(it.common, "lshift_cpu", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T, T>(it, [](T a, T b) { return shift_left(a, b); });
  });
}
void rshift_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwInts>(it.common, "rshift_cpu", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T, T>(it, [](T a, T b) { return shift_right(a, b); });
  });
}

// The Python-operator spellings' meta function checks self's dtype (their CPU kernels refuse by
// the common dtype instead, in the compute): "lshift: Expected input tensor to have an integral
// dtype. Got torch.float32".
void check_dunder_on_meta(const Call& c, const EwSpec&) {
  if (c.device.type != DeviceType::Meta) return;
  const ScalarType dt = c.tensor(0)->dtype();
  if (is_integral(dt, /*include_bool=*/false)) return;
  const bool left = std::string(c.op->name).find("lshift") != std::string::npos;
  TN_FAIL(Runtime, left ? "lshift" : "rshift", ": Expected input tensor to have an integral "
          "dtype. Got torch.", info(dt).name);
}

constexpr EwRule kBin = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kBinI = ew_rule(2, V::InPlace, D::Common, O::SafeCast);
constexpr EwRule kBinO = ew_rule(2, V::Out, D::Common, O::SafeCast);
constexpr EwRule kBinOX = ew_rule(2, V::Out, D::Common, O::Exact);
constexpr EwRule kDunder =
    ew_rule(2, V::Functional, D::Common, O::SafeCast, check_dunder_on_meta);
constexpr EwRule kDunderI =
    ew_rule(2, V::InPlace, D::Common, O::SafeCast, check_dunder_on_meta);

#define TN_SHIFT(name, dunder, compute)                                               \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor", kBin, compute);                    \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_Scalar", kBin, compute);             \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_Tensor", kBin, compute);             \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Tensor", kBinI, compute);                  \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Tensor_Scalar", kBinI, compute);           \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_out", kBinO, compute);               \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_Scalar_out", kBinO, compute);        \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_Tensor_out", kBinOX, compute);       \
  TN_REGISTER_ELEMENTWISE("aten::__" dunder "__.Tensor", kDunder, compute);           \
  TN_REGISTER_ELEMENTWISE("aten::__" dunder "__.Scalar", kDunder, compute);           \
  TN_REGISTER_ELEMENTWISE("aten::__i" dunder "__.Tensor", kDunderI, compute);         \
  TN_REGISTER_ELEMENTWISE("aten::__i" dunder "__.Scalar", kDunderI, compute)

TN_SHIFT("bitwise_left_shift", "lshift", lshift_compute);
TN_SHIFT("bitwise_right_shift", "rshift", rshift_compute);

}  // namespace
}  // namespace tn
