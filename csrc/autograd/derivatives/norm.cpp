// Derivatives of the normalisations added for training: native_group_norm (upstream's
// derivatives.yaml entry, the native_group_norm_backward kernel of kernels/cpu/nn_norm2.cpp).
// Gradients flowing into its mean or rstd outputs (upstream's infinitely differentiable path)
// refuse by name.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd):
// native_group_norm_backward(grad.contiguous(), input, mean, rstd, weight, N, C, HxW, group,
// mask).
Grads group_norm_backward(const Saved& s, const Grads& g) {
  // The engine hands zeros for outputs nothing used; a nonzero one needs the other path.
  for (size_t i = 1; i < g.size(); ++i) {
    if (!g[i]) continue;
    Tensor any = call_tensor("aten::any", {V(call_tensor("aten::ne.Scalar", {V(g[i]), S(0.0)}))});
    bool used = call("aten::_local_scalar_dense", {V(any)})[0].scalar.to_int() != 0;
    TN_CHECK_KIND(!used, NotImplemented, "torchnative: gradients of native_group_norm's mean "
                  "and rstd outputs are not implemented yet (autograd, issue 8)");
  }
  if (!g[0]) return Grads(3);
  Value w = s.arg(1).tag == Value::Tag::Tensor && s.arg(1).tensor ? s.arg(1) : Value{};
  Tensor dy = call_tensor("aten::contiguous", {V(g[0])});
  std::vector<Value> r = call(
      "aten::native_group_norm_backward",
      {V(dy), V(s.tensor(0)), V(s.result(1)), V(s.result(2)), w, s.arg(3), s.arg(4), s.arg(5),
       s.arg(6), bool_list({s.need(0), s.need(1), s.need(2)})});
  Grads out(3);
  for (size_t i = 0; i < 3; ++i)
    if (s.need(i) && r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::native_group_norm",
                       {"NativeGroupNormBackward0", {0, 1, 2}, {{0}, {1}}, 0b110,
                        group_norm_backward});

}  // namespace tn::autograd
