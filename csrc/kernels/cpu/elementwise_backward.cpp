// The pointwise backward kernels upstream's derivatives call: tanh_backward, sigmoid_backward,
// threshold_backward, gelu_backward, silu_backward (dense CPU), with upstream's arithmetic: its
// compiler contracts tanh_backward's 1 - b*b into one fused step on both its vector and its
// scalar path (measured: bit-identical with std::fma on rows of 1 to 1000 and strided ones,
// 1 ulp apart in about a third of the elements without).
//
// gelu_backward and silu_backward: which products upstream's AVX2 build fuses was measured on
// 2^21 contiguous (its vector path) and 2^20 strided (its scalar path) float32 and float64
// inputs against upstream's own results, trying each combination of fused and separate steps;
// the forms below are the ones that give every element its bits (tanh form: inner, 1 - t^2
// and 1 + 3 kappa x^2 fused, the last sum not; silu: 1 + x (1 - s) fused). Vector elements
// take SLEEF's tanh/exp, scalar ones std::'s, as upstream's paths do. gelu('none') agrees bit
// for bit on the scalar path only: upstream's contiguous float32 rows go to oneDNN's gelu
// backward and its float64 vector path to its bundled SLEEF's erf, neither reproduced here.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"
#include "kernels/cpu/vec_math.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

// tanh_backward(grad_output, output) = grad_output * (1 - output^2).
void tanh_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "tanh_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run_wide<T, T, T>(it, [](A a, A b) { return a * std::fma(-b, b, A(1)); });
  });
}

// sigmoid_backward(grad_output, output) = grad_output * (1 - output) * output.
void sigmoid_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "sigmoid_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A a, A b) { return a * (A(1) - b) * b; });
  });
}

// threshold_backward(grad_output, self, threshold) = self <= threshold ? 0 : grad_output.
void threshold_backward_compute(EwIter& it, const Call& c) {
  ew_dispatch<kEwInts | kEwFloats>(it.common, "threshold_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A th = static_cast<A>(c.scalar(2).to_double());
    ew_run<T, T, T>(it, [th](A g, A x) { return x <= th ? A(0) : g; });
  });
}

// softplus_backward(grad_output, self, beta, threshold): grad_output where self * beta >
// threshold, else grad_output * z / (z + 1), z = exp(self * beta).
void softplus_backward_compute(EwIter& it, const Call& c) {
  for (int i : {2, 3}) check_scalar_fits(c.scalar(i), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "softplus_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A beta = static_cast<A>(c.scalar(2).to_double());
    const A th = static_cast<A>(c.scalar(3).to_double());
    ew_run<T, T, T>(it, [beta, th](A g, A x) {
      const A z = std::exp(x * beta);
      return x * beta > th ? g : g * z / (z + A(1));
    });
  });
}

// hardtanh_backward(grad_output, self, min_val, max_val): 0 where self <= min_val or
// self >= max_val, else grad_output.
void hardtanh_backward_compute(EwIter& it, const Call& c) {
  for (int i : {2, 3}) check_scalar_fits(c.scalar(i), opmath_type(it.common));
  ew_dispatch<kEwFloats>(it.common, "hardtanh_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A lo = static_cast<A>(c.scalar(2).to_double());
    const A hi = static_cast<A>(c.scalar(3).to_double());
    ew_run<T, T, T>(it, [lo, hi](A g, A x) { return x <= lo || x >= hi ? A(0) : g; });
  });
}

// leaky_relu_backward(grad_output, self, negative_slope, self_is_result): grad_output where
// self > 0, else grad_output * negative_slope. Upstream refuses a result given as self with a
// negative slope (the result's sign no longer tells the input's).
void check_leaky_relu_backward(const Call& c, const EwSpec&) {
  TN_CHECK(!c.to_bool(3) || c.scalar(2).to_double() >= 0.0,
           "In-place leakyReLu backward calculation is triggered with a negative slope which is "
           "not supported. This is caused by calling in-place forward function with a negative "
           "slope, please call out-of-place version instead. File an issue at "
           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
           "backward calculation with negative slope");
}
void leaky_relu_backward_compute(EwIter& it, const Call& c) {
  ew_dispatch<kEwFloats>(it.common, "leaky_relu_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A slope = static_cast<A>(c.scalar(2).to_double());
    ew_run<T, T, T>(it, [slope](A g, A x) { return x > A(0) ? g : g * slope; });
  });
}

// hardsigmoid_backward(grad_output, self): grad_output times 1/6 where -3 < self < 3, else 0;
// the 1/6 is upstream's float constant (1.0f / 6.0f), in double too.
void hardsigmoid_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "hardsigmoid_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A sixth = static_cast<A>(1.0f / 6.0f);
    ew_run<T, T, T>(it, [sixth](A g, A x) { return x > A(-3) && x < A(3) ? g * sixth : A(0); });
  });
}

// hardswish_backward(grad_output, self): 0 up to -3, grad_output * (self / 3 + 0.5) below 3,
// grad_output from 3 on (in float for the 16-bit floats).
void hardswish_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "hardswish_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A g, A x) {
      return x <= A(-3) ? A(0) : x < A(3) ? g * (x / A(3) + A(0.5)) : g;
    });
  });
}

// a * b + c fused as upstream's AVX2 build fuses it; apart where upstream's baseline build
// (no FMA) runs.
template <typename A>
inline A madd(A a, A b, A c) {
  return cpu::isa() != cpu::Isa::Base ? std::fma(a, b, c) : a * b + c;
}
// madd and std::fma as function objects, for formulas written once for both (a function object
// rather than a pointer, so that it inlines into a vectorised loop).
struct Madd {
  template <typename A>
  A operator()(A a, A b, A c) const { return madd(a, b, c); }
};
struct Fma {
  template <typename A>
  A operator()(A a, A b, A c) const { return std::fma(a, b, c); }
};

// gelu_backward(grad_output, self, approximate), upstream's GeluBackwardKernelImpl.
//   tanh: with t = tanh(beta (x + kappa x^3)),
//         dy * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2))
//   none: dy * (0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi))
void gelu_backward_compute(EwIter& it, const Call& c) {
  bool tanh_form = c.arg(2).str == "tanh";
  ew_dispatch<kEwFloats>(it.common, "GeluBackwardKernelImpl", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if (tanh_form) {
      const A beta = static_cast<A>(M_SQRT2 * M_2_SQRTPI * 0.5);
      const A kappa = static_cast<A>(0.044715);
      const A three_kappa = A(3) * kappa;
      // fma3: madd, or std::fma where only the FMA builds run (the SLEEF paths: madd's choice,
      // a call per element, would keep the vector passes scalar).
      auto grad = [=](A dy, A x, A t, auto fma3) {
        A left = A(0.5) * x;
        A left_d = A(0.5) * (A(1) + t);
        A tanh_d = fma3(-t, t, A(1));
        A inner_d = beta * fma3(three_kappa, x * x, A(1));
        return dy * (left_d + left * tanh_d * inner_d);
      };
      auto inner = [=](A x, auto fma3) { return beta * fma3(kappa, x * x * x, x); };
      auto scalar = [=](A dy, A x) {
        return grad(dy, x, std::tanh(inner(x, Madd{})), Madd{});
      };
      if constexpr (std::is_same_v<T, float>) {
        if (sleef::available()) return ew_run_vec_f32(it, vec::gelu_tanh_backward_f32, scalar);
      }
      ew_run_simd<T, T, T>(
          it, [=](A dy, A x) { return grad(dy, x, sleef::tanh(inner(x, Madd{})), Madd{}); },
          scalar);
    } else {
      const A alpha = static_cast<A>(M_SQRT1_2);
      const A beta = static_cast<A>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
      ew_run<T, T, T>(it, [=](A dy, A x) {
        A cdf = A(0.5) * (A(1) + std::erf(x * alpha));
        A pdf = beta * std::exp(x * x * A(-0.5));
        return dy * (cdf + x * pdf);
      });
    }
  });
}

// silu_backward(grad_output, self) = dy * s * (1 + x (1 - s)), s = sigmoid(x) = 1 / (1 + e^-x).
void silu_backward_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "silu_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    auto grad = [](A dy, A x, A e, auto fma3) {
      A s = A(1) / (A(1) + e);
      return dy * s * fma3(x, A(1) - s, A(1));
    };
    auto scalar = [=](A dy, A x) { return grad(dy, x, std::exp(-x), Madd{}); };
    if constexpr (std::is_same_v<T, float>) {
      if (sleef::available()) return ew_run_vec_f32(it, vec::silu_backward_f32, scalar);
    }
    ew_run_simd<T, T, T>(it, [=](A dy, A x) { return grad(dy, x, sleef::exp(-x), Madd{}); },
                         scalar);
  });
}

void check_gelu_approximate(const Call& c, const EwSpec&) {
  const std::string& approximate = c.arg(2).str;
  TN_CHECK(approximate == "none" || approximate == "tanh",
           "approximate argument must be either none or tanh.");
}

// Their dtype checks, in the rule so that Meta refuses what CPU refuses.
void check_floating(const EwSpec& s, const char* kernel) {
  TN_CHECK_KIND(is_floating(s.common), NotImplemented, "\"", kernel, "\" not implemented for '",
                c10_dtype_name(s.common), "'");
}
void check_gelu_bwd_dtype(const Call&, const EwSpec& s) {
  check_floating(s, "GeluBackwardKernelImpl");
}
void check_silu_bwd_dtype(const Call&, const EwSpec& s) { check_floating(s, "silu_backward_cpu"); }

constexpr EwRule kBin = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kBinO = ew_rule(2, V::Out, D::Common, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::tanh_backward", kBin, tanh_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::tanh_backward.grad_input", kBinO, tanh_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid_backward", kBin, sigmoid_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid_backward.grad_input", kBinO, sigmoid_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::softplus_backward", kBin, softplus_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::softplus_backward.grad_input", kBinO, softplus_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardtanh_backward", kBin, hardtanh_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardtanh_backward.grad_input", kBinO, hardtanh_backward_compute);
constexpr EwRule kLeakyBack =
    ew_rule(2, V::Functional, D::Common, O::SafeCast, check_leaky_relu_backward);
constexpr EwRule kLeakyBackO = ew_rule(2, V::Out, D::Common, O::SafeCast, check_leaky_relu_backward);
TN_REGISTER_ELEMENTWISE("aten::leaky_relu_backward", kLeakyBack, leaky_relu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::leaky_relu_backward.grad_input", kLeakyBackO,
                        leaky_relu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardsigmoid_backward", kBin, hardsigmoid_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardsigmoid_backward.grad_input", kBinO,
                        hardsigmoid_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardswish_backward", kBin, hardswish_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::hardswish_backward.out", kBinO, hardswish_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::threshold_backward", kBin, threshold_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::threshold_backward.grad_input", kBinO,
                        threshold_backward_compute);
constexpr EwRule kGeluBwd = ew_rule(2, V::Functional, D::Common, O::SafeCast,
                                    check_gelu_approximate, check_gelu_bwd_dtype);
constexpr EwRule kGeluBwdO =
    ew_rule(2, V::Out, D::Common, O::SafeCast, check_gelu_approximate, check_gelu_bwd_dtype);
constexpr EwRule kSiluBwd =
    ew_rule(2, V::Functional, D::Common, O::SafeCast, nullptr, check_silu_bwd_dtype);
constexpr EwRule kSiluBwdO =
    ew_rule(2, V::Out, D::Common, O::SafeCast, nullptr, check_silu_bwd_dtype);
TN_REGISTER_ELEMENTWISE("aten::gelu_backward", kGeluBwd, gelu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::gelu_backward.grad_input", kGeluBwdO, gelu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::silu_backward", kSiluBwd, silu_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::silu_backward.grad_input", kSiluBwdO, silu_backward_compute);

}  // namespace
}  // namespace tn
