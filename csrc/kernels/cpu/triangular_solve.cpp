// The deprecated triangular_solve(self=b, A, upper, transpose, unitriangular) -> (solution,
// cloned_coefficient) and its .X out= form, dense CPU and Meta, as upstream's structured
// kernel (BatchLinearAlgebra.cpp): its checks in their order and words, both results over the
// broadcast batch with column-major matrices, cloned_coefficient a copy of A, and the solution
// from ?trsm on that copy with trans = transpose, uplo = upper, as upstream's
// triangular_solve_stub calls it. The trsm call is linalg_solve_triangular's
// (cpu/linalg_triangular.cpp), handed the copy (or its transpose, which it passes to trsm as the
// same column-major copy with trans='T'), so both ops share one BLAS path.
#include <mutex>

#include "core/warning.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/linalg_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::t;

struct Shapes {
  Dims b, a;  // the broadcast shapes of the solution and the coefficient copy
};

Shapes check(const Tensor& b, const Tensor& A) {
  TN_CHECK(b->dim() >= 2, "torch.triangular_solve: Expected b to have at least 2 dimensions, "
           "but it has ", b->dim(), " dimensions instead");
  TN_CHECK(A->dim() >= 2, "torch.triangular_solve: Expected A to have at least 2 dimensions, "
           "but it has ", A->dim(), " dimensions instead");
  TN_CHECK(b->dtype() == A->dtype(), "Expected b and A to have the same dtype, but found b of "
           "type ", enum_name(b->dtype()), " and A of type ", enum_name(A->dtype()), " instead.");
  const int64_t n = A->size(-1 + A->dim());
  TN_CHECK(n == A->size(A->dim() - 2), "A must be batches of square matrices, but they are ",
           A->size(A->dim() - 2), " by ", n, " matrices");
  const int64_t br = b->size(b->dim() - 2), bc = b->size(b->dim() - 1);
  TN_CHECK(n == br, "Incompatible matrix sizes for triangular_solve: each A matrix is ", n,
           " by ", n, " but each b matrix is ", br, " by ", bc);
  const Dims batch = broadcast_shapes(linalg::batch_of(b), linalg::batch_of(A));
  Shapes s{batch, batch};
  s.b.insert(s.b.end(), {br, bc});
  s.a.insert(s.a.end(), {n, n});
  return s;
}

void warn_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
         "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
         "arguments reversed and does not return a copy of one of the inputs.\nX = "
         "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
         "torch.linalg.solve_triangular(A, B).");
  });
}

// (solution, cloned_coefficient) on dense CPU tensors.
std::pair<Tensor, Tensor> compute(const Tensor& b, const Tensor& A, const Shapes& s, bool upper,
                                  bool transpose, bool unit) {
  const ScalarType dt = A->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double ||
                    dt == ScalarType::ComplexFloat || dt == ScalarType::ComplexDouble,
                NotImplemented,
                "\"triangular_solve_cpu\" not implemented for '", c10_dtype_name(dt), "'");
  warn_once();
  Tensor clone = linalg::f_empty(s.a, dt, A->device());
  ops::copy_(clone, A);
  Tensor coef = transpose ? ops::mT(clone) : clone;
  Tensor x = call_tensor("aten::linalg_solve_triangular",
                         {t(coef), t(b), Value::of_bool(transpose ? !upper : upper),
                          Value::of_bool(true), Value::of_bool(unit)});
  return {x, clone};
}

// out resized as upstream's structured set_output: to the result's shape with column-major
// matrices when its shape differs (after the dtype check), then written.
void write(const Tensor& out, const Tensor& r) {
  resize_output(*out, r->sizes(), linalg::matrix_strides(r->sizes(), true));
  ops::copy_(out, r);
}

// triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False,
// bool unitriangular=False); .X adds X, M.
template <bool Cpu, bool Out>
void triangular_solve(Call& c) {
  const Tensor &b = c.tensor(0), &A = c.tensor(1);
  const Shapes s = check(b, A);
  if (Out) {
    ops::check_out_dtype(c.tensor(5), b->dtype());
    ops::check_out_dtype(c.tensor(6), A->dtype());
  }
  Tensor x, m;
  if (Cpu) {
    std::tie(x, m) = compute(b, A, s, c.to_bool(2), c.to_bool(3), c.to_bool(4));
  } else {
    x = linalg::f_empty(s.b, b->dtype(), b->device());
    m = linalg::f_empty(s.a, A->dtype(), A->device());
  }
  if (!Out) {
    c.ret(x);
    return c.ret(m);
  }
  write(c.tensor(5), x);
  write(c.tensor(6), m);
  c.ret(c.tensor(5));
  c.ret(c.tensor(6));
}

}  // namespace

TN_REGISTER_KERNEL("aten::triangular_solve", DenseCPU, (triangular_solve<true, false>));
TN_REGISTER_KERNEL("aten::triangular_solve", Meta, (triangular_solve<false, false>));
TN_REGISTER_KERNEL("aten::triangular_solve.X", DenseCPU, (triangular_solve<true, true>));
TN_REGISTER_KERNEL("aten::triangular_solve.X", Meta, (triangular_solve<false, true>));

}  // namespace tn
