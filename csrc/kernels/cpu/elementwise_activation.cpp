// Activations on dense CPU tensors: sigmoid, relu, gelu ('none' with erf, 'tanh' with the tanh
// approximation), silu, softplus, hardtanh, hardsigmoid, leaky_relu, hardswish, elu (and its
// backward; selu and celu over it), threshold, hard/softshrink (and their backward), mish (and
// its backward). The formulas and their order of operations are upstream's
// scalar kernels; float16/bfloat16 compute in float.
//
// Numerics: upstream's scalar path uses std:: functions, as here (measured bit-identical on
// strided inputs); its SIMD path (Note [Vector and scalar paths]) computes sigmoid and silu with
// SLEEF's exp, gelu('tanh') with SLEEF's tanh, and gelu('none') with its own erf polynomial
// (float16, and float32/bfloat16 rows that do not go to oneDNN): built with SLEEF
// (elementwise_sleef.h) these agree bit for bit; for float32 sigmoid, silu and gelu('tanh') are
// whole vector kernels with SLEEF's expf and tanhf inlined (vec::sigmoid_f32, vec::silu_f32,
// vec::gelu_tanh_f32: the same bits).
// Upstream's contiguous float32 and bfloat16 gelu('none') run oneDNN's gelu_erf (here
// vec::gelu_erf_f32, vec_math.h), and its float64 one a newer SLEEF's erf (here std::erf);
// neither is reproduced, and the agreement tests measure them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "kernels/cpu/elementwise_complex.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/cpu/vec_math.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

// sigmoid(x) = 1 / (1 + exp(-x)); integers compute in the default float dtype.
void sigmoid_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Sigmoid)) return;
  ew_dispatch<kEwFloats>(it.common, "sigmoid_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    auto scalar = [](A a) { return A(1) / (A(1) + std::exp(-a)); };
    auto pre = [](A a) { return A(0) - a; };
    auto post = [](A, A e) { return A(1) / (A(1) + e); };
    if constexpr (std::is_same_v<T, float>) {
      if (sleef::available()) return ew_run_vec_f32(it, vec::sigmoid_f32, scalar);
    }
    ew_run_simd<T, T>(it, [=](A a) { return post(a, sleef::exp(pre(a))); }, scalar);
  });
}

constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::sigmoid", kFloat, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid_", kFloatI, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid.out", kFloatO, sigmoid_compute);

// relu(x) = clamp_min(x, 0): std::max(x, 0) in the input's dtype, so NaN stays NaN.
void relu_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwInts | kEwFloats>(it.common, "clamp_min_scalar_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) { return a < A(0) ? A(0) : a; });
  });
}

constexpr EwRule kRelu = ew_rule(1, V::Functional, D::Common, O::Same, ew_check_relu);
constexpr EwRule kReluI = ew_rule(1, V::InPlace, D::Common, O::Same, ew_check_relu);
constexpr EwRule kReluOX = ew_rule(1, V::Out, D::Common, O::Exact, ew_check_relu);
TN_REGISTER_ELEMENTWISE("aten::relu", kRelu, relu_compute);
TN_REGISTER_ELEMENTWISE("aten::relu_", kReluI, relu_compute);
TN_REGISTER_ELEMENTWISE("aten::relu.out", kReluOX, relu_compute);

// gelu('none') over every row in float, a chunk at a time through vec::gelu_erf_f32 (the loop
// converts other dtypes to float and back, as ew_run does).
void gelu_erf_rows(const EwIter& it) {
  ew_detail::run_rows<float, float>(
      it, [](float* o, const std::tuple<const float*>& in, int64_t m, int64_t, int64_t,
             char* const*) { vec::gelu_erf_f32(std::get<0>(in), o, m); });
}

// gelu(x, approximate) (approximate is argument 1):
//   'none': x * 0.5 * (1 + erf(x / sqrt(2)))
//   'tanh': 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// upstream's compiler fuses x + 0.044715 * x^3 into an FMA on both paths (measured).
void gelu_compute(EwIter& it, const Call& c) {
  bool tanh_form = c.arg(1).str == "tanh";
  ew_dispatch<kEwFloats>(it.common, "GeluKernelImpl", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if (tanh_form) {
      const A beta = static_cast<A>(M_SQRT2 * M_2_SQRTPI * 0.5);
      const A kappa = static_cast<A>(0.044715);
      auto inner = [=](A x) { return beta * std::fma(kappa, x * x * x, x); };
      auto post = [](A x, A t) { return A(0.5) * x * (A(1) + t); };
      auto scalar = [=](A x) { return post(x, std::tanh(inner(x))); };
      if constexpr (std::is_same_v<T, float>) {
        if (sleef::available()) return ew_run_vec_f32(it, vec::gelu_tanh_f32, scalar);
      }
      ew_run_simd<T, T>(it, [=](A x) { return post(x, sleef::tanh(inner(x))); }, scalar);
    } else {
      const A alpha = static_cast<A>(M_SQRT1_2);
      auto scalar = [=](A x) { return x * A(0.5) * (A(1) + std::erf(x * alpha)); };
      if constexpr (std::is_same_v<T, double>) {
        // Upstream's SIMD path calls its bundled SLEEF's erf, which Debian's 3.5 does not
        // reproduce (std::erf matches it more often: 4,009 against 3,996 of 4,096 inputs).
        ew_run<T, T>(it, scalar);
      } else {
        // Upstream hands contiguous float32 and bfloat16 inputs of more than one element to
        // oneDNN (use_mkldnn in its Activation.cpp), computed here with our piecewise
        // polynomial gelu (vec_math.h; std::erf without AVX2+FMA), in float, rounded once to T.
        const TensorImpl* self = it.ops[0].tensor;
        bool onednn = !std::is_same_v<T, Half> && self->is_contiguous() && self->numel() > 1;
        if (onednn && vec::gelu_erf_available())
          gelu_erf_rows(it);
        else if (onednn)
          ew_run<T, T>(it, scalar);
        else
          ew_run_simd<T, T>(
              it, [=](A x) { return x * A(0.5) * (A(1) + sleef::erf_simd(x * alpha)); }, scalar);
      }
    }
  });
}

// gelu's argument check, in the rule so that Meta refuses it too, as upstream's meta does.
void check_gelu(const Call& c, const EwSpec&) {
  const std::string& approximate = c.arg(1).str;
  TN_CHECK(approximate == "none" || approximate == "tanh",
           "approximate argument must be either none or tanh.");
}
// gelu's and silu's dtype checks, in the rule (once the output is settled, where upstream's
// compute makes them) so that Meta refuses what CPU refuses; upstream's own meta kernels let an
// integral input through (CPU: NotImplementedError "\"silu_cpu\" not implemented for 'Long'").
void check_floating(const EwSpec& s, const char* kernel) {
  TN_CHECK_KIND(is_floating(s.common), NotImplemented, "\"", kernel, "\" not implemented for '",
                c10_dtype_name(s.common), "'");
}
void check_gelu_dtype(const Call&, const EwSpec& s) { check_floating(s, "GeluKernelImpl"); }
void check_silu_dtype(const Call&, const EwSpec& s) {
  if (!is_complex(s.common)) check_floating(s, "silu_cpu");  // upstream's silu takes complex
}

constexpr EwRule kGelu =
    ew_rule(1, V::Functional, D::Common, O::Same, check_gelu, check_gelu_dtype);
constexpr EwRule kGeluI = ew_rule(1, V::InPlace, D::Common, O::Same, check_gelu, check_gelu_dtype);
constexpr EwRule kGeluO = ew_rule(1, V::Out, D::Common, O::Same, check_gelu, check_gelu_dtype);
TN_REGISTER_ELEMENTWISE("aten::gelu", kGelu, gelu_compute);
TN_REGISTER_ELEMENTWISE("aten::gelu_", kGeluI, gelu_compute);
TN_REGISTER_ELEMENTWISE("aten::gelu.out", kGeluO, gelu_compute);

constexpr EwRule kSilu = ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_silu_dtype);
constexpr EwRule kSiluI = ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_silu_dtype);
constexpr EwRule kSiluO = ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_silu_dtype);

// silu(x) = x / (1 + exp(-x)).
void silu_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Silu)) return;
  ew_dispatch<kEwFloats>(it.common, "silu_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    auto scalar = [](A x) { return x / (A(1) + std::exp(-x)); };
    auto pre = [](A x) { return -x; };
    auto post = [](A x, A e) { return x / (A(1) + e); };
    if constexpr (std::is_same_v<T, float>) {
      if (sleef::available()) return ew_run_vec_f32(it, vec::silu_f32, scalar);
    }
    ew_run_simd<T, T>(it, [=](A x) { return post(x, sleef::exp(pre(x))); }, scalar);
  });
}

TN_REGISTER_ELEMENTWISE("aten::silu", kSilu, silu_compute);
TN_REGISTER_ELEMENTWISE("aten::silu_", kSiluI, silu_compute);
TN_REGISTER_ELEMENTWISE("aten::silu.out", kSiluO, silu_compute);

// softplus(self, beta, threshold) = self where self * beta > threshold, else
// log1p(exp(self * beta)) / beta (upstream's formula; std:: functions, within the allowance of
// its SLEEF vector path).
void softplus_compute(EwIter& it, const Call& c) {
  for (int i : {1, 2}) check_scalar_fits(c.scalar(i), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "softplus_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A beta = static_cast<A>(c.scalar(1).to_double());
    const A th = static_cast<A>(c.scalar(2).to_double());
    ew_run<T, T>(it, [beta, th](A x) {
      return x * beta > th ? x : std::log1p(std::exp(x * beta)) / beta;
    });
  });
}
constexpr EwRule kSoftplus = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSoftplusO = ew_rule(1, V::Out, D::Common, O::Same);
TN_REGISTER_ELEMENTWISE("aten::softplus", kSoftplus, softplus_compute);
TN_REGISTER_ELEMENTWISE("aten::softplus.out", kSoftplusO, softplus_compute);

// hardtanh(self, min_val, max_val): upstream's clamp(self, min_val, max_val) (NaN stays NaN);
// bool refused by name as upstream's check does.
void check_hardtanh_dtype(const Call&, const EwSpec& s) {
  TN_CHECK(s.common != ScalarType::Bool, "Bool inputs not supported for hardtanh");
}
// Integer inputs take the limits truncated to integers (upstream keeps them from promoting the
// result), unsigned ones refuse negative limits; each limit must fit the compute type.
void hardtanh_compute(EwIter& it, const Call& c) {
  const bool integral = is_integral(it.common, false);
  Scalar lo_s = c.scalar(1), hi_s = c.scalar(2);
  if (integral) {
    lo_s = Scalar::from_int(lo_s.to_int());
    hi_s = Scalar::from_int(hi_s.to_int());
    TN_CHECK(it.common != ScalarType::Byte || (lo_s.i >= 0 && hi_s.i >= 0),
             "cannot do hardtanh on an unsigned type with negative limits");
  }
  check_scalar_fits(lo_s, opmath_type(it.common));
  check_scalar_fits(hi_s, opmath_type(it.common));
  ew_dispatch<kEwInts | kEwFloats>(it.common, "clamp_scalar_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A lo = integral ? static_cast<A>(lo_s.i) : static_cast<A>(lo_s.to_double());
    const A hi = integral ? static_cast<A>(hi_s.i) : static_cast<A>(hi_s.to_double());
    ew_run<T, T>(it, [lo, hi](A x) {
      if constexpr (std::is_floating_point_v<A>)
        if (std::isnan(x)) return x;
      return std::min(std::max(x, lo), hi);
    });
  });
}
constexpr EwRule kHardtanh = ew_rule(1, V::Functional, D::Common, O::Same, check_hardtanh_dtype);
constexpr EwRule kHardtanhI = ew_rule(1, V::InPlace, D::Common, O::Same, check_hardtanh_dtype);
constexpr EwRule kHardtanhO = ew_rule(1, V::Out, D::Common, O::Same, check_hardtanh_dtype);
TN_REGISTER_ELEMENTWISE("aten::hardtanh", kHardtanh, hardtanh_compute);
TN_REGISTER_ELEMENTWISE("aten::hardtanh_", kHardtanhI, hardtanh_compute);
TN_REGISTER_ELEMENTWISE("aten::hardtanh.out", kHardtanhO, hardtanh_compute);

// hardsigmoid(self) = min(max(self + 3, 0), 6) / 6, in float for the 16-bit floats.
void check_hardsigmoid_dtype(const Call&, const EwSpec& s) {
  check_floating(s, "hardsigmoid_cpu");
}
void hardsigmoid_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "hardsigmoid_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A x) { return std::min(std::max(x + A(3), A(0)), A(6)) / A(6); });
  });
}
constexpr EwRule kHardsigmoid =
    ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_hardsigmoid_dtype);
constexpr EwRule kHardsigmoidI =
    ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_hardsigmoid_dtype);
constexpr EwRule kHardsigmoidO =
    ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_hardsigmoid_dtype);
TN_REGISTER_ELEMENTWISE("aten::hardsigmoid", kHardsigmoid, hardsigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::hardsigmoid_", kHardsigmoidI, hardsigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::hardsigmoid.out", kHardsigmoidO, hardsigmoid_compute);

// leaky_relu(self, negative_slope=0.01) = self > 0 ? self : self * negative_slope, the slope
// taken in the opmath type (float for the 16-bit floats), as upstream's kernel.
void check_leaky_relu_dtype(const Call&, const EwSpec& s) { check_floating(s, "leaky_relu_cpu"); }
void leaky_relu_compute(EwIter& it, const Call& c) {
  ew_dispatch<kEwFloats>(it.common, "leaky_relu_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A slope = static_cast<A>(c.scalar(1).to_double());
    ew_run<T, T>(it, [slope](A x) { return x > A(0) ? x : x * slope; });
  });
}
constexpr EwRule kLeakyRelu =
    ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_leaky_relu_dtype);
constexpr EwRule kLeakyReluI =
    ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_leaky_relu_dtype);
constexpr EwRule kLeakyReluO =
    ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_leaky_relu_dtype);
TN_REGISTER_ELEMENTWISE("aten::leaky_relu", kLeakyRelu, leaky_relu_compute);
TN_REGISTER_ELEMENTWISE("aten::leaky_relu_", kLeakyReluI, leaky_relu_compute);
TN_REGISTER_ELEMENTWISE("aten::leaky_relu.out", kLeakyReluO, leaky_relu_compute);

// hardswish(self) = self * min(max(self + 3, 0), 6) / 6, in float for the 16-bit floats (the
// steps of upstream's scalar and vector kernels, exact IEEE operations either way).
void check_hardswish_dtype(const Call&, const EwSpec& s) { check_floating(s, "hardswish_cpu"); }
void hardswish_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "hardswish_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A x) { return x * std::min(std::max(x + A(3), A(0)), A(6)) / A(6); });
  });
}
constexpr EwRule kHardswish =
    ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_hardswish_dtype);
constexpr EwRule kHardswishI =
    ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_hardswish_dtype);
constexpr EwRule kHardswishO =
    ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_hardswish_dtype);
TN_REGISTER_ELEMENTWISE("aten::hardswish", kHardswish, hardswish_compute);
TN_REGISTER_ELEMENTWISE("aten::hardswish_", kHardswishI, hardswish_compute);
TN_REGISTER_ELEMENTWISE("aten::hardswish.out", kHardswishO, hardswish_compute);


// elu(self, alpha=1, scale=1, input_scale=1) = self < 0 ? expm1(self * input_scale) * alpha *
// scale : self * scale (upstream's Elu.h): the vector path (SLEEF's expm1) takes the positive
// branch where self >= 0, the scalar one (std::expm1) the negative branch where self < 0 (they
// differ on NaN only in which NaN; a bfloat16 NaN stored by the vector path is 0xFFFF,
// vec_result); the coefficients in the element type, float for the 16-bit floats.
void check_elu_dtype(const Call&, const EwSpec& s) { check_floating(s, "elu_cpu"); }
void elu_compute(EwIter& it, const Call& c) {
  for (int i : {1, 2, 3}) check_scalar_fits(c.scalar(i), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "elu_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A alpha = static_cast<A>(c.scalar(1).to_double());
    const A poscoef = static_cast<A>(c.scalar(2).to_double());
    const A negiptcoef = static_cast<A>(c.scalar(3).to_double());
    const A negcoef = alpha * poscoef;
    ew_run_simd<T, T>(
        it,
        [=](A x) {
          return vec_result<T>(x >= A(0) ? x * poscoef
                                         : sleef::expm1(x * negiptcoef) * negcoef);
        },
        [=](A x) { return x < A(0) ? std::expm1(x * negiptcoef) * negcoef : x * poscoef; });
  });
}
constexpr EwRule kElu = ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_elu_dtype);
constexpr EwRule kEluI = ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_elu_dtype);
constexpr EwRule kEluO = ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_elu_dtype);
TN_REGISTER_ELEMENTWISE("aten::elu", kElu, elu_compute);
TN_REGISTER_ELEMENTWISE("aten::elu_", kEluI, elu_compute);
TN_REGISTER_ELEMENTWISE("aten::elu.out", kEluO, elu_compute);

// elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result): where
// self_or_result is not positive, grad * input_scale * (result + alpha * scale) (is_result) or
// grad * input_scale * alpha * scale * exp(self * input_scale); grad * scale elsewhere. The
// vector path (SLEEF's exp) tests b > 0, the scalar one (std::exp) b <= 0, as upstream's.
void check_elu_backward_dtype(const Call&, const EwSpec& s) {
  check_floating(s, "elu_backward_cpu");
}
// upstream's meta check, before the operands are read.
void check_elu_backward_slope(const Call& c, const EwSpec&) {
  TN_CHECK(!c.to_bool(4) || c.scalar(1).to_double() >= 0.0, "In-place elu backward calculation "
           "is triggered with a negative slope which is not supported. This is caused by calling "
           "in-place forward function with a negative slope, please call out-of-place version "
           "instead.");
}
void elu_backward_compute(EwIter& it, const Call& c) {
  const bool is_result = c.to_bool(4);
  for (int i : {1, 2, 3}) check_scalar_fits(c.scalar(i), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "elu_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A alpha = static_cast<A>(c.scalar(1).to_double());
    const A poscoef = static_cast<A>(c.scalar(2).to_double());
    const A negiptcoef = static_cast<A>(c.scalar(3).to_double());
    const A negcoef = alpha * poscoef;
    auto negative = [=](A a, A b, auto exp) {
      return is_result ? a * negiptcoef * (b + negcoef)
                       : a * negiptcoef * negcoef * exp(b * negiptcoef);
    };
    ew_run_simd<T, T, T>(
        it,
        [=](A a, A b) {
          return vec_result<T>(b > A(0) ? a * poscoef
                                        : negative(a, b, [](A v) { return sleef::exp(v); }));
        },
        [=](A a, A b) {
          return b <= A(0) ? negative(a, b, [](A v) { return std::exp(v); }) : a * poscoef;
        });
  });
}
// The operands are grad_output (0) and self_or_result (5).
constexpr EwArgs kEluBackwardOperands{{0, 5}, 2};
constexpr EwRule kEluBackward{kEluBackwardOperands, kEluBackwardOperands, V::Functional,
                              D::Common, O::Same, check_elu_backward_slope,
                              check_elu_backward_dtype};
constexpr EwRule kEluBackwardO{kEluBackwardOperands, kEluBackwardOperands, V::Out, D::Common,
                               O::Same, check_elu_backward_slope, check_elu_backward_dtype};
TN_REGISTER_ELEMENTWISE("aten::elu_backward", kEluBackward, elu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::elu_backward.grad_input", kEluBackwardO, elu_backward_compute);

// selu(self) / selu_: elu with upstream's SELU constants; celu(self, alpha) / celu_: elu with
// alpha, scale 1, input scale 1 / alpha (alpha 0 refused). Upstream's composites.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
template <bool kInPlace>
void selu(Call& c) {
  c.ret(call_tensor(kInPlace ? "aten::elu_" : "aten::elu",
                    {c.arg(0), Value::of_scalar(Scalar::from_double(kSeluAlpha)),
                     Value::of_scalar(Scalar::from_double(kSeluScale)),
                     Value::of_scalar(Scalar::from_int(1))}));
}
template <bool kInPlace>
void celu(Call& c) {
  const double alpha = c.scalar(1).to_double();
  TN_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  c.ret(call_tensor(kInPlace ? "aten::elu_" : "aten::elu",
                    {c.arg(0), c.arg(1), Value::of_scalar(Scalar::from_double(1.0)),
                     Value::of_scalar(Scalar::from_double(1.0 / alpha))}));
}
TN_REGISTER_COMPOSITE("aten::selu", selu<false>);
TN_REGISTER_COMPOSITE("aten::selu_", selu<true>);
TN_REGISTER_COMPOSITE("aten::celu", celu<false>);
TN_REGISTER_COMPOSITE("aten::celu_", celu<true>);


// threshold(self, threshold, value) = self <= threshold ? value : self, for every real dtype
// but bool; threshold and value in the element type (the threshold in float for the 16-bit
// floats), as upstream's kernel. NaN is kept (a bfloat16 one stored by the vector path as
// 0xFFFF, vec_result, here and in the shrinks and mish).
void threshold_compute(EwIter& it, const Call& c) {
  for (int i : {1, 2}) check_scalar_fits(c.scalar(i), it.common);
  ew_dispatch<kEwInts | kEwFloats>(it.common, "threshold_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const bool integral = std::is_integral_v<T>;
    const A th = integral ? static_cast<A>(static_cast<T>(c.scalar(1).to_int()))
                          : static_cast<A>(c.scalar(1).to_double());
    const A value = integral ? static_cast<A>(static_cast<T>(c.scalar(2).to_int()))
                             : static_cast<A>(static_cast<T>(c.scalar(2).to_double()));
    ew_run_split<T, T>(it, [=](A x) { return vec_result<T>(x <= th ? value : x); },
                       [=](A x) { return x <= th ? value : x; });
  });
}
constexpr EwRule kThreshold = ew_rule(1, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kThresholdI = ew_rule(1, V::InPlace, D::Common, O::SafeCast);
constexpr EwRule kThresholdO = ew_rule(1, V::Out, D::Common, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::threshold", kThreshold, threshold_compute);
TN_REGISTER_ELEMENTWISE("aten::threshold_", kThresholdI, threshold_compute);
TN_REGISTER_ELEMENTWISE("aten::threshold.out", kThresholdO, threshold_compute);

// hardshrink(self, lambd=0.5) = 0 where -lambd <= self <= lambd, else self (NaN kept);
// softshrink(self, lambd=0.5) = self - lambd above lambd, self + lambd below -lambd, 0 between
// (NaN kept): +0 on the vector path, self * 0 (a signed zero) on the scalar one. lambd in the
// element type (softshrink: float for the 16-bit floats), non-negative and finite in it.
void check_hardshrink_dtype(const Call&, const EwSpec& s) { check_floating(s, "hardshrink_cpu"); }
void check_softshrink_dtype(const Call&, const EwSpec& s) { check_floating(s, "softshrink_cpu"); }
void hardshrink_compute(EwIter& it, const Call& c) {
  check_scalar_fits(c.scalar(1), it.common);
  ew_dispatch<kEwFloats>(it.common, "hardshrink_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A l = static_cast<A>(static_cast<T>(c.scalar(1).to_double()));
    ew_run_split<T, T>(it, [=](A x) { return vec_result<T>(x >= -l && x <= l ? A(0) : x); },
                       [=](A x) { return x >= -l && x <= l ? A(0) : x; });
  });
}
void check_softshrink_lambda(const Call& c, const EwSpec& s) {
  const double l = c.scalar(1).to_double();
  double hi = 0;
  ew_dispatch<kEwFloats>(s.common, "softshrink_cpu", [&](auto zero) {
    using T = decltype(zero);
    hi = static_cast<double>(std::numeric_limits<acc_t<T>>::max());
    if constexpr (std::is_same_v<T, Half>) hi = 65504.0;
    if constexpr (std::is_same_v<T, BFloat16>) hi = 3.3895313892515355e38;
  });
  std::ostringstream range;
  range << hi;
  TN_CHECK(l >= 0 && l <= hi, "lambda must be in range [0, ", range.str(), "] for input dtype ",
           c10_dtype_name(s.common), ", but found ", c.scalar(1).to_double());
}
void softshrink_compute(EwIter& it, const Call& c) {
  check_scalar_fits(c.scalar(1), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "softshrink_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A l = static_cast<A>(c.scalar(1).to_double());
    ew_run_split<T, T>(
        it,
        [=](A x) {
          return vec_result<T>(x != x ? x : x > l ? x - l : (x < -l ? x + l : A(0)));
        },
        [=](A x) { return x > l ? x - l : (x < -l ? x + l : x * A(0)); });
  });
}
constexpr EwRule kHardshrink =
    ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_hardshrink_dtype);
constexpr EwRule kHardshrinkO = ew_rule(1, V::Out, D::Common, O::Same, nullptr,
                                        check_hardshrink_dtype);
void check_softshrink(const Call& c, const EwSpec& s) {
  check_softshrink_dtype(c, s);
  check_softshrink_lambda(c, s);
}
constexpr EwRule kSoftshrink =
    ew_rule(1, V::Functional, D::Common, O::Same, nullptr, check_softshrink);
constexpr EwRule kSoftshrinkO = ew_rule(1, V::Out, D::Common, O::Same, nullptr,
                                        check_softshrink);
TN_REGISTER_ELEMENTWISE("aten::hardshrink", kHardshrink, hardshrink_compute);
TN_REGISTER_ELEMENTWISE("aten::hardshrink.out", kHardshrinkO, hardshrink_compute);
TN_REGISTER_ELEMENTWISE("aten::softshrink", kSoftshrink, softshrink_compute);
TN_REGISTER_ELEMENTWISE("aten::softshrink.out", kSoftshrinkO, softshrink_compute);

// hardshrink_backward / softshrink_backward(grad, self, lambd) = 0 where -lambd <= self <=
// lambd, else grad (upstream's shrink_backward kernel, lambd in the element type); its vector
// path masks grad where self < -lambd or self > lambd, so a NaN self gives 0 there, grad on the
// scalar path.
template <const char* kName>
void check_shrink_backward_dtype(const Call&, const EwSpec& s) { check_floating(s, kName); }
void shrink_backward_compute(EwIter& it, const Call& c) {
  check_scalar_fits(c.scalar(2), it.common);
  ew_dispatch<kEwFloats>(it.common, "shrink_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A l = static_cast<A>(static_cast<T>(c.scalar(2).to_double()));
    ew_run_split<T, T, T>(
        it, [=](A g, A x) { return vec_result<T>(x < -l || x > l ? g : A(0)); },
        [=](A g, A x) { return x >= -l && x <= l ? A(0) : g; });
  });
}
constexpr char kShrinkBackwardName[] = "shrink_backward_cpu";
constexpr EwRule kShrinkBackward = ew_rule(2, V::Functional, D::Common, O::Same, nullptr,
                                           check_shrink_backward_dtype<kShrinkBackwardName>);
constexpr EwRule kShrinkBackwardO = ew_rule(2, V::Out, D::Common, O::Same, nullptr,
                                            check_shrink_backward_dtype<kShrinkBackwardName>);
TN_REGISTER_ELEMENTWISE("aten::hardshrink_backward", kShrinkBackward, shrink_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardshrink_backward.grad_input", kShrinkBackwardO,
                        shrink_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::softshrink_backward", kShrinkBackward, shrink_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::softshrink_backward.grad_input", kShrinkBackwardO,
                        shrink_backward_compute);

// mish(self) = self * tanh(log1p(exp(self))): SLEEF's exp, log1p and tanh on the vector path
// (a NaN self's own NaN comes out, as upstream's vector product keeps its first operand's),
// std::'s on the scalar one, in float for the 16-bit floats.
void check_mish_dtype(const Call&, const EwSpec& s) { check_floating(s, "mish_cpu"); }
void mish_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "mish_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd<T, T>(
        it,
        [](A x) {
          return vec_result<T>(x != x ? x : x * sleef::tanh(sleef::log1p(sleef::exp(x))));
        },
        [](A x) { return x * std::tanh(std::log1p(std::exp(x))); });
  });
}
constexpr EwRule kMish = ew_rule(1, V::Functional, D::Common, O::Same, nullptr,
                                 check_mish_dtype);
constexpr EwRule kMishI = ew_rule(1, V::InPlace, D::Common, O::Same, nullptr, check_mish_dtype);
constexpr EwRule kMishO = ew_rule(1, V::Out, D::Common, O::Same, nullptr, check_mish_dtype);
TN_REGISTER_ELEMENTWISE("aten::mish", kMish, mish_compute);
TN_REGISTER_ELEMENTWISE("aten::mish_", kMishI, mish_compute);
TN_REGISTER_ELEMENTWISE("aten::mish.out", kMishO, mish_compute);

// mish_backward(grad_output, self) = grad * (t + self * sigmoid(self) * (1 - t * t)),
// t = tanh(log1p(exp(self))) (upstream's kernel; SLEEF on the vector path); upstream's AVX2
// build fuses 1 - t * t and the sum with the product before it.
void check_mish_backward_dtype(const Call&, const EwSpec& s) {
  check_floating(s, "mish_backward_cpu");
}
void mish_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "mish_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_simd<T, T, T>(
        it,
        [](A dy, A x) {
          const A sigmoid = A(1) / (A(1) + sleef::exp(-x));
          const A t = sleef::tanh(sleef::log1p(sleef::exp(x)));
          return vec_result<T>(dy * std::fma(x * sigmoid, std::fma(-t, t, A(1)), t));
        },
        [](A dy, A x) {
          const A sigmoid = A(1) / (A(1) + std::exp(-x));
          const A t = std::tanh(std::log1p(std::exp(x)));
          return dy * std::fma(x * sigmoid, std::fma(-t, t, A(1)), t);
        });
  });
}
constexpr EwRule kMishBackward = ew_rule(2, V::Functional, D::Common, O::Same, nullptr,
                                         check_mish_backward_dtype);
TN_REGISTER_ELEMENTWISE("aten::mish_backward", kMishBackward, mish_backward_compute);

}  // namespace
}  // namespace tn
