// Derivatives of the batch-norm spellings in kernels/composite/batch_norm_legit.cpp, as
// derivatives.yaml writes them: native_batch_norm_backward (batch_norm_backward for
// _batch_norm_with_update) of grad, input, weight, the running statistics, the saved mean and
// invstd (outputs 1 and 2), the training flag and eps, for the inputs that need a gradient.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// kTrain: the training flag's argument position, or -1 false, -2 true; kRunning: the running
// mean's position (the variance follows it), or -1 for none; kEps: eps's position.
template <int kTrain, int kRunning, int kEps, bool kWithUpdate>
Grads legit_backward(const Saved& s, const Grads& g) {
  if (!g[0]) return Grads(3);
  auto opt = [&](int i) {
    return i >= 0 && s.arg(size_t(i)).tag == Value::Tag::Tensor ? s.arg(size_t(i)) : Value{};
  };
  const Value train = kTrain >= 0 ? s.arg(size_t(kTrain)) : Value::of_bool(kTrain == -2);
  std::vector<Value> args = {V(g[0]),
                             V(s.tensor(0)),
                             opt(1),
                             opt(kRunning),
                             opt(kRunning < 0 ? -1 : kRunning + 1),
                             V(s.result(1)),
                             V(s.result(2)),
                             train,
                             s.arg(size_t(kEps)),
                             bool_list({s.need(0), s.need(1), s.need(2)})};
  if (kWithUpdate) args.push_back(V(s.result(3)));
  std::vector<Value> r =
      call(kWithUpdate ? "aten::batch_norm_backward" : "aten::native_batch_norm_backward",
           std::move(args));
  Grads out(3);
  for (size_t i = 0; i < 3; ++i)
    if (s.need(i) && r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_native_batch_norm_legit",
                       {"NativeBatchNormLegitBackward0", {0, 1, 2}, {{0}, {1}, {3}, {4}}, 0b110,
                        legit_backward<5, 3, 7, false>, 0b110, {3, 4}});
TN_REGISTER_DERIVATIVE("aten::_native_batch_norm_legit.no_stats",
                       {"NativeBatchNormLegitBackward1", {0, 1, 2}, {{0}, {1}}, 0b110,
                        legit_backward<3, -1, 5, false>, 0b110});
TN_REGISTER_DERIVATIVE("aten::_native_batch_norm_legit_no_training",
                       {"NativeBatchNormLegitNoTrainingBackward0", {0, 1, 2},
                        {{0}, {1}, {3}, {4}}, 0b110, legit_backward<-1, 3, 6, false>, 0b110,
                        {3, 4}});
TN_REGISTER_DERIVATIVE("aten::_batch_norm_with_update",
                       {"BatchNormWithUpdateBackward0", {0, 1, 2}, {{0}, {1}, {3}, {4}}, 0b1110,
                        legit_backward<-2, 3, 6, true>, 0b1110, {3, 4}});

}  // namespace tn::autograd
