// prelu as upstream composes it (Activation.cpp): prelu(self, weight) checks the weight against
// self's channel dim, reshapes it to broadcast ([1, C, 1, ...]) and calls _prelu_kernel, whose
// gradient is _prelu_kernel_backward (PreluKernelBackward0, autograd/derivatives/prelu.cpp).
//   _prelu_kernel(self, weight)       self > 0 ? self : weight * self, into empty_like(self);
//   _prelu_kernel_backward(g, self, weight)
//                                     (self > 0 ? g : weight * g, self > 0 ? 0 : self * g),
//                                     both of the broadcast shape (the engine sums the second to
//                                     weight's shape).
// Both kernels are written with door ops (gt, where, mul), which serve Dense CPU and Meta; each
// product is one rounding in the tensor's dtype (a float16/bfloat16 one computed in float), as
// upstream's scalar and vector lanes compute it, so the bits agree. Floating dtypes only, as
// upstream's AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half) ("prelu_cpu").
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

void check_prelu_dtype(const Tensor& x, const char* name) {
  const ScalarType dt = x->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half ||
                    dt == ScalarType::BFloat16,
                NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(dt), "'");
}
// TensorIterator's check that every operand has the common (first input's) dtype.
void check_same_dtype(const Tensor& a, const Tensor& b) {
  TN_CHECK(a->dtype() == b->dtype(), "Found dtype ", c10_dtype_name(b->dtype()),
           " but expected ", c10_dtype_name(a->dtype()));
}
Tensor positive(const Tensor& self) {
  return call_tensor("aten::gt.Scalar", {t(self), Value::of_scalar(Scalar::from_int(0))});
}
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {t(cond), t(a), t(b)});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::mul.Tensor", {t(a), t(b)});
}

// prelu(Tensor self, Tensor weight): upstream's checks, then _prelu_kernel.
void prelu(Call& c) {
  const Tensor &self = c.tensor(0), &w = c.tensor(1);
  const int64_t nd = self->dim();
  TN_CHECK(self->dtype() == w->dtype(), "prelu: Type promoting not supported. Got ",
           enum_name(self->dtype()), " and ", enum_name(w->dtype()));
  if (w->numel() != 1) {
    TN_CHECK(nd > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = nd > 1 ? self->size(1) : 1;
    TN_CHECK(channels == w->numel(), "Mismatch of parameter numbers and input channel size. "
             "Found parameter numbers = ", w->numel(), " and channel size = ", channels, ".");
  }
  TN_CHECK(w->dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
           "ndim = ", w->dim());
  Tensor weight = w;
  if (nd != w->dim()) {
    Dims shape(static_cast<size_t>(nd), 1);
    if (nd > 1) shape[1] = w->numel();
    weight = call_tensor("aten::reshape", {t(w), ints(shape)});
  }
  c.ret(call_tensor("aten::_prelu_kernel", {t(self), t(weight)}));
}
TN_REGISTER_COMPOSITE("aten::prelu", prelu);

// _prelu_kernel(Tensor self, Tensor weight): weight broadcasts to self's shape.
void prelu_kernel(Call& c) {
  const Tensor &self = c.tensor(0), &w = c.tensor(1);
  check_same_dtype(self, w);
  check_prelu_dtype(self, "prelu_cpu");
  Tensor r = where(positive(self), self, mul(w, self));
  // Into empty_like(self); a weight reaching beyond self's shape resizes the output, as
  // upstream's TensorIterator does, to the broadcast shape.
  if (r->sizes() != self->sizes()) return c.ret(r);
  Tensor out = call_tensor("aten::empty_like", {t(self)});
  copy_(out, r);
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::_prelu_kernel", DenseCPU, prelu_kernel);
TN_REGISTER_KERNEL("aten::_prelu_kernel", Meta, prelu_kernel);

// _prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (grad_self,
// grad_weight), both of the broadcast shape of the three.
void prelu_kernel_backward(Call& c) {
  const Tensor &g = c.tensor(0), &self = c.tensor(1), &w = c.tensor(2);
  check_same_dtype(self, w);
  check_same_dtype(self, g);
  check_prelu_dtype(self, "prelu_backward_cpu");
  Tensor pos = positive(self);
  Tensor zero = call_tensor("aten::scalar_tensor", {Value::of_scalar(Scalar::from_int(0)),
                                                    Value::of_dtype(self->dtype()), Value{},
                                                    Value::of_device(self->device())});
  Tensor grad_self = where(pos, g, mul(w, g));
  Tensor grad_weight = where(pos, zero, mul(self, g));
  // grad_self has the broadcast shape of all three; grad_weight lacks weight's dims.
  if (grad_weight->sizes() != grad_self->sizes())
    grad_weight = clone_contiguous(
        call_tensor("aten::expand", {t(grad_weight), ints(grad_self->sizes())}));
  c.ret(grad_self);
  c.ret(grad_weight);
}
TN_REGISTER_KERNEL("aten::_prelu_kernel_backward", DenseCPU, prelu_kernel_backward);
TN_REGISTER_KERNEL("aten::_prelu_kernel_backward", Meta, prelu_kernel_backward);

}  // namespace
}  // namespace tn
