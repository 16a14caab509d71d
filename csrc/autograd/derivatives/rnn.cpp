// Derivatives of the ops the RNN composites reach that no other family registers (upstream's
// derivatives.yaml entries): unsafe_split / unsafe_split_with_sizes (the pieces' gradients
// joined again, zeros standing in for a piece with none), transpose_ (the gradient transposed
// back) and _pack_padded_sequence (the packed gradient unpacked into the padded input's shape).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// unsafe_split.Tensor(self, split_size, dim) / unsafe_split_with_sizes(self, sizes, dim).
Grads unsafe_split_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::cat", {Value::of_tensors(g), Value::of_int(s.to_int(2))})};
}

// transpose_(self, dim0, dim1): grad.transpose(dim0, dim1).
Grads transpose_inplace_backward(const Saved& s, const Grads& g) {
  return {transpose(g[0], s.to_int(1), s.to_int(2))};
}

// _pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes):
// _pack_padded_sequence_backward(grad, input.sizes(), batch_sizes, batch_first).
Grads pack_padded_sequence_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::_pack_padded_sequence_backward",
                      {V(g[0]), Value::of_ints(s.meta(0).sizes), V(s.result(1)), s.arg(2)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::unsafe_split.Tensor",
                       {"UnsafeSplitBackward0", {0}, {}, 0, unsafe_split_backward});
TN_REGISTER_DERIVATIVE("aten::unsafe_split_with_sizes",
                       {"UnsafeSplitWithSizesBackward0", {0}, {}, 0, unsafe_split_backward});
TN_REGISTER_DERIVATIVE("aten::transpose_",
                       {"TransposeBackward1", {0}, {}, 0, transpose_inplace_backward});
TN_REGISTER_DERIVATIVE("aten::_pack_padded_sequence",
                       {"PackPaddedSequenceBackward0", {0}, {}, 0b10,
                        pack_padded_sequence_backward, 0b10});

}  // namespace tn::autograd
