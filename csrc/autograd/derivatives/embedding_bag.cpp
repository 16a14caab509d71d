// The derivative of _embedding_bag (derivatives.yaml's EmbeddingBagBackward0): the weight's
// gradient by _embedding_bag_backward, the per-sample weights' by
// _embedding_bag_per_sample_weights_backward, both fed the forward's offset2bag, bag_size and
// max_indices (kernels/cpu/embedding_bag.cpp, kernels/composite/embedding_bag.cpp).
// _embedding_bag_forward_only has none, as upstream's. embedding_renorm_ gets
// upstream's not_implemented("embedding_renorm") node.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
//                per_sample_weights, include_last_offset, padding_idx); edges: weight,
// per_sample_weights.
Grads embedding_bag_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (!g[0]) return out;
  if (s.need(0))
    out[0] = call_tensor("aten::_embedding_bag_backward",
                         {V(g[0]), s.arg(1), s.arg(2), V(s.result(1)), V(s.result(2)),
                          V(s.result(3)), Value::of_int(s.meta(0).sizes[0]), s.arg(3),
                          s.arg(4), s.arg(5), s.arg(6), s.arg(8)});
  if (s.need(1))
    out[1] = call_tensor("aten::_embedding_bag_per_sample_weights_backward",
                         {V(g[0]), s.arg(0), s.arg(1), s.arg(2), V(s.result(1)), s.arg(4),
                          s.arg(8)});
  return out;
}

constexpr char kRenorm[] = "embedding_renorm";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::embedding_renorm_",
                       {"EmbeddingRenormBackward0", {0}, {}, 0, not_implemented<kRenorm>});
TN_REGISTER_DERIVATIVE("aten::_embedding_bag",
                       {"EmbeddingBagBackward0", {0, 6}, {{1}, {2}, {6, 0}, {0, 1}}, 0b1110,
                        embedding_bag_backward, 0b1110});

}  // namespace tn::autograd
