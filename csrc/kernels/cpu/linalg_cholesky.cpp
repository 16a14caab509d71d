// The Cholesky family of upstream's linear algebra, on LAPACK's ?potrf, ?potrs and ?potri
// called as upstream's CPU kernels call them (lapack.h):
//   linalg_cholesky_ex  the triangle of A that `upper` names (the other zeroed), factored in
//                       place, column-major; int32 info per matrix (every matrix is factored)
//   cholesky            the deprecated spelling: A copied whole, factored, then triu/tril
//   cholesky_solve      A X = B from a factor, B and the factor broadcast over their batches
//                       (the composite; _cholesky_solve_helper the CPU kernel)
//   cholesky_inverse    A^{-1} from a factor; ?potri writes one triangle, the other is its
//                       conjugate reflection (upstream's apply_reflect_conj_tri_single)
// float32, float64, complex64 and complex128; other dtypes refuse with upstream's message.
#include <algorithm>
#include <complex>
#include <mutex>

#include "core/warning.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using namespace linalg;
using ops::i64;
using ops::t;

template <typename T>
T conj_of(T v) {
  if constexpr (is_complex_v<T>) return std::conj(v);
  else return v;
}

// ?potrf over every matrix of the column-major L (its batch contiguous), info per matrix.
void potrf_all(const Tensor& L, const Tensor& info, bool upper, const char* name) {
  dispatch_lapack(L->dtype(), name, [&](auto zero) {
    using T = decltype(zero);
    const char* key = "aten::linalg_cholesky_ex";
    const int64_t n = L->size(L->dim() - 1);
    T* a = data_of<T>(L, key);
    int32_t* inf = data_of<int32_t>(info, key);
    for (int64_t b = 0; b < batch_count(L); ++b)
      lapack::potrf<T>(upper ? 'U' : 'L', static_cast<int>(n), a + b * n * n,
                       static_cast<int>(std::max<int64_t>(n, 1)), inf + b);
  });
}

// linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False)
//   -> (Tensor L, Tensor info)
std::pair<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check, bool cpu) {
  check_square(A, "linalg.cholesky");
  check_floating_or_complex(A, "linalg.cholesky");
  Tensor L = ops::empty_strided(A->sizes(), matrix_strides(A->sizes(), true), A->dtype(),
                                A->device());
  Tensor info = ops::empty(batch_of(A), ScalarType::Int, A->device());
  if (L->numel() == 0) {
    call("aten::zero_", {t(info)});
    return {L, info};
  }
  ops::copy_(L, call_tensor(upper ? "aten::triu" : "aten::tril", {t(A), i64(0)}));
  if (!cpu) return {L, info};
  potrf_all(L, info, upper, "cholesky_cpu");
  if (check) check_errors(info, "linalg.cholesky_ex", A->dim() == 2);
  return {L, info};
}
template <bool Cpu>
void linalg_cholesky_ex(Call& c) {
  auto [L, info] = cholesky_ex(c.tensor(0), c.to_bool(1), c.to_bool(2), Cpu);
  ops::ret_all(c, {L, info});
}
template <bool Cpu>
void linalg_cholesky_ex_out(Call& c) {
  ops::check_out_dtype(c.tensor(3), c.tensor(0)->dtype());
  ops::check_out_dtype(c.tensor(4), ScalarType::Int);
  auto [L, info] = cholesky_ex(c.tensor(0), c.to_bool(1), c.to_bool(2), Cpu);
  ops::ret_all(c, {L, info}, 3);
}

// cholesky(Tensor self, bool upper=False): deprecated, warns once.
Tensor cholesky_of(const Tensor& A, bool upper, bool cpu) {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
         "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
         "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
         "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
         "for all valid (symmetric positive definite) inputs.");
  });
  if (A->numel() == 0) return ops::empty(A->sizes(), A->dtype(), A->device());
  check_square(A, "cholesky");
  Tensor L = f_clone(A);
  Tensor info = ops::empty(batch_of(A), ScalarType::Int, A->device());
  if (!cpu) return L;
  potrf_all(L, info, upper, "cholesky_cpu");
  check_errors(info, "cholesky", A->dim() == 2);
  return call_tensor(upper ? "aten::triu_" : "aten::tril_", {t(L), i64(0)});
}
template <bool Cpu>
void cholesky(Call& c) { c.ret(cholesky_of(c.tensor(0), c.to_bool(1), Cpu)); }
template <bool Cpu>
void cholesky_out(Call& c) {
  c.ret(ops::write_out(c.tensor(2), cholesky_of(c.tensor(0), c.to_bool(1), Cpu), c.key()));
}

// cholesky_solve(Tensor self, Tensor input2, bool upper=False): self is B, input2 the factor.
// Upstream's composite: the checks, both broadcast over their batches, then the CPU kernel
// _cholesky_solve_helper.
Tensor cholesky_solve_of(const Tensor& B, const Tensor& A, bool upper) {
  TN_CHECK(B->dim() >= 2, "b should have at least 2 dimensions, but has ", B->dim(),
           " dimensions instead");
  TN_CHECK(A->dim() >= 2, "u should have at least 2 dimensions, but has ", A->dim(),
           " dimensions instead");
  TN_CHECK(B->dtype() == A->dtype(), "Expected b and A to have the same dtype, but found b of "
           "type ", c10_dtype_name(B->dtype()), " and A of type ", c10_dtype_name(A->dtype()),
           " instead.");
  const int64_t n = A->size(A->dim() - 1);
  TN_CHECK(n == A->size(A->dim() - 2), "A must be batches of square matrices, but they are ",
           A->size(A->dim() - 2), " by ", n, " matrices");
  TN_CHECK(n == B->size(B->dim() - 2), "Incompatible matrix sizes for cholesky_solve: each A "
           "matrix is ", n, " by ", n, " but each b matrix is ", B->size(B->dim() - 2), " by ",
           B->size(B->dim() - 1));
  Dims batch = broadcast_shapes(batch_of(B), batch_of(A));
  Dims bshape = batch, ashape = batch;
  bshape.insert(bshape.end(), {n, B->size(B->dim() - 1)});
  ashape.insert(ashape.end(), {n, n});
  Tensor Bb = call_tensor("aten::expand", {t(B), ops::ints(bshape), Value::of_bool(false)});
  Tensor Ab = call_tensor("aten::expand", {t(A), ops::ints(ashape), Value::of_bool(false)});
  return call_tensor("aten::_cholesky_solve_helper", {t(Bb), t(Ab), Value::of_bool(upper)});
}
void cholesky_solve(Call& c) {
  c.ret(cholesky_solve_of(c.tensor(0), c.tensor(1), c.to_bool(2)));
}
void cholesky_solve_out(Call& c) {
  c.ret(ops::write_out(c.tensor(3), cholesky_solve_of(c.tensor(0), c.tensor(1), c.to_bool(2)),
                       c.key()));
}

// _cholesky_solve_helper(Tensor self, Tensor A, bool upper): ?potrs on column-major copies of
// the (same-batch) B and factor, stopping at the first matrix LAPACK refuses.
void cholesky_solve_helper(Call& c) {
  const Tensor &B = c.tensor(0), &A = c.tensor(1);
  const bool upper = c.to_bool(2);
  // The composite hands over same-batch square factors; a direct call is checked as upstream's
  // column-major clones and dtype dispatch check it, and where upstream would read outside
  // its buffers.
  for (const Tensor* x : {&B, &A})
    TN_CHECK((*x)->dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. "
             "Got ", (*x)->dim(), "-D tensor.");
  dispatch_lapack(B->dtype(), "cholesky_solve_cpu", [](auto) {});  // upstream's order
  TN_CHECK(A->dtype() == B->dtype(), "expected scalar type ", c10_dtype_name(B->dtype()),
           " but found ", c10_dtype_name(A->dtype()));
  // Upstream reads each factor as the first n = A.size(-2) columns of A's column-major copy
  // (leading dimension n), one per matrix of b: so much must lie inside A and b.
  const int64_t n = A->size(A->dim() - 2), a_cols = A->size(A->dim() - 1);
  TN_CHECK(a_cols >= n && B->size(B->dim() - 2) == n && batch_count(A) >= batch_count(B),
           "_cholesky_solve_helper: expected factors with at least as many columns as rows, "
           "matching b's rows, for each matrix of b, but got b of shape ", dims_str(B->sizes()),
           " and A of shape ", dims_str(A->sizes()));
  Tensor X = f_clone(B);
  Tensor F = f_clone(A);
  const int64_t count = batch_count(X), nrhs = X->size(X->dim() - 1);
  Tensor info = ops::empty({count}, ScalarType::Int, X->device());
  call("aten::zero_", {t(info)});
  dispatch_lapack(X->dtype(), "cholesky_solve_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (X->numel() == 0) return;
    const char* key = "aten::_cholesky_solve_helper";
    const T* a = data_of<T>(F, key);
    T* x = data_of<T>(X, key);
    int32_t* inf = data_of<int32_t>(info, key);
    const int ld = static_cast<int>(std::max<int64_t>(n, 1));
    for (int64_t b = 0; b < count; ++b) {
      lapack::potrs<T>(upper ? 'U' : 'L', static_cast<int>(n), static_cast<int>(nrhs),
                       a + b * n * a_cols, ld, x + b * n * nrhs, ld, inf + b);
      if (inf[b] != 0) return;
    }
  });
  check_errors(info, "cholesky_solve_cpu", B->dim() == 2);
  c.ret(X);
}

// cholesky_inverse(Tensor self, bool upper=False)
Tensor cholesky_inverse_of(const Tensor& L, bool upper, bool cpu) {
  check_square(L, "cholesky_inverse");
  Tensor X = f_clone(L);
  const int64_t count = std::max<int64_t>(1, batch_count(L));
  Tensor info = ops::empty({count}, ScalarType::Int, L->device());
  call("aten::zero_", {t(info)});
  dispatch_lapack(L->dtype(), "cholesky_inverse_out_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (!cpu || X->numel() == 0) return;
    const char* key = "aten::cholesky_inverse";
    const int64_t n = X->size(X->dim() - 1);
    T* x = data_of<T>(X, key);
    int32_t* inf = data_of<int32_t>(info, key);
    for (int64_t b = 0; b < batch_count(X); ++b) {
      T* a = x + b * n * n;
      lapack::potri<T>(upper ? 'U' : 'L', static_cast<int>(n), a,
                       static_cast<int>(std::max<int64_t>(n, 1)), inf + b);
      // ?potri wrote one triangle: the other is its conjugate reflection (column-major a(r, c)
      // at a[r + c n]).
      for (int64_t c = 0; c < n; ++c)
        for (int64_t r = c + 1; r < n; ++r) {
          if (upper) a[r + c * n] = conj_of(a[c + r * n]);
          else a[c + r * n] = conj_of(a[r + c * n]);
        }
    }
  });
  if (cpu) check_errors(info, "cholesky_inverse", X->dim() == 2);
  return X;
}
template <bool Cpu>
void cholesky_inverse(Call& c) { c.ret(cholesky_inverse_of(c.tensor(0), c.to_bool(1), Cpu)); }
template <bool Cpu>
void cholesky_inverse_out(Call& c) {
  c.ret(ops::write_out(c.tensor(2), cholesky_inverse_of(c.tensor(0), c.to_bool(1), Cpu),
                       c.key()));
}

// linalg_cholesky(Tensor self, *, bool upper=False): the _ex form, checked.
Tensor linalg_cholesky_of(const Call& c) {
  std::vector<Value> r = call("aten::linalg_cholesky_ex", {c.arg(0), c.arg(1),
                                                           Value::of_bool(false)});
  call("aten::_linalg_check_errors", {r[1], Value::of_string("linalg.cholesky"),
                                      Value::of_bool(c.tensor(0)->dim() == 2)});
  return r[0].tensor;
}
void linalg_cholesky(Call& c) { c.ret(linalg_cholesky_of(c)); }
void linalg_cholesky_out(Call& c) {
  c.ret(ops::write_out(c.tensor(2), linalg_cholesky_of(c), c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_cholesky_ex", DenseCPU, linalg_cholesky_ex<true>);
TN_REGISTER_KERNEL("aten::linalg_cholesky_ex", Meta, linalg_cholesky_ex<false>);
TN_REGISTER_KERNEL("aten::linalg_cholesky_ex.L", DenseCPU, linalg_cholesky_ex_out<true>);
TN_REGISTER_KERNEL("aten::linalg_cholesky_ex.L", Meta, linalg_cholesky_ex_out<false>);
TN_REGISTER_KERNEL("aten::_cholesky_solve_helper", DenseCPU, cholesky_solve_helper);
TN_REGISTER_KERNEL("aten::cholesky", DenseCPU, cholesky<true>);
TN_REGISTER_KERNEL("aten::cholesky", Meta, cholesky<false>);
TN_REGISTER_KERNEL("aten::cholesky.out", DenseCPU, cholesky_out<true>);
TN_REGISTER_COMPOSITE("aten::cholesky_solve", cholesky_solve);
TN_REGISTER_COMPOSITE("aten::cholesky_solve.out", cholesky_solve_out);
TN_REGISTER_KERNEL("aten::cholesky_inverse", DenseCPU, cholesky_inverse<true>);
TN_REGISTER_KERNEL("aten::cholesky_inverse", Meta, cholesky_inverse<false>);
TN_REGISTER_KERNEL("aten::cholesky_inverse.out", DenseCPU, cholesky_inverse_out<true>);
TN_REGISTER_COMPOSITE("aten::linalg_cholesky", linalg_cholesky);
TN_REGISTER_COMPOSITE("aten::linalg_cholesky.out", linalg_cholesky_out);

}  // namespace tn
