// Derivatives of the backward kernels of losses, pooling and embedding (double backward), as
// upstream's derivatives.yaml gives them (its FunctionsManual helpers written again in door
// ops, in their order of operations): mse_loss_backward, smooth_l1_loss_backward,
// huber_loss_backward, soft_margin_loss_backward, log_sigmoid_backward,
// binary_cross_entropy_backward, nll_loss_backward, nll_loss2d_backward, the 2-d and 3-d
// average, adaptive average, max and adaptive max pools' backward ops, embedding_dense_backward,
// native_layer_norm_backward.
// The arguments upstream does not differentiate (a loss's weight, total_weight, the buffer)
// are refused when they require grad, as upstream's check_no_requires_grad does.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

enum Reduction : int64_t { kNone = 0, kMean = 1 };

Value opt_value(const Saved& s, size_t i) {
  const Value& v = s.arg(i);
  return v.tag == Value::Tag::Tensor && v.tensor ? v : Value{};
}
const Tensor* opt_tensor(const Saved& s, size_t i) {
  const Value& v = s.arg(i);
  return v.tag == Value::Tag::Tensor && v.tensor ? &v.tensor : nullptr;
}
int64_t numel_of(const ArgMeta& m) {
  int64_t n = 1;
  for (int64_t d : m.sizes) n *= d;
  return n;
}
Tensor zeros_of(const ArgMeta& m) { return zeros(m.sizes, m.dtype, m.device); }
Tensor ones_of(const ArgMeta& m) {
  return call_tensor("aten::ones", {Value::of_ints(m.sizes), Value::of_dtype(m.dtype), Value{},
                                    Value::of_device(m.device)});
}
// t / numel under a mean reduction (upstream's `grad_input /= input.sym_numel()`).
Tensor per_mean(const Tensor& t, int64_t reduction, int64_t numel) {
  return reduction == kMean ? div(t, Scalar::from_int(numel)) : t;
}
Tensor abs_(const Tensor& a) { return call_tensor("aten::abs", {V(a)}); }
Tensor sum_all(const Tensor& a) { return call_tensor("aten::sum", {V(a)}); }
Tensor lt_scalar(const Tensor& a, double x) {
  return call_tensor("aten::lt.Scalar", {V(a), S(x)});
}
Tensor add_scalar(const Tensor& a, double x) {
  return call_tensor("aten::add.Scalar", {V(a), S(x)});
}

// mse_loss_backward(grad_output, self, target, reduction): grad_output gets
// mse_loss_backward(grad, self, target); self 2 grad grad_output (/ numel under a mean), target
// its negation (upstream's mse_loss_double_backward).
Grads mse_loss_backward_backward(const Saved& s, const Grads& g) {
  int64_t red = s.to_int(3);
  Grads out(3);
  if (s.need(0))
    out[0] = call_tensor("aten::mse_loss_backward",
                         {V(g[0]), V(s.tensor(1)), V(s.tensor(2)), Value::of_int(red)});
  if (s.need(1) || s.need(2)) {
    Tensor gg = mul(g[0], s.tensor(0));
    Tensor two = mul(gg, Scalar::from_int(2));
    if (s.need(1)) out[1] = per_mean(two, red, numel_of(s.meta(1)));
    if (s.need(2)) out[2] = neg(per_mean(two, red, numel_of(s.meta(2))));
  }
  return out;
}

// smooth_l1_loss_backward(grad_output, self, target, reduction, beta): grad_output gets
// smooth_l1_loss_backward(grad, ...); self grad grad_output [|self - target| < beta] / beta
// (/ numel under a mean; zeros when beta is 0), target its negation.
Grads smooth_l1_backward_backward(const Saved& s, const Grads& g) {
  int64_t red = s.to_int(3);
  double beta = s.scalar(4).to_double();
  Grads out(3);
  if (s.need(0))
    out[0] = call_tensor("aten::smooth_l1_loss_backward",
                         {V(g[0]), V(s.tensor(1)), V(s.tensor(2)), Value::of_int(red),
                          Value::of_double(beta)});
  if (s.need(1) || s.need(2)) {
    Tensor gg = mul(g[0], s.tensor(0));
    Tensor gi;
    if (beta == 0) {
      gi = zeros(gg->sizes(), gg->dtype(), gg->device());
    } else {
      Tensor inside = lt_scalar(abs_(sub(s.tensor(1), s.tensor(2))), beta);
      Tensor mask = to_dtype(inside, gg->dtype());
      gi = per_mean(div(mul(gg, mask), Scalar::from_double(beta)), red, numel_of(s.meta(1)));
    }
    if (s.need(1)) out[1] = gi;
    if (s.need(2)) out[2] = neg(gi);
  }
  return out;
}

// huber_loss_backward(grad_output, self, target, reduction, delta): grad_output gets
// huber_loss_backward(grad, ...) unreduced, else sum(huber_loss_backward(ones, ...) grad);
// self grad grad_output [|self - target| < delta] (/ numel under a mean), target its negation.
Grads huber_backward_backward(const Saved& s, const Grads& g) {
  int64_t red = s.to_int(3);
  Value delta = Value::of_double(s.scalar(4).to_double());
  const Tensor &x = s.tensor(1), &t = s.tensor(2);
  Grads out(3);
  if (s.need(0)) {
    if (red == kNone) {
      out[0] = call_tensor("aten::huber_loss_backward",
                           {V(g[0]), V(x), V(t), Value::of_int(red), delta});
    } else {
      Tensor r = call_tensor("aten::huber_loss_backward",
                             {V(ones_of(s.meta(0))), V(x), V(t), Value::of_int(red), delta});
      out[0] = sum_all(mul(r, g[0]));
    }
  }
  if (s.need(1) || s.need(2)) {
    Tensor gg = mul(g[0], s.tensor(0));
    Tensor inside = lt_scalar(abs_(sub(x, t)), delta.d);
    Tensor gi = per_mean(mul(gg, inside), red, numel_of(s.meta(1)));
    if (s.need(1)) out[1] = gi;
    if (s.need(2)) out[2] = neg(gi);
  }
  return out;
}

// soft_margin_loss_backward(grad_output, self, target, reduction): grad_output as huber's;
// self grad grad_output target^2 z / (z + 1)^2 with z = exp(-self target) (/ numel under a
// mean). target is not differentiated (refused when it requires grad).
Grads soft_margin_backward_backward(const Saved& s, const Grads& g) {
  int64_t red = s.to_int(3);
  const Tensor &x = s.tensor(1), &t = s.tensor(2);
  Grads out(2);
  if (s.need(0)) {
    if (red == kNone) {
      out[0] = call_tensor("aten::soft_margin_loss_backward",
                           {V(g[0]), V(x), V(t), Value::of_int(red)});
    } else {
      Tensor r = call_tensor("aten::soft_margin_loss_backward",
                             {V(ones_of(s.meta(0))), V(x), V(t), Value::of_int(red)});
      out[0] = sum_all(mul(r, g[0]));
    }
  }
  if (s.need(1)) {
    Tensor gg = mul(g[0], s.tensor(0));
    Tensor z = exp(mul(x, neg(t)));
    Tensor zplus1 = add_scalar(z, 1.0);
    Tensor gi = div(mul(mul(gg, mul(t, t)), z), mul(zplus1, zplus1));
    out[1] = per_mean(gi, red, numel_of(s.meta(1)));
  }
  return out;
}

// log_sigmoid_backward(grad_output, self, buffer): grad_output gets log_sigmoid_backward(grad,
// self, buffer); self grad grad_output (sigmoid(self) - 1) sigmoid(self).
Grads log_sigmoid_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor("aten::log_sigmoid_backward",
                         {V(g[0]), V(s.tensor(1)), V(s.tensor(2))});
  if (s.need(1)) {
    Tensor z = call_tensor("aten::sigmoid", {V(s.tensor(1))});
    out[1] = mul(mul(mul(g[0], s.tensor(0)), add_scalar(z, -1.0)), z);
  }
  return out;
}

// binary_cross_entropy_backward(grad_output, self, target, weight, reduction): upstream's
// binary_cross_entropy_double_backward (self), _target (target) and _grad_output, with its
// eps of 1e-12.
Grads bce_backward_backward(const Saved& s, const Grads& g) {
  constexpr double kEps = 1e-12;
  const Tensor &go = s.tensor(0), &x = s.tensor(1), &t = s.tensor(2);
  const Tensor* w = opt_tensor(s, 3);
  int64_t red = s.to_int(4);
  Grads out(3);
  if (s.need(1)) {
    Tensor inp_pl_eps = add_scalar(x, kEps);
    Tensor one_m_inp_pl_eps = add_scalar(rsub(x, Scalar::from_int(1)), kEps);
    Tensor num = add(sub(mul(x, x), mul(mul(x, Scalar::from_int(2)), t)), t);
    Tensor den = mul(pow(inp_pl_eps, Scalar::from_int(2)),
                     pow(one_m_inp_pl_eps, Scalar::from_int(2)));
    Tensor gi = mul(div(num, den), mul(g[0], go));
    if (w) gi = mul(gi, *w);
    out[1] = per_mean(gi, red, numel_of(s.meta(1)));
  }
  if (s.need(2)) {
    Tensor res = mul(neg(g[0]), go);
    if (w) res = mul(res, *w);
    Tensor denom = mul(rsub(x, Scalar::from_int(1)), x);
    denom = call_tensor("aten::clamp_min", {V(denom), S(kEps)});
    out[2] = per_mean(div(res, denom), red, numel_of(s.meta(2)));
  }
  if (s.need(0)) {
    Tensor ggo = div(sub(x, t), mul(add_scalar(x, kEps), add_scalar(rsub(x, Scalar::from_int(1)),
                                                                     kEps)));
    ggo = mul(ggo, g[0]);
    if (w) ggo = mul(ggo, *w);
    out[0] = per_mean(ggo, red, x->numel());
  }
  return out;
}

// nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)
// and nll_loss2d_backward: grad_output gets <forward>(grad, target, weight, reduction,
// ignore_index); self zeros.
template <const char* kForward>
Grads nll_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor(kForward, {V(g[0]), V(s.tensor(2)), opt_value(s, 3),
                                    Value::of_int(s.to_int(4)), Value::of_int(s.to_int(5))});
  if (s.need(1)) out[1] = zeros_of(s.meta(1));
  return out;
}

// avg_pool2d/3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override): grad_output gets avg_poolNd(grad, the same); self
// zeros.
template <const char* kForward>
Grads avg_pool_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0))
    out[0] = call_tensor(kForward, {V(g[0]), s.arg(2), s.arg(3), s.arg(4), s.arg(5), s.arg(6),
                                    s.arg(7)});
  if (s.need(1)) out[1] = zeros_of(s.meta(1));
  return out;
}
constexpr char kAvgPool2d[] = "aten::avg_pool2d";
constexpr char kAvgPool3d[] = "aten::avg_pool3d";

// _adaptive_avg_pool2d/3d_backward(grad_output, self): grad_output gets
// _adaptive_avg_poolNd(grad, grad_output's last N sizes); self zeros.
template <const char* kForward, size_t kDims>
Grads adaptive_avg_pool_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) {
    const Dims& go = s.meta(0).sizes;
    Dims last(go.end() - kDims, go.end());
    out[0] = call_tensor(kForward, {V(g[0]), Value::of_ints(last)});
  }
  if (s.need(1)) out[1] = zeros_of(s.meta(1));
  return out;
}
constexpr char kAdaptiveAvg2d[] = "aten::_adaptive_avg_pool2d";
constexpr char kAdaptiveAvg3d[] = "aten::_adaptive_avg_pool3d";

// The max pools' backward (max_poolNd_with_indices_backward(grad_output, self, ..., indices) at
// argument kIndices, adaptive_max_poolNd_backward(grad_output, self, indices)): grad_output
// gets grad picked at the indices, plane by plane over the last kDims dims (upstream's
// max_pool_double_backward); self zeros.
template <size_t kIndices, size_t kDims>
Grads max_pool_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = max_pool_double_backward(g[0], s.tensor(kIndices), kDims);
  if (s.need(1)) out[1] = zeros_of(s.meta(1));
  return out;
}

// embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq): grad_output gets grad's rows at the indices, zero where an index is
// padding_idx, shaped indices.shape + [-1] (upstream's embedding_dense_double_backward).
Grads embedding_dense_backward_backward(const Saved& s, const Grads& g) {
  const Tensor& idx = s.tensor(1);
  Tensor rows = call_tensor("aten::index_select",
                            {V(g[0]), Value::of_int(0), V(reshape(idx, Dims{-1}))});
  int64_t padding_idx = s.to_int(3);
  if (padding_idx >= 0) {
    Tensor is_pad = call_tensor("aten::eq.Scalar", {V(idx), S(Scalar::from_int(padding_idx))});
    rows = call_tensor("aten::masked_fill.Scalar",
                       {V(rows), V(reshape(is_pad, Dims{-1, 1})), S(Scalar::from_int(0))});
  }
  Dims shape = idx->sizes();
  shape.push_back(-1);
  return {reshape(rows, shape)};
}

Tensor row_sum(const Tensor& a) {
  return call_tensor("aten::sum.dim_IntList",
                     {V(a), Value::of_ints(Dims{1}), Value::of_bool(true)});
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask) given gradients ggI, ggG, ggB of its outputs: upstream's
// layer_norm_double_backward over M rows of N (edges: input, weight, grad_out; bias gets none,
// mean and rstd are refused by name as upstream's not_implemented).
Grads layer_norm_backward_backward(const Saved& s, const Grads& g) {
  if (s.need(4))
    TN_FAIL(NotImplemented, "the derivative for 'native_layer_norm_backward mean' is not "
            "implemented.");
  if (s.need(5))
    TN_FAIL(NotImplemented, "the derivative for 'native_layer_norm_backward rstd' is not "
            "implemented.");
  const std::vector<bool>& mask = s.arg(7).bools;
  auto grad_of = [&](size_t i) {
    int k = grad_slot(g, mask, i);
    return k >= 0 && handed(g, static_cast<size_t>(k)) ? g[static_cast<size_t>(k)] : Tensor();
  };
  Tensor ggI = grad_of(0), ggG = grad_of(1), ggB = grad_of(2);
  const Tensor &gO_t = s.tensor(0), &input_t = s.tensor(1);
  const Tensor* gamma = opt_tensor(s, 5);
  ScalarType dt = input_t->dtype();
  size_t axis = input_t->sizes().size() - s.ints(2).size();
  int64_t M = 1, N = 1;
  for (size_t i = 0; i < input_t->sizes().size(); ++i) (i < axis ? M : N) *= input_t->sizes()[i];
  Scalar Ns = Scalar::from_int(N), negN = Scalar::from_int(-N);
  Tensor input = reshape(input_t, {M, N}), gO = reshape(gO_t, {M, N});
  Tensor gamma_expanded, ggG_expanded, ggB_expanded, ggI_expanded;
  if (gamma) {
    gamma_expanded = reshape(*gamma, {1, N});
    if (ggG) ggG_expanded = reshape(ggG, {1, N});
    if (ggB) ggB_expanded = reshape(ggB, {1, N});
  } else {
    gamma_expanded = call_tensor("aten::ones", {Value::of_ints(Dims{1}), Value::of_dtype(dt),
                                                Value{}, Value::of_device(input->device())});
  }
  if (ggI) ggI_expanded = reshape(ggI, {M, N});
  Tensor input_sub_mu = sub(input, to_dtype(reshape(s.tensor(3), {M, 1}), dt));
  // rstd, its square and its cube (upstream's sigma2_eps_neg_1_2, _neg_1, _neg_3_2).
  Tensor s12 = to_dtype(reshape(s.tensor(4), {M, 1}), dt);
  Tensor s1 = pow(s12, Scalar::from_int(2)), s32 = pow(s12, Scalar::from_int(3));
  Tensor input_mu_s32 = mul(input_sub_mu, s32);
  Tensor gI;
  if (ggI) {
    Tensor gxhat = mul(gO, gamma_expanded);
    Tensor gxhat_mu_sum = row_sum(mul(gxhat, input_sub_mu));
    Tensor gxhat_sum = row_sum(gxhat);
    Tensor ggI_sum = row_sum(ggI_expanded);
    Tensor ggI_mu_sum = row_sum(mul(ggI_expanded, input_sub_mu));
    Tensor all_sub = add(sub(div(mul(ggI_sum, gxhat_sum), Ns), row_sum(mul(ggI_expanded, gxhat))),
                         mul(mul(mul(s1, gxhat_mu_sum), ggI_mu_sum),
                             Scalar::from_double(3.0 / static_cast<double>(N))));
    Tensor gI_0t = div(mul(input_mu_s32, all_sub), Ns);
    Tensor gI_1t = mul(div(mul(ggI_mu_sum, s32), Ns), sub(div(gxhat_sum, Ns), gxhat));
    Tensor gI_2t = mul(div(mul(gxhat_mu_sum, s32), Ns), sub(div(ggI_sum, Ns), ggI_expanded));
    gI = add(add(gI_0t, gI_1t), gI_2t);
  }
  if (gamma && ggG) {
    Tensor gO_ggG = mul(gO, ggG_expanded);
    Tensor t0 = mul(gO_ggG, s12);
    Tensor t1 = div(mul(s12, row_sum(gO_ggG)), negN);
    Tensor t2 = div(mul(input_mu_s32, row_sum(mul(gO_ggG, input_sub_mu))), negN);
    Tensor term = add(add(t0, t1), t2);
    gI = gI ? add(gI, term) : term;
  }
  if (gI) gI = reshape(gI, input_t->sizes());
  // The first backward's grad_input for gradient go and scale gam.
  auto first_bwd_grad_input = [&](const Tensor& go, const Tensor& gam) {
    Tensor h0 = div(mul(gam, s12), Ns);
    Tensor h1 = sub(sub(mul(go, Ns), row_sum(go)),
                    mul(mul(input_sub_mu, s1), row_sum(mul(go, input_sub_mu))));
    return mul(h0, h1);
  };
  Tensor gG;
  if (gamma && ggI) {
    Tensor one = call_tensor("aten::ones", {Value::of_ints(Dims{}), Value::of_dtype(s12->dtype()),
                                            Value{}, Value::of_device(s12->device())});
    gG = call_tensor("aten::sum.dim_IntList",
                     {V(mul(gO, first_bwd_grad_input(ggI_expanded, one))),
                      Value::of_ints(Dims{0}), Value::of_bool(false)});
    gG = reshape(gG, (*gamma)->sizes());
  }
  Tensor ggO;
  if (ggI) ggO = first_bwd_grad_input(ggI_expanded, gamma_expanded);
  if (ggG) {
    Tensor term = mul(mul(ggG_expanded, input_sub_mu), s12);
    ggO = ggO ? add(ggO, term) : term;
  }
  if (ggB) ggO = ggO ? add(ggO, ggB_expanded) : ggB_expanded;
  if (ggO) ggO = reshape(expand(ggO, {M, N}), input_t->sizes());
  Grads out(6);
  if (s.need(0)) out[0] = gI;
  if (s.need(1)) out[1] = gG;
  if (s.need(2)) out[2] = ggO;
  return out;
}

constexpr char kNllLoss[] = "aten::nll_loss";
constexpr char kNllLoss2d[] = "aten::nll_loss2d";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::mse_loss_backward",
                       {"MseLossBackwardBackward0", {0, 1, 2}, {{1, 0}, {2, 0}, {0, 1}, {0, 2}},
                        0, mse_loss_backward_backward});
TN_REGISTER_DERIVATIVE("aten::smooth_l1_loss_backward",
                       {"SmoothL1LossBackwardBackward0", {0, 1, 2},
                        {{0, 1}, {0, 2}, {1}, {2}}, 0, smooth_l1_backward_backward});
TN_REGISTER_DERIVATIVE("aten::huber_loss_backward",
                       {"HuberLossBackwardBackward0", {0, 1, 2}, {{0, 1}, {0, 2}, {1}, {2}}, 0,
                        huber_backward_backward});
TN_REGISTER_DERIVATIVE("aten::soft_margin_loss_backward",
                       {"SoftMarginLossBackwardBackward0", {0, 1}, {{0, 1}, {1}, {2}}, 0,
                        soft_margin_backward_backward, 0, {2}});
TN_REGISTER_DERIVATIVE("aten::log_sigmoid_backward",
                       {"LogSigmoidBackwardBackward0", {0, 1}, {{0, 1}, {1}, {2, 0}}, 0,
                        log_sigmoid_backward_backward, 0, {2}});
TN_REGISTER_DERIVATIVE("aten::binary_cross_entropy_backward",
                       {"BinaryCrossEntropyBackwardBackward0", {0, 1, 2},
                        {{0}, {1}, {2}, {3}}, 0, bce_backward_backward, 0, {3}});
TN_REGISTER_DERIVATIVE("aten::nll_loss_backward",
                       {"NllLossBackwardBackward0", {0, 1}, {{2, 0}, {3, 0}}, 0,
                        nll_backward_backward<kNllLoss>, 0, {3, 6}});
TN_REGISTER_DERIVATIVE("aten::nll_loss2d_backward",
                       {"NllLoss2DBackwardBackward0", {0, 1}, {{2, 0}, {3, 0}}, 0,
                        nll_backward_backward<kNllLoss2d>, 0, {3, 6}});
TN_REGISTER_DERIVATIVE("aten::avg_pool2d_backward",
                       {"AvgPool2DBackwardBackward0", {0, 1}, {}, 0,
                        avg_pool_backward_backward<kAvgPool2d>});
TN_REGISTER_DERIVATIVE("aten::avg_pool3d_backward",
                       {"AvgPool3DBackwardBackward0", {0, 1}, {}, 0,
                        avg_pool_backward_backward<kAvgPool3d>});
TN_REGISTER_DERIVATIVE("aten::_adaptive_avg_pool2d_backward",
                       {"AdaptiveAvgPool2DBackwardBackward0", {0, 1}, {}, 0,
                        adaptive_avg_pool_backward_backward<kAdaptiveAvg2d, 2>});
TN_REGISTER_DERIVATIVE("aten::_adaptive_avg_pool3d_backward",
                       {"AdaptiveAvgPool3DBackwardBackward0", {0, 1}, {}, 0,
                        adaptive_avg_pool_backward_backward<kAdaptiveAvg3d, 3>});
TN_REGISTER_DERIVATIVE("aten::max_pool2d_with_indices_backward",
                       {"MaxPool2DWithIndicesBackwardBackward0", {0, 1}, {{7, 0}}, 0,
                        max_pool_backward_backward<7, 2>});
TN_REGISTER_DERIVATIVE("aten::max_pool3d_with_indices_backward",
                       {"MaxPool3DWithIndicesBackwardBackward0", {0, 1}, {{7, 0}}, 0,
                        max_pool_backward_backward<7, 3>});
TN_REGISTER_DERIVATIVE("aten::adaptive_max_pool2d_backward",
                       {"AdaptiveMaxPool2DBackwardBackward0", {0, 1}, {{2, 0}}, 0,
                        max_pool_backward_backward<2, 2>});
TN_REGISTER_DERIVATIVE("aten::adaptive_max_pool3d_backward",
                       {"AdaptiveMaxPool3DBackwardBackward0", {0, 1}, {{2, 0}}, 0,
                        max_pool_backward_backward<2, 3>});
TN_REGISTER_DERIVATIVE("aten::native_layer_norm_backward",
                       {"NativeLayerNormBackwardBackward0", {1, 5, 0, 6, 3, 4},
                        {{0}, {1}, {3}, {4}, {5}}, 0, layer_norm_backward_backward});
TN_REGISTER_DERIVATIVE("aten::embedding_dense_backward",
                       {"EmbeddingDenseBackwardBackward0", {0}, {{1}}, 0,
                        embedding_dense_backward_backward});

}  // namespace tn::autograd
