// dist(self, other, p=2): the p-norm of self - other, as upstream's Distance.cpp composes it
// (at::norm of the difference: its dtype check, then linalg_vector_norm over every element).
// CompositeExplicit as upstream's, so autograd records DistBackward0, not the pieces.
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

void dist(Call& c) {
  Tensor diff = call_tensor("aten::sub.Tensor", {c.arg(0), c.arg(1)});
  const ScalarType dt = diff->dtype();
  TN_CHECK(is_floating(dt) || is_complex(dt), "norm(): input dtype should be either floating "
           "point or complex. Got ", c10_dtype_name(dt), " instead.");
  TN_CHECK(c.arg(2).tag != Value::Tag::Scalar || !c.arg(2).scalar.is_complex(),
           "linalg.vector_norm: Expected a non-complex scalar as the order of norm.");
  c.ret(call_tensor("aten::linalg_vector_norm", {ops::t(diff), c.arg(2), Value{},
                                                 Value::of_bool(false), Value{}}));
}

}  // namespace

TN_REGISTER_KERNEL("aten::dist", CompositeExplicit, dist);

}  // namespace tn
