// The matrix-view spellings upstream composes from transpose, permute, conj and diagonal (each
// CompositeImplicit, so autograd sees the pieces): numpy_T (x.T), matrix_H (x.H), mT, mH,
// adjoint, and linalg_diagonal, with upstream's messages and its once-only warning for x.T of
// a tensor that is not a matrix.
#include <mutex>

#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::conj_if_complex;
using ops::t;

Tensor reversed(const Tensor& x) {
  Dims dims;
  for (int64_t d = x->dim() - 1; d >= 0; --d) dims.push_back(d);
  return call_tensor("aten::permute", {t(x), ops::ints(dims)});
}
void check_batched(const Tensor& x, const char* what) {
  TN_CHECK(x->dim() >= 2, what, " is only supported on matrices or batches of matrices. Got ",
           x->dim(), "-D tensor.");
}

// numpy_T(Tensor(a) self): x.T, every dim reversed.
void numpy_T(Call& c) {
  const Tensor& x = c.tensor(0);
  if (x->dim() != 2 && x->dim() != 0) {
    static std::once_flag once;  // upstream's TORCH_WARN_ONCE
    std::call_once(once, [] {
      warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
           "deprecated and it will throw an error in a future release. Consider `x.mT` to "
           "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
           "reverse the dimensions of a tensor.");
    });
  }
  c.ret(reversed(x));
}
// matrix_H(Tensor(a) self): x.H, for matrices (and 0-dim tensors).
void matrix_H(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK(x->dim() == 2 || x->dim() == 0, "tensor.H is only supported on matrices (2-D tensors). "
           "Got ", x->dim(), "-D tensor.", x->dim() > 2 ? " For batches of matrices, consider "
           "using tensor.mH" : "");
  c.ret(conj_if_complex(x->dim() == 0 ? reversed(x) : ops::mT(x)));
}
// A 0-dim tensor is deprecated but accepted (each op warns once): mT returns it, mH and adjoint
// its conjugate.
void warn_zero_dim(std::once_flag& once, const char* message) {
  std::call_once(once, [message] { warn(message); });
}
void mT(Call& c) {
  if (c.tensor(0)->dim() == 0) {
    static std::once_flag once;
    warn_zero_dim(once, "Tensor.mT is deprecated on 0-D tensors. This function is the identity "
                  "in these cases.");
    return c.ret(c.tensor(0));
  }
  check_batched(c.tensor(0), "tensor.mT");
  c.ret(ops::mT(c.tensor(0)));
}
void mH(Call& c) {
  if (c.tensor(0)->dim() == 0) {
    static std::once_flag once;
    warn_zero_dim(once, "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().");
    return c.ret(conj_if_complex(c.tensor(0)));
  }
  check_batched(c.tensor(0), "tensor.mH");
  c.ret(ops::mH(c.tensor(0)));
}
void adjoint(Call& c) {
  if (c.tensor(0)->dim() == 0) {
    static std::once_flag once;
    warn_zero_dim(once, "adjoint() is deprecated on 0-D tensors. Consider using x.conj().");
    return c.ret(conj_if_complex(c.tensor(0)));
  }
  check_batched(c.tensor(0), "tensor.adjoint()");
  c.ret(ops::mH(c.tensor(0)));
}
// linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1)
void linalg_diagonal(Call& c) {
  c.ret(call_tensor("aten::diagonal", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::numpy_T", numpy_T);
TN_REGISTER_COMPOSITE("aten::matrix_H", matrix_H);
TN_REGISTER_COMPOSITE("aten::mT", mT);
TN_REGISTER_COMPOSITE("aten::mH", mH);
TN_REGISTER_COMPOSITE("aten::adjoint", adjoint);
TN_REGISTER_COMPOSITE("aten::linalg_diagonal", linalg_diagonal);

}  // namespace tn
