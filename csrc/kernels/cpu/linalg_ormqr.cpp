// ormqr: other multiplied by the Q of ?geqrf's reflectors (input, tau), from the left or the
// right, Q or its (conjugate) transpose, through LAPACK's ?ormqr / ?unmqr as upstream's CPU
// kernel calls it (one workspace query, one call per matrix, column-major copies of input and
// other). float32, float64, complex64 and complex128; Meta gives the shape and strides.
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
constexpr char kApi[] = "torch.ormqr";

void check_same_device(const Tensor& x, const Tensor& input, const char* name) {
  TN_CHECK(x->device() == input->device(), kApi, ": Expected ", name, " and input tensors to be "
           "on the same device, but got ", name, " on ", x->device().str(), " and input on ",
           input->device().str());
}

// upstream's ormqr_out checks, in its order (out: the result's, when given).
void check_inputs(const Tensor& A, const Tensor& tau, const Tensor& C, bool left,
                  const Tensor* out) {
  TN_CHECK(A->dim() >= 2, kApi, ": input must have at least 2 dimensions.");
  TN_CHECK(C->dim() >= 2, kApi, ": other must have at least 2 dimensions.");
  const int64_t cond = left ? -2 : -1;
  const int64_t c_size = C->size(C->dim() + cond);
  if (tau->dim() == 0) TN_FAIL(Index, "Dimension specified as -1 but tensor has no dimensions");
  const int64_t k = tau->size(tau->dim() - 1);
  TN_CHECK(k == std::min(c_size, A->size(A->dim() - 1)), kApi, ": tau.shape[-1] must be equal "
           "to min(other.shape[", cond, "], input.shape[-1])");
  TN_CHECK(c_size == A->size(A->dim() - 2), kApi, ": other.shape[", cond, "] must be equal to "
           "input.shape[-2]");
  TN_CHECK(k <= A->size(A->dim() - 1), kApi, ": tau.shape[-1] must be less than or equal to "
           "input.shape[-1]");
  TN_CHECK(A->dim() - tau->dim() == 1, kApi, ": Expected tau to have one dimension less than "
           "input, but got tau.ndim equal to ", tau->dim(), " and input.ndim is equal to ",
           A->dim());
  TN_CHECK(A->dim() == C->dim(), kApi, ": Expected other to have the same number of dimensions "
           "as input, but got other.ndim equal to ", C->dim(), " and input.ndim is equal to ",
           A->dim());
  if (A->dim() > 2) {
    const Dims batch = batch_of(A);
    Dims tb(tau->sizes().begin(), tau->sizes().end() - 1);
    TN_CHECK(tb == batch, kApi, ": Expected batch dimensions of tau to be equal to "
             "input.shape[:-2], but got ", dims_str(tb));
    TN_CHECK(batch_of(C) == batch, kApi, ": Expected batch dimensions of other to be equal to "
             "input.shape[:-2], but got ", dims_str(batch_of(C)));
  }
  auto same_dtype = [&](const Tensor& x, const char* name) {
    TN_CHECK(x->dtype() == A->dtype(), kApi, ": Expected input and ", name, " to have the same "
             "dtype, but input has dtype", enum_name(A->dtype()), " and ", name, " has dtype ",
             enum_name(x->dtype()));
  };
  same_dtype(tau, "tau");
  same_dtype(C, "other");
  if (out) same_dtype(*out, "result");
  check_same_device(tau, A, "tau");
  check_same_device(C, A, "other");
  if (out) check_same_device(*out, A, "result");
}

// ?ormqr / ?unmqr over every matrix of R (column-major, other's values), in place.
void ormqr_all(const Tensor& A, const Tensor& tau, const Tensor& R, bool left, bool transpose) {
  dispatch_lapack(A->dtype(), "ormqr_cpu", [&](auto zero) {
    using T = decltype(zero);
    const char* key = "aten::ormqr";
    const char side = left ? 'L' : 'R';
    const char trans = transpose ? (is_complex(A->dtype()) ? 'C' : 'T') : 'N';
    const int m = static_cast<int>(R->size(R->dim() - 2));
    const int n = static_cast<int>(R->size(R->dim() - 1));
    const int k = static_cast<int>(tau->size(tau->dim() - 1));
    const int lda = std::max(1, left ? m : n), ldc = std::max(1, m);
    const int64_t a_stride = A->size(A->dim() - 2) * A->size(A->dim() - 1);
    const T* a = data_of<T>(A, key);
    const T* tp = data_of<T>(tau, key);
    T* c = data_of<T>(R, key);
    int info = 0;
    T best{};
    lapack::ormqr<T>(side, trans, m, n, k, a, lda, tp, c, ldc, &best, -1, &info);
    const int lwork = std::max(1, lapack::workspace_size(best));
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t b = 0; b < batch_count(A); ++b)
      lapack::ormqr<T>(side, trans, m, n, k, a + b * a_stride, lda, tp + b * k,
                       c + b * int64_t{m} * n, ldc, work.data(), lwork, &info);
  });
}

// The result, column-major with other's shape: into `into` when given (already so shaped).
Tensor ormqr_of(const Call& c, bool cpu, Tensor into = Tensor()) {
  const Tensor &A = c.tensor(0), &tau = c.tensor(1), &C = c.tensor(2);
  Tensor R = into ? into : f_empty(C->sizes(), C->dtype(), C->device());
  if (!cpu) return R;
  ops::copy_(R, C);
  Tensor tau_c = tau->is_contiguous() ? tau : ops::clone_contiguous(tau);
  ormqr_all(f_clone(A), tau_c, R, c.to_bool(3), c.to_bool(4));
  return R;
}

// ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False)
void ormqr(Call& c, bool cpu) {
  check_inputs(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3), nullptr);
  c.ret(ormqr_of(c, cpu));
}
void ormqr_cpu(Call& c) { ormqr(c, true); }
void ormqr_meta(Call& c) { ormqr(c, false); }

// The out= form, as upstream's: an empty out of the input's dtype is made column-major and
// written directly, as is one already of other's shape and column-major; any other is written
// through a temporary (resize_output, then a copy).
void ormqr_out(Call& c, bool cpu) {
  const Tensor& out = c.tensor(5);
  check_inputs(c.tensor(0), c.tensor(1), c.tensor(2), c.to_bool(3), &out);
  const Dims shape = c.tensor(2)->sizes();
  const bool column_major = out->dim() >= 2 && mT(out)->is_contiguous();
  if (out->numel() == 0 || (column_major && out->sizes() == shape)) {
    out->set_sizes_strides(shape, matrix_strides(shape, true), out->storage_offset());
    const size_t need = storage_bytes_needed(shape, out->strides(), out->storage_offset(),
                                             out->itemsize());
    if (need > out->storage()->nbytes()) out->storage()->resize(need);
    ormqr_of(c, cpu, out);
    c.ret(out);
    return;
  }
  c.ret(ops::write_out(out, ormqr_of(c, cpu), c.key()));
}
void ormqr_out_cpu(Call& c) { ormqr_out(c, true); }
void ormqr_out_meta(Call& c) { ormqr_out(c, false); }

}  // namespace

TN_REGISTER_KERNEL("aten::ormqr", DenseCPU, ormqr_cpu);
TN_REGISTER_KERNEL("aten::ormqr", Meta, ormqr_meta);
TN_REGISTER_KERNEL("aten::ormqr.out", DenseCPU, ormqr_out_cpu);
TN_REGISTER_KERNEL("aten::ormqr.out", Meta, ormqr_out_meta);

}  // namespace tn
