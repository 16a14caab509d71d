// Derivative of sinc (kernels/cpu/elementwise_sinc.cpp): upstream's sinc_backward step for step,
// grad * conj((pi x cos(pi x) - sin(pi x)) / (x x pi)), zero where x x pi is 0.
#include <cmath>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads sinc_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(0);
  Tensor x_pi = mul(x, Scalar::from_double(M_PI));
  Tensor x_squared_pi = mul(mul(x, x), Scalar::from_double(M_PI));
  Tensor num = sub(mul(x_pi, call_tensor("aten::cos", {V(x_pi)})),
                   call_tensor("aten::sin", {V(x_pi)}));
  Tensor out = mul(g[0], conj(div(num, x_squared_pi)));
  Tensor zero = call_tensor("aten::eq.Scalar", {V(x_squared_pi), S(0.0)});
  Tensor zeros = call_tensor("aten::zeros_like", {V(g[0])});
  return {call_tensor("aten::where.self", {V(zero), V(zeros), V(out)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::sinc", {"SincBackward0", {0}, {{0}}, 0, sinc_backward});

}  // namespace tn::autograd
