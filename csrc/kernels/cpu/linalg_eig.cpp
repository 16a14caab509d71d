// The general (non-symmetric) eigendecomposition: LAPACK's ?geev called as upstream's CPU kernel
// calls it (right vectors only, one workspace query per batch, column-major copies; lapack.h):
//   linalg_eig        eigenvalues (contiguous) and eigenvectors (column-major), always complex;
//                     a real input's vectors are rebuilt from ?geev's real ones, a conjugate pair
//                     of eigenvalues sharing two columns (v = re + i im, its conjugate next)
//   _linalg_eigvals   the eigenvalues alone (jobvr 'N', which may differ in the last bits from
//                     jobvr 'V': linalg_eigvals takes linalg_eig when autograd will need V)
// and their spellings linalg_eig.out, linalg_eigvals, linalg_eigvals.out. Only linalg_eig
// refuses non-finite input, as upstream. float32, float64, complex64 and complex128.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_util.h"

namespace tn {
namespace {

using namespace linalg;
using ops::t;

// Upstream's toComplexType (c10 maps bfloat16 to complex64, its range being float's); the
// kernel's dispatch refuses the 16-bit types afterwards by name.
ScalarType complex_of(ScalarType dt) {
  return dt == ScalarType::BFloat16 ? ScalarType::ComplexFloat : to_complex_type(dt);
}

// Upstream's lapack_work_to_int: the queried size rounded up past its float representation.
template <typename T>
int work_to_int(T w) {
  const auto r = static_cast<lapack::real_of<T>>(std::real(w));
  const auto up = std::nextafter(r, std::numeric_limits<decltype(r)>::infinity());
  return std::max(1, static_cast<int>(std::ceil(up)));
}

// ?geev over every matrix of A (copied column-major): values (batch, n) complex and, with
// compute_v, vectors (batch, n, n) complex column-major. Errors raise under api's name.
void geev_all(const Tensor& A, const Tensor& values, const Tensor& vectors, bool compute_v,
              const char* api) {
  const int64_t n = A->size(A->dim() - 1);
  const int64_t batch = batch_count(A);
  Tensor info = ops::empty({std::max<int64_t>(1, batch)}, ScalarType::Int, A->device());
  call("aten::zero_", {t(info)});
  dispatch_lapack(A->dtype(), "linalg_eig_out_cpu", [&](auto zero) {
    using T = decltype(zero);
    using R = lapack::real_of<T>;
    using C = std::complex<R>;
    const char* key = "aten::linalg_eig";
    Tensor W = f_clone(A);
    T* a = data_of<T>(W, key);
    int32_t* inf = data_of<int32_t>(info, key);
    const int nn = static_cast<int>(n), lda = static_cast<int>(std::max<int64_t>(1, n));
    const int ldvr = compute_v ? lda : 1;
    // Real input: ?geev writes (re..., im...) per matrix and real vectors, made complex below.
    constexpr bool kReal = std::is_same_v<T, R>;
    std::vector<T> w(static_cast<size_t>(std::max<int64_t>(1, batch * n * (kReal ? 2 : 1))));
    std::vector<T> vr(compute_v ? static_cast<size_t>(std::max<int64_t>(1, batch * n * n)) : 0);
    std::vector<R> rwork(kReal ? 0 : static_cast<size_t>(2 * lda));
    R* rw = rwork.empty() ? nullptr : rwork.data();
    T* v = compute_v ? vr.data() : nullptr;
    T query{};
    lapack::geev<T>('N', compute_v ? 'V' : 'N', nn, a, lda, w.data(), nullptr, 1, v, ldvr,
                    &query, -1, rw, inf);
    const int lwork = work_to_int(query);
    std::vector<T> work(static_cast<size_t>(lwork));
    const int64_t wstride = kReal ? 2 * n : n;
    for (int64_t b = 0; b < batch; ++b)
      lapack::geev<T>('N', compute_v ? 'V' : 'N', nn, a + b * n * n, lda, w.data() + b * wstride,
                      nullptr, 1, compute_v ? v + b * n * n : nullptr, ldvr, work.data(), lwork,
                      rw, inf + b);
    C* out = data_of<C>(values, key);
    C* vec = compute_v ? data_of<C>(vectors, key) : nullptr;
    if constexpr (!kReal) {
      std::copy(w.begin(), w.begin() + batch * n, out);
      if (compute_v) std::copy(vr.begin(), vr.begin() + batch * n * n, vec);
    } else {
      // Upstream keeps ?geev's imaginary parts only when one of the batch is nonzero (else the
      // values are copied from the real parts, +0 imaginary).
      bool all_real = true;
      for (int64_t b = 0; b < batch && all_real; ++b)
        for (int64_t j = 0; j < n; ++j)
          if (!(w[b * 2 * n + n + j] == 0)) all_real = false;
      for (int64_t b = 0; b < batch; ++b) {
        const T* re = w.data() + b * 2 * n;
        for (int64_t j = 0; j < n; ++j) out[b * n + j] = C(re[j], all_real ? R(0) : re[n + j]);
        if (!compute_v) continue;
        const T* src = v + b * n * n;
        C* dst = vec + b * n * n;
        for (int64_t j = 0; j < n; ++j) {
          if (out[b * n + j].imag() == 0) {
            for (int64_t i = 0; i < n; ++i) dst[j * n + i] = C(src[j * n + i], R(0));
            continue;
          }
          for (int64_t i = 0; i < n && j + 1 < n; ++i) {
            dst[j * n + i] = C(src[j * n + i], src[(j + 1) * n + i]);
            dst[(j + 1) * n + i] = C(src[j * n + i], -src[(j + 1) * n + i]);
          }
          ++j;
        }
      }
    }
  });
  check_errors(info, api, A->dim() == 2);
}

// torch.linalg.eig's refusal of non-finite input (upstream checks it before the shape).
void check_finite(const Tensor& A) {
  Tensor all = call_tensor("aten::all", {t(call_tensor("aten::isfinite", {t(A)}))});
  TN_CHECK(data_of<bool>(all, "aten::linalg_eig")[0],
           "torch.linalg.eig: input tensor should not contain infs or NaNs.");
}

Dims values_shape(const Tensor& A) {
  return Dims(A->sizes().begin(), A->sizes().end() - 1);
}

// linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)
template <bool Cpu>
void linalg_eig(Call& c) {
  const Tensor& A = c.tensor(0);
  const ScalarType ct = complex_of(A->dtype());
  if (Cpu) check_finite(A);
  check_square(A, "linalg.eig");
  Tensor L = ops::empty(values_shape(A), ct, A->device());
  // Upstream's meta function lays the vectors out row-major for a meta tensor (its device_hint
  // takes one for CUDA's); the CPU's are column-major.
  Tensor V = ops::empty_strided(A->sizes(), matrix_strides(A->sizes(), /*f_contig=*/Cpu), ct,
                                A->device());
  ops::ret_all(c, {L, V});
  if (Cpu) geev_all(A, L, V, true, "torch.linalg.eig");
}

// linalg_eig.out: the input's checks (linalg_eig's own, first as upstream's), then the outs'.
void linalg_eig_out(Call& c) {
  std::vector<Value> r = call("aten::linalg_eig", {c.arg(0)});
  const ScalarType ct = r[0].tensor->dtype();
  linalg::check_out_castable("torch.linalg.eig", c.tensor(1), ct, "eigenvalues");
  linalg::check_out_castable("torch.linalg.eig", c.tensor(2), ct, "eigenvectors");
  // An empty vectors out of the complex dtype is computed into directly by upstream, made
  // column-major as the functional form's.
  const Tensor& V = c.tensor(2);
  if (V->numel() == 0 && V->dtype() == ct && r[1].tensor->numel() > 0) {
    const Dims& shape = r[1].tensor->sizes();
    V->set_sizes_strides(shape, matrix_strides(shape, /*f_contig=*/true), V->storage_offset());
    const size_t need = storage_bytes_needed(shape, V->strides(), V->storage_offset(),
                                             V->itemsize());
    if (need > V->storage()->nbytes()) V->storage()->resize(need);
  }
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 1);
}

// _linalg_eigvals(Tensor self) -> Tensor
template <bool Cpu>
void linalg_eigvals_only(Call& c) {
  const Tensor& A = c.tensor(0);
  const ScalarType ct = complex_of(A->dtype());
  check_square(A, "linalg.eigvals");
  Tensor L = ops::empty(values_shape(A), ct, A->device());
  c.ret(L);
  if (Cpu) geev_all(A, L, Tensor(), false, "torch.linalg.eigvals");
}

// linalg_eigvals(Tensor self) -> Tensor: through linalg_eig when autograd will want the
// vectors (upstream's _may_require_fw_or_bw_grad), so the gradient is LinalgEigBackward0's.
Tensor eigvals_of(const Call& c) {
  const Tensor& A = c.tensor(0);
  if (grad_mode_enabled() && A->requires_grad())
    return call("aten::linalg_eig", {c.arg(0)})[0].tensor;
  return call_tensor("aten::_linalg_eigvals", {c.arg(0)});
}
void eigvals(Call& c) { c.ret(eigvals_of(c)); }
void eigvals_out(Call& c) {
  const Tensor& A = c.tensor(0);
  const ScalarType ct = complex_of(A->dtype());
  check_square(A, "linalg.eigvals");
  linalg::check_out_castable("torch.linalg.eigvals", c.tensor(1), ct, "eigenvalues");
  c.ret(ops::write_out(c.tensor(1), call_tensor("aten::_linalg_eigvals", {c.arg(0)}),
                       c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_eig", DenseCPU, linalg_eig<true>);
TN_REGISTER_KERNEL("aten::linalg_eig", Meta, linalg_eig<false>);
TN_REGISTER_COMPOSITE("aten::linalg_eig.out", linalg_eig_out);
TN_REGISTER_KERNEL("aten::_linalg_eigvals", DenseCPU, linalg_eigvals_only<true>);
TN_REGISTER_KERNEL("aten::_linalg_eigvals", Meta, linalg_eigvals_only<false>);
TN_REGISTER_COMPOSITE("aten::linalg_eigvals", eigvals);
TN_REGISTER_COMPOSITE("aten::linalg_eigvals.out", eigvals_out);

}  // namespace tn
