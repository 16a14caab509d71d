// Unary math on dense CPU tensors: neg, abs, sign, the float functions (sqrt, rsqrt, exp, exp2,
// expm1, log, log2, log10, log1p, sin, cos, tan, tanh, erf, reciprocal), floor, ceil, round
// (with decimals), trunc, square, isnan, isinf, isfinite, nan_to_num, and the aliases negative,
// absolute, fix. Float functions on integer or bool inputs compute in the default float dtype,
// as upstream's; neg/abs/sign/floor... keep the input's dtype.
//
// Numerics: these are std:: functions. Upstream's CPU kernels compute exp, log, log10, log2,
// sin, cos, tan, tanh, erf and sqrt through MKL's VML (measured on this machine: even its float32
// sqrt is not always correctly rounded), and exp2, expm1, log1p through SLEEF's u10 functions;
// either may differ from std:: by an ulp. Where glibc's float function is less accurate than
// upstream's (log*, tan, tanh, erf, sin, cos), float32/float16/bfloat16 evaluate the double
// function and round: on 4,099 float32 inputs that gives log, log2 and log10 bit-identical to
// upstream and the others within an ulp more often than the float functions. exp2, expm1 and
// log1p use SLEEF as upstream does when built with it (elementwise_sleef.h). The agreement tests
// measure the rest against upstream's own float32-vs-float64 error.
#include <cmath>
#include <limits>

#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/elementwise_complex.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_math.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/cpu/elementwise_sqrt.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;
namespace m = ew_math;

constexpr EwRule kSame = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSameI = ew_rule(1, V::InPlace, D::Common, O::Same);
constexpr EwRule kSameO = ew_rule(1, V::Out, D::Common, O::Same);
constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);

// name / name_ / name.out with one rule family and compute.
#define TN_UNARY(name, rule, compute)                                   \
  TN_REGISTER_ELEMENTWISE("aten::" name, rule, compute);                \
  TN_REGISTER_ELEMENTWISE("aten::" name "_", rule##I, compute);         \
  TN_REGISTER_ELEMENTWISE("aten::" name ".out", rule##O, compute)

// --- neg, abs, sign ----------------------------------------------------------------------------

void neg_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Neg)) return;
  ew_dispatch<kEwInts | kEwFloats>(it.common, "neg_cpu", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T>(it, [](acc_t<T> a) { return m::wrap_neg(a); });
  });
}

void abs_compute(EwIter& it, const Call&) {
  if (cx_abs(it)) return;
  ew_dispatch<kEwInts | kEwFloats>(it.common, "abs_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>)
      ew_run<T, T>(it, [](A a) { return std::abs(a); });
    else
      ew_run<T, T>(it, [](A a) { return a < A(0) ? m::wrap_neg(a) : a; });
  });
}

// sign; sgn is sign for real tensors and z / |z| (0 at 0) for complex ones.
void sign_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Sgn)) return;
  ew_dispatch<kEwAll>(it.common, "sign_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, bool>(it, [](bool a) { return a; });
    else
      ew_run<T, T>(it, [](A a) { return static_cast<A>((A(0) < a) - (a < A(0))); });
  });
}

constexpr EwRule kNeg = ew_rule(1, V::Functional, D::Common, O::Same, ew_check_neg);
constexpr EwRule kNegI = ew_rule(1, V::InPlace, D::Common, O::Same, ew_check_neg);
constexpr EwRule kNegO = ew_rule(1, V::Out, D::Common, O::Same, ew_check_neg);

TN_UNARY("neg", kNeg, neg_compute);
// abs of a complex tensor is real (its own dtype otherwise); in place it is refused, as upstream.
void check_abs_in_place(const Call&, const EwSpec& s) {
  TN_CHECK(!is_complex(s.ops[0].dtype()), "In-place abs is not supported for complex tensors.");
}
constexpr EwRule kAbs = ew_rule(1, V::Functional, D::ToReal, O::Same);
constexpr EwRule kAbsI = ew_rule(1, V::InPlace, D::Common, O::Same, check_abs_in_place);
constexpr EwRule kAbsO = ew_rule(1, V::Out, D::ToReal, O::Same);
TN_UNARY("abs", kAbs, abs_compute);
void check_sign_real(const Call&, const EwSpec& s) {
  TN_CHECK_KIND(!is_complex(s.ops[0].dtype()), NotImplemented, "Unlike NumPy, torch.sign is not "
                "intended to support complex numbers. Please use torch.sgn instead.");
}
constexpr EwRule kSign = ew_rule(1, V::Functional, D::Common, O::Same, check_sign_real);
constexpr EwRule kSignI = ew_rule(1, V::InPlace, D::Common, O::Same, check_sign_real);
constexpr EwRule kSignO = ew_rule(1, V::Out, D::Common, O::Same, check_sign_real);
TN_UNARY("sign", kSign, sign_compute);
TN_UNARY("sgn", kSame, sign_compute);

// --- float functions ---------------------------------------------------------------------------

// A compute for expr over the float dtypes (the rule has already promoted integers).
#define TN_FLOAT_FN(fn, expr)                                               \
  void fn##_compute(EwIter& it, const Call&) {                              \
    if (cx_fn_##fn(it)) return;                                             \
    ew_dispatch<kEwFloats>(it.common, #fn "_cpu", [&](auto zero) {          \
      using T = decltype(zero);                                             \
      using A = acc_t<T>;                                                   \
      ew_run<T, T>(it, [](A a) { return static_cast<A>(expr); });           \
    });                                                                     \
  }

// As TN_FLOAT_FN, but float32 and float64 go through MKL's vector math when the BLAS is MKL, as
// upstream's kernels do (blas_loader.h); float16 and bfloat16 (which upstream computes in float
// with its own vector code) and OpenBLAS builds keep expr.
#define TN_VML_FN(fn, vml, expr)                                                     \
  void fn##_compute(EwIter& it, const Call&) {                                       \
    if (cx_fn_##fn(it)) return;                                                      \
    const Blas& b = blas();                                                          \
    const int k = static_cast<int>(VmlFn::vml);                                      \
    ew_dispatch<kEwFloats>(it.common, #fn "_cpu", [&](auto zero) {                   \
      using T = decltype(zero);                                                      \
      using A = acc_t<T>;                                                            \
      if constexpr (std::is_same_v<T, float>) {                                      \
        if (b.vml_s[k])                                                              \
          return ew_run_array<T, T>(it, [&](float* o, const float* a, int64_t m) {   \
            b.vml_s[k](static_cast<int>(m), a, o, kVmlUpstreamMode);                  \
          });                                                                        \
      } else if constexpr (std::is_same_v<T, double>) {                              \
        if (b.vml_d[k])                                                              \
          return ew_run_array<T, T>(it, [&](double* o, const double* a, int64_t m) { \
            b.vml_d[k](static_cast<int>(m), a, o, kVmlUpstreamMode);                  \
          });                                                                        \
      }                                                                              \
      ew_run<T, T>(it, [](A a) { return static_cast<A>(expr); });                    \
    });                                                                              \
  }

// The complex computes of the functions below (false for real dtypes); erf has none upstream.
bool cx_fn_sqrt(EwIter& it) { return cx_unary(it, CxUnary::Sqrt); }
bool cx_fn_exp(EwIter& it) { return cx_unary(it, CxUnary::Exp); }
bool cx_fn_log(EwIter& it) { return cx_unary(it, CxUnary::Log); }
bool cx_fn_log2(EwIter& it) { return cx_unary(it, CxUnary::Log2); }
bool cx_fn_log10(EwIter& it) { return cx_unary(it, CxUnary::Log10); }
bool cx_fn_sin(EwIter& it) { return cx_unary(it, CxUnary::Sin); }
bool cx_fn_cos(EwIter& it) { return cx_unary(it, CxUnary::Cos); }
bool cx_fn_tan(EwIter& it) { return cx_unary(it, CxUnary::Tan); }
bool cx_fn_tanh(EwIter& it) { return cx_unary(it, CxUnary::Tanh); }
bool cx_fn_erf(EwIter&) { return false; }
bool cx_fn_reciprocal(EwIter& it) { return cx_unary(it, CxUnary::Reciprocal); }

TN_VML_FN(sqrt, Sqrt, std::sqrt(a))
TN_VML_FN(exp, Exp, std::exp(a))
TN_VML_FN(log, Ln, std::log(double(a)))
TN_VML_FN(log2, Log2, std::log2(double(a)))
TN_VML_FN(log10, Log10, std::log10(double(a)))

TN_VML_FN(sin, Sin, std::sin(double(a)))
TN_VML_FN(cos, Cos, std::cos(double(a)))
TN_VML_FN(tan, Tan, std::tan(double(a)))
TN_VML_FN(tanh, Tanh, std::tanh(double(a)))
TN_VML_FN(erf, Erf, std::erf(double(a)))
TN_FLOAT_FN(reciprocal, A(1) / a)

// rsqrt: upstream's cpu_kernel_vec (registered without AVX-512: 64-byte blocks). float16 and
// bfloat16's vector blocks compute 1 / sqrt in float and round once; their scalar tail rounds
// the sqrt to the dtype first (c10's sqrt of a Half is a Half), then divides in float.
void rsqrt_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Rsqrt)) return;
  ew_dispatch<kEwFloats>(it.common, "rsqrt_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, A>)  // exact steps: the AVX2 build where the CPU has it
      ew_run_wide<T, T>(it, [](A a) { return A(1) / std::sqrt(a); });
    else
      ew_run_split<T, T>(it, [](A a) { return vec_result<T>(A(1) / std::sqrt(a)); },
                         [](A a) { return A(1) / static_cast<A>(static_cast<T>(std::sqrt(a))); });
  });
}

// exp2: upstream's SIMD path is SLEEF's exp2 u10, its scalar path std::exp2.
void exp2_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Exp2)) return;
  ew_dispatch<kEwFloats>(it.common, "exp2_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd_map<T, T>(it, vec::SleefFn::Exp2, [](A a) { return sleef::exp2(a); },
                          [](A a) { return std::exp2(a); });
  });
}

// expm1 and log1p: upstream computes every element, contiguous or not, with SLEEF's u10
// functions (its VML path); without SLEEF, the double function rounded.
// float32 takes SLEEF's vector function over each chunk (the scalar one's bits, vec_math.h).
template <typename FS, typename FD>
void sleef_everywhere(EwIter& it, const char* name, vec::SleefFn f, FS fs, FD fd) {
  ew_dispatch<kEwFloats>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if (std::is_same_v<T, float> && sleef::available())
      ew_run_array<float, float>(it, [f](float* o, const float* a, int64_t m) {
        vec::sleef_map_f32(f, a, nullptr, o, m);
      });
    else if (sleef::available())
      ew_run<T, T>(it, [&](A a) { return fs(a); });
    else
      ew_run<T, T>(it, [&](A a) { return static_cast<A>(fd(static_cast<double>(a))); });
  });
}

void expm1_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Expm1)) return;
  sleef_everywhere(it, "expm1_cpu", vec::SleefFn::Expm1, [](auto a) { return sleef::expm1(a); },
                   [](double a) { return std::expm1(a); });
}
void log1p_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Log1p)) return;
  sleef_everywhere(it, "log1p_cpu", vec::SleefFn::Log1p, [](auto a) { return sleef::log1p(a); },
                   [](double a) { return std::log1p(a); });
}

TN_UNARY("sqrt", kFloat, sqrt_compute);
TN_UNARY("rsqrt", kFloat, rsqrt_compute);
TN_UNARY("exp", kFloat, exp_compute);
TN_UNARY("exp2", kFloat, exp2_compute);
TN_UNARY("expm1", kFloat, expm1_compute);
TN_UNARY("log", kFloat, log_compute);
TN_UNARY("log2", kFloat, log2_compute);
TN_UNARY("log10", kFloat, log10_compute);
TN_UNARY("log1p", kFloat, log1p_compute);
TN_UNARY("sin", kFloat, sin_compute);
TN_UNARY("cos", kFloat, cos_compute);
TN_UNARY("tan", kFloat, tan_compute);
TN_UNARY("tanh", kFloat, tanh_compute);
TN_UNARY("erf", kFloat, erf_compute);
TN_UNARY("reciprocal", kFloat, reciprocal_compute);

// --- rounding ----------------------------------------------------------------------------------

// Integers are copied (upstream: result.copy_(self)); bool is refused by the float kernel.
template <typename F>
void rounding(EwIter& it, const char* name, F f) {
  if (is_integral(it.common, false)) {
    ew_dispatch<kEwInts>(it.common, name, [&](auto zero) {
      using T = decltype(zero);
      ew_run<T, T>(it, [](T a) { return a; });
    });
    return;
  }
  ew_dispatch<kEwFloats>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T>(it, [&](acc_t<T> a) { return f(a); });
  });
}

void floor_compute(EwIter& it, const Call&) {
  rounding(it, "floor_vml_cpu", [](auto a) { return std::floor(a); });
}
void ceil_compute(EwIter& it, const Call&) {
  rounding(it, "ceil_vml_cpu", [](auto a) { return std::ceil(a); });
}
void trunc_compute(EwIter& it, const Call&) {
  rounding(it, "trunc_vml_cpu", [](auto a) { return std::trunc(a); });
}
void round_compute(EwIter& it, const Call&) {  // half to even
  rounding(it, "round_vml_cpu", [](auto a) { return std::nearbyint(a); });
}

// round.decimals (decimals is argument 1): scaled by 10^|decimals| in the op-math type;
// integers are refused, even for decimals=0.
void round_decimals_compute(EwIter& it, const Call& c) {
  int64_t decimals = c.to_int(1);
  if (decimals == 0) {
    ew_dispatch<kEwFloats>(it.common, "round_vml_cpu", [&](auto zero) {
      using T = decltype(zero);
      ew_run<T, T>(it, [](acc_t<T> a) { return std::nearbyint(a); });
    });
    return;
  }
  ew_dispatch<kEwFloats>(it.common, "round_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    bool neg = decimals < 0;
    A ten_pow = static_cast<A>(std::pow(10.0, static_cast<double>(neg ? -decimals : decimals)));
    if (neg)
      ew_run<T, T>(it, [=](A a) { return std::nearbyint(a / ten_pow) * ten_pow; });
    else
      ew_run<T, T>(it, [=](A a) { return std::nearbyint(a * ten_pow) / ten_pow; });
  });
}

TN_UNARY("floor", kSame, floor_compute);
TN_UNARY("ceil", kSame, ceil_compute);
TN_UNARY("trunc", kSame, trunc_compute);
TN_UNARY("round", kSame, round_compute);
TN_REGISTER_ELEMENTWISE("aten::round.decimals", kSame, round_decimals_compute);
TN_REGISTER_ELEMENTWISE("aten::round_.decimals", kSameI, round_decimals_compute);
TN_REGISTER_ELEMENTWISE("aten::round.decimals_out", kSameO, round_decimals_compute);

// --- square: pow(self, 2), as upstream composes it (so it keeps integer dtypes) -----------------

Value two() { return Value::of_scalar(Scalar::from_int(2)); }
void square(Call& c) { c.ret(call_tensor("aten::pow.Tensor_Scalar", {c.arg(0), two()})); }
void square_(Call& c) { c.ret(call_tensor("aten::pow_.Scalar", {c.arg(0), two()})); }
void square_out(Call& c) {
  c.ret(call_tensor("aten::pow.Tensor_Scalar_out", {c.arg(0), two(), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::square", square);
TN_REGISTER_COMPOSITE("aten::square_", square_);
TN_REGISTER_COMPOSITE("aten::square.out", square_out);

// --- isnan, isinf, isfinite, nan_to_num ------------------------------------------------------

template <typename F>
void predicate(EwIter& it, const char* name, bool integral_value, F f) {
  ew_dispatch<kEwAll>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>)
      ew_run<bool, T>(it, [&](A a) { return f(a); });
    else
      ew_run<bool, T>(it, [=](A) { return integral_value; });
  });
}

void isnan_compute(EwIter& it, const Call&) {
  if (cx_predicate(it, CxPredicate::IsNan)) return;
  predicate(it, "isnan", false, [](auto a) { return a != a; });
}
void isinf_compute(EwIter& it, const Call&) {
  if (cx_predicate(it, CxPredicate::IsInf)) return;
  predicate(it, "isinf", false, [](auto a) { return std::isinf(a); });
}
void isfinite_compute(EwIter& it, const Call&) {
  if (cx_predicate(it, CxPredicate::IsFinite)) return;
  predicate(it, "isfinite", true, [](auto a) { return std::isfinite(a); });
}

constexpr EwRule kPred = ew_rule(1, V::Functional, D::Bool, O::Any);
constexpr EwRule kPredOX = ew_rule(1, V::Out, D::Bool, O::Exact);
TN_REGISTER_ELEMENTWISE("aten::isnan", kPred, isnan_compute);
TN_REGISTER_ELEMENTWISE("aten::isnan.out", kPredOX, isnan_compute);
TN_REGISTER_ELEMENTWISE("aten::isinf", kPred, isinf_compute);
TN_REGISTER_ELEMENTWISE("aten::isinf.out", kPredOX, isinf_compute);

// nan_to_num(self, float? nan, float? posinf, float? neginf): integers are copied; the
// replacements default to 0, the dtype's max and its lowest, cast from double as upstream.
void nan_to_num_compute(EwIter& it, const Call& c) {
  if (!is_floating(it.common)) {
    ew_dispatch<kEwAll>(it.common, "nan_to_num", [&](auto zero) {
      using T = decltype(zero);
      ew_run<T, T>(it, [](acc_t<T> a) { return a; });
    });
    return;
  }
  auto arg = [&](size_t i) -> std::optional<double> {
    if (c.arg(i).is_none()) return std::nullopt;
    return c.to_double(i);
  };
  std::optional<double> nan = arg(1), pos = arg(2), neg = arg(3);
  ew_dispatch<kEwFloats>(it.common, "nan_to_num", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    auto as_t = [](double v) { return static_cast<A>(ew_cast<T>(v)); };
    A nan_r = as_t(nan.value_or(0.0));
    A pos_r = pos ? as_t(*pos) : static_cast<A>(max_of<T>());
    A neg_r = neg ? as_t(*neg) : static_cast<A>(lowest_of<T>());
    ew_run<T, T>(it, [=](A a) {
      if (a != a) return nan_r;
      if (a == std::numeric_limits<A>::infinity()) return pos_r;
      if (a == -std::numeric_limits<A>::infinity()) return neg_r;
      return a;
    });
  });
}

constexpr EwRule kNanToNum = ew_rule(1, V::Functional, D::Common, O::Any, ew_check_nan_to_num);
constexpr EwRule kNanToNumI = ew_rule(1, V::InPlace, D::Common, O::Any, ew_check_nan_to_num);
constexpr EwRule kNanToNumO = ew_rule(1, V::Out, D::Common, O::Any, ew_check_nan_to_num);
TN_UNARY("nan_to_num", kNanToNum, nan_to_num_compute);

}  // namespace
void ew_sqrt(EwIter& it, const Call& c) { sqrt_compute(it, c); }

}  // namespace tn
