// The LDL factorisation of symmetric (hermitian) matrices through LAPACK's ?sytrf / ?hetrf and
// its solve through ?sytrs / ?hetrs, called as upstream's CPU kernels call them (lapack.h):
//   linalg_ldl_factor_ex   LD (column-major, the lower triangle of A factored in place; upstream
//                          never passes upper), pivots (int32, LAPACK's 1-based ipiv) and info
//   linalg_ldl_factor      the same, raising on a nonzero info (a composite, as upstream's)
//   linalg_ldl_solve       X with A X = B from LD and pivots, B's batch broadcast with LD's
// float32, float64, complex64 and complex128; Meta kernels give upstream's shapes and strides.
#include <algorithm>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using namespace linalg;
using ops::t;
constexpr char kFactorApi[] = "torch.linalg.ldl_factor_ex";
constexpr char kSolveApi[] = "torch.linalg.ldl_solve";

Dims drop_last(const Tensor& x, int k) {
  return Dims(x->sizes().begin(), x->sizes().end() - k);
}

// ?sytrf / ?hetrf over every column-major matrix of LD, one workspace query first.
void sytrf_all(const Tensor& LD, const Tensor& pivots, const Tensor& info, bool hermitian) {
  dispatch_lapack(LD->dtype(), "ldl_factor_kernel_cpu", [&](auto zero) {
    using T = decltype(zero);
    const char* key = "aten::linalg_ldl_factor_ex";
    const int n = static_cast<int>(LD->size(LD->dim() - 1));
    T* a = data_of<T>(LD, key);
    int* piv = data_of<int>(pivots, key);
    int* inf = data_of<int>(info, key);
    T best{};
    lapack::sytrf<T>(hermitian, 'L', n, a, n, piv, &best, -1, inf);
    const int lwork = std::max(1, lapack::workspace_size(best));
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batch_count(LD); ++b)
      lapack::sytrf<T>(hermitian, 'L', n, a + b * n * n, n, piv + b * n, work.data(), lwork,
                       inf + b);
  });
}

void check_factor_input(const Tensor& A) {
  check_square(A, kFactorApi);
  check_floating_or_complex(A, kFactorApi);
}

// linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False)
void ldl_factor_ex(Call& c, bool cpu) {
  const Tensor& A = c.tensor(0);
  check_factor_input(A);
  Tensor LD = f_empty(A->sizes(), A->dtype(), A->device());
  Tensor pivots = ops::empty(drop_last(A, 1), ScalarType::Int, A->device());
  Tensor info = ops::empty(drop_last(A, 2), ScalarType::Int, A->device());
  if (cpu) {
    call("aten::fill_.Scalar", {t(info), Value::of_scalar(Scalar::from_int(0))});
    if (A->numel() > 0) {
      ops::copy_(LD, call_tensor("aten::tril", {t(A), ops::i64(0)}));
      sytrf_all(LD, pivots, info, c.to_bool(1));
      if (c.to_bool(2)) check_errors(info, kFactorApi, A->dim() == 2);
    }
  }
  ops::ret_all(c, {LD, pivots, info});
}
void ldl_factor_ex_cpu(Call& c) { ldl_factor_ex(c, true); }
void ldl_factor_ex_meta(Call& c) { ldl_factor_ex(c, false); }

// The out= form: structured, so each out must have the result's dtype.
void ldl_factor_ex_out(Call& c) {
  const Tensor& A = c.tensor(0);
  check_factor_input(A);
  ops::check_out_dtype(c.tensor(3), A->dtype());
  ops::check_out_dtype(c.tensor(4), ScalarType::Int);
  ops::check_out_dtype(c.tensor(5), ScalarType::Int);
  std::vector<Value> r = call("aten::linalg_ldl_factor_ex",
                              {c.arg(0), c.arg(1), Value::of_bool(false)});
  ops::ret_all(c, {r[0].tensor, r[1].tensor, r[2].tensor}, 3);
  if (c.to_bool(2))
    call("aten::_linalg_check_errors", {t(c.tensor(5)), Value::of_string(kFactorApi),
                                         Value::of_bool(A->dim() == 2)});
}

// linalg_ldl_factor(Tensor self, *, bool hermitian=False): upstream's composite over _ex.
std::vector<Value> ldl_factor_of(const Call& c) {
  std::vector<Value> r = call("aten::linalg_ldl_factor_ex",
                              {c.arg(0), c.arg(1), Value::of_bool(false)});
  call("aten::_linalg_check_errors", {r[2], Value::of_string("torch.linalg.ldl_factor"),
                                       Value::of_bool(c.tensor(0)->dim() == 2)});
  return r;
}
void ldl_factor(Call& c) {
  std::vector<Value> r = ldl_factor_of(c);
  ops::ret_all(c, {r[0].tensor, r[1].tensor});
}
void ldl_factor_out(Call& c) {
  const Tensor& A = c.tensor(0);
  check_factor_input(A);
  ops::check_out_dtype(c.tensor(2), A->dtype());
  ops::check_out_dtype(c.tensor(3), ScalarType::Int);
  std::vector<Value> r = ldl_factor_of(c);
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 2);
}

// upstream's ldl_solve meta checks, in its order; returns the result's shape.
Dims check_solve_inputs(const Tensor& LD, const Tensor& pivots, const Tensor& B) {
  check_square(LD, kSolveApi);
  check_floating_or_complex(LD, kSolveApi);
  TN_CHECK(B->device() == LD->device(), "Expected b and A to be on the same device, but found "
           "b on ", B->device().str(), " and A on ", LD->device().str(), " instead.");
  TN_CHECK(B->dtype() == LD->dtype(), "Expected b and A to have the same dtype, but found b of "
           "type ", enum_name(B->dtype()), " and A of type ", enum_name(LD->dtype()),
           " instead.");
  const int64_t n = LD->size(LD->dim() - 1);
  // upstream reads B.size(-2) here, before its own B.dim() check
  if (B->dim() == 0)
    TN_FAIL(Index, "Dimension specified as -2 but tensor has no dimensions");
  TN_CHECK_KIND(B->dim() >= 2, Index, "Dimension out of range (expected to be in range of "
                "[-1, 0], but got -2)");
  TN_CHECK(n == B->size(B->dim() - 2), "Incompatible matrix sizes for ", kSolveApi,
           ": each A matrix is ", n, " by ", n, " but each b matrix is ",
           B->size(B->dim() - 2), " by ", B->size(B->dim() - 1));
  TN_CHECK(drop_last(LD, 1) == pivots->sizes(), kSolveApi, ": Expected LD.shape[:-1] and "
           "pivots.shape to be the same, but got pivots with shape ", dims_str(pivots->sizes()),
           " instead");
  const ScalarType pt = pivots->dtype();
  TN_CHECK(!is_floating(pt) && !is_complex(pt) && pt != ScalarType::Bool, kSolveApi,
           ": Expected pivots to be integers. Got ", enum_name(pt));
  TN_CHECK(LD->dtype() == B->dtype(), kSolveApi, ": LD dtype", enum_name(LD->dtype()),
           " does not match b dtype ", enum_name(B->dtype()));
  Dims shape = broadcast_shapes(batch_of(B), batch_of(LD));
  shape.push_back(B->size(B->dim() - 2));
  shape.push_back(B->size(B->dim() - 1));
  return shape;
}

// ?sytrs / ?hetrs for every matrix of X (column-major, B's values), LD's matrix broadcast.
void sytrs_all(const Tensor& LD, const Tensor& pivots, const Tensor& X, bool hermitian) {
  dispatch_lapack(LD->dtype(), "ldl_solve_kernel_cpu", [&](auto zero) {
    using T = decltype(zero);
    const char* key = "aten::linalg_ldl_solve";
    const int n = static_cast<int>(LD->size(LD->dim() - 1));
    const int nrhs = static_cast<int>(X->size(X->dim() - 1));
    const T* a = data_of<T>(LD, key);
    const int* piv = data_of<int>(pivots, key);
    T* x = data_of<T>(X, key);
    const std::vector<int64_t> idx = broadcast_index(batch_of(LD), batch_of(X));
    int info = 0;
    for (size_t b = 0; b < idx.size(); ++b)
      lapack::sytrs<T>(hermitian, 'L', n, nrhs, a + idx[b] * n * n, n, piv + idx[b] * n,
                       x + static_cast<int64_t>(b) * n * nrhs, n, &info);
  });
}

// linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False)
Tensor ldl_solve_of(const Call& c, bool cpu) {
  const Tensor &LD = c.tensor(0), &pivots = c.tensor(1), &B = c.tensor(2);
  const Dims shape = check_solve_inputs(LD, pivots, B);
  Tensor X = f_empty(shape, B->dtype(), B->device());
  if (!cpu || LD->numel() == 0 || pivots->numel() == 0) return X;
  ops::copy_(X, B);
  const Tensor piv = pivots->dtype() == ScalarType::Int && pivots->is_contiguous()
                         ? pivots : cast_to(contiguous(pivots, c.key()), ScalarType::Int,
                                            c.key());
  sytrs_all(f_clone(LD), piv, X, c.to_bool(3));
  return X;
}
void ldl_solve_cpu(Call& c) { c.ret(ldl_solve_of(c, true)); }
void ldl_solve_meta(Call& c) { c.ret(ldl_solve_of(c, false)); }
void ldl_solve_out(Call& c) {
  check_solve_inputs(c.tensor(0), c.tensor(1), c.tensor(2));
  ops::check_out_dtype(c.tensor(4), c.tensor(2)->dtype());
  Tensor r = call_tensor("aten::linalg_ldl_solve", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  c.ret(ops::write_out(c.tensor(4), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_ldl_factor_ex", DenseCPU, ldl_factor_ex_cpu);
TN_REGISTER_KERNEL("aten::linalg_ldl_factor_ex", Meta, ldl_factor_ex_meta);
TN_REGISTER_COMPOSITE("aten::linalg_ldl_factor_ex.out", ldl_factor_ex_out);
TN_REGISTER_COMPOSITE("aten::linalg_ldl_factor", ldl_factor);
TN_REGISTER_COMPOSITE("aten::linalg_ldl_factor.out", ldl_factor_out);
TN_REGISTER_KERNEL("aten::linalg_ldl_solve", DenseCPU, ldl_solve_cpu);
TN_REGISTER_KERNEL("aten::linalg_ldl_solve", Meta, ldl_solve_meta);
TN_REGISTER_COMPOSITE("aten::linalg_ldl_solve.out", ldl_solve_out);

}  // namespace tn
