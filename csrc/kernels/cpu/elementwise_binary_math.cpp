// Binary math with upstream's two paths (BinaryOpsKernel.cpp): SLEEF on the vector elements,
// std:: on the scalar ones, in float for the 16-bit floats:
//   atan2(self, other)   a float op (integers computed in the default float dtype);
//   hypot(self, other)   floats only ("hypot_cpu" refuses the rest);
//   logaddexp / logaddexp2(self, other) floats only: max(a, b) + log1p(exp(-|a - b|)) (base 2:
//                        exp2, the log1p scaled by 1 / ln 2 and added in one fused step), a
//                        itself where a and b are the same infinity. Upstream's scalar path
//                        takes std::max (a NaN second operand loses), its vector path maximum
//                        (NaN wins).
//   xlogy(self, other)   a float op: self * log(other), 0 where self is 0, NaN where other is
//                        NaN; upstream's scalar loop only (std::log; for the 16-bit floats
//                        the log is rounded to the type, then the product in float rounded
//                        again). Scalar operands are wrapped numbers.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

void check_floating_dtype(const EwSpec& s, const char* kernel) {
  TN_CHECK_KIND(is_floating(s.common), NotImplemented, "\"", kernel, "\" not implemented for '",
                c10_dtype_name(s.common), "'");
}

void atan2_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "atan2_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T, T>(
        it, vec::SleefFn::Atan2, [](A a, A b) { return vec_result<T>(sleef::atan2(a, b)); },
        [](A a, A b) { return std::atan2(a, b); });
  });
}
constexpr EwRule kAtan2 = ew_rule(2, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kAtan2I = ew_rule(2, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kAtan2O = ew_rule(2, V::Out, D::CommonFloat, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::atan2", kAtan2, atan2_compute);
TN_REGISTER_ELEMENTWISE("aten::atan2_", kAtan2I, atan2_compute);
TN_REGISTER_ELEMENTWISE("aten::atan2.out", kAtan2O, atan2_compute);

void check_hypot_dtype(const Call&, const EwSpec& s) { check_floating_dtype(s, "hypot_cpu"); }
void hypot_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "hypot_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T, T>(
        it, vec::SleefFn::Hypot, [](A a, A b) { return vec_result<T>(sleef::hypot(a, b)); },
        [](A a, A b) { return std::hypot(a, b); });
  });
}
constexpr EwRule kHypot = ew_rule(2, V::Functional, D::Common, O::SafeCast, nullptr,
                                  check_hypot_dtype);
constexpr EwRule kHypotI = ew_rule(2, V::InPlace, D::Common, O::SafeCast, nullptr,
                                   check_hypot_dtype);
constexpr EwRule kHypotO = ew_rule(2, V::Out, D::Common, O::SafeCast, nullptr,
                                   check_hypot_dtype);
TN_REGISTER_ELEMENTWISE("aten::hypot", kHypot, hypot_compute);
TN_REGISTER_ELEMENTWISE("aten::hypot_", kHypotI, hypot_compute);
TN_REGISTER_ELEMENTWISE("aten::hypot.out", kHypotO, hypot_compute);

template <bool kBase2>
void check_logaddexp_dtype(const Call&, const EwSpec& s) {
  check_floating_dtype(s, kBase2 ? "logaddexp2_cpu" : "logaddexp_cpu");
}
template <bool kBase2>
void logaddexp_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, kBase2 ? "logaddexp2_cpu" : "logaddexp_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A inf = std::numeric_limits<A>::infinity();
    const A inv_ln2 = static_cast<A>(1.0 / M_LN2);
    // m + tail: base 2 fuses the scaling into the sum (upstream's build contracts
    // m + log1p(.) * (1 / ln 2) on both paths).
    auto sum = [=](A m, A d, auto exp_f, auto log1p_f) {
      if constexpr (kBase2) return std::fma(log1p_f(exp_f(-d)), inv_ln2, m);
      else return m + log1p_f(exp_f(-d));
    };
    ew_run_simd<T, T, T>(
        it,
        [=](A a, A b) {
          if (a == b && std::fabs(a) == inf) return vec_result<T>(a);
          const A m = (a != a || b != b) ? std::numeric_limits<A>::quiet_NaN() : std::max(a, b);
          const A d = std::fabs(a - b);
          if constexpr (kBase2)
            return vec_result<T>(sum(m, d, [](A v) { return sleef::exp2(v); },
                                     [](A v) { return sleef::log1p(v); }));
          else
            return vec_result<T>(sum(m, d, [](A v) { return sleef::exp(v); },
                                     [](A v) { return sleef::log1p(v); }));
        },
        [=](A a, A b) {
          if (std::isinf(a) && a == b) return a;
          const A m = std::max(a, b);
          const A d = std::fabs(a - b);
          if constexpr (kBase2)
            return sum(m, d, [](A v) { return std::exp2(v); }, [](A v) { return std::log1p(v); });
          else
            return sum(m, d, [](A v) { return std::exp(v); }, [](A v) { return std::log1p(v); });
        });
  });
}
constexpr EwRule kLae = ew_rule(2, V::Functional, D::Common, O::SafeCast, nullptr,
                                check_logaddexp_dtype<false>);
constexpr EwRule kLaeO = ew_rule(2, V::Out, D::Common, O::SafeCast, nullptr,
                                 check_logaddexp_dtype<false>);
constexpr EwRule kLae2 = ew_rule(2, V::Functional, D::Common, O::SafeCast, nullptr,
                                 check_logaddexp_dtype<true>);
constexpr EwRule kLae2O = ew_rule(2, V::Out, D::Common, O::SafeCast, nullptr,
                                  check_logaddexp_dtype<true>);
TN_REGISTER_ELEMENTWISE("aten::logaddexp", kLae, logaddexp_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::logaddexp.out", kLaeO, logaddexp_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::logaddexp2", kLae2, logaddexp_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::logaddexp2.out", kLae2O, logaddexp_compute<true>);

void xlogy_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "xlogy_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A x, A y) {
      if (y != y) return std::numeric_limits<A>::quiet_NaN();
      if (x == A(0)) return A(0);
      return A(x * A(T(std::log(y))));  // the log rounded to T first, as upstream's
    });
  });
}
constexpr EwRule kXlogy = ew_rule(2, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kXlogyI = ew_rule(2, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kXlogyO = ew_rule(2, V::Out, D::CommonFloat, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::xlogy.Tensor", kXlogy, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy.Scalar_Self", kXlogy, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy.Scalar_Other", kXlogy, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy_.Tensor", kXlogyI, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy_.Scalar_Other", kXlogyI, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy.OutTensor", kXlogyO, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy.OutScalar_Self", kXlogyO, xlogy_compute);
TN_REGISTER_ELEMENTWISE("aten::xlogy.OutScalar_Other", kXlogyO, xlogy_compute);

}  // namespace
}  // namespace tn
