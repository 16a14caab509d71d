// cross(self, other, dim=None) and cross.out, as upstream's Cross.cpp composes them: linalg_cross
// along dim, or (dim None) along the first dim of self of size 3, after upstream's one-time
// deprecation warning. linalg_cross itself is kernels/cpu/cross.cpp.
#include <mutex>

#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

// upstream's _default_cross_dim: dim as given, else the first dim of size 3 (warned once).
Value cross_dim(const Call& c) {
  if (!c.arg(2).is_none()) return c.arg(2);
  static std::once_flag once;
  std::call_once(once, [] {
    warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
         "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
         "change to agree with that of linalg.cross in a future release.");
  });
  const Tensor& a = c.tensor(0);
  for (int64_t i = 0; i < a->dim(); ++i)
    if (a->size(i) == 3) return ops::i64(i);
  TN_FAIL(Runtime, "no dimension of size 3 in input");
}

// cross(Tensor self, Tensor other, int? dim=None); .out adds out.
void cross(Call& c) {
  c.ret(call_tensor("aten::linalg_cross", {c.arg(0), c.arg(1), cross_dim(c)}));
}
void cross_out(Call& c) {
  c.ret(call_tensor("aten::linalg_cross.out", {c.arg(0), c.arg(1), cross_dim(c), c.arg(3)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::cross", cross);
TN_REGISTER_COMPOSITE("aten::cross.out", cross_out);

}  // namespace tn
