// Derivatives of rot90, channel_shuffle, block_diag and narrow_copy (Rot90Backward0,
// ChannelShuffleBackward0, BlockDiagBackward0, NarrowCopyBackward0): derivatives.yaml's
// grad.rot90(-k, dims), the inverse shuffle, upstream's block_diag_backward, and
// slice_backward_wrapper (grad written into zeros of self's sizes at the narrowed range).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads rot90_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::rot90", {V(g[0]), Value::of_int(-s.to_int(1)), s.arg(2)})};
}
// channel_shuffle(self, groups): channel_shuffle(grad, grad.size(1) / groups).
Grads channel_shuffle_backward(const Saved& s, const Grads& g) {
  int64_t groups = g[0]->size(1) / s.to_int(1);
  return {call_tensor("aten::channel_shuffle", {V(g[0]), Value::of_int(groups)})};
}
// block_diag(tensors): upstream's block_diag_backward: each input's block of grad, reshaped to
// its sizes; an empty 1-D input gets an empty gradient and, as upstream's, does not move the
// position on (its 1 x 0 block's row is not skipped).
Grads block_diag_backward(const Saved& s, const Grads& g) {
  Grads out(s.metas.size());
  int64_t r = 0, k = 0;
  for (size_t i = 0; i < s.metas.size(); ++i) {
    const Dims& shape = s.meta(i).sizes;
    if (shape.size() == 1 && shape[0] == 0) {
      if (s.need(i)) out[i] = zeros({0}, g[0]->dtype(), s.meta(i).device);
      continue;
    }
    int64_t h = shape.size() == 2 ? shape[0] : 1;
    int64_t w = shape.size() == 2 ? shape[1] : shape.size() == 1 ? shape[0] : 1;
    Tensor block = narrow(narrow(g[0], 0, r, h), 1, k, w);
    if (s.need(i)) out[i] = shape.size() == 2 ? block : reshape(block, shape);
    r += h;
    k += w;
  }
  return out;
}
Grads narrow_copy_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  int64_t dim = wrap(s.to_int(1), n), start = s.to_int(2), length = s.to_int(3);
  if (start < 0) start += m.sizes[dim];
  Tensor z = zeros(m.sizes, g[0]->dtype(), m.device);
  ops::copy_(narrow(z, dim, start, length), g[0]);
  return {z};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::rot90", {"Rot90Backward0", {0}, {}, 0, rot90_backward});
TN_REGISTER_DERIVATIVE("aten::narrow_copy",
                       {"NarrowCopyBackward0", {0}, {}, 0, narrow_copy_backward});
TN_REGISTER_DERIVATIVE("aten::channel_shuffle",
                       {"ChannelShuffleBackward0", {0}, {}, 0, channel_shuffle_backward});
TN_REGISTER_DERIVATIVE("aten::block_diag",
                       {"BlockDiagBackward0", {0}, {}, 0, block_diag_backward});
TN_COMPLEX_READY("aten::rot90", "aten::narrow_copy", "aten::channel_shuffle", "aten::block_diag");

}  // namespace tn::autograd
