// Derivatives of the convolution, pooling and batch-norm ops a conv net's forward reaches
// (upstream's derivatives.yaml entries): each calls the backward op upstream's formula names
// (convolution_backward, the max, average and adaptive pools' backward ops in 2-d and 3-d,
// native_batch_norm_backward), so a back end supplies one
// kernel for it. convolution_backward's own derivative is here; the pooling backward ops' are
// in double_backward.cpp.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups) and _convolution (the same first nine): convolution_backward with the mask of the
// edges that need a gradient and the bias's sizes.
Grads convolution_backward(const Saved& s, const Grads& g) {
  Value bias_sizes = s.need(2) ? Value::of_ints(s.meta(2).sizes) : Value{};
  std::vector<Value> r = call(
      "aten::convolution_backward",
      {V(g[0]), V(s.tensor(0)), V(s.tensor(1)), bias_sizes, s.arg(3), s.arg(4), s.arg(5),
       s.arg(6), s.arg(7), s.arg(8), bool_list({s.need(0), s.need(1), s.need(2)})});
  Grads out(3);
  for (size_t i = 0; i < 3; ++i)
    if (s.need(i) && r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
  return out;
}

// max_pool2d/3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out,
// indices): max_poolNd_with_indices_backward(grad, self, ..., indices).
template <const char* kBackward>
Grads max_pool_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(3),
                                  s.arg(4), s.arg(5), V(s.result(1))})};
}
constexpr char kMaxPool2dBackward[] = "aten::max_pool2d_with_indices_backward";
constexpr char kMaxPool3dBackward[] = "aten::max_pool3d_with_indices_backward";

// avg_pool2d/3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override): avg_poolNd_backward(grad, self, the same).
template <const char* kBackward>
Grads avg_pool_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(3),
                                  s.arg(4), s.arg(5), s.arg(6)})};
}
constexpr char kAvgPool2dBackward[] = "aten::avg_pool2d_backward";
constexpr char kAvgPool3dBackward[] = "aten::avg_pool3d_backward";

// _adaptive_avg_pool2d/3d(self, output_size): _adaptive_avg_poolNd_backward(grad, self).
template <const char* kBackward>
Grads adaptive_avg_pool_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0))})};
}
constexpr char kAdaptiveAvg2dBackward[] = "aten::_adaptive_avg_pool2d_backward";
constexpr char kAdaptiveAvg3dBackward[] = "aten::_adaptive_avg_pool3d_backward";

// adaptive_max_pool2d/3d(self, output_size) -> (out, indices):
// adaptive_max_poolNd_backward(grad, self, indices).
template <const char* kBackward>
Grads adaptive_max_pool_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), V(s.result(1))})};
}
constexpr char kAdaptiveMax2dBackward[] = "aten::adaptive_max_pool2d_backward";
constexpr char kAdaptiveMax3dBackward[] = "aten::adaptive_max_pool3d_backward";

// native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
// -> (out, save_mean, save_invstd): native_batch_norm_backward(grad, input, weight,
// running_mean, running_var, save_mean, save_invstd, training, eps, mask).
Grads batch_norm_backward(const Saved& s, const Grads& g) {
  auto opt = [&](size_t i) { return s.arg(i).tag == Value::Tag::Tensor ? s.arg(i) : Value{}; };
  std::vector<Value> r = call(
      "aten::native_batch_norm_backward",
      {V(g[0]), V(s.tensor(0)), opt(1), opt(3), opt(4), V(s.result(1)), V(s.result(2)),
       s.arg(5), s.arg(7), bool_list({s.need(0), s.need(1), s.need(2)})});
  Grads out(3);
  for (size_t i = 0; i < 3; ++i)
    if (s.need(i) && r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
  return out;
}



// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias),
// given gradients ggI, ggW, ggb of its outputs (upstream's _convolution_double_backward, whose
// three terms are written here with the ops they are adjoint to): grad_output gets
// conv(ggI, weight) + conv(input, ggW) + ggb (per channel); input gets the input gradient of
// conv(., ggW) at grad_output; weight the weight gradient of conv(ggI, .) at grad_output.
// Upstream computes the last two as forward convolutions of transposed operands (stride and
// dilation swapped); the values are the same linear maps, its bits are not claimed. A missing
// gradient (an output that does not exist, or that nothing used) contributes no term.
Grads convolution_backward_backward(const Saved& s, const Grads& g) {
  const Tensor &go = s.tensor(0), &input = s.tensor(1), &weight = s.tensor(2);
  const std::vector<bool>& mask = s.arg(10).bools;
  // Gradient i of the outputs: the output existed (its mask bit) and the engine handed one.
  auto grad_of = [&](size_t i) -> Tensor {
    int k = grad_slot(g, mask, i);
    return k >= 0 && handed(g, static_cast<size_t>(k)) ? g[static_cast<size_t>(k)] : Tensor();
  };
  Tensor ggI = grad_of(0), ggW = grad_of(1), ggb = grad_of(2);
  auto conv = [&](const Tensor& x, const Tensor& w) {
    return call_tensor("aten::convolution", {V(x), V(w), Value{}, s.arg(4), s.arg(5), s.arg(6),
                                             s.arg(7), s.arg(8), s.arg(9)});
  };
  auto conv_backward = [&](const Tensor& x, const Tensor& w, bool want_input) {
    std::vector<Value> r = call(
        "aten::convolution_backward",
        {V(go), V(x), V(w), Value{}, s.arg(4), s.arg(5), s.arg(6), s.arg(7), s.arg(8), s.arg(9),
         bool_list({want_input, !want_input, false})});
    return r[want_input ? 0 : 1].tensor;
  };
  Grads out(3);
  if (s.need(0)) {
    Tensor ggo;
    if (ggI) ggo = conv(ggI, weight);
    if (ggW) ggo = ggo ? add(ggo, conv(input, ggW)) : conv(input, ggW);
    if (ggb) {
      Dims view(go->dim(), 1);
      view[1] = ggb->sizes()[0];
      Tensor b = expand(reshape(call_tensor("aten::contiguous", {V(ggb)}), view), go->sizes());
      ggo = ggo ? add(ggo, b) : b;
    }
    out[0] = ggo;
  }
  // A term whose gradient is missing is missing too (upstream's gives None there).
  if (s.need(1) && ggW) out[1] = conv_backward(input, ggW, true);
  if (s.need(2) && ggI) out[2] = conv_backward(ggI, weight, false);
  return out;
}

// Upstream's batchnorm_double_backward helpers: sums over every dim but 1 (keepdim or not),
// a per-channel vector shaped (1, C, 1, ...) against target, and expanded to it.
Tensor sum_exclude_dim1(const Tensor& t, bool keepdim = true) {
  Tensor r = call_tensor("aten::sum.dim_IntList",
                         {V(t), Value::of_ints(Dims{0}), Value::of_bool(keepdim)});
  int64_t start = keepdim ? 1 : 0;
  for (int64_t dim = r->dim() - 1; dim > start; --dim)
    r = call_tensor("aten::sum.dim_IntList",
                    {V(r), Value::of_ints(Dims{dim}), Value::of_bool(keepdim)});
  return r;
}
Tensor unsqueeze_dim1(Tensor src, const Tensor& target) {
  while (src->dim() < target->dim() - 1) src = unsqueeze(src, 1);
  if (src->dim() == target->dim() - 1) src = unsqueeze(src, 0);
  return src;
}
Tensor expand_as_dim1(Tensor src, const Tensor& target) {
  while (src->dim() < target->dim() - 1) src = unsqueeze(src, 1);
  return expand(src, target->sizes());
}

// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
// save_invstd, train, eps, output_mask) given gradients ggI, ggG, ggB of its outputs: upstream's
// batchnorm_double_backward (edges: input, weight, grad_out, then save_mean and save_invstd,
// which upstream does not differentiate and refuses by name).
Grads batch_norm_backward_backward(const Saved& s, const Grads& g) {
  if (s.need(4))
    TN_FAIL(NotImplemented, "the derivative for 'native_batch_norm_backward save_invstd' is "
            "not implemented.");
  if (s.need(3))
    TN_FAIL(NotImplemented, "the derivative for 'native_batch_norm_backward save_mean' is not "
            "implemented.");
  const std::vector<bool>& mask = s.arg(9).bools;
  auto grad_of = [&](size_t i) {
    int k = grad_slot(g, mask, i);
    return k >= 0 && handed(g, static_cast<size_t>(k)) ? g[static_cast<size_t>(k)] : Tensor();
  };
  Tensor ggI = grad_of(0), ggG = grad_of(1), ggB = grad_of(2);
  const Tensor &gO = s.tensor(0), &input = s.tensor(1);
  auto opt = [&](size_t i) -> Tensor {
    return s.arg(i).tag == Value::Tag::Tensor ? s.arg(i).tensor : Tensor();
  };
  Tensor gamma = opt(2);
  bool affine = static_cast<bool>(gamma);
  bool training = s.to_bool(7);
  double eps = s.arg(8).tag == Value::Tag::Double ? s.arg(8).d : s.scalar(8).to_double();
  ScalarType dt = input->dtype();
  Tensor gamma_expanded, ggG_expanded, ggB_expanded;
  if (affine) {
    gamma_expanded = expand_as_dim1(gamma, input);
    if (ggG) ggG_expanded = expand_as_dim1(ggG, input);
    if (ggB) ggB_expanded = expand_as_dim1(ggB, input);
  } else {
    gamma_expanded = call_tensor("aten::ones", {Value::of_ints(Dims{}), Value::of_dtype(dt),
                                                Value{}, Value::of_device(input->device())});
  }
  int64_t M = input->sizes()[0];
  for (size_t i = 2; i < input->sizes().size(); ++i) M *= input->sizes()[i];
  Scalar Ms = Scalar::from_int(M), negM = Scalar::from_int(-M);
  Tensor mu = unsqueeze_dim1(training ? to_dtype(opt(5), dt) : opt(3), input);
  Tensor input_sub_mu = sub(input, mu);
  // (var + eps)^-1/2, s1 its square, s32 its cube (upstream's sigma2_eps_neg_1_2, ...).
  Tensor s12 = unsqueeze_dim1(
      training ? to_dtype(opt(6), dt)
               : pow(call_tensor("aten::add.Scalar", {V(opt(4)), S(eps)}),
                     Scalar::from_double(-0.5)),
      input);
  Tensor s1 = pow(s12, Scalar::from_int(2));
  Tensor s32 = pow(s12, Scalar::from_int(3));
  Tensor input_mu_s32 = mul(input_sub_mu, s32);
  Tensor gOinmu_sum = sum_exclude_dim1(mul(gO, input_sub_mu));
  Tensor gO_sum = sum_exclude_dim1(gO);

  Tensor gI;
  if (ggI && training) {
    Tensor ggI_sum = sum_exclude_dim1(ggI);
    Tensor ggIinmu_sum = sum_exclude_dim1(mul(ggI, input_sub_mu));
    Tensor all_sub = add(sub(div(mul(ggI_sum, gO_sum), Ms), sum_exclude_dim1(mul(gO, ggI))),
                         mul(mul(mul(s1, gOinmu_sum), ggIinmu_sum),
                             Scalar::from_double(3.0 / static_cast<double>(M))));
    Tensor gI_0t = div(mul(input_mu_s32, all_sub), Ms);
    Tensor gI_1t = mul(div(mul(ggIinmu_sum, s32), Ms), sub(div(gO_sum, Ms), gO));
    Tensor gI_2t = mul(div(mul(gOinmu_sum, s32), Ms), sub(div(ggI_sum, Ms), ggI));
    gI = mul(gamma_expanded, add(add(gI_0t, gI_1t), gI_2t));
  }
  if (affine && ggG) {
    Tensor term;
    if (training) {
      Tensor t0 = mul(gO, s12);
      Tensor t1 = div(mul(s12, gO_sum), negM);
      Tensor t2 = div(mul(input_mu_s32, sum_exclude_dim1(mul(gO, input_sub_mu))), negM);
      term = mul(ggG_expanded, add(add(t0, t1), t2));
    } else {
      term = mul(mul(ggG_expanded, s12), gO);
    }
    gI = gI ? add(gI, term) : term;
  }
  // The first backward's grad_input for gradient go and scale gam.
  auto first_back_grad_input = [&](const Tensor& go, const Tensor& gam) {
    Tensor h0 = div(mul(gam, s12), Ms);
    Tensor h1 = sub(sub(mul(go, Ms), sum_exclude_dim1(go)),
                    mul(mul(input_sub_mu, s1), sum_exclude_dim1(mul(go, input_sub_mu))));
    return mul(h0, h1);
  };
  Tensor gG;
  if (affine && ggI) {
    if (training) {
      Tensor one = call_tensor("aten::ones", {Value::of_ints(Dims{}), Value::of_dtype(s12->dtype()),
                                              Value{}, Value::of_device(s12->device())});
      gG = sum_exclude_dim1(mul(ggI, first_back_grad_input(gO, one)), false);
    } else {
      gG = sum_exclude_dim1(mul(mul(ggI, gO), s12), false);
    }
  }
  Tensor ggO;
  if (ggI) ggO = training ? first_back_grad_input(ggI, gamma_expanded)
                          : mul(mul(ggI, s12), gamma_expanded);
  if (ggG) {
    Tensor term = mul(mul(ggG_expanded, input_sub_mu), s12);
    ggO = ggO ? add(ggO, term) : term;
  }
  if (ggB) ggO = ggO ? add(ggO, ggB_expanded) : ggB_expanded;
  Grads out(5);
  if (s.need(0)) out[0] = gI;
  if (s.need(1)) out[1] = gG;
  if (s.need(2)) out[2] = ggO;
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::convolution_backward",
                       {"ConvolutionBackwardBackward0", {0, 1, 2}, {{0}, {1}, {2}}, 0,
                        convolution_backward_backward});
TN_REGISTER_DERIVATIVE("aten::native_batch_norm_backward",
                       {"NativeBatchNormBackwardBackward0", {1, 2, 0, 5, 6},
                        {{0}, {1}, {2}, {3}, {4}, {5}, {6}}, 0, batch_norm_backward_backward, 0,
                        {3, 4}});
// batch_norm_backward (_batch_norm_with_update's gradient) takes native_batch_norm_backward's
// arguments in the same places, plus `reserve` (composite/batch_norm_legit.cpp).
TN_REGISTER_DERIVATIVE("aten::batch_norm_backward",
                       {"BatchNormBackwardBackward0", {1, 2, 0, 5, 6},
                        {{0}, {1}, {2}, {3}, {4}, {5}, {6}}, 0, batch_norm_backward_backward, 0,
                        {3, 4}});
TN_REGISTER_DERIVATIVE("aten::convolution", {"ConvolutionBackward0", {0, 1, 2}, {{0}, {1}}, 0,
                                             convolution_backward});
TN_REGISTER_DERIVATIVE("aten::_convolution", {"ConvolutionBackward1", {0, 1, 2}, {{0}, {1}}, 0,
                                              convolution_backward});
TN_REGISTER_DERIVATIVE("aten::max_pool2d_with_indices",
                       {"MaxPool2DWithIndicesBackward0", {0}, {{0}}, 0b10,
                        max_pool_backward<kMaxPool2dBackward>, 0b10});
TN_REGISTER_DERIVATIVE("aten::max_pool3d_with_indices",
                       {"MaxPool3DWithIndicesBackward0", {0}, {{0}}, 0b10,
                        max_pool_backward<kMaxPool3dBackward>, 0b10});
TN_REGISTER_DERIVATIVE("aten::avg_pool2d", {"AvgPool2DBackward0", {0}, {{0}}, 0,
                                           avg_pool_backward<kAvgPool2dBackward>});
TN_REGISTER_DERIVATIVE("aten::avg_pool3d", {"AvgPool3DBackward0", {0}, {{0}}, 0,
                                           avg_pool_backward<kAvgPool3dBackward>});
TN_REGISTER_DERIVATIVE("aten::_adaptive_avg_pool2d",
                       {"AdaptiveAvgPool2DBackward0", {0}, {{0}}, 0,
                        adaptive_avg_pool_backward<kAdaptiveAvg2dBackward>});
TN_REGISTER_DERIVATIVE("aten::_adaptive_avg_pool3d",
                       {"AdaptiveAvgPool3DBackward0", {0}, {{0}}, 0,
                        adaptive_avg_pool_backward<kAdaptiveAvg3dBackward>});
TN_REGISTER_DERIVATIVE("aten::adaptive_max_pool2d",
                       {"AdaptiveMaxPool2DBackward0", {0}, {{0}}, 0b10,
                        adaptive_max_pool_backward<kAdaptiveMax2dBackward>, 0b10});
TN_REGISTER_DERIVATIVE("aten::adaptive_max_pool3d",
                       {"AdaptiveMaxPool3DBackward0", {0}, {{0}}, 0b10,
                        adaptive_max_pool_backward<kAdaptiveMax3dBackward>, 0b10});
TN_REGISTER_DERIVATIVE("aten::native_batch_norm",
                       {"NativeBatchNormBackward0", {0, 1, 2}, {{0}, {1}, {3}, {4}}, 0b110,
                        batch_norm_backward, 0b110, {3, 4}});

}  // namespace tn::autograd
