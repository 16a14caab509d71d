// Symmetric eigendecomposition and SVD: LAPACK's ?syevd/?heevd and ?gesdd called as upstream's CPU
// kernels call them (one workspace query per batch, column-major copies; lapack.h):
//   _linalg_eigh   eigenvalues (ascending, real, contiguous) and, with compute_v, eigenvectors
//                  (column-major); the batch stops at the first matrix LAPACK fails on
//   _linalg_svd    U, S (descending, real) and V^H: jobz 'A' (full_matrices), 'S' or 'N'; an
//                  empty input gives identity U / V^H where full_matrices asks for them
// and their spellings: linalg_eigh, linalg_eigvalsh, linalg_svd, linalg_svdvals, svd. The
// vectors are computed for eigvalsh and svdvals only when autograd will need them, as upstream.
// float32, float64, complex64 and complex128.
#include <algorithm>
#include <cctype>
#include <complex>
#include <vector>

#include "autograd/grad_mode.h"
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



// --- eigh ------------------------------------------------------------------------------------

char check_uplo(const std::string& uplo) {
  const char u =
      uplo.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(uplo[0])));
  TN_CHECK(uplo.size() == 1 && (u == 'U' || u == 'L'),
           "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return u;
}

// _linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> (Tensor eigenvalues,
// Tensor eigenvectors)
template <bool Cpu>
void linalg_eigh(Call& c) {
  const Tensor& A = c.tensor(0);
  check_square(A, "linalg.eigh");
  const char uplo = check_uplo(c.arg(1).str);
  const bool compute_v = c.to_bool(2);
  const int64_t n = A->size(A->dim() - 1);
  Dims lshape = batch_of(A);
  lshape.push_back(n);
  Tensor L = ops::empty(lshape, to_real_type(A->dtype()), A->device());
  Tensor V = compute_v ? f_empty(A->sizes(), A->dtype(), A->device())
                       : ops::empty({0}, A->dtype(), A->device());
  ops::ret_all(c, {L, V});
  if (A->numel() == 0) return;
  Tensor W = V;
  if (compute_v) ops::copy_(V, A);
  else W = f_clone(A);
  Tensor info = ops::empty(batch_of(A), ScalarType::Int, A->device());
  call("aten::zero_", {t(info)});
  dispatch_lapack(A->dtype(), "linalg_eigh_cpu", [&](auto zero) {
    using T = decltype(zero);
    using R = lapack::real_of<T>;
    if (!Cpu) return;
    const char* key = "aten::_linalg_eigh";
    T* a = data_of<T>(W, key);
    R* w = data_of<R>(L, key);
    int32_t* inf = data_of<int32_t>(info, key);
    const char jobz = compute_v ? 'V' : 'N';
    const int nn = static_cast<int>(n), lda = static_cast<int>(std::max<int64_t>(1, n));
    T work_q{};
    R rwork_q{};
    int iwork_q = 0;
    lapack::syevd<T>(jobz, uplo, nn, a, lda, w, &work_q, -1, &rwork_q, -1, &iwork_q, -1, inf);
    std::vector<T> work(static_cast<size_t>(std::max(1, lapack::workspace_size(work_q))));
    std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_q)));
    std::vector<R> rwork;
    if constexpr (is_complex_v<T>)
      rwork.resize(static_cast<size_t>(std::max(1, static_cast<int>(rwork_q))));
    for (int64_t b = 0; b < batch_count(A); ++b) {
      lapack::syevd<T>(jobz, uplo, nn, a + b * n * n, lda, w + b * n, work.data(),
                       static_cast<int>(work.size()), rwork.empty() ? nullptr : rwork.data(),
                       static_cast<int>(rwork.size()), iwork.data(),
                       static_cast<int>(iwork.size()), inf + b);
      if (inf[b] != 0) break;
    }
  });
  if (Cpu) check_errors(info, "linalg.eigh", A->dim() == 2);
}


// linalg_eigh(Tensor A, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)
void eigh(Call& c) {
  std::vector<Value> r = call("aten::_linalg_eigh", {c.arg(0), c.arg(1), Value::of_bool(true)});
  ops::ret_all(c, {r[0].tensor, r[1].tensor});
}
void eigh_out(Call& c) {
  std::vector<Value> r = call("aten::_linalg_eigh", {c.arg(0), c.arg(1), Value::of_bool(true)});
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 2);
}
// Whether autograd will want the vectors (upstream's _may_require_fw_or_bw_grad).
bool needs_vectors(const Tensor& A) { return grad_mode_enabled() && A->requires_grad(); }
// linalg_eigvalsh(Tensor A, str UPLO="L") -> Tensor
Tensor eigvalsh_of(const Call& c) {
  return call("aten::_linalg_eigh", {c.arg(0), c.arg(1),
                                     Value::of_bool(needs_vectors(c.tensor(0)))})[0].tensor;
}
void eigvalsh(Call& c) { c.ret(eigvalsh_of(c)); }
void eigvalsh_out(Call& c) { c.ret(ops::write_out(c.tensor(2), eigvalsh_of(c), c.key())); }

// --- svd -------------------------------------------------------------------------------------

// The complex ?gesdd's rwork size, as upstream computes it (LAPACK 3.6+).
int64_t svd_rwork_size(char jobz, int64_t m, int64_t n) {
  const int64_t mn = std::min(m, n), mx = std::max(m, n);
  if (jobz == 'N') return 5 * mn;
  if (mx > 10 * mn) return 5 * mn * mn + 5 * mn;
  return std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
}

// _linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None)
//   -> (Tensor U, Tensor S, Tensor Vh)
template <bool Cpu>
void linalg_svd(Call& c) {
  const Tensor& A = c.tensor(0);
  check_matrix(A, "linalg.svd");
  check_floating_or_complex(A, "linalg.svd");
  const bool full = c.to_bool(1), compute_uv = c.to_bool(2);
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1), k = std::min(m, n);
  const Dims batch = batch_of(A);
  Tensor U, Vh;
  if (compute_uv) {
    Dims us = batch, vs = batch;
    us.insert(us.end(), {m, full ? m : k});
    vs.insert(vs.end(), {full ? n : k, n});
    U = f_empty(us, A->dtype(), A->device());
    // Upstream's meta function (torch/_meta_registrations.py) lays V^H out as cuSOLVER's, row-
    // major, for a meta tensor (its device_hint takes one for CUDA); the CPU's is column-major.
    Vh = ops::empty_strided(vs, matrix_strides(vs, /*f_contig=*/Cpu), A->dtype(), A->device());
  } else {
    U = ops::empty({0}, A->dtype(), A->device());
    Vh = ops::empty({0}, A->dtype(), A->device());
  }
  Dims ss = batch;
  ss.push_back(k);
  Tensor S = ops::empty(ss, to_real_type(A->dtype()), A->device());
  ops::ret_all(c, {U, S, Vh});
  if (A->numel() == 0) {  // identity U / V^H: a valid SVD of an empty matrix
    if (compute_uv && full) {
      for (const Tensor& x : {U, Vh}) {
        if (x->numel() == 0) continue;
        call("aten::zero_", {t(x)});
        call("aten::fill_.Scalar", {t(call_tensor("aten::diagonal", {t(x), i64(0), i64(-2),
                                                                     i64(-1)})),
                                    Value::of_scalar(Scalar::from_double(1.0))});
      }
    }
    return;
  }
  // (upstream's CPU kernel refuses a driver; its meta function does not look)
  TN_CHECK(!Cpu || c.arg(3).is_none(), "torch.linalg.svd: keyword argument `driver=` is only "
           "supported on CUDA inputs with cuSOLVER backend.");
  Tensor info = ops::empty(batch, ScalarType::Int, A->device());
  call("aten::zero_", {t(info)});
  dispatch_lapack(A->dtype(), "linalg_svd_cpu", [&](auto zero) {
    using T = decltype(zero);
    using R = lapack::real_of<T>;
    if (!Cpu) return;
    const char* key = "aten::_linalg_svd";
    Tensor W = f_clone(A);
    T* a = data_of<T>(W, key);
    R* s = data_of<R>(S, key);
    T* u = compute_uv ? data_of<T>(U, key) : nullptr;
    T* vh = compute_uv ? data_of<T>(Vh, key) : nullptr;
    int32_t* inf = data_of<int32_t>(info, key);
    const char jobz = compute_uv ? (full ? 'A' : 'S') : 'N';
    const int64_t ucols = full ? m : k, vrows = full ? n : k;
    const int lda = static_cast<int>(std::max<int64_t>(1, m));
    const int ldu = compute_uv ? static_cast<int>(std::max<int64_t>(1, m)) : 1;
    const int ldvh = compute_uv ? static_cast<int>(std::max<int64_t>(1, vrows)) : 1;
    std::vector<int> iwork(static_cast<size_t>(8 * k));
    std::vector<R> rwork;
    if constexpr (is_complex_v<T>)
      rwork.resize(static_cast<size_t>(std::max<int64_t>(svd_rwork_size(jobz, m, n), 1)));
    R* rw = rwork.empty() ? nullptr : rwork.data();
    T best{};
    lapack::gesdd<T>(jobz, static_cast<int>(m), static_cast<int>(n), a, lda, s, u, ldu, vh, ldvh,
                     &best, -1, rw, iwork.data(), inf);
    std::vector<T> work(static_cast<size_t>(std::max(1, lapack::workspace_size(best))));
    for (int64_t b = 0; b < batch_count(A); ++b)
      lapack::gesdd<T>(jobz, static_cast<int>(m), static_cast<int>(n), a + b * m * n, lda,
                       s + b * k, compute_uv ? u + b * m * ucols : nullptr, ldu,
                       compute_uv ? vh + b * vrows * n : nullptr, ldvh, work.data(),
                       static_cast<int>(work.size()), rw, iwork.data(), inf + b);
  });
  if (Cpu) check_errors(info, "linalg.svd", A->dim() == 2);
}

// linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (U, S, Vh)
void svd(Call& c) {
  for (Value& v : call("aten::_linalg_svd", {c.arg(0), c.arg(1), Value::of_bool(true), c.arg(2)}))
    c.ret(v.tensor);
}
void svd_out(Call& c) {
  std::vector<Value> r = call("aten::_linalg_svd", {c.arg(0), c.arg(1), Value::of_bool(true),
                                                    c.arg(2)});
  for (int i = 0; i < 3; ++i) c.ret(ops::write_out(c.tensor(3 + i), r[i].tensor, c.key()));
}
// linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
Tensor svdvals_of(const Call& c) {
  return call("aten::_linalg_svd", {c.arg(0), Value::of_bool(false),
                                    Value::of_bool(needs_vectors(c.tensor(0))), c.arg(1)})[1]
      .tensor;
}
void svdvals(Call& c) { c.ret(svdvals_of(c)); }
void svdvals_out(Call& c) { c.ret(ops::write_out(c.tensor(2), svdvals_of(c), c.key())); }

// svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V):
// the old spelling, V rather than V^H; without compute_uv, U and V are zeros of the full sizes.
void old_svd(Call& c) {
  const Tensor& A = c.tensor(0);
  TN_CHECK(A->dim() >= 2, "linalg.svd: input should have at least 2 dimensions, but has ",
           A->dim(), " dimensions instead");
  Tensor U, S, Vh;
  if (c.to_bool(2)) {
    std::vector<Value> r = call("aten::linalg_svd", {c.arg(0), Value::of_bool(!c.to_bool(1)),
                                                     Value{}});
    U = r[0].tensor;
    S = r[1].tensor;
    Vh = r[2].tensor;
  } else {
    S = call_tensor("aten::linalg_svdvals", {c.arg(0), Value{}});
    const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1);
    Dims us = batch_of(A), vs = batch_of(A);
    us.insert(us.end(), {m, m});
    vs.insert(vs.end(), {n, n});
    U = ops::empty(us, A->dtype(), A->device());
    Vh = ops::empty(vs, A->dtype(), A->device());
    call("aten::zero_", {t(U)});
    call("aten::zero_", {t(Vh)});
  }
  ops::ret_all(c, {U, S, mH(Vh)});
}

}  // namespace

TN_REGISTER_KERNEL("aten::_linalg_eigh", DenseCPU, linalg_eigh<true>);
TN_REGISTER_KERNEL("aten::_linalg_eigh", Meta, linalg_eigh<false>);
TN_REGISTER_COMPOSITE("aten::linalg_eigh", eigh);
TN_REGISTER_COMPOSITE("aten::linalg_eigh.eigvals", eigh_out);
TN_REGISTER_COMPOSITE("aten::linalg_eigvalsh", eigvalsh);
TN_REGISTER_COMPOSITE("aten::linalg_eigvalsh.out", eigvalsh_out);
TN_REGISTER_KERNEL("aten::_linalg_svd", DenseCPU, linalg_svd<true>);
TN_REGISTER_KERNEL("aten::_linalg_svd", Meta, linalg_svd<false>);
TN_REGISTER_COMPOSITE("aten::linalg_svd", svd);
TN_REGISTER_COMPOSITE("aten::linalg_svd.U", svd_out);
TN_REGISTER_COMPOSITE("aten::linalg_svdvals", svdvals);
TN_REGISTER_COMPOSITE("aten::linalg_svdvals.out", svdvals_out);
TN_REGISTER_COMPOSITE("aten::svd", old_svd);

}  // namespace tn
