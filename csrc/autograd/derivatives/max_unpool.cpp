// Derivatives of max_unpool2d and max_unpool3d (kernels/cpu/max_unpool.cpp): derivatives.yaml's
// max_pool_double_backward(grad, indices, dims): grad read back at the indices, plane by plane
// over the last `dims` dims, in the input's shape (zeros of it when there are no elements).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

template <int kDims>
Grads max_unpool_backward(const Saved& s, const Grads& g) {
  return {max_pool_double_backward(g[0], s.tensor(1), kDims)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::max_unpool2d",
                       {"MaxUnpool2DBackward0", {0}, {{1}}, 0, max_unpool_backward<2>});
TN_REGISTER_DERIVATIVE("aten::max_unpool3d",
                       {"MaxUnpool3DBackward0", {0}, {{1}}, 0, max_unpool_backward<3>});

}  // namespace tn::autograd
