// block_diag(Tensor[] tensors): upstream's composite (CompositeExplicit): its device and rank
// checks in its words, the promoted dtype of all inputs, 0-D and 1-D inputs as 1 x 1 and
// 1 x n blocks, each copied into zeros at its place on the diagonal. Derivative at Autograd
// (autograd/derivatives/shape_misc.cpp).
#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

void block_diag(Call& c) {
  const std::vector<Tensor>& ts = c.tensor_list(0);
  if (ts.empty()) return c.ret(ops::empty({1, 0}, default_float_dtype(), Device{}));
  Device device = ts[0]->device();
  for (size_t i = 0; i < ts.size(); ++i)
    TN_CHECK(ts[i]->device() == device, "Input tensors must all be on the same device. Input 0 "
             "is on device ", device.str(), " and input ", i, " is on device ",
             ts[i]->device().str(), ".");
  ResultType rt;
  for (const Tensor& t : ts) rt.add_tensor(t->dtype(), t->dim() == 0);
  std::vector<Tensor> blocks;
  int64_t rows = 0, cols = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    TN_CHECK(t->dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
             "Input ", i, " has ", t->dim(), " dimensions");
    Dims shape = t->dim() == 2 ? t->sizes() : Dims{1, t->dim() == 1 ? t->size(0) : 1};
    blocks.push_back(t->dim() == 2 ? t : call_tensor("aten::expand", {V(t), ops::ints(shape)}));
    rows += shape[0];
    cols += shape[1];
  }
  Tensor result = call_tensor("aten::zero_", {V(ops::empty({rows, cols}, rt.result(), device))});
  int64_t r = 0, k = 0;
  for (const Tensor& b : blocks) {
    int64_t h = b->size(0), w = b->size(1);
    ops::copy_(ops::narrow(ops::narrow(result, 0, r, h), 1, k, w), b);
    r += h;
    k += w;
  }
  c.ret(result);
}
TN_REGISTER_COMPOSITE("aten::block_diag", block_diag);

}  // namespace
}  // namespace tn
