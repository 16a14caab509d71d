// Derivative of grid_sampler_2d (GridSampler2DBackward0): derivatives.yaml's
// grid_sampler_2d_backward(grad, input, grid, interpolation_mode, padding_mode, align_corners,
// grad_input_mask), both gradients from one call of the backward kernel
// (kernels/cpu/nn_grid_sampler.cpp).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads grid_sampler_2d_backward(const Saved& s, const Grads& g) {
  std::vector<Value> r = call("aten::grid_sampler_2d_backward",
                              {V(g[0]), s.arg(0), s.arg(1), s.arg(2), s.arg(3), s.arg(4),
                               bool_list({s.need(0), s.need(1)})});
  return {s.need(0) ? r[0].tensor : Tensor(), s.need(1) ? r[1].tensor : Tensor()};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::grid_sampler_2d",
                       {"GridSampler2DBackward0", {0, 1}, {{0}, {1}}, 0,
                        grid_sampler_2d_backward});

}  // namespace tn::autograd
