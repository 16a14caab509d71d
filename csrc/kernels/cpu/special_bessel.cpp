// torch.special's Bessel and Airy functions on dense CPU tensors, each with its .out:
// special_bessel_j0/j1/y0/y1, special_modified_bessel_i0/i1/k0/k1,
// special_scaled_modified_bessel_k0/k1, special_spherical_bessel_j0 and special_airy_ai.
// Upstream's unary float ops (integer and bool inputs compute in the default float dtype),
// computed by its scalar cpu_kernel for float and double only: float16, bfloat16 and complex
// are refused in its words ("\"bessel_j0_cpu\" not implemented for 'Half'"). The math is
// special_math.h's, in the build upstream runs on this CPU (special_math_table.h). Not
// differentiable (derivatives.yaml marks every input non_differentiable):
// autograd/derivatives/special_functions.cpp.
#include <type_traits>

#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/special_math_table.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);

// Upstream's AT_DISPATCH_FLOATING_TYPES: float and double, the rest refused by the kernel name.
template <typename F>
void dispatch_float_double(ScalarType t, const char* name, F&& f) {
  ew_dispatch<kEwFloats>(t, name, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      f(zero);
    else
      TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(t), "'");
  });
}

template <SpecialUnary Op, const char* kName>
void unary_compute(EwIter& it, const Call&) {
  const SpecialMathTable& m = special_math();
  dispatch_float_double(it.common, kName, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float>) {
      float (*f)(float) = m.unary_f[Op];
      ew_run<T, T>(it, [f](float x) { return f(x); });
    } else {
      double (*f)(double) = m.unary_d[Op];
      ew_run<T, T>(it, [f](double x) { return f(x); });
    }
  });
}

constexpr char kJ0[] = "bessel_j0_cpu";
constexpr char kJ1[] = "bessel_j1_cpu";
constexpr char kY0[] = "bessel_y0_cpu";
constexpr char kY1[] = "bessel_y1_cpu";
constexpr char kI0[] = "modified_bessel_i0_cpu";
constexpr char kI1[] = "modified_bessel_i1_cpu";
constexpr char kK0[] = "modified_bessel_k0_cpu";
constexpr char kK1[] = "modified_bessel_k1_cpu";
constexpr char kSK0[] = "scaled_modified_bessel_k0_cpu";
constexpr char kSK1[] = "scaled_modified_bessel_k1_cpu";
constexpr char kSJ0[] = "spherical_bessel_j0_cpu";
constexpr char kAi[] = "airy_ai_cpu";

}  // namespace

#define TN_SPECIAL_UNARY(op, id, name)                                              \
  TN_REGISTER_ELEMENTWISE("aten::" op, kFloat, (unary_compute<id, name>));         \
  TN_REGISTER_ELEMENTWISE("aten::" op ".out", kFloatO, (unary_compute<id, name>))

TN_SPECIAL_UNARY("special_bessel_j0", kBesselJ0, kJ0);
TN_SPECIAL_UNARY("special_bessel_j1", kBesselJ1, kJ1);
TN_SPECIAL_UNARY("special_bessel_y0", kBesselY0, kY0);
TN_SPECIAL_UNARY("special_bessel_y1", kBesselY1, kY1);
TN_SPECIAL_UNARY("special_modified_bessel_i0", kModBesselI0, kI0);
TN_SPECIAL_UNARY("special_modified_bessel_i1", kModBesselI1, kI1);
TN_SPECIAL_UNARY("special_modified_bessel_k0", kModBesselK0, kK0);
TN_SPECIAL_UNARY("special_modified_bessel_k1", kModBesselK1, kK1);
TN_SPECIAL_UNARY("special_scaled_modified_bessel_k0", kScaledBesselK0, kSK0);
TN_SPECIAL_UNARY("special_scaled_modified_bessel_k1", kScaledBesselK1, kSK1);
TN_SPECIAL_UNARY("special_spherical_bessel_j0", kSphericalBesselJ0, kSJ0);
TN_SPECIAL_UNARY("special_airy_ai", kAiryAi, kAi);

#undef TN_SPECIAL_UNARY

}  // namespace tn
