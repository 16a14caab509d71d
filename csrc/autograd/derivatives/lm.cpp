// Derivatives of the ops language-model training reaches that no other family file holds
// (upstream's derivatives.yaml entries): constant_pad_nd's, whose backward is constant_pad_nd
// of the gradient with every pad negated (upstream's constant_pad_nd_backward); reflection and
// replication padding, whose backward ops (kernels/cpu/pad.cpp) are linear in the gradient, so
// their own backward pads the gradient again.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// constant_pad_nd(self, pad, value): self gets constant_pad_nd(grad, -pad, 0).
Grads constant_pad_nd_backward(const Saved& s, const Grads& g) {
  Dims negated = s.ints(1);
  for (int64_t& p : negated) p = -p;
  return {call_tensor("aten::constant_pad_nd",
                      {V(g[0]), Value::of_ints(negated), S(Scalar::from_int(0))})};
}

// reflection_padNd(self, padding) and the replication ones: self gets
// <op>_backward(grad, self, padding); kBackward names that op.
template <const char* kBackward>
Grads pad_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kBackward, {V(g[0]), V(s.tensor(0)), Value::of_ints(s.ints(1))})};
}
// <op>_backward(grad_output, self, padding): grad_output gets <op>(grad, padding); self, whose
// values the backward never reads, gets zeros (upstream's zeros_like(self)).
template <const char* kForward>
Grads pad_backward_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = call_tensor(kForward, {V(g[0]), Value::of_ints(s.ints(2))});
  if (s.need(1)) out[1] = zeros(s.meta(1).sizes, s.meta(1).dtype, s.meta(1).device);
  return out;
}

constexpr char kReflect1[] = "aten::reflection_pad1d";
constexpr char kReflect2[] = "aten::reflection_pad2d";
constexpr char kReflect3[] = "aten::reflection_pad3d";
constexpr char kReplicate1[] = "aten::replication_pad1d";
constexpr char kReplicate2[] = "aten::replication_pad2d";
constexpr char kReplicate3[] = "aten::replication_pad3d";
constexpr char kReflect1B[] = "aten::reflection_pad1d_backward";
constexpr char kReflect2B[] = "aten::reflection_pad2d_backward";
constexpr char kReflect3B[] = "aten::reflection_pad3d_backward";
constexpr char kReplicate1B[] = "aten::replication_pad1d_backward";
constexpr char kReplicate2B[] = "aten::replication_pad2d_backward";
constexpr char kReplicate3B[] = "aten::replication_pad3d_backward";

}  // namespace

TN_REGISTER_DERIVATIVE(kReflect1,
                       {"ReflectionPad1DBackward0", {0}, {{0}}, 0, pad_backward<kReflect1B>});
TN_REGISTER_DERIVATIVE(kReflect2,
                       {"ReflectionPad2DBackward0", {0}, {{0}}, 0, pad_backward<kReflect2B>});
TN_REGISTER_DERIVATIVE(kReflect3,
                       {"ReflectionPad3DBackward0", {0}, {{0}}, 0, pad_backward<kReflect3B>});
TN_REGISTER_DERIVATIVE(kReplicate1,
                       {"ReplicationPad1DBackward0", {0}, {{0}}, 0, pad_backward<kReplicate1B>});
TN_REGISTER_DERIVATIVE(kReplicate2,
                       {"ReplicationPad2DBackward0", {0}, {{0}}, 0, pad_backward<kReplicate2B>});
TN_REGISTER_DERIVATIVE(kReplicate3,
                       {"ReplicationPad3DBackward0", {0}, {{0}}, 0, pad_backward<kReplicate3B>});
TN_REGISTER_DERIVATIVE(kReflect1B, {"ReflectionPad1DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReflect1>});
TN_REGISTER_DERIVATIVE(kReflect2B, {"ReflectionPad2DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReflect2>});
TN_REGISTER_DERIVATIVE(kReflect3B, {"ReflectionPad3DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReflect3>});
TN_REGISTER_DERIVATIVE(kReplicate1B, {"ReplicationPad1DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReplicate1>});
TN_REGISTER_DERIVATIVE(kReplicate2B, {"ReplicationPad2DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReplicate2>});
TN_REGISTER_DERIVATIVE(kReplicate3B, {"ReplicationPad3DBackwardBackward0", {0, 1}, {}, 0,
                                     pad_backward_backward<kReplicate3>});

TN_REGISTER_DERIVATIVE("aten::constant_pad_nd",
                       {"ConstantPadNdBackward0", {0}, {}, 0, constant_pad_nd_backward});

}  // namespace tn::autograd
