// The derivative of segment_reduce (kernels/cpu/segment_reduce.cpp): derivatives.yaml's
// _segment_reduce_backward(grad, result, data, reduce, lengths, offsets, axis, initial).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial) -> result.
Grads segment_reduce_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::_segment_reduce_backward",
                      {V(g[0]), V(s.result(0)), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(4),
                       s.arg(5), s.arg(7)})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::segment_reduce", {"SegmentReduceBackward0", {0}, {{0}, {2}, {4}},
                                                1, segment_reduce_backward});

}  // namespace tn::autograd
