// Derivatives of the writes that overwrite a tensor (upstream's derivatives.yaml entries for
// copy_, fill_, zero_, the in-place comparisons eq_ ... ge_, random_, normal_, uniform_, the
// other samplers (exponential_, cauchy_, log_normal_, geometric_) and
// bernoulli_.Tensor): the overwritten values get no gradient, nor does what decided them (a
// comparison's other tensor, bernoulli_'s p); copy_'s source gets the gradient (the engine
// casts it to the source's dtype and sums a broadcast away). Written into a view, they are
// what CopySlices runs for the view's elements (autograd/view_history.h).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor zeros_like(const Tensor& g) { return call_tensor("aten::zeros_like", {V(g)}); }

// Overwritten: self gets zeros.
Grads overwritten_backward(const Saved& s, const Grads& g) {
  Grads out(1);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  return out;
}

// copy_(self, src, non_blocking): self gets zeros, src the gradient.
Grads copy_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  if (s.need(1)) out[1] = g[0];
  return out;
}

// fill_.Tensor(self, value): self gets zeros, the 0-dim value the sum of the gradient.
Grads fill_tensor_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  if (s.need(1)) out[1] = call_tensor("aten::sum", {V(g[0])});
  return out;
}

// eq_.Tensor(self, other) and the like, bernoulli_.Tensor(self, p): both get zeros, the
// second in its own shape and dtype (upstream's zeros_like(other)).
Grads overwritten_by_tensor_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zeros_like(g[0]);
  if (s.need(1)) out[1] = zeros(s.meta(1).sizes, s.meta(1).dtype, s.meta(1).device);
  return out;
}


// normal with tensor arguments and poisson: samples, so their tensors get zeros of their own
// shapes (upstream's zeros).
Grads zeros_for_each(const Saved& s, const Grads& g) {
  Grads out(s.metas.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (s.need(i)) out[i] = zeros(s.meta(i).sizes, g[0]->dtype(), g[0]->device());
  return out;
}

}  // namespace

// copy_, fill_ and zero_ hold for complex tensors as written (formula.h's TN_COMPLEX_READY).
TN_COMPLEX_READY("aten::copy_", "aten::fill_.Scalar", "aten::fill_.Tensor", "aten::zero_");
TN_REGISTER_DERIVATIVE("aten::copy_",
                       {"torch::autograd::CopyBackwards", {0, 1}, {}, 0, copy_backward});
TN_REGISTER_DERIVATIVE("aten::fill_.Scalar", {"FillBackward2", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::fill_.Tensor",
                       {"FillBackward3", {0, 1}, {}, 0, fill_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::zero_", {"ZeroBackward0", {0}, {}, 0, overwritten_backward});
// Their functional forms: fill and zero give zeros; copy has no formula upstream (its node is
// the engine's NotImplemented, which raises when reached).
static Grads copy_functional_backward(const Saved&, const Grads&) {
  TN_FAIL(Runtime, "derivative for aten::copy is not implemented");
}
TN_REGISTER_DERIVATIVE("aten::fill.Scalar", {"FillBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::zero", {"ZeroBackward0", {0}, {}, 0, overwritten_backward});
// The samplers' functional forms (composite/functional_forms.cpp): the in-place formulas.
TN_REGISTER_DERIVATIVE("aten::random.from",
                       {"RandomBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::random.to", {"RandomBackward1", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::random", {"RandomBackward2", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::exponential",
                       {"ExponentialBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::cauchy", {"CauchyBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::log_normal",
                       {"LogNormalBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::geometric",
                       {"GeometricBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::uniform", {"UniformBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::bernoulli.Tensor",
                       {"BernoulliBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::copy", {"torch::autograd::NotImplemented", {0, 1}, {}, 0,
                                      copy_functional_backward});
// The in-place comparisons (their out-of-place forms have no differentiable output).
TN_REGISTER_DERIVATIVE("aten::eq_.Scalar",
                       {"EqBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::eq_.Tensor",
                       {"EqBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::ne_.Scalar",
                       {"NeBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::ne_.Tensor",
                       {"NeBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::lt_.Scalar",
                       {"LtBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::lt_.Tensor",
                       {"LtBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::le_.Scalar",
                       {"LeBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::le_.Tensor",
                       {"LeBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::gt_.Scalar",
                       {"GtBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::gt_.Tensor",
                       {"GtBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::ge_.Scalar",
                       {"GeBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::ge_.Tensor",
                       {"GeBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});
TN_REGISTER_DERIVATIVE("aten::random_.from",
                       {"RandomBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::random_.to", {"RandomBackward1", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::random_", {"RandomBackward2", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::normal_", {"NormalBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::exponential_",
                       {"ExponentialBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::normal.Tensor_float",
                       {"NormalBackward1", {0}, {}, 0, zeros_for_each});
TN_REGISTER_DERIVATIVE("aten::normal.float_Tensor",
                       {"NormalBackward2", {1}, {}, 0, zeros_for_each});
TN_REGISTER_DERIVATIVE("aten::normal.Tensor_Tensor",
                       {"NormalBackward3", {0, 1}, {}, 0, zeros_for_each});
TN_REGISTER_DERIVATIVE("aten::poisson", {"PoissonBackward0", {0}, {}, 0, zeros_for_each});
TN_REGISTER_DERIVATIVE("aten::cauchy_", {"CauchyBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::log_normal_",
                       {"LogNormalBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::geometric_",
                       {"GeometricBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::uniform_",
                       {"UniformBackward0", {0}, {}, 0, overwritten_backward});
TN_REGISTER_DERIVATIVE("aten::bernoulli_.Tensor",
                       {"BernoulliBackward1", {0, 1}, {}, 0, overwritten_by_tensor_backward});

}  // namespace tn::autograd
