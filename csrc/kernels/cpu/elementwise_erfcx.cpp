// special_erfcx and special_log_ndtr (and their .out) on dense CPU tensors, as upstream 2.13's
// scalar cpu_kernels compute Math.h's calc_erfcx / calc_log_ndtr: float and double only
// (float16/bfloat16 refused in its words, integer and bool inputs in the default float dtype).
//
// erfcx (Steven G. Johnson's, erfcx_table.h): x > 50 a continued fraction (one term beyond
// 5e7), 0 <= x <= 50 a degree-6 Chebyshev polynomial from the table at y100 = 400 / (4 + x),
// x < 0 through 2 exp(x^2) - erfcx(-x) (infinite below -26.7). The table's polynomial is
// evaluated in double for float too (its coefficients are double literals), rounded once.
// log_ndtr: t = x / sqrt(2); x < -1 log(erfcx(-t) / 2) - t^2, else log1p(-erfc(t) / 2).
// Upstream's AVX2 build (these kernels have no AVX-512 one; its baseline build fuses nothing)
// was measured: the table's Horner steps and log_ndtr's log(...) - t * t are not fused
// (38,520 float64 inputs agree unfused; fusing the last two steps moved 128 by an ulp), the
// continued fraction's products-plus-constant are (erfcx_large).
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/erfcx_table.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kFloat1 = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloat1O = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);

// erfcx_y100: the table's polynomial for y100 in [k, k + 1), in double; 1 at y100 = 100.
template <typename T>
T erfcx_y100(T y100) {
  const int k = static_cast<int>(y100);
  if (k < 0 || k > 99) return T(1);
  const double t = static_cast<double>(T(2) * y100 - static_cast<T>(2 * k + 1));
  const double* c = erfcx_detail::kErfcxCheb[k];
  double r = c[6];
  for (int i = 5; i >= 0; --i) r = r * t + c[i];
  return static_cast<T>(r);
}

// x > 50: ispi ((x^2)(x^2 + 4.5) + 2) / (x ((x^2)(x^2 + 5) + 3.75)). The 4.5, 2 and 3.75 are
// double literals, so for float the sums with them (and the products they meet) are double.
// Upstream's AVX2 build fuses each product-plus-constant whose product is in the sum's type
// (measured on 40,000 float64 inputs: every one agrees so, 221 to 556 differ otherwise); its
// baseline build fuses nothing.
template <typename T>
T erfcx_large(T x, bool fused) {
  auto madd = [fused](double a, double b, double c) {
    return fused ? std::fma(a, b, c) : a * b + c;
  };
  const T ispi = static_cast<T>(0.56418958354775628694807945156);
  if (static_cast<double>(x) > 5e7) return ispi / x;
  const T xx = x * x;
  const double dxx = xx;
  const double num = static_cast<double>(ispi) * madd(dxx, dxx + 4.5, 2.0);
  if constexpr (std::is_same_v<T, double>) {
    return num / (x * madd(xx, xx + 5.0, 3.75));
  } else {
    // (x^2)(x^2 + 5) is a float product: it meets 3.75 only once widened
    const double den = static_cast<double>(x) * (static_cast<double>(xx * (xx + 5.0f)) + 3.75);
    return static_cast<T>(num / den);
  }
}

template <typename T>
T erfcx_of(T x, bool fused) {
  if (x != x) return x;
  if (x >= T(0)) {
    if (x > T(50)) return erfcx_large(x, fused);
    return erfcx_y100(T(400) / (T(4) + x));
  }
  if (static_cast<double>(x) < -26.7) return std::numeric_limits<T>::infinity();
  // Math.h's unqualified exp is C's double one, for float too: 2 exp(x^2) and the difference
  // are double, rounded once (measured: 40,000 of 40,000 float32 inputs agree so, 38,281
  // with expf). 2 exp(x^2) is exact, so fusing it with the difference changes nothing.
  const double e2 = 2.0 * std::exp(static_cast<double>(x * x));
  if (static_cast<double>(x) < -6.1) return static_cast<T>(e2);
  return static_cast<T>(e2 - static_cast<double>(erfcx_y100(T(400) / (T(4) - x))));
}

// calc_log_ndtr (c10::frac_sqrt_2<T> is 1/sqrt(2) rounded to T).
template <typename T>
T log_ndtr_of(T x, bool fused) {
  const T t = x * static_cast<T>(0.707106781186547524400844362104849039);
  if (x < T(-1)) return std::log(erfcx_of(-t, fused) / T(2)) - t * t;
  // upstream's build negates erfc's NaN (ours folds -e / 2 into e / -2, which keeps its sign)
  if (t != t) return -t;
  return std::log1p(-std::erfc(t) / T(2));
}

// A scalar cpu_kernel dispatched on float and double only (AT_DISPATCH_FLOATING_TYPES).
template <typename Fn>
void float_double_only(EwIter& it, const char* name, Fn&& fn) {
  ew_dispatch<kEwFloats>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (is_reduced_float_v<T>) {
      TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '",
              c10_dtype_name(it.common), "'");
    } else {
      fn(T{});
    }
  });
}

void erfcx_compute(EwIter& it, const Call&) {
  float_double_only(it, "erfcx_cpu", [&](auto zero) {
    using T = decltype(zero);
    const bool fused = cpu::isa() != cpu::Isa::Base;
    ew_run<T, T>(it, [fused](T a) { return erfcx_of(a, fused); });
  });
}

void log_ndtr_compute(EwIter& it, const Call&) {
  float_double_only(it, "log_ndtr_cpu", [&](auto zero) {
    using T = decltype(zero);
    const bool fused = cpu::isa() != cpu::Isa::Base;
    ew_run<T, T>(it, [fused](T a) { return log_ndtr_of(a, fused); });
  });
}

}  // namespace

TN_REGISTER_ELEMENTWISE("aten::special_erfcx", kFloat1, erfcx_compute);
TN_REGISTER_ELEMENTWISE("aten::special_erfcx.out", kFloat1O, erfcx_compute);
TN_REGISTER_ELEMENTWISE("aten::special_log_ndtr", kFloat1, log_ndtr_compute);
TN_REGISTER_ELEMENTWISE("aten::special_log_ndtr.out", kFloat1O, log_ndtr_compute);

}  // namespace tn
