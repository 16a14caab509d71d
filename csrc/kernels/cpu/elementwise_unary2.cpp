// More unary float math on dense CPU tensors: acos, asin, atan, sinh, cosh, acosh, asinh,
// atanh, erfc, lgamma, digamma, polygamma and frac, each with its in-place `_` and `.out`
// spellings. The float functions compute integer and bool inputs in the default float dtype,
// as upstream's unary_float_op does; frac keeps the input's dtype and refuses integers
// ("frac_cpu" not implemented for 'Long'), as upstream's.
//
// Numerics, per upstream 2.13's UnaryOpsKernel.cpp and vml.h:
//   acos, asin, atan, erfc  its vml kernels: float32/float64 through MKL's vector math (vmsAcos...,
//                           the mode of blas_loader.h), float16/bfloat16 through SLEEF's float
//                           function (u10; erfc u15) on the value widened to float, rounded back.
//                           Every element, contiguous or not (upstream copies strided rows into
//                           a buffer and calls the same function).
//   lgamma                  a vml kernel without an MKL entry: SLEEF's lgamma u10 for every
//                           element and dtype (float16/bfloat16 through float).
//   sinh, cosh              cpu_kernel_vec, registered for AVX-512 too: SLEEF's u10 function on
//                           the vectorised blocks, std:: on the rest (ew_run_simd). Measured on an
//                           AVX-512 machine: ATEN_CPU_CAPABILITY=avx2 and avx512 give upstream
//                           different float32/float64 bits here, the others the same bits.
//   frac                    a - trunc(a), exact in every dtype.
// bfloat16 results stored by upstream's vector code turn NaN into 0xFFFF (vec_result).
// Each lane of SLEEF's vector functions depends on that lane's input only, so the scalar FMA
// variants give the vector bits (elementwise_sleef.h). Without SLEEF (or at the baseline ISA,
// where upstream's Vectorized falls back to std:: per element) the std:: functions are used;
// without MKL (OpenBLAS builds) the float32/float64 vml ops use SLEEF's functions too, which
// then agree with upstream within an ulp, not bit for bit.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/elementwise_complex.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kSame = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSameI = ew_rule(1, V::InPlace, D::Common, O::Same);
constexpr EwRule kSameO = ew_rule(1, V::Out, D::Common, O::Same);
constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);

// name / name_ / name.out with one rule family and compute.
#define TN_UNARY2(name, rule, compute)                                  \
  TN_REGISTER_ELEMENTWISE("aten::" name, rule, compute);                \
  TN_REGISTER_ELEMENTWISE("aten::" name "_", rule##I, compute);         \
  TN_REGISTER_ELEMENTWISE("aten::" name ".out", rule##O, compute)

// The SLEEF function where it is available, else the std:: one, of a in its own type.
template <typename A, typename FS, typename FStd>
A sleef_or_std(A a, FS fs, FStd fstd) {
  return sleef::available() ? fs(a) : fstd(a);
}

// An op of upstream's vml kernels: float32/float64 through MKL's vector math function `k` when
// the BLAS is MKL, every other case through `fs` (SLEEF) or `fstd` (std::) per element.
template <typename FS, typename FStd>
void vml_or_sleef(EwIter& it, const char* name, int k, FS fs, FStd fstd) {
  const Blas& b = blas();
  ew_dispatch<kEwFloats>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, float>) {
      if (k >= 0 && b.vml_s[k])
        return ew_run_array<T, T>(it, [&](float* o, const float* a, int64_t m) {
          b.vml_s[k](static_cast<int>(m), a, o, kVmlUpstreamMode);
        });
    } else if constexpr (std::is_same_v<T, double>) {
      if (k >= 0 && b.vml_d[k])
        return ew_run_array<T, T>(it, [&](double* o, const double* a, int64_t m) {
          b.vml_d[k](static_cast<int>(m), a, o, kVmlUpstreamMode);
        });
    }
    // (upstream's vec::map, whose tail is vector code too: vec_result everywhere)
    const bool use_sleef = sleef::available();
    ew_run<T, T>(it, [&](A a) { return vec_result<T>(use_sleef ? fs(a) : fstd(a)); });
  });
}

constexpr int vml_index(VmlFn f) { return static_cast<int>(f); }

void acos_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Acos)) return;
  vml_or_sleef(it, "acos_vml_cpu", vml_index(VmlFn::Acos), [](auto a) { return sleef::acos(a); },
               [](auto a) { return std::acos(a); });
}
void asin_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Asin)) return;
  vml_or_sleef(it, "asin_vml_cpu", vml_index(VmlFn::Asin), [](auto a) { return sleef::asin(a); },
               [](auto a) { return std::asin(a); });
}
void atan_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Atan)) return;
  vml_or_sleef(it, "atan_vml_cpu", vml_index(VmlFn::Atan), [](auto a) { return sleef::atan(a); },
               [](auto a) { return std::atan(a); });
}
void erfc_compute(EwIter& it, const Call&) {
  vml_or_sleef(it, "erfc_vml_cpu", vml_index(VmlFn::Erfc), [](auto a) { return sleef::erfc(a); },
               [](auto a) { return std::erfc(a); });
}
// lgamma: upstream's vml.h has no MKL entry for it (k = -1: never MKL).
void lgamma_compute(EwIter& it, const Call&) {
  vml_or_sleef(it, "lgamma_vml_cpu", -1, [](auto a) { return sleef::lgamma(a); },
               [](auto a) { return std::lgamma(a); });
}

// sinh, cosh: upstream's cpu_kernel_vec, SLEEF on the vector blocks and std:: on the tail.
void sinh_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Sinh)) return;
  ew_dispatch<kEwFloats>(it.common, "sinh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T>(
        it, vec::SleefFn::Sinh, [](A a) { return vec_result<T>(sleef::sinh(a)); },
        [](A a) { return std::sinh(a); });
  });
}
void cosh_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Cosh)) return;
  ew_dispatch<kEwFloats>(it.common, "cosh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T>(
        it, vec::SleefFn::Cosh, [](A a) { return vec_result<T>(sleef::cosh(a)); },
        [](A a) { return std::cosh(a); });
  });
}

// acosh, asinh: upstream's scalar cpu_kernel, std:: on every element (measured: its float32 and
// float64 bits are glibc's acoshf/acosh and asinhf/asinh on 4,096 inputs, not SLEEF's).
void acosh_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Acosh)) return;
  ew_dispatch<kEwFloats>(it.common, "acosh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) { return std::acosh(a); });
  });
}
void asinh_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Asinh)) return;
  ew_dispatch<kEwFloats>(it.common, "asinh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) { return std::asinh(a); });
  });
}
// atanh: cpu_kernel_vec, as sinh (measured: SLEEF's u10 bits on the vector blocks, glibc's on
// the tail of 4,099 inputs).
void atanh_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Atanh)) return;
  ew_dispatch<kEwFloats>(it.common, "atanh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T>(
        it, vec::SleefFn::Atanh, [](A a) { return vec_result<T>(sleef::atanh(a)); },
        [](A a) { return std::atanh(a); });
  });
}

// frac: a - trunc(a), exact; upstream's cpu_kernel_vec (AVX2 build) only decides the bits of
// a bfloat16 NaN (inf or NaN inputs), which its vector blocks store as 0xFFFF.
void frac_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "frac_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_split<T, T>(it, [](A a) { return vec_result<T>(a - std::trunc(a)); },
                       [](A a) { return a - std::trunc(a); });
  });
}

// digamma (lgamma's derivative needs it): upstream's calc_digamma, from Cephes, in float for
// float32/float16/bfloat16 (c10's Half and BFloat16 call the float overload) and in double for
// float64. Negative arguments reflect (psi(x) = psi(1 - x) - pi / tan(pi x), the tangent of x's
// fractional part in double); others step up to x >= 10 and sum the asymptotic series. Its bits
// matched upstream's on 12,011 float32 and float64 inputs (randn * 6, rand * 200, specials),
// unfused as written here.
template <typename T>
T digamma_of(T x) {
  constexpr double kPi = 3.14159265358979323846;
  if (x == 0) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    double whole;
    double frac_part = std::modf(static_cast<double>(x), &whole);
    double pi_over_tan = kPi / std::tan(kPi * frac_part);
    return digamma_of<T>(1 - x) - static_cast<T>(pi_over_tan);
  }
  T sum = 0;
  while (x < 10) {
    sum -= 1 / x;
    x += 1;
  }
  if (x == 10) return sum + static_cast<T>(2.25175258906672110764L);  // psi(10)
  static const T kSeries[] = {
      T(8.33333333333333333333E-2L),  T(-2.10927960927960927961E-2L),
      T(7.57575757575757575758E-3L),  T(-4.16666666666666666667E-3L),
      T(3.96825396825396825397E-3L),  T(-8.33333333333333333333E-3L),
      T(8.33333333333333333333E-2L)};
  T tail = 0;
  if (x < T(1.0e17)) {
    T z = 1 / (x * x);
    T p = 0;  // Horner from the highest power, each step rounded
    for (T c : kSeries) p = p * z + c;
    tail = z * p;
  }
  return sum + std::log(x) - (T(0.5) / x) - tail;
}

// Upstream runs it as cpu_kernel_vec (its vector path maps the same scalar function over the
// lanes) from the AVX2 build: only a bfloat16 NaN's bits depend on the path (vec_result;
// measured: 40 elements of -4.0 give 32 0xFFFF and 8 0x7FC0 under both capabilities).
void digamma_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "digamma", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_split<T, T>(it, [](A a) { return vec_result<T>(digamma_of(a)); },
                       [](A a) { return digamma_of(a); });
  });
}

// trigamma (digamma's derivative): upstream's trigamma of Math.h, in float for float32/float16/
// bfloat16 and in double for float64 (its two overloads): reflect below 1/2, step up six
// times, then the asymptotic series.
template <typename T>
T trigamma_of(T x) {
  constexpr double kPi = 3.14159265358979323846;
  T sign = 1;
  T result = 0;
  if (x < T(0.5)) {
    sign = -1;
    const T s = std::sin(static_cast<T>(kPi) * x);
    result -= (static_cast<T>(kPi) * static_cast<T>(kPi)) / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const T ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (T(1) / 6 - ixx * (T(1) / 30 - ixx * (T(1) / 42)))) / x;
  return sign * result;
}

// The Hurwitz zeta function zeta(x, q) (polygamma for n >= 2): upstream's zeta of Math.h,
// from Cephes, in Z (upstream's CPU acc_type: double for float32/float64, float for
// float16/bfloat16): the direct sum until a term is below machine epsilon or q + 9 is passed,
// then the Euler-Maclaurin tail with its 12 Bernoulli coefficients.
template <typename Z>
Z hurwitz_zeta(Z x, Z q) {
  constexpr Z kMachEp = Z(1.11022302462515654042E-16);
  static const Z kBernoulli[] = {
      Z(12.0), Z(-720.0), Z(30240.0), Z(-1209600.0), Z(47900160.0),
      Z(-1.8924375803183791606e9), Z(7.47242496e10), Z(-2.950130727918164224e12),
      Z(1.1646782814350067249e14), Z(-4.5979787224074726105e15),
      Z(1.8152105401943546773e17), Z(-7.1661652561756670113e18)};
  if (x == 1) return std::numeric_limits<Z>::infinity();
  if (x < 1) return std::numeric_limits<Z>::quiet_NaN();
  if (q <= 0) {
    if (q == std::floor(q)) return std::numeric_limits<Z>::infinity();
    if (x != std::floor(x)) return std::numeric_limits<Z>::quiet_NaN();
  }
  Z s = std::pow(q, -x);
  Z a = q;
  Z b = 0;
  int i = 0;
  while (i < 9 || a <= Z(9)) {
    ++i;
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (-kMachEp * s < b && b < kMachEp * s) return s;
  }
  const Z w = a;
  s += b * w / (x - 1);
  s -= Z(0.5) * b;
  a = 1;
  Z k = 0;
  for (i = 0; i < 12; ++i) {
    a *= x + k;
    b /= w;
    Z t = a * b / kBernoulli[i];
    s = s + t;
    t = std::fabs(t / s);
    if (t < kMachEp) return s;
    k += 1;
    a *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

// polygamma(n, x): digamma for n = 0, trigamma for 1, else (-1)^(n+1) n! zeta(n + 1, x) as
// upstream's calc_polygamma writes it (n! as exp(lgamma(n + 1)) in the element's type). T is
// the stored dtype, A the type it computes in. Measured on 200 inputs (randn * 4 and specials)
// per n and dtype: bit for bit with upstream but for float32 at n >= 2, where about 1 element
// in 10 differs in its last bit (upstream's compiler may fuse zeta's products).
template <typename T, typename A>
A polygamma_of(int64_t n, A x) {
  if (n == 0) return digamma_of(x);
  if (n == 1) return trigamma_of(x);
  using Z = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double,
                               float>;
  const A sign = (n % 2) ? A(1) : A(-1);
  const A order = static_cast<A>(n);
  // zeta returns the stored type (a float16 zeta is rounded to float16 before the product).
  const A zeta = static_cast<A>(static_cast<T>(
      hurwitz_zeta<Z>(static_cast<Z>(static_cast<T>(n + 1)), static_cast<Z>(x))));
  return sign * std::exp(std::lgamma(order + A(1))) * zeta;
}

// polygamma(int n, Tensor self) and polygamma.out read n first; polygamma_(self, int n) last.
// Upstream runs every n as a scalar cpu_kernel (no vector path).
void polygamma_compute(EwIter& it, const Call& c) {
  const int64_t n = c.args[0].tag == Value::Tag::Int ? c.to_int(0) : c.to_int(1);
  ew_dispatch<kEwFloats>(it.common, "polygamma", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [n](A a) { return polygamma_of<T>(n, a); });
  });
}

// polygamma's own check (its meta function's), before anything else.
void polygamma_check(const Call& c, const EwSpec&) {
  const int64_t n = c.args[0].tag == Value::Tag::Int ? c.to_int(0) : c.to_int(1);
  TN_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
}

// The operand is self: argument 1 of polygamma and polygamma.out, argument 0 of polygamma_.
constexpr EwRule polygamma_rule(V v) {
  EwRule r = ew_rule(1, v, D::CommonFloat, O::SafeCast, polygamma_check);
  if (v != V::InPlace) r.operands = r.dtype_from = EwArgs{{1, 0, 0}, 1};
  return r;
}
constexpr EwRule kPolygamma = polygamma_rule(V::Functional);
constexpr EwRule kPolygammaI = polygamma_rule(V::InPlace);
constexpr EwRule kPolygammaO = polygamma_rule(V::Out);

TN_UNARY2("digamma", kFloat, digamma_compute);
TN_REGISTER_ELEMENTWISE("aten::polygamma", kPolygamma, polygamma_compute);
TN_REGISTER_ELEMENTWISE("aten::polygamma_", kPolygammaI, polygamma_compute);
TN_REGISTER_ELEMENTWISE("aten::polygamma.out", kPolygammaO, polygamma_compute);
TN_UNARY2("acos", kFloat, acos_compute);
TN_UNARY2("asin", kFloat, asin_compute);
TN_UNARY2("atan", kFloat, atan_compute);
TN_UNARY2("erfc", kFloat, erfc_compute);
TN_UNARY2("lgamma", kFloat, lgamma_compute);
TN_UNARY2("sinh", kFloat, sinh_compute);
TN_UNARY2("cosh", kFloat, cosh_compute);
TN_UNARY2("frac", kSame, frac_compute);
TN_UNARY2("acosh", kFloat, acosh_compute);
TN_UNARY2("asinh", kFloat, asinh_compute);
TN_UNARY2("atanh", kFloat, atanh_compute);

}  // namespace
}  // namespace tn
