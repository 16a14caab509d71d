// QR: LAPACK's ?geqrf and ?orgqr (?ungqr) called as upstream's CPU kernels call them (one
// workspace query per batch, lapack.h), and upstream's placement of the factors:
//   geqrf                        the reflectors and R in one column-major matrix, and tau
//   linalg_householder_product   Q from reflectors and tau (orgqr is its old name)
//   linalg_qr                    mode 'reduced' (Q m x k, R k x n), 'complete' (Q m x m,
//                                R m x n) or 'r' (R only): ?geqrf in Q's or R's memory when it
//                                fits (else a copy), R its upper triangle, Q ?orgqr's
// float32, float64, complex64 and complex128.
#include <algorithm>
#include <complex>
#include <vector>

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


// ?geqrf in place over every (m, n) column-major matrix of QR; tau (batch, k) contiguous.
void geqrf_all(const Tensor& QR, const Tensor& tau) {
  dispatch_lapack(QR->dtype(), "geqrf_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (QR->numel() == 0) return;
    const char* key = "aten::geqrf";
    const int64_t m = QR->size(QR->dim() - 2), n = QR->size(QR->dim() - 1);
    const int64_t k = tau->size(tau->dim() - 1);
    T* a = data_of<T>(QR, key);
    T* tp = data_of<T>(tau, key);
    const int lda = static_cast<int>(std::max<int64_t>(1, m));
    int info = 0;
    T best{};
    lapack::geqrf<T>(static_cast<int>(m), static_cast<int>(n), a, lda, tp, &best, -1, &info);
    const int lwork = std::max({1, static_cast<int>(n), lapack::workspace_size(best)});
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batch_count(QR); ++b)
      lapack::geqrf<T>(static_cast<int>(m), static_cast<int>(n), a + b * m * n, lda, tp + b * k,
                       work.data(), lwork, &info);
  });
}

// ?orgqr in place over every (m, n) column-major matrix of Q, from the first k = tau.size(-1)
// reflectors.
void orgqr_all(const Tensor& Q, const Tensor& tau) {
  dispatch_lapack(Q->dtype(), "orgqr_cpu", [&](auto zero) {
    using T = decltype(zero);
    if (Q->numel() == 0) return;
    const char* key = "aten::linalg_householder_product";
    const int64_t m = Q->size(Q->dim() - 2), n = Q->size(Q->dim() - 1);
    const int64_t k = tau->size(tau->dim() - 1);
    T* a = data_of<T>(Q, key);
    const T* tp = data_of<T>(tau, key);
    const int lda = static_cast<int>(std::max<int64_t>(1, m));
    int info = 0;
    T best{};
    lapack::orgqr<T>(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), a, lda, tp,
                     &best, -1, &info);
    const int lwork = std::max(1, lapack::workspace_size(best));
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batch_count(Q); ++b)
      lapack::orgqr<T>(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                       a + b * m * n, lda, tp + b * k, work.data(), lwork, &info);
  });
}

Dims with_last(Dims shape, int64_t rows, int64_t cols) {
  shape.push_back(rows);
  shape.push_back(cols);
  return shape;
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t len) {
  return call_tensor("aten::narrow", {t(x), i64(dim), i64(start), i64(len)});
}

// geqrf(Tensor self) -> (Tensor a, Tensor tau)
std::pair<Tensor, Tensor> geqrf_of(const Tensor& A) {
  TN_CHECK(A->dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1);
  Dims tshape = batch_of(A);
  tshape.push_back(std::min(m, n));
  Tensor QR = f_clone(A);
  Tensor tau = ops::empty(tshape, A->dtype(), A->device());
  geqrf_all(QR, tau);
  return {QR, tau};
}
void geqrf(Call& c) {
  auto [QR, tau] = geqrf_of(c.tensor(0));
  ops::ret_all(c, {QR, tau});
}
void geqrf_out(Call& c) {
  auto [QR, tau] = geqrf_of(c.tensor(0));
  ops::ret_all(c, {QR, tau}, 1);
}

// linalg_householder_product(Tensor input, Tensor tau)
Tensor householder_product(const Tensor& A, const Tensor& tau, bool cpu) {
  const char* f = "torch.linalg.householder_product";
  TN_CHECK(A->dim() >= 2, f, ": input must have at least 2 dimensions.");
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1);
  TN_CHECK(m >= n, f, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TN_CHECK(tau->dim() >= 1 && n >= tau->size(tau->dim() - 1), f,
           ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TN_CHECK(A->dim() - tau->dim() == 1, f, ": Expected tau to have one dimension less than input, "
           "but got tau.ndim equal to ", tau->dim(), " and input.ndim is equal to ", A->dim());
  if (A->dim() > 2) {
    Dims tb(tau->sizes().begin(), tau->sizes().end() - 1);
    TN_CHECK(tb == batch_of(A), f, ": Expected batch dimensions of tau to be equal to "
             "input.shape[:-2], but got ", dims_str(tb));
  }
  TN_CHECK(tau->dtype() == A->dtype(), f, ": tau dtype ", c10_dtype_name(tau->dtype()),
           " does not match input dtype ", c10_dtype_name(A->dtype()));
  Tensor Q = f_clone(A);
  if (cpu) orgqr_all(Q, tau->is_contiguous() ? tau : ops::clone_contiguous(tau));
  return Q;
}
template <bool Cpu>
void householder(Call& c) { c.ret(householder_product(c.tensor(0), c.tensor(1), Cpu)); }
void householder_out(Call& c) {
  c.ret(ops::write_out(c.tensor(2), householder_product(c.tensor(0), c.tensor(1), true),
                       c.key()));
}

// linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)
std::pair<Tensor, Tensor> qr_of(const Tensor& A, const std::string& mode, bool cpu) {
  check_matrix(A, "linalg.qr");
  check_floating_or_complex(A, "linalg.qr");
  TN_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized "
           "mode '", mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const bool compute_q = mode != "r", reduced = mode != "complete";
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1), k = std::min(m, n);
  const Dims batch = batch_of(A);
  Tensor Q = compute_q ? f_empty(with_last(batch, m, reduced ? k : m), A->dtype(), A->device())
                       : ops::empty({0}, A->dtype(), A->device());
  Tensor R = f_empty(with_last(batch, reduced || !compute_q ? k : m, n), A->dtype(), A->device());
  Dims tshape = batch;
  tshape.push_back(k);
  Tensor tau = ops::empty(tshape, A->dtype(), A->device());
  // ?geqrf works in Q when it is m x n, else in R when it is, else in a copy (upstream's order).
  Tensor QR;
  if (compute_q && Q->size(Q->dim() - 1) == n) QR = Q;
  else if (R->size(R->dim() - 2) == m) QR = R;
  else QR = f_empty(A->sizes(), A->dtype(), A->device());
  ops::copy_(QR, A);
  if (cpu) geqrf_all(QR, tau);
  if (QR.get() == R.get()) {
    if (compute_q) {  // Q is m x m here
      if (m < n) ops::copy_(Q, narrow(QR, -1, 0, m));
      else ops::copy_(narrow(Q, -1, 0, n), QR);
    }
    call("aten::triu_", {t(R), i64(0)});
  } else {
    ops::copy_(R, call_tensor("aten::triu", {t(narrow(QR, -2, 0, n)), i64(0)}));
  }
  if (cpu && compute_q) orgqr_all(Q, tau);
  return {Q, R};
}
template <bool Cpu>
void linalg_qr(Call& c) {
  auto [Q, R] = qr_of(c.tensor(0), c.arg(1).str, Cpu);
  ops::ret_all(c, {Q, R});
}
void linalg_qr_out(Call& c) {
  ops::check_out_dtype(c.tensor(2), c.tensor(0)->dtype());
  ops::check_out_dtype(c.tensor(3), c.tensor(0)->dtype());
  auto [Q, R] = qr_of(c.tensor(0), c.arg(1).str, true);
  ops::ret_all(c, {Q, R}, 2);
}

constexpr char kHouseholder[] = "aten::linalg_householder_product";
constexpr char kHouseholderOut[] = "aten::linalg_householder_product.out";

}  // namespace

// orgqr(Tensor self, Tensor input2): upstream's old name of linalg_householder_product.
TN_REGISTER_COMPOSITE("aten::orgqr", ops::forward_to<kHouseholder>);
TN_REGISTER_COMPOSITE("aten::orgqr.out", ops::forward_to<kHouseholderOut>);
TN_REGISTER_KERNEL("aten::geqrf", DenseCPU, geqrf);
TN_REGISTER_KERNEL("aten::geqrf.a", DenseCPU, geqrf_out);
TN_REGISTER_KERNEL("aten::linalg_householder_product", DenseCPU, householder<true>);
TN_REGISTER_KERNEL("aten::linalg_householder_product", Meta, householder<false>);
TN_REGISTER_KERNEL("aten::linalg_householder_product.out", DenseCPU, householder_out);
TN_REGISTER_KERNEL("aten::linalg_qr", DenseCPU, linalg_qr<true>);
TN_REGISTER_KERNEL("aten::linalg_qr", Meta, linalg_qr<false>);
TN_REGISTER_KERNEL("aten::linalg_qr.out", DenseCPU, linalg_qr_out);

}  // namespace tn
