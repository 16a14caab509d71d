// torch.special's orthogonal polynomials and Hurwitz zeta on dense CPU tensors:
// special_{chebyshev,shifted_chebyshev}_polynomial_{t,u,v,w}, special_hermite_polynomial_{h,he},
// special_laguerre_polynomial_l, special_legendre_polynomial_p (each with .x_scalar,
// .n_scalar, .out, .x_scalar_out, .n_scalar_out) and special_zeta (with .self_scalar,
// .other_scalar and their outs). Upstream's binary float ops (a Scalar operand is a wrapped
// number), computed by its scalar cpu_kernel for float and double only; the degree n is read
// as the common float type, then truncated to int64 (special_math.h). float16, bfloat16 and
// complex are refused in upstream's words. Derivatives: zeta's other's only
// (autograd/derivatives/special_functions.cpp); the polynomials are not differentiable.
#include <type_traits>

#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/special_math_table.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kBin = ew_rule(2, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kBinO = ew_rule(2, V::Out, D::CommonFloat, O::SafeCast);

template <SpecialBinary Op, const char* kName>
void binary_compute(EwIter& it, const Call&) {
  const SpecialMathTable& m = special_math();
  ew_dispatch<kEwFloats>(it.common, kName, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float>) {
      float (*f)(float, float) = m.binary_f[Op];
      ew_run<T, T, T>(it, [f](float x, float n) { return f(x, n); });
    } else if constexpr (std::is_same_v<T, double>) {
      double (*f)(double, double) = m.binary_d[Op];
      ew_run<T, T, T>(it, [f](double x, double n) { return f(x, n); });
    } else {  // upstream's AT_DISPATCH_FLOATING_TYPES has no float16/bfloat16
      TN_FAIL(NotImplemented, "\"", kName, "\" not implemented for '",
              c10_dtype_name(it.common), "'");
    }
  });
}

constexpr char kChebT[] = "chebyshev_polynomial_t_cpu";
constexpr char kChebU[] = "chebyshev_polynomial_u_cpu";
constexpr char kChebV[] = "chebyshev_polynomial_v_cpu";
constexpr char kChebW[] = "chebyshev_polynomial_w_cpu";
constexpr char kShT[] = "shifted_chebyshev_polynomial_t_cpu";
constexpr char kShU[] = "shifted_chebyshev_polynomial_u_cpu";
constexpr char kShV[] = "shifted_chebyshev_polynomial_v_cpu";
constexpr char kShW[] = "shifted_chebyshev_polynomial_w_cpu";
constexpr char kHermH[] = "hermite_polynomial_h_cpu";
constexpr char kHermHe[] = "hermite_polynomial_he_cpu";
constexpr char kLag[] = "laguerre_polynomial_l_cpu";
constexpr char kLeg[] = "legendre_polynomial_p_cpu";
constexpr char kZetaName[] = "zeta_cpu";

}  // namespace

// The six overloads of one polynomial: (Tensor x, Tensor n), x_scalar, n_scalar and the outs.
#define TN_SPECIAL_POLY(op, id, name)                                                        \
  TN_REGISTER_ELEMENTWISE("aten::" op, kBin, (binary_compute<id, name>));                   \
  TN_REGISTER_ELEMENTWISE("aten::" op ".x_scalar", kBin, (binary_compute<id, name>));       \
  TN_REGISTER_ELEMENTWISE("aten::" op ".n_scalar", kBin, (binary_compute<id, name>));       \
  TN_REGISTER_ELEMENTWISE("aten::" op ".out", kBinO, (binary_compute<id, name>));           \
  TN_REGISTER_ELEMENTWISE("aten::" op ".x_scalar_out", kBinO, (binary_compute<id, name>));  \
  TN_REGISTER_ELEMENTWISE("aten::" op ".n_scalar_out", kBinO, (binary_compute<id, name>))

TN_SPECIAL_POLY("special_chebyshev_polynomial_t", kChebyshevT, kChebT);
TN_SPECIAL_POLY("special_chebyshev_polynomial_u", kChebyshevU, kChebU);
TN_SPECIAL_POLY("special_chebyshev_polynomial_v", kChebyshevV, kChebV);
TN_SPECIAL_POLY("special_chebyshev_polynomial_w", kChebyshevW, kChebW);
TN_SPECIAL_POLY("special_shifted_chebyshev_polynomial_t", kShiftedT, kShT);
TN_SPECIAL_POLY("special_shifted_chebyshev_polynomial_u", kShiftedU, kShU);
TN_SPECIAL_POLY("special_shifted_chebyshev_polynomial_v", kShiftedV, kShV);
TN_SPECIAL_POLY("special_shifted_chebyshev_polynomial_w", kShiftedW, kShW);
TN_SPECIAL_POLY("special_hermite_polynomial_h", kHermiteH, kHermH);
TN_SPECIAL_POLY("special_hermite_polynomial_he", kHermiteHe, kHermHe);
TN_SPECIAL_POLY("special_laguerre_polynomial_l", kLaguerreL, kLag);
TN_SPECIAL_POLY("special_legendre_polynomial_p", kLegendreP, kLeg);

#undef TN_SPECIAL_POLY

TN_REGISTER_ELEMENTWISE("aten::special_zeta", kBin, (binary_compute<kZeta, kZetaName>));
TN_REGISTER_ELEMENTWISE("aten::special_zeta.self_scalar", kBin,
                        (binary_compute<kZeta, kZetaName>));
TN_REGISTER_ELEMENTWISE("aten::special_zeta.other_scalar", kBin,
                        (binary_compute<kZeta, kZetaName>));
TN_REGISTER_ELEMENTWISE("aten::special_zeta.out", kBinO, (binary_compute<kZeta, kZetaName>));
TN_REGISTER_ELEMENTWISE("aten::special_zeta.self_scalar_out", kBinO,
                        (binary_compute<kZeta, kZetaName>));
TN_REGISTER_ELEMENTWISE("aten::special_zeta.other_scalar_out", kBinO,
                        (binary_compute<kZeta, kZetaName>));

}  // namespace tn
