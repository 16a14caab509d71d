// Derivatives of the binary cross entropies, log-sigmoid, nll_loss2d_forward, smooth_l1_loss and
// huber_loss, xlogy, soft_margin_loss, multi_margin_loss and multilabel_margin_loss_forward
// (upstream's derivatives.yaml entries and FunctionsManual's
// binary_cross_entropy_with_logits_backward / _target_backward, in their order of operations).
// The kernels are in kernels/cpu/nn_loss2.cpp and nn_margin_loss.cpp; their own backward ops
// have no formula yet, so double backward refuses by name.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

enum Reduction : int64_t { kMean = 1 };

const Tensor* opt_tensor(const Saved& s, size_t i) {
  const Value& v = s.arg(i);
  return v.tag == Value::Tag::Tensor && v.tensor ? &v.tensor : nullptr;
}
Value opt_value(const Saved& s, size_t i) {
  const Tensor* t = opt_tensor(s, i);
  return t ? V(*t) : Value{};
}
Tensor per_mean(const Tensor& g, const Saved& s, int64_t numel, size_t reduction_arg) {
  return s.to_int(reduction_arg) == kMean ? div(g, Scalar::from_int(numel)) : g;
}
Tensor log_sigmoid(const Tensor& x) {
  return call("aten::log_sigmoid_forward", {V(x)})[0].tensor;
}

// binary_cross_entropy(self, target, weight, reduction): self gets
// binary_cross_entropy_backward; target gets upstream's binary_cross_entropy_target_backward,
// -logit(self) * grad [* weight] [/ numel], with logit written as log(self / (1 - self))
// (upstream's logit kernel without eps; ours has no logit kernel yet).
Grads bce_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::binary_cross_entropy_backward",
                         {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), opt_value(s, 2),
                          Value::of_int(s.to_int(3))});
  if (s.need(1)) {
    const Tensor& x = s.tensor(0);
    Tensor logit = call_tensor("aten::log", {V(div(x, rsub(x, Scalar::from_int(1))))});
    Tensor gt = mul(neg(logit), g[0]);
    if (const Tensor* w = opt_tensor(s, 2)) gt = mul(gt, *w);
    out[1] = per_mean(gt, s, s.tensor(1)->numel(), 3);
  }
  return out;
}

// binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction).
// self: ((pos_weight t + 1 - t) sigmoid(x) - pos_weight t, or sigmoid(x) - t) * grad [* w];
// target: (log_sigmoid(-x) - log_sigmoid(x) pos_weight, or -x) * grad [* w]; each / numel
// under a mean.
Grads bce_with_logits_backward(const Saved& s, const Grads& g) {
  const Tensor &x = s.tensor(0), &target = s.tensor(1);
  const Tensor* w = opt_tensor(s, 2);
  const Tensor* pw = opt_tensor(s, 3);
  Grads out(2);
  if (s.need(0)) {
    Tensor sig = call_tensor("aten::sigmoid", {V(x)});
    Tensor gi;
    if (pw) {
      Tensor pt = mul(*pw, target);
      Tensor a = sub(call_tensor("aten::add.Scalar", {V(pt), S(Scalar::from_int(1))}), target);
      gi = sub(mul(a, sig), pt);
    } else {
      gi = sub(sig, target);
    }
    gi = mul(gi, g[0]);
    if (w) gi = mul(gi, *w);
    out[0] = per_mean(gi, s, x->numel(), 4);
  }
  if (s.need(1)) {
    Tensor gt = pw ? mul(sub(log_sigmoid(neg(x)), mul(log_sigmoid(x), *pw)), g[0])
                   : mul(neg(x), g[0]);
    if (w) gt = mul(gt, *w);
    out[1] = per_mean(gt, s, target->numel(), 4);
  }
  return out;
}

// log_sigmoid_forward(self) -> (output, buffer): log_sigmoid_backward(grad, self, buffer).
Grads log_sigmoid_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::log_sigmoid_backward", {V(g[0]), V(s.tensor(0)), V(s.result(1))})};
}

// smooth_l1_loss(self, target, reduction, beta) and huber_loss(self, target, reduction, delta):
// self gets op_backward(grad, self, target, reduction, beta), target the same with the two
// swapped (upstream's formulas).
template <const char* kBackward>
Grads pair_loss_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  Value red = Value::of_int(s.to_int(2)), b = Value::of_double(s.scalar(3).to_double());
  if (s.need(0))
    out[0] = call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), red, b});
  if (s.need(1))
    out[1] = call_tensor(kBackward, {V(g[0]), V(s.tensor(1)), V(s.tensor(0)), red, b});
  return out;
}
// nll_loss2d_forward(self, target, weight?, reduction, ignore_index) -> (output,
// total_weight): self gets nll_loss2d_backward(grad, self, target, weight, reduction,
// ignore_index, total_weight).
Grads nll_loss2d_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::nll_loss2d_backward",
                      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), opt_value(s, 2),
                       Value::of_int(s.to_int(3)), Value::of_int(s.to_int(4)),
                       V(s.result(1))})};
}

// xlogy.Tensor(self, other): self gets xlogy(grad, other), zero where self == 0 and other <= 0;
// other grad * self / other (upstream's formulas).
Grads xlogy_backward(const Saved& s, const Grads& g) {
  const Tensor &x = s.tensor(0), &y = s.tensor(1);
  Grads out(2);
  if (s.need(0)) {
    Tensor both = call_tensor("aten::logical_and",
                              {V(call_tensor("aten::eq.Scalar", {V(x), S(0.0)})),
                               V(call_tensor("aten::le.Scalar", {V(y), S(0.0)}))});
    out[0] = call_tensor("aten::masked_fill.Scalar",
                         {V(call_tensor("aten::xlogy.Tensor", {V(g[0]), V(y)})), V(both),
                          S(0.0)});
  }
  if (s.need(1)) out[1] = div(mul(g[0], x), y);
  return out;
}
// xlogy.Scalar_Self(self, other): other gets grad * self / other.
Grads xlogy_scalar_self_backward(const Saved& s, const Grads& g) {
  return {div(call_tensor("aten::mul.Scalar", {V(g[0]), S(s.scalar(0))}), s.tensor(1))};
}
// xlogy.Scalar_Other(self, other): self gets xlogy(grad, other), zeroed where self == 0 unless
// other > 0.
Grads xlogy_scalar_other_backward(const Saved& s, const Grads& g) {
  const Scalar other = s.scalar(1);
  Tensor r = call_tensor("aten::xlogy.Scalar_Other", {V(g[0]), S(other)});
  if (other.to_double() > 0.) return {r};
  Tensor zero = call_tensor("aten::eq.Scalar", {V(s.tensor(0)), S(0.0)});
  return {call_tensor("aten::masked_fill.Scalar", {V(r), V(zero), S(0.0)})};
}

// soft_margin_loss(self, target, reduction): self gets soft_margin_loss_backward(grad, self,
// target, reduction); target is not differentiated upstream either.
Grads soft_margin_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::soft_margin_loss_backward",
                      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), Value::of_int(s.to_int(2))})};
}

// multi_margin_loss(self, target, p, margin, weight, reduction): self gets
// multi_margin_loss_backward(grad, self, target, p, margin, weight, reduction).
Grads multi_margin_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::multi_margin_loss_backward",
                      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), s.arg(2), s.arg(3),
                       opt_value(s, 4), Value::of_int(s.to_int(5))})};
}
// multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target): self gets
// multilabel_margin_loss_backward(grad, self, target, reduction, is_target).
Grads multilabel_margin_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::multilabel_margin_loss_backward",
                      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), Value::of_int(s.to_int(2)),
                       V(s.result(1))})};
}

constexpr char kSmoothL1[] = "aten::smooth_l1_loss_backward";
constexpr char kHuber[] = "aten::huber_loss_backward";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::binary_cross_entropy",
                       {"BinaryCrossEntropyBackward0", {0, 1}, {{0}, {1}, {2}}, 0,
                        bce_backward, 0, {2}});
TN_REGISTER_DERIVATIVE("aten::binary_cross_entropy_with_logits",
                       {"BinaryCrossEntropyWithLogitsBackward0", {0, 1}, {{0}, {1}, {2}, {3}}, 0,
                        bce_with_logits_backward, 0, {2, 3}});
TN_REGISTER_DERIVATIVE("aten::nll_loss2d_forward",
                       {"NllLoss2DBackward0", {0}, {{0}, {1}, {2}}, 0b10, nll_loss2d_backward,
                        0b10, {2}});
TN_REGISTER_DERIVATIVE("aten::xlogy.Tensor",
                       {"XlogyBackward0", {0, 1}, {{0}, {1}}, 0, xlogy_backward});
TN_REGISTER_DERIVATIVE("aten::xlogy.Scalar_Self",
                       {"XlogyBackward1", {1}, {{1}}, 0, xlogy_scalar_self_backward});
TN_REGISTER_DERIVATIVE("aten::xlogy.Scalar_Other",
                       {"XlogyBackward2", {0}, {{0}}, 0, xlogy_scalar_other_backward});
TN_REGISTER_DERIVATIVE("aten::soft_margin_loss",
                       {"SoftMarginLossBackward0", {0}, {{0}, {1}}, 0, soft_margin_backward, 0,
                        {1}});
TN_REGISTER_DERIVATIVE("aten::smooth_l1_loss",
                       {"SmoothL1LossBackward0", {0, 1}, {{0}, {1}}, 0,
                        pair_loss_backward<kSmoothL1>});
TN_REGISTER_DERIVATIVE("aten::huber_loss",
                       {"HuberLossBackward0", {0, 1}, {{0}, {1}}, 0, pair_loss_backward<kHuber>});
TN_REGISTER_DERIVATIVE("aten::multi_margin_loss",
                       {"MultiMarginLossBackward0", {0}, {{0}, {1}, {4}}, 0,
                        multi_margin_backward, 0, {4}});
TN_REGISTER_DERIVATIVE("aten::multilabel_margin_loss_forward",
                       {"MultilabelMarginLossBackward0", {0}, {{0}, {1}}, 0b10,
                        multilabel_margin_backward, 0b10});
TN_REGISTER_DERIVATIVE("aten::log_sigmoid_forward",
                       {"LogSigmoidBackward0", {0}, {{0}}, 0b10, log_sigmoid_backward, 0b10});

}  // namespace tn::autograd
