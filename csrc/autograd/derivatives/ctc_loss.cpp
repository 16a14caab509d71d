// Derivatives of _ctc_loss and _ctc_loss.Tensor (upstream's derivatives.yaml entries): log_probs
// gets _ctc_loss_backward (of the same overload family) from the saved loss and log_alpha. The
// formula reads `grad`, not `grads`, so only the loss is differentiable; log_alpha comes out
// without history, as upstream's. The kernels are in kernels/cpu/nn_ctc_loss.cpp; the backward
// ops have no formula, as upstream's (double backward refuses with its message).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// _ctc_loss[.Tensor](log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
// -> (neg_log_likelihood, log_alpha): _ctc_loss_backward[.Tensor](grad, log_probs, targets,
// input_lengths, target_lengths, result0, result1, blank, zero_infinity).
template <const char* kBackward>
Grads ctc_loss_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), s.arg(1), s.arg(2), s.arg(3),
                                  V(s.result(0)), V(s.result(1)), s.arg(4), s.arg(5)})};
}
constexpr char kLists[] = "aten::_ctc_loss_backward";
constexpr char kTensors[] = "aten::_ctc_loss_backward.Tensor";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_ctc_loss",
                       {"CtcLossBackward0", {0}, {{0}, {1}}, 0b11, ctc_loss_backward<kLists>,
                        0b10});
TN_REGISTER_DERIVATIVE("aten::_ctc_loss.Tensor",
                       {"CtcLossBackward1", {0}, {{0}, {1}, {2}, {3}}, 0b11,
                        ctc_loss_backward<kTensors>, 0b10});

}  // namespace tn::autograd
