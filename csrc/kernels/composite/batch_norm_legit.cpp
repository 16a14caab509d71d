// The batch-norm spellings upstream's functionalization and export use, each upstream's
// batch_norm_cpu under another name (the structured native_batch_norm rule and compute are
// registered for _native_batch_norm_legit in kernels/cpu/nn_batch_norm.cpp):
//   _native_batch_norm_legit.no_stats     no running statistics (train or eval as given);
//   _native_batch_norm_legit_no_training  training false (CompositeExplicit upstream);
//   _batch_norm_with_update               training true, plus an empty uint8 `reserve`;
//   batch_norm_backward                   native_batch_norm_backward with train = update;
// and the out= forms of _native_batch_norm_legit(.no_stats) and _batch_norm_with_update.
// Derivatives: autograd/derivatives/batch_norm_legit.cpp.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

void ret_values(Call& c, std::vector<Value> r, int first_out = -1) {
  if (first_out < 0) {
    for (Value& v : r) c.ret(std::move(v));
    return;
  }
  for (size_t i = 0; i < r.size(); ++i)
    c.ret(write_out(c.tensor(size_t(first_out) + i), r[i].tensor, c.key()));
}

// _native_batch_norm_legit.out(input, weight, bias, running_mean, running_var, training,
//   momentum, eps, *, out, save_mean, save_invstd)
void legit_out(Call& c) {
  ret_values(c, call("aten::_native_batch_norm_legit",
                     {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6),
                      c.arg(7)}), 8);
}
// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
std::vector<Value> no_stats(const Call& c) {
  return call("aten::native_batch_norm", {c.arg(0), c.arg(1), c.arg(2), Value{}, Value{},
                                          c.arg(3), c.arg(4), c.arg(5)});
}
void legit_no_stats(Call& c) { ret_values(c, no_stats(c)); }
void legit_no_stats_out(Call& c) { ret_values(c, no_stats(c), 6); }
// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
//   momentum, eps)
void legit_no_training(Call& c) {
  ret_values(c, call("aten::_native_batch_norm_legit",
                     {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), Value::of_bool(false),
                      c.arg(5), c.arg(6)}));
}
// _batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps)
std::vector<Value> with_update(const Call& c) {
  std::vector<Value> r = call("aten::native_batch_norm",
                              {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4),
                               Value::of_bool(true), c.arg(5), c.arg(6)});
  r.push_back(t(empty({0}, ScalarType::Byte, c.tensor(0)->device())));
  return r;
}
void batch_norm_with_update(Call& c) { ret_values(c, with_update(c)); }
void batch_norm_with_update_out(Call& c) { ret_values(c, with_update(c), 7); }
// batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var,
//   update, eps, output_mask, reserve)
void batch_norm_backward(Call& c) {
  // upstream's kernel reads the statistics through 1-d accessors
  for (size_t i = 3; i <= 6; ++i) {
    const Tensor* s = c.optional_tensor(i);
    TN_CHECK(!s || (*s)->dim() == 1, "TensorAccessor expected 1 dims but tensor has ",
             (*s)->dim());
  }
  ret_values(c, call("aten::native_batch_norm_backward",
                     {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6),
                      c.arg(7), c.arg(8), c.arg(9)}));
}

TN_REGISTER_COMPOSITE("aten::_native_batch_norm_legit.out", legit_out);
TN_REGISTER_KERNEL("aten::_native_batch_norm_legit.no_stats", DenseCPU, legit_no_stats);
TN_REGISTER_KERNEL("aten::_native_batch_norm_legit.no_stats", Meta, legit_no_stats);
TN_REGISTER_COMPOSITE("aten::_native_batch_norm_legit.no_stats_out", legit_no_stats_out);
TN_REGISTER_COMPOSITE("aten::_native_batch_norm_legit_no_training", legit_no_training);
TN_REGISTER_KERNEL("aten::_batch_norm_with_update", DenseCPU, batch_norm_with_update);
TN_REGISTER_KERNEL("aten::_batch_norm_with_update", Meta, batch_norm_with_update);
TN_REGISTER_COMPOSITE("aten::_batch_norm_with_update.out", batch_norm_with_update_out);
TN_REGISTER_KERNEL("aten::batch_norm_backward", DenseCPU, batch_norm_backward);
TN_REGISTER_KERNEL("aten::batch_norm_backward", Meta, batch_norm_backward);

}  // namespace
}  // namespace tn
