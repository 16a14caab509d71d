// The scalar functions of the torch.special Bessel, Airy and orthogonal-polynomial ops and
// zeta (special_math.h), compiled twice (Note [Special math compiled twice]), as tables of
// function pointers the kernels (special_bessel.cpp, special_polynomial.cpp) pick from.
//
// Note [Special math compiled twice]
// Upstream computes these ops in its per-CPU-capability kernel files (native/cpu/*.cpp) with
// plain C++ arithmetic, and GCC contracts a * b + c into one fused multiply-add wherever the
// build targets FMA (its AVX2 and AVX-512 builds; its baseline build, run on CPUs without
// AVX2, has no FMA). Which products fuse depends on the whole function after inlining and
// common-subexpression elimination (x * x feeding a product and a sum does not fuse), so
// rather than spell each std::fma by hand, special_math.h keeps upstream's expression shapes
// and is compiled once with target("avx2,fma") (special_math_fma.cpp) and once for the
// baseline (special_math_plain.cpp); special_math() picks the build upstream's dispatch would
// run on this CPU.
#pragma once

namespace tn {

enum SpecialUnary : int {
  kBesselJ0, kBesselJ1, kBesselY0, kBesselY1, kModBesselI0, kModBesselI1, kModBesselK0,
  kModBesselK1, kScaledBesselK0, kScaledBesselK1, kSphericalBesselJ0, kAiryAi, kUnaryCount
};
enum SpecialBinary : int {
  kChebyshevT, kChebyshevU, kChebyshevV, kChebyshevW, kShiftedT, kShiftedU, kShiftedV,
  kShiftedW, kHermiteH, kHermiteHe, kLaguerreL, kLegendreP, kZeta, kBinaryCount
};

struct SpecialMathTable {
  float (*unary_f[kUnaryCount])(float);
  double (*unary_d[kUnaryCount])(double);
  float (*binary_f[kBinaryCount])(float, float);
  double (*binary_d[kBinaryCount])(double, double);
};

const SpecialMathTable& special_math_fma();    // special_math_fma.cpp
const SpecialMathTable& special_math_plain();  // special_math_plain.cpp
// The build upstream runs here: fused where the CPU has AVX2 and FMA.
const SpecialMathTable& special_math();

}  // namespace tn
