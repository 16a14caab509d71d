// The LU family of upstream's linear algebra, on LAPACK's ?getrf and ?getrs called as upstream's
// CPU kernels call them (lapack.h: the same oneMKL release, so the same bits):
//   linalg_lu_factor_ex  LU (F-contiguous, factored in place), int32 1-based pivots and info
//   linalg_lu_solve      A X = B from the factors; X A = B is solved as A^H X^H = B^H, and
//                        `adjoint` becomes ?getrs' trans ('T', or 'C' for complex)
//   _linalg_solve_ex     the LU of A, then the solve; B may be a vector or a batch of vectors
//                        (NumPy's rule)
//   linalg_inv_ex        the solve of A X = I
//   _linalg_det          the pivots' permutation sign times the product of U's diagonal, from
//                        the LU of A^T when A is a contiguous real tensor (as upstream)
//   _linalg_slogdet      the same as a sign and the sum of log |U_ii|
//   lu_unpack, linalg_lu P, L and U from the packed factors (P from the pivots' row swaps)
//   _linalg_check_errors upstream's messages for LAPACK's info codes (linalg_util.cpp)
// float32, float64, complex64 and complex128, as upstream's CPU kernels; others refuse with its
// message. Every kernel is also Meta's, a template flag away (Cpu = false: the checks, shapes,
// strides and dtypes, no LAPACK call).
#include <algorithm>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace linalg;
using ops::i64;
using ops::t;

// --- lu_factor -------------------------------------------------------------------------------

struct LuFactors {
  Tensor LU, pivots, info;
};

// linalg_lu_factor_ex's work: an F-contiguous copy of A, factored in place by ?getrf.
LuFactors lu_factor(const Tensor& A, bool pivot, bool cpu) {
  const Dims& sizes = A->sizes();
  const int64_t m = sizes[sizes.size() - 2], n = sizes.back(), k = std::min(m, n);
  Dims batch(sizes.begin(), sizes.end() - 2), psizes = batch;
  psizes.push_back(k);
  LuFactors f;
  f.LU = ops::empty_strided(sizes, matrix_strides(sizes, true), A->dtype(), A->device());
  f.pivots = ops::empty(psizes, ScalarType::Int, A->device());
  f.info = ops::empty(batch, ScalarType::Int, A->device());
  if (A->numel() == 0) {  // as upstream: info zeroed, nothing else looked at
    call("aten::zero_", {t(f.info)});
    return f;
  }
  ops::copy_(f.LU, A);
  dispatch_lapack(A->dtype(), "lu_cpu", [&](auto zero) {
    using T = decltype(zero);
    TN_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
    if (!cpu) return;
    const char* key = "aten::linalg_lu_factor_ex";
    T* a = data_of<T>(f.LU, key);
    int32_t* piv = data_of<int32_t>(f.pivots, key);
    int32_t* info = data_of<int32_t>(f.info, key);
    const int64_t count = batch_count(A);
    for (int64_t b = 0; b < count; ++b)
      lapack::getrf<T>(static_cast<int>(m), static_cast<int>(n), a + b * m * n,
                       static_cast<int>(std::max<int64_t>(m, 1)), piv + b * k, info + b);
  });
  return f;
}

void check_lu_factor_input(const Tensor& A) {
  TN_CHECK(A->dim() >= 2, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
           dims_str(A->sizes()), " instead");
}

// linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)
//   -> (Tensor LU, Tensor pivots, Tensor info)
template <bool Cpu>
LuFactors lu_factor_checked(const Call& c) {
  const Tensor& A = c.tensor(0);
  check_lu_factor_input(A);
  LuFactors f = lu_factor(A, c.to_bool(1), Cpu);
  if (Cpu && c.to_bool(2)) check_errors(f.info, "torch.linalg.lu_factor_ex", A->dim() == 2);
  return f;
}
template <bool Cpu>
void lu_factor_ex(Call& c) {
  LuFactors f = lu_factor_checked<Cpu>(c);
  ops::ret_all(c, {f.LU, f.pivots, f.info});
}
template <bool Cpu>
void lu_factor_ex_out(Call& c) {
  ops::check_out_dtype(c.tensor(3), c.tensor(0)->dtype());
  ops::check_out_dtype(c.tensor(4), ScalarType::Int);
  ops::check_out_dtype(c.tensor(5), ScalarType::Int);
  LuFactors f = lu_factor_checked<Cpu>(c);
  ops::ret_all(c, {f.LU, f.pivots, f.info}, 3);
}

// --- lu_unpack and linalg_lu ----------------------------------------------------------------

struct Unpacked {
  Tensor P, L, U;
};

// triu/tril of x as a contiguous tensor (lu_unpack's outputs are row-major, as upstream's).
Tensor tri(const char* op, const Tensor& x, int64_t k) {
  Tensor r = call_tensor(op, {t(x), i64(k)});
  return r->is_contiguous() ? r : ops::clone_contiguous(r);
}
void fill_diagonal_ones(const Tensor& x) {
  call("aten::fill_.Scalar", {t(call_tensor("aten::diagonal", {t(x), i64(0), i64(-2), i64(-1)})),
                              Value::of_scalar(Scalar::from_double(1.0))});
}

// lu_unpack's work: L (unit lower, m x k) and U (upper, k x n) from the packed LU, and P from
// the 1-based pivots (the identity's rows swapped in order, P[perm[j], j] = 1).
Unpacked lu_unpack(const Tensor& LU, const Tensor& pivots, bool data, bool with_pivots, bool cpu) {
  TN_CHECK(LU->dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
           dims_str(LU->sizes()), " instead");
  if (with_pivots)
    TN_CHECK(pivots->dtype() == ScalarType::Int, "torch.lu_unpack: LU_pivots is expected to be a "
             "contiguous tensor of torch.int32 dtype.\nNote: this function is intended to be "
             "used with the output produced by torch.linalg.lu_factor");
  const int64_t m = LU->size(LU->dim() - 2), n = LU->size(LU->dim() - 1), k = std::min(m, n);
  const Dims batch = batch_of(LU);
  auto shaped = [&](int64_t r, int64_t c) {
    Dims d = batch;
    d.insert(d.end(), {r, c});
    return d;
  };
  Tensor none = ops::empty({0}, LU->dtype(), LU->device());
  Unpacked u{none, none, none};
  if (data) {
    if (m > n) {
      u.U = tri("aten::triu", m == n ? LU : ops::narrow(LU, -2, 0, n), 0);
      u.L = tri("aten::tril", LU, -1);
    } else {
      u.L = tri("aten::tril", m == n ? LU : ops::narrow(LU, -1, 0, m), -1);
      u.U = tri("aten::triu", LU, 0);
    }
    fill_diagonal_ones(u.L);
  }
  if (with_pivots) {
    u.P = ops::empty(shaped(m, m), LU->dtype(), LU->device());
    call("aten::zero_", {t(u.P)});
    Dims psizes = batch;
    psizes.push_back(m);
    Tensor perm = ops::empty(psizes, ScalarType::Long, LU->device());
    // Upstream reads pivots over LU's batch without checking their shape (it writes outside its
    // buffers when they do not fit): checked here.
    TN_CHECK(pivots->dim() >= 1 && pivots->size(pivots->dim() - 1) <= m &&
                 Dims(pivots->sizes().begin(), pivots->sizes().end() - 1) == batch,
             "torch.lu_unpack: expected LU_pivots of shape LU.shape[:-2] + (k,) with k <= "
             "LU.size(-2), but got LU of shape ", dims_str(LU->sizes()), " and LU_pivots of "
             "shape ", dims_str(pivots->sizes()));
    if (cpu && perm->numel() > 0) {
      Tensor piv = pivots->is_contiguous() ? pivots : ops::clone_contiguous(pivots);
      const char* key = "aten::lu_unpack";
      int64_t* pp = data_of<int64_t>(perm, key);
      const int32_t* pv = data_of<int32_t>(piv, key);
      const int64_t count = numel_of(batch), kp = pivots->size(pivots->dim() - 1);
      for (int64_t b = 0; b < count; ++b) {
        int64_t* row = pp + b * m;
        for (int64_t i = 0; i < m; ++i) row[i] = i;
        for (int64_t j = 0; j < kp; ++j) {
          const int64_t to = pv[b * kp + j] - 1;
          TN_CHECK(to >= 0 && to < m, "pivots passed to lu_unpack must be between 1 and "
                   "LU.size(-2) inclusive.Did you properly pass the result of lu_factor?");
          std::swap(row[j], row[to]);
        }
      }
    }
    Tensor rows = call_tensor("aten::unsqueeze", {t(perm), i64(-2)});
    call("aten::scatter_.value", {t(u.P), i64(-2), t(rows),
                                  Value::of_scalar(Scalar::from_double(1.0))});
  }
  (void)k;
  return u;
}

// lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True)
//   -> (Tensor P, Tensor L, Tensor U)
template <bool Cpu>
void lu_unpack_kernel(Call& c) {
  Unpacked u = lu_unpack(c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), Cpu);
  ops::ret_all(c, {u.P, u.L, u.U});
}
template <bool Cpu>
void lu_unpack_out(Call& c) {
  for (int i = 4; i < 7; ++i) ops::check_out_dtype(c.tensor(i), c.tensor(0)->dtype());
  Unpacked u = lu_unpack(c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), Cpu);
  ops::ret_all(c, {u.P, u.L, u.U}, 4);
}

// linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)
template <bool Cpu>
Unpacked linalg_lu_of(const Call& c) {
  const Tensor& A = c.tensor(0);
  TN_CHECK(A->dim() >= 2, "linalg.lu: Expected tensor with 2 or more dimensions. Got size: ",
           dims_str(A->sizes()), " instead");
  const bool pivot = c.to_bool(1);
  LuFactors f = lu_factor(A, pivot, Cpu);
  return lu_unpack(f.LU, f.pivots, true, pivot, Cpu);
}
template <bool Cpu>
void linalg_lu(Call& c) {
  Unpacked u = linalg_lu_of<Cpu>(c);
  ops::ret_all(c, {u.P, u.L, u.U});
}
template <bool Cpu>
void linalg_lu_out(Call& c) {
  for (int i = 2; i < 5; ++i) ops::check_out_dtype(c.tensor(i), c.tensor(0)->dtype());
  Unpacked u = linalg_lu_of<Cpu>(c);
  ops::ret_all(c, {u.P, u.L, u.U}, 2);
}

// --- lu_solve --------------------------------------------------------------------------------

// linalg_lu_solve's checks (its meta function), in upstream's order.
void check_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left) {
  check_floating_or_complex(LU, "torch.linalg.lu_solve");
  TN_CHECK(LU->dtype() == B->dtype(), "linalg.lu_solve: Expected LU and B to have the same dtype, "
           "but found LU of type ", c10_dtype_name(LU->dtype()), " and B of type ",
           c10_dtype_name(B->dtype()), " instead");
  TN_CHECK(pivots->dtype() == ScalarType::Int,
           "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  check_square(LU, "torch.linalg.lu_solve");
  check_solver_inputs(LU, B, left, "linalg.lu_solve");
  TN_CHECK_KIND(pivots->dim() > 0, Index, "Dimension specified as -1 but tensor has no dimensions");
  TN_CHECK(LU->size(LU->dim() - 1) == pivots->size(pivots->dim() - 1),
           "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
           "matrix");
  Dims front(LU->sizes().begin(), LU->sizes().end() - 1);
  TN_CHECK(front == pivots->sizes(), "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to "
           "be the same, but got pivots with shape ", dims_str(pivots->sizes()), " instead");
}

// X with A X = B (left) or X A = B, from A's factors; X's strides are upstream's (column-major
// matrices when left, row-major otherwise).
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint,
                bool cpu) {
  Dims batch = broadcast_shapes(batch_of(B), batch_of(LU));
  Dims shape = batch;
  shape.push_back(B->size(B->dim() - 2));
  shape.push_back(B->size(B->dim() - 1));
  Tensor result = ops::empty_strided(shape, matrix_strides(shape, left), B->dtype(), B->device());
  if (result->numel() == 0) return result;
  // X A = B is A^H X^H = B^H: solved into result's transpose (column-major), adjoint flipped.
  if (!left) adjoint = !adjoint;
  Tensor X = left ? result : mT(result);
  ops::copy_(X, left ? B : mH(B));
  if (!cpu) return result;
  Tensor lu = f_contiguous(LU);
  Tensor piv = pivots->is_contiguous() ? pivots : ops::clone_contiguous(pivots);
  const int64_t n = LU->size(LU->dim() - 2), nrhs = X->size(X->dim() - 1);
  const char* key = "aten::linalg_lu_solve";
  {  // upstream's sanity checks: ?getrs would read outside the matrix otherwise
    const int32_t* p = data_of<int32_t>(piv, key);
    const int32_t* end = p + piv->numel();
    TN_CHECK(std::all_of(p, end, [](int32_t v) { return v >= 1; }),
             "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
             "the result of lu_factor?");
    TN_CHECK(std::all_of(p, end, [n](int32_t v) { return v <= n; }),
             "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
             "properly pass the result of lu_factor?");
  }
  const char trans = !adjoint ? 'N' : is_complex(LU->dtype()) ? 'C' : 'T';
  const int64_t lu_stride = lu->dim() > 2 ? lu->stride(lu->dim() - 3) : 0;
  const int64_t piv_stride = piv->dim() > 1 ? piv->stride(piv->dim() - 2) : 0;
  std::vector<int64_t> lu_index = broadcast_index(batch_of(LU), batch);
  dispatch_lapack(LU->dtype(), "linalg.lu_solve_cpu", [&](auto zero) {
    using T = decltype(zero);
    const T* a = data_of<T>(lu, key);
    const int32_t* p = data_of<int32_t>(piv, key);
    T* x = data_of<T>(X, key);
    const int ld = static_cast<int>(std::max<int64_t>(n, 1));
    for (size_t i = 0; i < lu_index.size(); ++i) {
      int info = 0;
      lapack::getrs<T>(trans, static_cast<int>(n), static_cast<int>(nrhs),
                       a + lu_index[i] * lu_stride, ld, p + lu_index[i] * piv_stride,
                       x + static_cast<int64_t>(i) * n * nrhs, ld, &info);
      TN_ASSERT(info == 0);
    }
  });
  // result = conj(X^T): the transpose is the view; the conjugate is the result's conjugate bit,
  // as upstream returns it (result.is_conj() is True).
  if (!left && is_complex(result->dtype())) result->set_conj(!result->is_conj());
  return result;
}

// linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False)
template <bool Cpu>
void lu_solve_kernel(Call& c) {
  check_lu_solve(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3));
  c.ret(lu_solve(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3), c.to_bool(4), Cpu));
}
template <bool Cpu>
void lu_solve_out(Call& c) {
  ops::check_out_dtype(c.tensor(5), c.tensor(2)->dtype());
  check_lu_solve(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3));
  Tensor r = lu_solve(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3), c.to_bool(4), Cpu);
  c.ret(ops::write_out(c.tensor(5), r, c.key()));
}

// --- solve -----------------------------------------------------------------------------------

// det and slogdet factor a contiguous real A as A^T (its bytes are already A^T's column-major
// layout; det A^T = det A), as upstream does, which decides the bits. Its solve and inverse
// factor A itself (measured: upstream 2.13's _linalg_solve_ex returns lu_factor(A)'s LU for a
// contiguous A).
bool factor_transposed(const Tensor& A) { return A->is_contiguous() && !is_complex(A->dtype()); }

struct Solved {
  Tensor result;
  LuFactors f;
};

// _linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)
Solved solve_ex(const Tensor& A, const Tensor& B, bool left, bool check, bool cpu) {
  check_floating_or_complex(A, "linalg.solve");
  TN_CHECK(A->dtype() == B->dtype(), "linalg.solve: Expected A and B to have the same dtype, but "
           "found A of type ", c10_dtype_name(A->dtype()), " and B of type ",
           c10_dtype_name(B->dtype()), " instead");
  // NumPy's rule: B is a (batch of) vector(s) when 1-d, or when it is A.shape[:-1].
  Dims a_front(A->sizes().begin(), A->sizes().end() - (A->dim() > 0 ? 1 : 0));
  const bool vector_case =
      B->dim() == 1 || (A->dim() - 1 == B->dim() && B->sizes() == a_front);
  Tensor B_ = vector_case ? call_tensor("aten::unsqueeze", {t(B), i64(-1)}) : B;
  check_solver_inputs(A, B_, left, "linalg.solve");
  Dims shape = broadcast_shapes(batch_of(B_), batch_of(A));
  shape.push_back(B_->size(B_->dim() - 2));
  shape.push_back(B_->size(B_->dim() - 1));
  TN_CHECK(left || !vector_case, "linalg.solve: Vector broadcasting of the left hand side is not "
           "supported for left=False. In this case linalg.solve is equivalent to B / "
           "A.squeeze(-1)");
  if (vector_case) shape.pop_back();
  Solved s;
  s.f = lu_factor(A, true, cpu);
  if (cpu && check) check_errors(s.f.info, "torch.linalg.solve_ex", A->dim() == 2);
  // lu_solve's result has upstream's strides (and, solved from the right, its conjugate bit).
  s.result = lu_solve(s.f.LU, s.f.pivots, B_, left, /*adjoint=*/false, cpu);
  if (vector_case) {
    Tensor x = call_tensor("aten::squeeze.dim", {t(s.result), i64(-1)});
    s.result = ops::empty_strided(shape, matrix_strides(shape, left), B->dtype(), B->device());
    ops::copy_(s.result, x);
  }
  return s;
}

template <bool Cpu>
void linalg_solve_ex(Call& c) {
  Solved s = solve_ex(c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), Cpu);
  ops::ret_all(c, {s.result, s.f.LU, s.f.pivots, s.f.info});
}
template <bool Cpu>
void linalg_solve_ex_out(Call& c) {
  ops::check_out_dtype(c.tensor(4), c.tensor(1)->dtype());
  ops::check_out_dtype(c.tensor(5), c.tensor(0)->dtype());
  ops::check_out_dtype(c.tensor(6), ScalarType::Int);
  ops::check_out_dtype(c.tensor(7), ScalarType::Int);
  Solved s = solve_ex(c.tensor(0), c.tensor(1), c.to_bool(2), c.to_bool(3), Cpu);
  ops::ret_all(c, {s.result, s.f.LU, s.f.pivots, s.f.info}, 4);
}

// --- inv -------------------------------------------------------------------------------------

// linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info): A X = I.
std::pair<Tensor, Tensor> inv_ex(const Tensor& A, bool check, bool cpu) {
  check_square(A, "linalg.inv");
  check_floating_or_complex(A, "linalg.inv", /*low_precision=*/false);
  Tensor eye = ops::empty_strided(A->sizes(), matrix_strides(A->sizes(), true), A->dtype(),
                                  A->device());
  call("aten::zero_", {t(eye)});
  call("aten::fill_.Scalar", {t(call_tensor("aten::diagonal", {t(eye), i64(0), i64(-2), i64(-1)})),
                              Value::of_scalar(Scalar::from_double(1.0))});
  LuFactors f = lu_factor(A, true, cpu);
  Tensor X = lu_solve(f.LU, f.pivots, eye, /*left=*/true, /*adjoint=*/false, cpu);
  if (cpu && check) check_errors(f.info, "linalg.inv_ex", A->dim() == 2);
  return {X, f.info};
}
template <bool Cpu>
void linalg_inv_ex(Call& c) {
  auto [X, info] = inv_ex(c.tensor(0), c.to_bool(1), Cpu);
  ops::ret_all(c, {X, info});
}
template <bool Cpu>
void linalg_inv_ex_out(Call& c) {
  ops::check_out_dtype(c.tensor(2), c.tensor(0)->dtype());
  ops::check_out_dtype(c.tensor(3), ScalarType::Int);
  auto [X, info] = inv_ex(c.tensor(0), c.to_bool(1), Cpu);
  ops::ret_all(c, {X, info}, 2);
}

// --- det and slogdet -------------------------------------------------------------------------

// The sign of the permutation the 1-based pivots make: -1 to the number of pivots that are not
// their own row (int64, batch shape).
Tensor permutation_sign(const Tensor& pivots) {
  const int64_t k = pivots->size(pivots->dim() - 1);
  Tensor rows = call_tensor("aten::arange.start", {Value::of_scalar(Scalar::from_int(1)),
                                                   Value::of_scalar(Scalar::from_int(k + 1)),
                                                   Value::of_dtype(ScalarType::Int), Value{},
                                                   Value::of_device(pivots->device())});
  Tensor moved = call_tensor("aten::ne.Tensor", {t(rows), t(pivots)});
  Tensor count = call_tensor("aten::sum.dim_IntList",
                             {t(moved), ops::ints({-1}), Value::of_bool(false),
                              Value::of_dtype(ScalarType::Long)});
  Tensor odd = call_tensor("aten::fmod.Scalar", {t(count), Value::of_scalar(Scalar::from_int(2))});
  Tensor scaled = call_tensor("aten::mul.Scalar", {t(odd), Value::of_scalar(Scalar::from_int(-2))});
  return call_tensor("aten::add.Scalar", {t(scaled), Value::of_scalar(Scalar::from_int(1)),
                                          Value::of_scalar(Scalar::from_int(1))});
}

// The LU that det and slogdet read: of A^H when A is a contiguous real tensor (det A^T = det A).
LuFactors det_factors(const Tensor& A, bool cpu) {
  return lu_factor(factor_transposed(A) ? mH(A) : A, true, cpu);
}

Tensor diagonal_of(const Tensor& LU) {
  return call_tensor("aten::diagonal", {t(LU), i64(0), i64(-2), i64(-1)});
}
Tensor prod_last(const Tensor& x) {
  return call_tensor("aten::prod.dim_int", {t(x), i64(-1), Value::of_bool(false), Value{}});
}

// _linalg_det(Tensor A) -> (Tensor result, Tensor LU, Tensor pivots)
template <bool Cpu>
void linalg_det(Call& c) {
  const Tensor& A = c.tensor(0);
  check_square(A, "linalg.det");
  check_floating_or_complex(A, "linalg.det");
  LuFactors f = det_factors(A, Cpu);
  Tensor det = call_tensor("aten::mul.Tensor",
                           {t(permutation_sign(f.pivots)), t(prod_last(diagonal_of(f.LU)))});
  ops::ret_all(c, {det, f.LU, f.pivots});
}

// _linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)
template <bool Cpu>
void linalg_slogdet(Call& c) {
  const Tensor& A = c.tensor(0);
  check_square(A, "linalg.slogdet");
  check_floating_or_complex(A, "linalg.slogdet");
  LuFactors f = det_factors(A, Cpu);
  Tensor d = diagonal_of(f.LU);
  Tensor sign = call_tensor("aten::mul.Tensor",
                            {t(prod_last(call_tensor("aten::sgn", {t(d)}))),
                             t(permutation_sign(f.pivots))});
  Tensor logs = call_tensor("aten::log", {t(call_tensor("aten::abs", {t(d)}))});
  Tensor logabsdet = call_tensor("aten::sum.dim_IntList",
                                 {t(logs), ops::ints({-1}), Value::of_bool(false), Value{}});
  ops::ret_all(c, {sign, logabsdet, f.LU, f.pivots});
}

// _linalg_check_errors(Tensor info, str api_name, *, bool is_matrix) -> ()
template <bool Cpu>
void linalg_check_errors(Call& c) {
  const Tensor& info = c.tensor(0);
  TN_CHECK_KIND(info->dtype() == ScalarType::Int && info->is_contiguous(), Internal,
                "_linalg_check_errors: info must be a contiguous int32 tensor");
  if (Cpu) check_errors(info, c.arg(1).str, c.to_bool(2));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_lu_factor_ex", DenseCPU, lu_factor_ex<true>);
TN_REGISTER_KERNEL("aten::linalg_lu_factor_ex", Meta, lu_factor_ex<false>);
TN_REGISTER_KERNEL("aten::linalg_lu_factor_ex.out", DenseCPU, lu_factor_ex_out<true>);
TN_REGISTER_KERNEL("aten::linalg_lu_factor_ex.out", Meta, lu_factor_ex_out<false>);
TN_REGISTER_KERNEL("aten::linalg_lu_solve", DenseCPU, lu_solve_kernel<true>);
TN_REGISTER_KERNEL("aten::linalg_lu_solve", Meta, lu_solve_kernel<false>);
TN_REGISTER_KERNEL("aten::linalg_lu_solve.out", DenseCPU, lu_solve_out<true>);
TN_REGISTER_KERNEL("aten::linalg_lu_solve.out", Meta, lu_solve_out<false>);
TN_REGISTER_KERNEL("aten::_linalg_solve_ex", DenseCPU, linalg_solve_ex<true>);
TN_REGISTER_KERNEL("aten::_linalg_solve_ex", Meta, linalg_solve_ex<false>);
TN_REGISTER_KERNEL("aten::_linalg_solve_ex.result", DenseCPU, linalg_solve_ex_out<true>);
TN_REGISTER_KERNEL("aten::_linalg_solve_ex.result", Meta, linalg_solve_ex_out<false>);
TN_REGISTER_KERNEL("aten::linalg_inv_ex", DenseCPU, linalg_inv_ex<true>);
TN_REGISTER_KERNEL("aten::linalg_inv_ex", Meta, linalg_inv_ex<false>);
TN_REGISTER_KERNEL("aten::linalg_inv_ex.inverse", DenseCPU, linalg_inv_ex_out<true>);
TN_REGISTER_KERNEL("aten::linalg_inv_ex.inverse", Meta, linalg_inv_ex_out<false>);
TN_REGISTER_KERNEL("aten::_linalg_det", DenseCPU, linalg_det<true>);
TN_REGISTER_KERNEL("aten::_linalg_det", Meta, linalg_det<false>);
TN_REGISTER_KERNEL("aten::_linalg_slogdet", DenseCPU, linalg_slogdet<true>);
TN_REGISTER_KERNEL("aten::_linalg_slogdet", Meta, linalg_slogdet<false>);
TN_REGISTER_KERNEL("aten::lu_unpack", DenseCPU, lu_unpack_kernel<true>);
TN_REGISTER_KERNEL("aten::lu_unpack", Meta, lu_unpack_kernel<false>);
TN_REGISTER_KERNEL("aten::lu_unpack.out", DenseCPU, lu_unpack_out<true>);
TN_REGISTER_KERNEL("aten::lu_unpack.out", Meta, lu_unpack_out<false>);
TN_REGISTER_KERNEL("aten::linalg_lu", DenseCPU, linalg_lu<true>);
TN_REGISTER_KERNEL("aten::linalg_lu", Meta, linalg_lu<false>);
TN_REGISTER_KERNEL("aten::linalg_lu.out", DenseCPU, linalg_lu_out<true>);
TN_REGISTER_KERNEL("aten::linalg_lu.out", Meta, linalg_lu_out<false>);
TN_REGISTER_KERNEL("aten::_linalg_check_errors", DenseCPU, linalg_check_errors<true>);
TN_REGISTER_KERNEL("aten::_linalg_check_errors", Meta, linalg_check_errors<false>);

}  // namespace tn
