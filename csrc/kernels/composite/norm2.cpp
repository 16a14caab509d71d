// group_norm as upstream writes it (group_norm.cpp, CompositeImplicitAutograd): checks, input and
// parameters made contiguous, native_group_norm's output. Its gradient is native_group_norm's
// (autograd/derivatives/norm.cpp); the kernels are in cpu/nn_norm2.cpp.
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enabled=True)
void group_norm(Call& c) {
  const Tensor& x = c.tensor(0);
  const Tensor* w = c.optional_tensor(2);
  const Tensor* b = c.optional_tensor(3);
  TN_CHECK_KIND(x->dim() >= 2, Index, "Dimension out of range (expected to be in range of [-",
                std::max<int64_t>(x->dim(), 1), ", ", std::max<int64_t>(x->dim(), 1) - 1,
                "], but got 1)");
  int64_t N = x->size(0), C = x->size(1), G = c.to_int(1);
  int64_t HxW = 1;
  for (int64_t d = 2; d < x->dim(); ++d) HxW *= x->size(d);
  auto contig = [](const Tensor& t) { return call_tensor("aten::contiguous", {Value::of(t)}); };
  Value wv = w ? Value::of(contig(*w)) : Value{}, bv = b ? Value::of(contig(*b)) : Value{};
  std::vector<Value> r = call("aten::native_group_norm",
                              {Value::of(contig(x)), wv, bv, i64(N), i64(C), i64(HxW), i64(G),
                               c.arg(4)});
  c.ret(r[0].tensor);
}
TN_REGISTER_COMPOSITE("aten::group_norm", group_norm);

}  // namespace
}  // namespace tn
