// Shared helpers of the CPU linear algebra kernels (linalg_util.h).
#include "kernels/cpu/linalg_util.h"

#include <algorithm>

#include "core/promotion.h"
#include "kernels/composite/ops.h"

namespace tn::linalg {

Dims matrix_strides(const Dims& sizes, bool f_contig) {
  Dims s = contiguous_strides(sizes);
  const size_t d = sizes.size();
  if (f_contig && d >= 2) {
    s[d - 1] = std::max<int64_t>(sizes[d - 2], 1);
    s[d - 2] = 1;
  }
  return s;
}

int64_t batch_count(const Tensor& x) {
  int64_t n = 1;
  for (int64_t d = 0; d + 2 < x->dim(); ++d) n *= x->size(d);
  return n;
}

void check_matrix(const Tensor& t, const char* what, const char* arg) {
  TN_CHECK(t->dim() >= 2, what, ": The input tensor ", arg, " must have at least 2 dimensions.");
}

void check_out_castable(const char* api, const Tensor& out, ScalarType expected,
                        const char* name) {
  TN_CHECK(can_cast(expected, out->dtype()), api, ": Expected ", name, " to be safely castable "
           "from ", enum_name(expected), " dtype, but got ", name, " with dtype ",
           enum_name(out->dtype()));
}

void check_square(const Tensor& t, const char* what, const char* arg) {
  check_matrix(t, what, arg);
  const int64_t r = t->size(t->dim() - 2), c = t->size(t->dim() - 1);
  TN_CHECK(r == c, what, ": ", arg, " must be batches of square matrices, but they are ", r,
           " by ", c, " matrices");
}

void check_floating_or_complex(const Tensor& t, const char* what, bool low_precision) {
  const ScalarType dt = t->dtype();
  TN_CHECK(is_floating(dt) || is_complex(dt), what,
           ": Expected a floating point or complex tensor as input. Got ", c10_dtype_name(dt));
  if (!low_precision)
    TN_CHECK(dt == ScalarType::Float || dt == ScalarType::Double ||
                 dt == ScalarType::ComplexFloat || dt == ScalarType::ComplexDouble,
             what, ": Low precision dtypes not supported. Got ", c10_dtype_name(dt));
}

void check_solver_inputs(const Tensor& A, const Tensor& B, bool left, const char* what) {
  check_square(A, what, "A");
  check_matrix(B, what, "B");
  const int64_t ar = A->size(A->dim() - 2), ac = A->size(A->dim() - 1);
  const int64_t br = B->size(B->dim() - 2), bc = B->size(B->dim() - 1);
  TN_CHECK(left ? ar == br : ac == bc, what, ": Incompatible shapes of A and B for the equation ",
           left ? "AX = B" : "XA = B", " (", ar, "x", ac, " and ", br, "x", bc, ")");
}

void check_errors(const Tensor& info, const std::string& api, bool is_matrix) {
  if (info->numel() == 0) return;
  const auto* p = static_cast<const int32_t*>(info->dense_cpu_data("aten::_linalg_check_errors"));
  const int64_t n = info->numel();
  const int32_t* hit = std::find_if(p, p + n, [](int32_t x) { return x != 0; });
  if (hit == p + n) return;
  const int32_t code = *hit;
  const std::string batch =
      is_matrix ? "" : ": (Batch element " + std::to_string(hit - p) + ")";
  auto has = [&](const char* part) { return api.find(part) != std::string::npos; };
  if (code < 0) {
    if (has("svd"))
      TN_CHECK_KIND(code != -4, LinAlg, api, batch, ": The algorithm failed to converge because "
                    "the input matrix contained non-finite values.");
    TN_FAIL(Internal, api, batch, ": Argument ", -code, " has illegal value. Most certainly there "
            "is a bug in the implementation calling the backend library.");
  }
  if (has("inv"))
    TN_FAIL(LinAlg, api, batch, ": The diagonal element ", code, " is zero, the inversion could "
            "not be completed because the input matrix is singular.");
  if (has("solve"))
    TN_FAIL(LinAlg, api, batch, ": The solver failed because the input matrix is singular.");
  if (has("cholesky"))
    TN_FAIL(LinAlg, api, batch, ": The factorization could not be completed because the input "
            "is not positive-definite (the leading minor of order ", code,
            " is not positive-definite).");
  if (has("svd"))
    TN_FAIL(LinAlg, api, batch, ": The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated singular values (error code: ", code, ").");
  if (has("eig") || has("syevd"))
    TN_FAIL(LinAlg, api, batch, ": The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated eigenvalues (error code: ", code, ").");
  if (has("lstsq"))
    TN_FAIL(LinAlg, api, batch, ": The least squares solution could not be computed because the "
            "input matrix does not have full rank (error code: ", code, ").");
  if (has("lu_factor"))
    TN_FAIL(Runtime, api, batch, ": U[", code, ",", code, "] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
            "pivot)");
  // upstream's TORCH_INTERNAL_ASSERT words, its prefix included (reached by ldl_factor's info)
  TN_FAIL(Internal, "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/"
          "native/BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. ", api,
          ": Unknown error code: ", code, ".");
}


Tensor f_empty(const Dims& shape, ScalarType dtype, Device device) {
  return ops::empty_strided(shape, matrix_strides(shape, true), dtype, device);
}
Tensor f_clone(const Tensor& x) {
  Tensor y = f_empty(x->sizes(), x->dtype(), x->device());
  ops::copy_(y, x);
  return y;
}
Tensor f_contiguous(const Tensor& x) { return mT(x)->is_contiguous() ? x : f_clone(x); }

std::vector<int64_t> broadcast_index(const Dims& in_batch, const Dims& out_batch) {
  const int64_t n = numel_of(out_batch);
  std::vector<int64_t> idx(static_cast<size_t>(n), 0);
  const size_t off = out_batch.size() - in_batch.size();
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, j = 0, step = 1;
    for (size_t d = out_batch.size(); d-- > 0;) {
      const int64_t pos = rest % out_batch[d];
      rest /= out_batch[d];
      if (d < off) continue;
      const int64_t size = in_batch[d - off];
      if (size != 1) j += pos * step;
      step *= size;
    }
    idx[static_cast<size_t>(i)] = j;
  }
  return idx;
}

}  // namespace tn::linalg
