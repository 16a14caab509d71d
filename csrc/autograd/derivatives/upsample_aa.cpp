// Derivatives of the antialiased interpolation kernels (kernels/cpu/upsample_aa.cpp), as
// derivatives.yaml gives them: _upsample_X_aa's gradient is _upsample_X_aa_backward(grad,
// output_size, self's sizes, align_corners, scales_h, scales_w), and the backward's is
// _upsample_X_aa of the gradient (both linear in their tensor).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// _upsample_X_aa(self, output_size, align_corners, scales_h, scales_w).
template <const char* kBackward>
Grads aa_backward(const Saved& s, const Grads& g) {
  std::vector<Value> args{V(g[0]), s.arg(1), Value::of_ints(s.meta(0).sizes)};
  for (size_t i = 2; i < s.args.size(); ++i) args.push_back(s.arg(i));
  return {call_tensor(kBackward, std::move(args))};
}
// _upsample_X_aa_backward(grad_output, output_size, input_size, align_corners, scales_h,
// scales_w): _upsample_X_aa(grad, output_size, align_corners, scales_h, scales_w).
template <const char* kForward>
Grads aa_backward_backward(const Saved& s, const Grads& g) {
  std::vector<Value> args{V(g[0]), s.arg(1)};
  for (size_t i = 3; i < s.args.size(); ++i) args.push_back(s.arg(i));
  return {call_tensor(kForward, std::move(args))};
}

constexpr char kB[] = "aten::_upsample_bilinear2d_aa", kC[] = "aten::_upsample_bicubic2d_aa";
constexpr char kBb[] = "aten::_upsample_bilinear2d_aa_backward";
constexpr char kCb[] = "aten::_upsample_bicubic2d_aa_backward";

}  // namespace

TN_REGISTER_DERIVATIVE(kB, {"UpsampleBilinear2DAaBackward0", {0}, {}, 0, aa_backward<kBb>});
TN_REGISTER_DERIVATIVE(kC, {"UpsampleBicubic2DAaBackward0", {0}, {}, 0, aa_backward<kCb>});
TN_REGISTER_DERIVATIVE(kBb, {"UpsampleBilinear2DAaBackwardBackward0", {0}, {}, 0,
                             aa_backward_backward<kB>});
TN_REGISTER_DERIVATIVE(kCb, {"UpsampleBicubic2DAaBackwardBackward0", {0}, {}, 0,
                             aa_backward_backward<kC>});

}  // namespace tn::autograd
