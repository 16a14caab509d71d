// Activations on dense CPU tensors: sigmoid, relu, gelu ('none' with erf, 'tanh' with the tanh
// approximation), silu. The formulas and their order of operations are upstream's scalar
// kernels; float16/bfloat16 compute in float.
//
// Numerics: std:: functions. Upstream's vectorised float32 kernels (contiguous runs of 32
// elements) compute sigmoid and silu with SLEEF's expf_u10, gelu('none') with its own erf
// polynomial and gelu('tanh') with SLEEF's tanhf_u10; upstream's strided and tail elements use the
// same std:: functions as here (measured bit-identical). The agreement tests measure the rest.
#include <cmath>

#include "kernels/cpu/elementwise_loop.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

// sigmoid(x) = 1 / (1 + exp(-x)); integers compute in the default float dtype.
void sigmoid_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "sigmoid_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) { return A(1) / (A(1) + std::exp(-a)); });
  });
}

constexpr EwRule kFloat = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloatO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::sigmoid", kFloat, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid_", kFloatI, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::sigmoid.out", kFloatO, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::special_expit", kFloat, sigmoid_compute);
TN_REGISTER_ELEMENTWISE("aten::special_expit.out", kFloatO, sigmoid_compute);

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

// gelu(x, approximate) (approximate is argument 1):
//   'none': x * 0.5 * (1 + erf(x / sqrt(2)))
//   'tanh': 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
void gelu_compute(EwIter& it, const Call& c) {
  const std::string& approximate = c.arg(1).str;
  TN_CHECK(approximate == "none" || approximate == "tanh",
           "approximate argument must be either none or tanh.");
  bool tanh_form = approximate == "tanh";
  ew_dispatch<kEwFloats>(it.common, "GeluKernelImpl", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if (tanh_form) {
      const A beta = static_cast<A>(M_SQRT2 * M_2_SQRTPI * 0.5);
      const A kappa = static_cast<A>(0.044715);
      ew_run<T, T>(it, [=](A x) {
        A x_cube = x * x * x;
        A inner = beta * (x + kappa * x_cube);
        return A(0.5) * x * (A(1) + std::tanh(inner));
      });
    } else {
      const A alpha = static_cast<A>(M_SQRT1_2);
      ew_run<T, T>(it, [=](A x) { return x * A(0.5) * (A(1) + std::erf(x * alpha)); });
    }
  });
}

constexpr EwRule kSame = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSameI = ew_rule(1, V::InPlace, D::Common, O::Same);
constexpr EwRule kSameO = ew_rule(1, V::Out, D::Common, O::Same);
TN_REGISTER_ELEMENTWISE("aten::gelu", kSame, gelu_compute);
TN_REGISTER_ELEMENTWISE("aten::gelu_", kSameI, gelu_compute);
TN_REGISTER_ELEMENTWISE("aten::gelu.out", kSameO, gelu_compute);

// silu(x) = x / (1 + exp(-x)).
void silu_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "silu_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A x) { return x / (A(1) + std::exp(-x)); });
  });
}

TN_REGISTER_ELEMENTWISE("aten::silu", kSame, silu_compute);
TN_REGISTER_ELEMENTWISE("aten::silu_", kSameI, silu_compute);
TN_REGISTER_ELEMENTWISE("aten::silu.out", kSameO, silu_compute);

}  // namespace
}  // namespace tn
