// native_dropout_backward(grad_output, mask, scale): grad_output * mask * scale, as upstream's
// CPU kernel writes it (two products, each rounded in the promoted dtype: a bool mask keeps
// grad's dtype, an integral grad meets the float scale in the default float dtype), and its
// autogen out=. Written with door ops, so it serves Dense CPU and Meta. Its derivative
// (NativeDropoutBackwardBackward0) is in autograd/derivatives/dropout_backward.cpp.
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

Tensor dropout_backward_of(const Call& c) {
  Tensor masked = call_tensor("aten::mul.Tensor", {c.arg(0), c.arg(1)});
  return call_tensor("aten::mul.Scalar",
                     {t(masked), Value::of_scalar(Scalar::from_double(c.to_double(2)))});
}
void native_dropout_backward(Call& c) { c.ret(dropout_backward_of(c)); }
void native_dropout_backward_out(Call& c) {
  Tensor r = dropout_backward_of(c);
  check_out_dtype(c.tensor(3), r->dtype());  // autogen out=: the dtype exactly
  c.ret(write_out(c.tensor(3), r, c.key()));
}
TN_REGISTER_KERNEL("aten::native_dropout_backward", DenseCPU, native_dropout_backward);
TN_REGISTER_KERNEL("aten::native_dropout_backward", Meta, native_dropout_backward);
TN_REGISTER_COMPOSITE("aten::native_dropout_backward.out", native_dropout_backward_out);

}  // namespace
}  // namespace tn
