// Derivatives of the convolution, pooling and batch-norm ops a conv net's forward reaches
// (upstream's derivatives.yaml entries): each calls the backward op upstream's formula names
// (convolution_backward, max_pool2d_with_indices_backward, avg_pool2d_backward,
// _adaptive_avg_pool2d_backward, native_batch_norm_backward), so a back end supplies one
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

// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out,
// indices): max_pool2d_with_indices_backward(grad, self, ..., indices).
Grads max_pool2d_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::max_pool2d_with_indices_backward",
                      {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(3), s.arg(4),
                       s.arg(5), V(s.result(1))})};
}

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override): avg_pool2d_backward(grad, self, the same).
Grads avg_pool2d_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::avg_pool2d_backward",
                      {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(3), s.arg(4),
                       s.arg(5), s.arg(6)})};
}

// _adaptive_avg_pool2d(self, output_size): _adaptive_avg_pool2d_backward(grad, self).
Grads adaptive_avg_pool2d_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::_adaptive_avg_pool2d_backward", {V(g[0]), V(s.tensor(0))})};
}

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
// dilation swapped); the values are the same linear maps, its bits are not claimed.
Grads convolution_backward_backward(const Saved& s, const Grads& g) {
  const Tensor &go = s.tensor(0), &input = s.tensor(1), &weight = s.tensor(2);
  const std::vector<bool>& mask = s.arg(10).bools;
  // Gradient i of the outputs: the output existed (its mask bit) and the engine handed one.
  auto grad_of = [&](size_t i) -> Tensor {
    return i < g.size() && i < mask.size() && mask[i] ? g[i] : Tensor();
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
    out[0] = ggo ? ggo : zeros(go->sizes(), go->dtype(), go->device());
  }
  if (s.need(1))
    out[1] = ggW ? conv_backward(input, ggW, true)
                 : zeros(input->sizes(), input->dtype(), input->device());
  if (s.need(2))
    out[2] = ggI ? conv_backward(ggI, weight, false)
                 : zeros(weight->sizes(), weight->dtype(), weight->device());
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::convolution_backward",
                       {"ConvolutionBackwardBackward0", {0, 1, 2}, {{0}, {1}, {2}}, 0,
                        convolution_backward_backward});
TN_REGISTER_DERIVATIVE("aten::convolution", {"ConvolutionBackward0", {0, 1, 2}, {{0}, {1}}, 0,
                                             convolution_backward});
TN_REGISTER_DERIVATIVE("aten::_convolution", {"ConvolutionBackward1", {0, 1, 2}, {{0}, {1}}, 0,
                                              convolution_backward});
TN_REGISTER_DERIVATIVE("aten::max_pool2d_with_indices",
                       {"MaxPool2DWithIndicesBackward0", {0}, {{0}}, 0b10, max_pool2d_backward,
                        0b10});
TN_REGISTER_DERIVATIVE("aten::avg_pool2d",
                       {"AvgPool2DBackward0", {0}, {{0}}, 0, avg_pool2d_backward});
TN_REGISTER_DERIVATIVE("aten::_adaptive_avg_pool2d",
                       {"AdaptiveAvgPool2DBackward0", {0}, {{0}}, 0,
                        adaptive_avg_pool2d_backward});
TN_REGISTER_DERIVATIVE("aten::native_batch_norm",
                       {"NativeBatchNormBackward0", {0, 1, 2}, {{0}, {1}, {3}, {4}}, 0b110,
                        batch_norm_backward, 0b110, {3, 4}});

}  // namespace tn::autograd
