// Losses written in door ops as upstream writes them (Loss.cpp, Activation.cpp):
// binary_cross_entropy_with_logits ((1 - t) x - log_weight log_sigmoid(x), weight, pos_weight,
// reduction), log_sigmoid (log_sigmoid_forward's output), l1_loss (|x - t| reduced) and
// nll_loss2d (nll_loss2d_forward's output), kl_div, soft_margin_loss and its backward,
// poisson_nll_loss. The
// kernels they reach are in cpu/nn_loss2.cpp; formulas in autograd/derivatives/loss2.cpp.
#include <cmath>

#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

Value one() { return Value::of_scalar(Scalar::from_int(1)); }
Tensor mul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::mul.Tensor", {t(a), t(b)});
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::sub.Tensor", {t(a), t(b)});
}
Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return call_tensor("aten::mean", {t(loss)});
  if (reduction == kSum) return call_tensor("aten::sum", {t(loss)});
  return loss;
}
Tensor log_sigmoid_of(const Tensor& x) {
  return call("aten::log_sigmoid_forward", {t(x)})[0].tensor;
}

// binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//                                   Tensor? pos_weight=None, int reduction=Mean)
void bce_with_logits(Call& c) {
  const Tensor &x = c.tensor(0), &target = c.tensor(1);
  const Tensor* weight = c.optional_tensor(2);
  const Tensor* pos_weight = c.optional_tensor(3);
  Tensor left = mul(call_tensor("aten::rsub.Scalar", {t(target), one()}), x);
  Tensor loss;
  if (pos_weight) {
    Tensor lw = call_tensor("aten::add.Scalar",
                            {t(mul(call_tensor("aten::sub.Scalar", {t(*pos_weight), one()}),
                                   target)), one()});
    loss = sub(left, mul(lw, log_sigmoid_of(x)));
  } else {
    loss = sub(left, log_sigmoid_of(x));
  }
  if (weight) loss = mul(loss, *weight);
  c.ret(reduce(loss, c.to_int(4)));
}
TN_REGISTER_COMPOSITE("aten::binary_cross_entropy_with_logits", bce_with_logits);

void log_sigmoid(Call& c) { c.ret(log_sigmoid_of(c.tensor(0))); }
TN_REGISTER_COMPOSITE("aten::log_sigmoid", log_sigmoid);

// l1_loss(Tensor self, Tensor target, int reduction=Mean): |self - target| reduced.
void l1_loss(Call& c) {
  c.ret(reduce(call_tensor("aten::abs", {t(sub(c.tensor(0), c.tensor(1)))}), c.to_int(2)));
}
TN_REGISTER_COMPOSITE("aten::l1_loss", l1_loss);

// nll_loss2d(self, target, weight?, reduction=Mean, ignore_index=-100): nll_loss2d_forward's
// output.
void nll_loss2d(Call& c) {
  c.ret(call("aten::nll_loss2d_forward", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)})[0]
            .tensor);
}
TN_REGISTER_COMPOSITE("aten::nll_loss2d", nll_loss2d);

// kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False):
// exp(t) (t - x) for log targets, else xlogy(t, t) - t x; reduced.
void kl_div(Call& c) {
  const Tensor &x = c.tensor(0), &tg = c.tensor(1);
  TN_CHECK(is_floating(x->dtype()) && is_floating(tg->dtype()),
           "kl_div: Integral inputs not supported.");
  Tensor loss = c.to_bool(3)
                    ? mul(call_tensor("aten::exp", {t(tg)}), sub(tg, x))
                    : sub(call_tensor("aten::xlogy.Tensor", {t(tg), t(tg)}), mul(tg, x));
  c.ret(reduce(loss, c.to_int(2)));
}
TN_REGISTER_COMPOSITE("aten::kl_div", kl_div);

// soft_margin_loss(self, target, reduction=Mean): log1p(exp(-self * target)), reduced; as
// upstream's, the product is written into a tensor of self's dtype and the rest done in place
// (so an integral self is refused by exp_, and a float16 self computes in float16).
void soft_margin_loss(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor z = ops::empty({0}, self->dtype(), self->device());
  call("aten::mul.out", {c.arg(0), c.arg(1), t(z)});
  call("aten::neg_", {t(z)});
  call("aten::exp_", {t(z)});
  call("aten::log1p_", {t(z)});
  c.ret(reduce(z, c.to_int(2)));
}
TN_REGISTER_COMPOSITE("aten::soft_margin_loss", soft_margin_loss);

// soft_margin_loss_backward(grad_output, self, target, reduction): z = exp(-target * self),
// (target * z * -norm) / (z + 1) * grad, norm 1/numel for a mean (upstream's order).
void soft_margin_loss_backward(Call& c) {
  const Tensor &self = c.tensor(1), &target = c.tensor(2);
  double norm = c.to_int(3) == kMean ? 1.0 / static_cast<double>(self->numel()) : 1.0;
  Tensor z = call_tensor("aten::exp", {t(mul(call_tensor("aten::neg", {t(target)}), self))});
  Tensor gi = call_tensor("aten::mul.Scalar", {t(mul(target, z)),
                                               Value::of_scalar(Scalar::from_double(-norm))});
  Tensor den = call_tensor("aten::add.Scalar", {t(z), one()});
  gi = mul(call_tensor("aten::div.Tensor", {t(gi), t(den)}), c.tensor(0));
  c.ret(gi);
}
TN_REGISTER_COMPOSITE("aten::soft_margin_loss_backward", soft_margin_loss_backward);


// poisson_nll_loss(input, target, log_input, full, eps, reduction): exp(input) - target * input
// (log_input) or input - target * log(input + eps); with full, the Stirling term
// target * log(target) - target + 0.5 * log(2 pi target), 0 where target <= 1, added in place
// (upstream's Loss.cpp, op by op).
void poisson_nll_loss(Call& c) {
  const Tensor &input = c.tensor(0), &target = c.tensor(1);
  auto num = [](double v) { return Value::of_scalar(Scalar::from_double(v)); };
  Tensor loss;
  if (c.to_bool(2)) {
    loss = sub(call_tensor("aten::exp", {t(input)}), mul(target, input));
  } else {
    Tensor shifted = call_tensor("aten::add.Scalar", {t(input), num(c.to_double(4)), one()});
    loss = sub(input, mul(target, call_tensor("aten::log", {t(shifted)})));
  }
  if (c.to_bool(3)) {
    Tensor two_pi_t = call_tensor("aten::mul.Scalar", {t(target), num(2 * M_PI)});
    Tensor half_log = call_tensor("aten::mul.Scalar",
                                  {t(call_tensor("aten::log", {t(two_pi_t)})), num(0.5)});
    Tensor stirling = call_tensor(
        "aten::add.Tensor",
        {t(sub(mul(target, call_tensor("aten::log", {t(target)})), target)), t(half_log)});
    Tensor small =
        call_tensor("aten::le.Scalar", {t(target), Value::of_scalar(Scalar::from_int(1))});
    stirling = call_tensor("aten::masked_fill.Scalar",
                           {t(stirling), t(small), Value::of_scalar(Scalar::from_int(0))});
    call("aten::add_.Tensor", {t(loss), t(stirling)});
  }
  c.ret(reduce(loss, c.to_int(5)));
}
TN_REGISTER_COMPOSITE("aten::poisson_nll_loss", poisson_nll_loss);

}  // namespace
}  // namespace tn
