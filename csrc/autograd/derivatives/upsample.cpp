// Derivatives of the interpolation kernels (kernels/cpu/upsample.cpp), as derivatives.yaml
// gives them: upsample_X's gradient is upsample_X_backward(grad, output_size, self's sizes,
// [align_corners,] scales...), and upsample_X_backward's is upsample_X of the gradient (both
// linear in their tensor). Also im2col / col2im (kernels/cpu/im2col.cpp), each the other's.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// upsample_X(self, output_size, [align_corners,] scales...): X_backward(grad, output_size,
// input_size, [align_corners,] scales...).
template <const char* kBackward>
Grads upsample_backward(const Saved& s, const Grads& g) {
  std::vector<Value> args{V(g[0]), s.arg(1), Value::of_ints(s.meta(0).sizes)};
  for (size_t i = 2; i < s.args.size(); ++i) args.push_back(s.arg(i));
  return {call_tensor(kBackward, std::move(args))};
}
// upsample_X_backward(grad_output, output_size, input_size, [align_corners,] scales...):
// X(grad, output_size, [align_corners,] scales...).
template <const char* kForward>
Grads upsample_backward_backward(const Saved& s, const Grads& g) {
  std::vector<Value> args{V(g[0]), s.arg(1)};
  for (size_t i = 3; i < s.args.size(); ++i) args.push_back(s.arg(i));
  return {call_tensor(kForward, std::move(args))};
}

constexpr char kN1[] = "aten::upsample_nearest1d", kN2[] = "aten::upsample_nearest2d";
constexpr char kL1[] = "aten::upsample_linear1d", kB2[] = "aten::upsample_bilinear2d";
constexpr char kC2[] = "aten::upsample_bicubic2d";
constexpr char kN1b[] = "aten::upsample_nearest1d_backward";
constexpr char kN2b[] = "aten::upsample_nearest2d_backward";
constexpr char kL1b[] = "aten::upsample_linear1d_backward";
constexpr char kB2b[] = "aten::upsample_bilinear2d_backward";
constexpr char kC2b[] = "aten::upsample_bicubic2d_backward";
constexpr char kN3[] = "aten::upsample_nearest3d", kT3[] = "aten::upsample_trilinear3d";
constexpr char kE1[] = "aten::_upsample_nearest_exact1d", kE2[] = "aten::_upsample_nearest_exact2d";
constexpr char kE3[] = "aten::_upsample_nearest_exact3d";
constexpr char kN3b[] = "aten::upsample_nearest3d_backward";
constexpr char kT3b[] = "aten::upsample_trilinear3d_backward";
constexpr char kE1b[] = "aten::_upsample_nearest_exact1d_backward";
constexpr char kE2b[] = "aten::_upsample_nearest_exact2d_backward";
constexpr char kE3b[] = "aten::_upsample_nearest_exact3d_backward";

// im2col(self, kernel_size, dilation, padding, stride): col2im(grad, self's (H, W), ...).
Grads im2col_backward(const Saved& s, const Grads& g) {
  const Dims& sz = s.meta(0).sizes;
  Dims hw{sz[sz.size() - 2], sz[sz.size() - 1]};
  return {call_tensor("aten::col2im", {V(g[0]), Value::of_ints(hw), s.arg(1), s.arg(2),
                                       s.arg(3), s.arg(4)})};
}
// col2im(self, output_size, kernel_size, dilation, padding, stride): im2col(grad, ...).
Grads col2im_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::im2col", {V(g[0]), s.arg(2), s.arg(3), s.arg(4), s.arg(5)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE(kN1, {"UpsampleNearest1DBackward0", {0}, {}, 0, upsample_backward<kN1b>});
TN_REGISTER_DERIVATIVE(kN2, {"UpsampleNearest2DBackward0", {0}, {}, 0, upsample_backward<kN2b>});
TN_REGISTER_DERIVATIVE(kL1, {"UpsampleLinear1DBackward0", {0}, {}, 0, upsample_backward<kL1b>});
TN_REGISTER_DERIVATIVE(kB2, {"UpsampleBilinear2DBackward0", {0}, {}, 0,
                             upsample_backward<kB2b>});
TN_REGISTER_DERIVATIVE(kC2, {"UpsampleBicubic2DBackward0", {0}, {}, 0,
                             upsample_backward<kC2b>});
TN_REGISTER_DERIVATIVE(kN1b, {"UpsampleNearest1DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kN1>});
TN_REGISTER_DERIVATIVE(kN2b, {"UpsampleNearest2DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kN2>});
TN_REGISTER_DERIVATIVE(kL1b, {"UpsampleLinear1DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kL1>});
TN_REGISTER_DERIVATIVE(kB2b, {"UpsampleBilinear2DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kB2>});
TN_REGISTER_DERIVATIVE(kC2b, {"UpsampleBicubic2DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kC2>});

TN_REGISTER_DERIVATIVE(kN3, {"UpsampleNearest3DBackward0", {0}, {}, 0, upsample_backward<kN3b>});
TN_REGISTER_DERIVATIVE(kT3, {"UpsampleTrilinear3DBackward0", {0}, {}, 0,
                             upsample_backward<kT3b>});
TN_REGISTER_DERIVATIVE(kE1, {"UpsampleNearestExact1DBackward0", {0}, {}, 0,
                             upsample_backward<kE1b>});
TN_REGISTER_DERIVATIVE(kE2, {"UpsampleNearestExact2DBackward0", {0}, {}, 0,
                             upsample_backward<kE2b>});
TN_REGISTER_DERIVATIVE(kE3, {"UpsampleNearestExact3DBackward0", {0}, {}, 0,
                             upsample_backward<kE3b>});
TN_REGISTER_DERIVATIVE(kN3b, {"UpsampleNearest3DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kN3>});
TN_REGISTER_DERIVATIVE(kT3b, {"UpsampleTrilinear3DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kT3>});
TN_REGISTER_DERIVATIVE(kE1b, {"UpsampleNearestExact1DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kE1>});
TN_REGISTER_DERIVATIVE(kE2b, {"UpsampleNearestExact2DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kE2>});
TN_REGISTER_DERIVATIVE(kE3b, {"UpsampleNearestExact3DBackwardBackward0", {0}, {}, 0,
                              upsample_backward_backward<kE3>});
TN_REGISTER_DERIVATIVE("aten::im2col", {"Im2ColBackward0", {0}, {}, 0, im2col_backward});
TN_REGISTER_DERIVATIVE("aten::col2im", {"Col2ImBackward0", {0}, {}, 0, col2im_backward});

}  // namespace tn::autograd
