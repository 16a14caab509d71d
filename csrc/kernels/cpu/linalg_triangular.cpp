// linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False) and its out= form:
// X with A X = B (or X A = B), A triangular, through BLAS ?trsm as upstream's CPU kernel calls
// it (same library, same routine): batch dims broadcast, X laid out column-major per matrix
// (upstream's result strides) holding a copy of B in A's dtype, and A passed as it lies where it
// can be: a row-major A is the column-major A^T, solved with trans='T' and the triangle flipped;
// any other layout is copied column-major first. X A = B is solved as A^T X^T = B^T. float32,
// float64, complex64 and complex128 (upstream's CPU kernel has no 16-bit or integer case); a
// conjugate A reaches here resolved (the Conjugate layer's fallback, complex_views.cpp).
#include <algorithm>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/linalg_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

using linalg::batch_of;
using linalg::matrix_strides;

Tensor solve(const Call& c, const Tensor& A, const Tensor& B, bool upper, bool left, bool unit);

// A X = B for A (..., n, n), B (..., n, k), same batch after broadcasting.
Tensor solve_left(const Call& c, const Tensor& A0, const Tensor& B0, bool upper, bool unit) {
  const std::string& key = c.key();
  Dims batch = broadcast_shapes(batch_of(A0), batch_of(B0));
  const int64_t n = A0->size(A0->dim() - 1), k = B0->size(B0->dim() - 1);
  Dims a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {n, k});
  Tensor A = call_tensor("aten::expand", {t(A0), ops::ints(a_shape), Value::of_bool(false)});
  Tensor B = call_tensor("aten::expand", {t(B0), ops::ints(b_shape), Value::of_bool(false)});
  Tensor X = ops::empty_strided(b_shape, matrix_strides(b_shape, true), A0->dtype(), A0->device());
  ops::copy_(X, B);
  if (X->numel() == 0) return X;
  // A as it lies when each matrix is row-major (then it is A^T column-major) or column-major.
  const int64_t d = A->dim();
  const bool row_major = A->stride(d - 1) == 1 && A->stride(d - 2) == n;
  const bool col_major = A->stride(d - 2) == 1 && A->stride(d - 1) == n;
  if (!row_major && !col_major) {
    Tensor copy =
        ops::empty_strided(a_shape, matrix_strides(a_shape, true), A->dtype(), A->device());
    ops::copy_(copy, A);
    A = copy;
  }
  const bool trans = row_major;
  const CBLAS_UPLO uplo = (upper != trans) ? CblasUpper : CblasLower;
  const CBLAS_TRANSPOSE op = trans ? CblasTrans : CblasNoTrans;
  const CBLAS_DIAG diag = unit ? CblasUnit : CblasNonUnit;
  // Walk the batch: every matrix's offset in A (possibly broadcast, stride 0) and in X.
  const int64_t count = numel_of(batch);
  std::vector<int64_t> a_off(static_cast<size_t>(count)), x_off(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    int64_t rem = b, ao = 0, xo = 0;
    for (size_t i = batch.size(); i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      ao += idx * A->stride(static_cast<int64_t>(i));
      xo += idx * X->stride(static_cast<int64_t>(i));
    }
    a_off[static_cast<size_t>(b)] = ao;
    x_off[static_cast<size_t>(b)] = xo;
  }
  const Blas& lib = blas();
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  // One walk over the batch for each dtype's ?trsm (the complex ones take alpha by pointer).
  auto each = [&](auto zero, auto&& trsm) {
    using T = decltype(zero);
    const T* a = data_of<T>(A, key);
    T* x = data_of<T>(X, key);
    for (int64_t b = 0; b < count; ++b) trsm(a + a_off[b], x + x_off[b]);
  };
  const cfloat c1(1.0f);
  const cdouble z1(1.0);
  switch (A->dtype()) {
    case ScalarType::Float:
      each(float{}, [&](const float* a, float* x) {
        lib.strsm(CblasColMajor, CblasLeft, uplo, op, diag, ni, ki, 1.0f, a, ni, x, ni);
      });
      break;
    case ScalarType::ComplexFloat:
      each(cfloat{}, [&](const cfloat* a, cfloat* x) {
        lib.ctrsm(CblasColMajor, CblasLeft, uplo, op, diag, ni, ki, &c1, a, ni, x, ni);
      });
      break;
    case ScalarType::ComplexDouble:
      each(cdouble{}, [&](const cdouble* a, cdouble* x) {
        lib.ztrsm(CblasColMajor, CblasLeft, uplo, op, diag, ni, ki, &z1, a, ni, x, ni);
      });
      break;
    default:
      each(double{}, [&](const double* a, double* x) {
        lib.dtrsm(CblasColMajor, CblasLeft, uplo, op, diag, ni, ki, 1.0, a, ni, x, ni);
      });
  }
  return X;
}

Tensor solve(const Call& c, const Tensor& A, const Tensor& B, bool upper, bool left, bool unit) {
  const char* name = "linalg.solve_triangular";
  TN_CHECK(A->dim() >= 2, name, ": The input tensor A must have at least 2 dimensions.");
  TN_CHECK(B->dim() >= 2, name, ": The input tensor B must have at least 2 dimensions.");
  const int64_t ar = A->size(A->dim() - 2), ac = A->size(A->dim() - 1);
  TN_CHECK(ar == ac, name, ": A must be batches of square matrices, but they are ", ar, " by ",
           ac, " matrices");
  const int64_t br = B->size(B->dim() - 2), bc = B->size(B->dim() - 1);
  if (left)
    TN_CHECK(ac == br, name, ": Incompatible shapes of A and B for the equation AX = B (", ar,
             "x", ac, " and ", br, "x", bc, ")");
  else
    TN_CHECK(ar == bc, name, ": Incompatible shapes of A and B for the equation XA = B (", ar,
             "x", ac, " and ", br, "x", bc, ")");
  const ScalarType dt = A->dtype();
  TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double ||
                    dt == ScalarType::ComplexFloat || dt == ScalarType::ComplexDouble,
                NotImplemented,
                "\"triangular_solve_cpu\" not implemented for '", c10_dtype_name(dt), "'");
  if (left) return solve_left(c, A, B, upper, unit);
  // X A = B  <=>  A^T X^T = B^T, then X laid out column-major as upstream returns it.
  auto mt = [](const Tensor& x) {
    return call_tensor("aten::transpose.int", {t(x), Value::of_int(-2), Value::of_int(-1)});
  };
  Tensor xt = solve_left(c, mt(A), mt(B), !upper, unit);
  Tensor x = mt(xt);
  Tensor out = ops::empty_strided(x->sizes(), matrix_strides(x->sizes(), true), x->dtype(),
                                  x->device());
  ops::copy_(out, x);
  return out;
}

// linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True,
// bool unitriangular=False)
void solve_triangular(Call& c) {
  check_supported(c.tensor(0), c.key());
  check_supported(c.tensor(1), c.key());
  c.ret(solve(c, c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), c.to_bool(4)));
}
void solve_triangular_out(Call& c) {
  Tensor r = solve(c, c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), c.to_bool(4));
  c.ret(ops::write_out(c.tensor(5), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_solve_triangular", DenseCPU, solve_triangular);
TN_REGISTER_KERNEL("aten::linalg_solve_triangular.out", DenseCPU, solve_triangular_out);

}  // namespace tn
