// The modified Bessel functions of the first kind on dense CPU tensors: i0 (with i0_ and
// i0.out), special_i0e, special_i1 and special_i1e (with their .out), and the alias special_i0
// (.out). Integer and bool inputs compute in the default float dtype (upstream's
// unary_float_op); complex inputs are refused in upstream's words.
//
// Numerics, per upstream 2.13's Math.h (from the Cephes library): |x| <= 8 sums a Chebyshev
// series in x / 2 - 2, |x| > 8 one in 32 / |x| - 2 over sqrt(|x|) (Clenshaw's recurrence,
// chbevl), scaled by exp(|x|) for i0 and i1; i1 and i1e take x's sign. float32 and float64
// compute in their own type (float32 with the float64 coefficients rounded to float for i0/i0e,
// and with its own shorter float tables for i1/i1e); float16 and bfloat16 compute in float and
// round once (i0e's scalar path for them rounds every step: i0e_narrow). Bit for bit.
// The paths (Note [Vector and scalar paths]) decide only a bfloat16 NaN's bits (vec_result):
//   i0    a vml kernel (vec::map of Vectorized::i0, itself the scalar function per lane): every
//         element takes the vector store;
//   i0e   cpu_kernel_vec: vector blocks, then the scalar tail (ew_run_split);
//   i1, i1e  scalar cpu_kernel.
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "kernels/composite/ops.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);

// Cephes's Chebyshev coefficients (highest order first), as published with its i0/i1.
// exp(-x) I0(x) on [0, 8].
constexpr double kI0A[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
// exp(-x) sqrt(x) I0(x) on [8, inf), in 32 / x - 2.
constexpr double kI0B[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
// exp(-x) I1(x) / x on [0, 8]; float uses the last 17 (as float literals).
constexpr double kI1A[] = {
    2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
    3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
    9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
    -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
    4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
    -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
    2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
    -1.76416518357834055153E-1,  2.52587186443633654823E-1};
constexpr float kI1AFloat[] = {
    9.38153738649577178388E-9f,  -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
    -8.56872026469545474066E-7f, 3.47025130813767847674E-6f,  -1.32731636560394358279E-5f,
    4.78156510755005422638E-5f,  -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
    -1.51357245063125314899E-3f, 4.15642294431288815669E-3f,  -1.05640848946261981558E-2f,
    2.47264490306265168283E-2f,  -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
    -1.76416518357834055153E-1f, 2.52587186443633654823E-1f};
// exp(-x) sqrt(x) I1(x) on [8, inf); float uses the last 7.
constexpr double kI1B[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
    3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};
constexpr float kI1BFloat[] = {
    -3.83538038596423702205E-9f, -2.63146884688951950684E-8f, -2.51223623787020892529E-7f,
    -3.88256480887769039346E-6f, -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
    7.78576235018280120474E-1f};

// A coefficient table in T: float32 rounds i0's double coefficients (upstream declares them
// `static const T[]` from double literals).
template <typename T, size_t N>
struct Table {
  T c[N];
  explicit Table(const double (&d)[N]) {
    for (size_t i = 0; i < N; ++i) c[i] = static_cast<T>(d[i]);
  }
};
template <typename T>
const Table<T, 30>& i0_a() {
  static const Table<T, 30> t(kI0A);
  return t;
}
template <typename T>
const Table<T, 25>& i0_b() {
  static const Table<T, 25> t(kI0B);
  return t;
}

// Clenshaw's recurrence for sum c[i] T_i(x / 2), c highest order first. Upstream's AVX2 and
// AVX-512 kernel builds target FMA, and GCC contracts its x * b1 - b2 into one fused step
// (measured: every float32/float64 result equals the fused recurrence's, about a quarter
// differed unfused); its baseline build, run on CPUs without AVX2, does not fuse.
template <bool Fused, typename T>
T chbevl(T x, const T* c, size_t n) {
  T b0 = c[0], b1 = 0, b2 = 0;
  for (size_t i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = (Fused ? std::fma(x, b1, -b2) : x * b1 - b2) + c[i];
  }
  return T(0.5) * (b0 - b2);
}

// The series of i1/i1e: double's full tables, float's short ones.
template <bool F, typename T>
T i1_small(T y) {
  if constexpr (std::is_same_v<T, float>) return chbevl<F>(y, kI1AFloat, 17);
  else return chbevl<F>(y, kI1A, 29);
}
template <bool F, typename T>
T i1_large(T y) {
  if constexpr (std::is_same_v<T, float>) return chbevl<F>(y, kI1BFloat, 7);
  else return chbevl<F>(y, kI1B, 25);
}

template <bool F, typename T>
T i0_of(T v) {
  const T x = std::abs(v);
  if (x <= T(8)) return std::exp(x) * chbevl<F>(x / T(2) - T(2), i0_a<T>().c, 30);
  return std::exp(x) * chbevl<F>(T(32) / x - T(2), i0_b<T>().c, 25) / std::sqrt(x);
}
template <bool F, typename T>
T i0e_of(T v) {
  const T x = std::abs(v);
  if (x <= T(8)) return chbevl<F>(x / T(2) - T(2), i0_a<T>().c, 30);
  return chbevl<F>(T(32) / x - T(2), i0_b<T>().c, 25) / std::sqrt(x);
}
template <bool F, typename T>
T i1_of(T v) {
  const T x = std::abs(v);
  const T r = x <= T(8) ? std::exp(x) * x * i1_small<F>(x / T(2) - T(2))
                        : std::exp(x) * i1_large<F>(T(32) / x - T(2)) / std::sqrt(x);
  return v < T(0) ? -r : r;
}
template <bool F, typename T>
T i1e_of(T v) {
  const T x = std::abs(v);
  const T r = x <= T(8) ? i1_small<F>(x / T(2) - T(2)) * x
                        : i1_large<F>(T(32) / x - T(2)) / std::sqrt(x);
  return v < T(0) ? -r : r;
}

// Runs body(std::bool_constant<fused>{}) with upstream's build's choice of fusing.
template <typename B>
void with_fusing(B&& body) {
  if (ew_cpu_has_avx2_fma()) body(std::true_type{});
  else body(std::false_type{});
}

// i0: vml's vec::map, the vector store for every element.
void i0_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "i0_vml_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    with_fusing([&](auto f) {
      ew_run<T, T>(it, [](A a) { return vec_result<T>(i0_of<decltype(f)::value>(a)); });
    });
  });
}
// i0e's scalar function for float16/bfloat16: upstream's calc_i0e has no float overload for
// them, so every step rounds to T (c10's Half/BFloat16 arithmetic), the coefficients are the
// doubles rounded through float, and the last division is in float (T / float is a float).
template <typename T>
T i0e_narrow(float v) {
  auto r = [](float f) { return static_cast<float>(static_cast<T>(f)); };
  const float x = std::fabs(v);
  const bool small = x <= 8.0f;
  const double* d = small ? kI0A : kI0B;
  const size_t n = small ? 30 : 25;
  const float y = small ? r(r(x / 2.0f) - 2.0f) : r(r(32.0f / x) - 2.0f);
  float b0 = r(static_cast<float>(d[0])), b1 = 0, b2 = 0;
  for (size_t i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = r(r(r(y * b1) - b2) + r(static_cast<float>(d[i])));
  }
  const float sum = r(0.5f * r(b0 - b2));
  return static_cast<T>(small ? sum : sum / std::sqrt(x));
}

// special_i0e: cpu_kernel_vec (the vector lanes compute float16/bfloat16 in float).
void i0e_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "i0e_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    with_fusing([&](auto f) {
      constexpr bool F = decltype(f)::value;
      ew_run_split<T, T>(it, [](A a) { return vec_result<T>(i0e_of<F>(a)); }, [](A a) {
        if constexpr (std::is_same_v<A, T>) return i0e_of<F>(a);
        else return i0e_narrow<T>(a);
      });
    });
  });
}
// special_i1, special_i1e: scalar cpu_kernel.
void i1_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "i1_cpu", [&](auto zero) {
    using T = decltype(zero);
    with_fusing([&](auto f) {
      ew_run<T, T>(it, [](acc_t<T> a) { return i1_of<decltype(f)::value>(a); });
    });
  });
}
void i1e_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "i1e_cpu", [&](auto zero) {
    using T = decltype(zero);
    with_fusing([&](auto f) {
      ew_run<T, T>(it, [](acc_t<T> a) { return i1e_of<decltype(f)::value>(a); });
    });
  });
}

// special_i0(.out): upstream's CompositeImplicit alias of i0(.out).
constexpr char kI0[] = "aten::i0";
constexpr char kI0Out[] = "aten::i0.out";

}  // namespace

TN_REGISTER_ELEMENTWISE("aten::i0", kFloat, i0_compute);
TN_REGISTER_ELEMENTWISE("aten::i0_", kFloatI, i0_compute);
TN_REGISTER_ELEMENTWISE("aten::i0.out", kFloatO, i0_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i0e", kFloat, i0e_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i0e.out", kFloatO, i0e_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i1", kFloat, i1_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i1.out", kFloatO, i1_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i1e", kFloat, i1e_compute);
TN_REGISTER_ELEMENTWISE("aten::special_i1e.out", kFloatO, i1e_compute);
TN_REGISTER_COMPOSITE("aten::special_i0", ops::forward_to<kI0>);
TN_REGISTER_COMPOSITE("aten::special_i0.out", ops::forward_to<kI0Out>);

}  // namespace tn
