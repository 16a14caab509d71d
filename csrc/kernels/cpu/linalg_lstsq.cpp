// Least squares: LAPACK's ?gels, ?gelsy (the CPU default), ?gelsd and ?gelss called as upstream's
// CPU kernel calls them (one workspace query per batch, column-major copies; lapack.h):
//   linalg_lstsq   (solution, residuals, rank, singular_values) of A X = B, B a matrix or a
//                  vector (batched), batches broadcast. B is copied into a column-major buffer
//                  of max(m, n) rows that the driver overwrites; the solution is a view of its
//                  first n rows. rank is computed by all drivers but gels, singular values by
//                  gelsd and gelss; residuals (the squared norms of the buffer's rows n..m)
//                  only when m > n, the driver is not gelsy, and (gelsd, gelss) every matrix
//                  has rank n. The unused outputs are empty.
// and linalg_lstsq.out. float32, float64, complex64 and complex128. As upstream, there is no
// meta kernel (its outputs' shapes depend on the ranks).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "core/promotion.h"
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
constexpr char kApi[] = "torch.linalg.lstsq";

enum class Driver { Gels, Gelsy, Gelsd, Gelss };

// Upstream's lapack_work_to_int: the queried size rounded up past its float representation.
template <typename R>
int work_to_int(R w) {
  return std::max(1, static_cast<int>(std::ceil(std::nextafter(
                         w, std::numeric_limits<R>::infinity()))));
}

// The input checks of upstream's linalg_lstsq_out, in its order, before the driver's.
void check_inputs(const Tensor& A, const Tensor& B) {
  TN_CHECK(A->dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  TN_CHECK(B->dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  TN_CHECK(A->dtype() == B->dtype(), "torch.linalg.lstsq: Expected input and other to have the "
           "same dtype, but got input's dtype ", enum_name(A->dtype()), " and other's dtype ",
           enum_name(B->dtype()));
  const int64_t diff = A->dim() - B->dim();
  TN_CHECK(diff == 0 || diff == 1, "torch.linalg.lstsq: input.dim() must be greater or equal to "
           "other.dim() and (input.dim() - other.dim()) <= 1");
  const int64_t b_rows = diff ? B->size(B->dim() - 1) : B->size(B->dim() - 2);
  TN_CHECK(A->size(A->dim() - 2) == b_rows,
           diff ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
}

// The driver by name (any case), or the CPU's default gelsy.
Driver driver_of(const Value& v) {
  if (v.is_none()) return Driver::Gelsy;
  std::string name = v.str;
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (name == "gels") return Driver::Gels;
  if (name == "gelsy") return Driver::Gelsy;
  if (name == "gelsd") return Driver::Gelsd;
  TN_CHECK(name == "gelss", "torch.linalg.lstsq: parameter `driver` should be one of "
           "(gels, gelsy, gelsd, gelss)");
  return Driver::Gelss;
}

// Upstream's default rcond: the real dtype's epsilon times max(m, n) (its _get_epsilon refuses
// other dtypes, before the kernel's own dispatch could).
double default_rcond(const Tensor& A) {
  const int64_t mx = std::max(A->size(A->dim() - 2), A->size(A->dim() - 1));
  switch (to_real_type(A->dtype())) {
    case ScalarType::Float: return std::numeric_limits<float>::epsilon() * mx;
    case ScalarType::Double: return std::numeric_limits<double>::epsilon() * mx;
    default: TN_FAIL(Runtime, "This function doesn't handle types other than float and double");
  }
}

// Upstream's linalg_solve_is_vector_rhs.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  return B->dim() == 1 ||
         (B->dim() == A->dim() - 1 &&
          Dims(B->sizes().begin(), B->sizes().end()) ==
              Dims(A->sizes().begin(), A->sizes().end() - 1));
}

struct Lstsq {
  Tensor solution, residuals, rank, singular_values;
};

// One driver call per matrix of the solution buffer X (column-major, batch Xb), A's matrix
// broadcast to it (upstream's batch_iterator_with_broadcasting: a matrix of A met again is
// restored from a copy, the driver having destroyed it). rank, s and info are indexed by A's.
template <typename T>
void run_driver(Driver drv, const Tensor& Aw, const Tensor& X, const Tensor& rank,
                const Tensor& S, const Tensor& info, double rcond) {
  using R = lapack::real_of<T>;
  const char* key = "aten::linalg_lstsq";
  const int64_t m = Aw->size(Aw->dim() - 2), n = Aw->size(Aw->dim() - 1);
  const int64_t rows = X->size(X->dim() - 2), nrhs = X->size(X->dim() - 1);
  const int im = static_cast<int>(m), in = static_cast<int>(n), inrhs = static_cast<int>(nrhs);
  const int lda = static_cast<int>(std::max<int64_t>(1, m));
  const int ldb = static_cast<int>(std::max<int64_t>(1, std::max(m, n)));
  T* a = data_of<T>(Aw, key);
  T* b = data_of<T>(X, key);
  int32_t* inf = data_of<int32_t>(info, key);
  int64_t* rk = drv != Driver::Gels ? data_of<int64_t>(rank, key) : nullptr;
  const bool svd = drv == Driver::Gelsd || drv == Driver::Gelss;
  R* s = svd ? data_of<R>(S, key) : nullptr;
  const int64_t kmin = std::min(m, n);
  // jpvt is one array for the whole batch, as upstream's: gelsy's pivots of one matrix (all
  // nonzero) are the next one's fixed columns, so every later matrix is factored without
  // column pivoting, bit for bit as upstream. Upstream leaves the array uninitialised for the
  // first matrix, so what it does there depends on what its heap held (its result moves by a
  // few ulp between processes); mostly that is nonzero, the later matrices' treatment, which
  // 1s give here.
  std::vector<int> jpvt(drv == Driver::Gelsy ? static_cast<size_t>(std::max<int64_t>(1, n)) : 0,
                        1);
  int* jp = jpvt.empty() ? nullptr : jpvt.data();
  const R rc = static_cast<R>(rcond);
  int rank32 = 0;
  auto lapack_call = [&](T* ap, T* bp, R* sp, T* work, int lwork, R* rwork, int* iwork,
                         int* infop) {
    switch (drv) {
      case Driver::Gels:
        lapack::gels<T>('N', im, in, inrhs, ap, lda, bp, ldb, work, lwork, infop);
        break;
      case Driver::Gelsy:
        lapack::gelsy<T>(im, in, inrhs, ap, lda, bp, ldb, jp, rc, &rank32, work, lwork, rwork,
                         infop);
        break;
      case Driver::Gelsd:
        lapack::gelsd<T>(im, in, inrhs, ap, lda, bp, ldb, sp, rc, &rank32, work, lwork, rwork,
                         iwork, infop);
        break;
      case Driver::Gelss:
        lapack::gelss<T>(im, in, inrhs, ap, lda, bp, ldb, sp, rc, &rank32, work, lwork, rwork,
                         infop);
        break;
    }
  };
  T work_q{};
  R rwork_q{};
  int iwork_q = 0;
  lapack_call(a, b, s, &work_q, -1, &rwork_q, &iwork_q, inf);
  const int lwork = work_to_int(static_cast<R>(std::real(work_q)));
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<R> rwork;
  if constexpr (!std::is_same_v<T, R>) {
    int64_t len = 1;
    if (drv == Driver::Gelsy) len = std::max<int64_t>(1, 2 * n);
    else if (drv == Driver::Gelss) len = std::max<int64_t>(1, 5 * kmin);
    else if (drv == Driver::Gelsd) len = std::max<int64_t>(1, static_cast<int64_t>(rwork_q));
    if (drv != Driver::Gels) rwork.resize(static_cast<size_t>(len));
  }
  std::vector<int> iwork(drv == Driver::Gelsd ? static_cast<size_t>(std::max(1, iwork_q)) : 0);
  R* rw = rwork.empty() ? nullptr : rwork.data();
  int* iw = iwork.empty() ? nullptr : iwork.data();

  const Dims a_batch = batch_of(Aw), x_batch = batch_of(X);
  const std::vector<int64_t> a_of = broadcast_index(a_batch, x_batch);
  const bool broadcasts = a_batch != x_batch;
  std::vector<T> saved;
  std::vector<char> seen;
  if (broadcasts) {
    saved.assign(a, a + batch_count(Aw) * m * n);
    seen.assign(static_cast<size_t>(batch_count(Aw)), 0);
  }
  for (int64_t xi = 0; xi < static_cast<int64_t>(a_of.size()); ++xi) {
    const int64_t ai = a_of[static_cast<size_t>(xi)];
    T* ap = a + ai * m * n;
    if (broadcasts) {
      if (seen[static_cast<size_t>(ai)]) std::copy(saved.begin() + ai * m * n,
                                                   saved.begin() + (ai + 1) * m * n, ap);
      seen[static_cast<size_t>(ai)] = 1;
    }
    lapack_call(ap, b + xi * rows * nrhs, s ? s + ai * kmin : nullptr, work.data(), lwork, rw,
                iw, inf + ai);
    if (rk) rk[ai] = rank32;
  }
}

// The computation of upstream's linalg_lstsq_out_info into new tensors.
Lstsq lstsq_of(const Tensor& A, const Tensor& B, Driver drv, double rcond) {
  const bool vec = is_vector_rhs(A, B);
  const Tensor B2 = vec ? call_tensor("aten::unsqueeze", {t(B), i64(-1)}) : B;
  TN_CHECK(A->size(A->dim() - 2) == B2->size(B2->dim() - 2),
           "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  const int64_t m = A->size(A->dim() - 2), n = A->size(A->dim() - 1), mx = std::max(m, n);
  const int64_t nbatch = A->dim() - 2;
  const Dims a_batch = batch_of(A);
  Dims x_batch = broadcast_shapes(a_batch, Dims(B2->sizes().begin(),
                                                B2->sizes().begin() + nbatch));
  const ScalarType real = to_real_type(A->dtype());
  Tensor X2;  // the driver's buffer: (batch, max(m, n), nrhs) column-major
  Dims xs = x_batch;
  xs.push_back(mx);
  if (vec) {
    Tensor buf = ops::empty(xs, A->dtype(), A->device());
    X2 = call_tensor("aten::unsqueeze", {t(buf), i64(-1)});
  } else {
    xs.push_back(B->size(B->dim() - 1));
    X2 = f_empty(xs, A->dtype(), A->device());
  }
  call("aten::zero_", {t(X2)});
  ops::copy_(ops::narrow(X2, -2, 0, m), B2);
  Lstsq r;
  r.rank = drv != Driver::Gels ? ops::empty(a_batch, ScalarType::Long, A->device())
                               : ops::empty({0}, ScalarType::Long, A->device());
  Dims ss = a_batch;
  ss.push_back(std::min(m, n));
  const bool svd = drv == Driver::Gelsd || drv == Driver::Gelss;
  r.singular_values = svd ? ops::empty(ss, real, A->device()) : ops::empty({0}, real, A->device());
  Tensor info = ops::empty({std::max<int64_t>(1, batch_count(A))}, ScalarType::Int, A->device());
  call("aten::zero_", {t(info)});
  const Tensor Aw = f_clone(A);
  dispatch_lapack(A->dtype(), "linalg_lstsq_cpu", [&](auto zero) {
    run_driver<decltype(zero)>(drv, Aw, X2, r.rank, r.singular_values, info, rcond);
  });
  r.residuals = ops::empty({0}, real, A->device());
  if (m > n && drv != Driver::Gelsy) {
    bool compute = true;
    if (svd) {
      Tensor full = call_tensor("aten::all", {t(call_tensor("aten::eq.Scalar",
                                                            {t(r.rank), i64(n)}))});
      compute = call("aten::_local_scalar_dense", {t(full)})[0].scalar.to_int() != 0;
    }
    if (compute) {
      // Upstream squares the rows in place (raw * conj(raw) for complex) and sums them where
      // they lie; the squares are computed here over a contiguous copy (whose products are
      // upstream's vectorised ones) and written back, so that the sum sees upstream's layout.
      Tensor raw = ops::narrow(X2, -2, n, m - n);
      Tensor c2 = ops::clone_contiguous(raw);
      ops::copy_(raw, is_complex(raw->dtype())
                          ? call_tensor("aten::mul.Tensor", {t(c2), t(ops::conj_if_complex(c2))})
                          : call_tensor("aten::pow.Tensor_Scalar", {t(c2), i64(2)}));
      if (is_complex(raw->dtype())) raw = call_tensor("aten::real", {t(raw)});
      r.residuals = call_tensor("aten::sum.dim_IntList", {t(raw), ops::ints({-2}),
                                                          Value::of_bool(false),
                                                          Value::of_dtype(real)});
    }
  }
  r.solution = ops::narrow(X2, -2, 0, n);
  if (m == 0) call("aten::zero_", {t(r.solution)});
  if (vec) r.solution = call_tensor("aten::squeeze.dim", {t(r.solution), i64(-1)});
  check_errors(info, "torch.linalg.lstsq", info->numel() <= 1);
  return r;
}

// linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None)
//   -> (solution, residuals, rank, singular_values)
void linalg_lstsq(Call& c) {
  const Tensor &A = c.tensor(0), &B = c.tensor(1);
  check_inputs(A, B);
  const Driver drv = driver_of(c.arg(3));
  const double rcond = c.arg(2).is_none() ? default_rcond(A) : c.arg(2).d;
  const Lstsq r = lstsq_of(A, B, drv, rcond);
  ops::ret_all(c, {r.solution, r.residuals, r.rank, r.singular_values});
}

// linalg_lstsq.out(..., *, Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank,
//                  Tensor(d!) singular_values): the outs' dtypes are checked after the inputs
// (upstream's order, residuals named "solution" as upstream names it).
void linalg_lstsq_out(Call& c) {
  const Tensor &A = c.tensor(0), &B = c.tensor(1);
  check_inputs(A, B);
  const ScalarType real = to_real_type(A->dtype());
  linalg::check_out_castable(kApi, c.tensor(4), A->dtype(), "solution");
  linalg::check_out_castable(kApi, c.tensor(5), real, "solution");
  linalg::check_out_castable(kApi, c.tensor(6), ScalarType::Long, "rank");
  linalg::check_out_castable(kApi, c.tensor(7), real, "singular_values");
  std::vector<Value> r = call("aten::linalg_lstsq", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  const Driver drv = driver_of(c.arg(3));
  const bool svd = drv == Driver::Gelsd || drv == Driver::Gelss;
  const Tensor &sol = c.tensor(4), &rank = c.tensor(6), &sv = c.tensor(7);
  // Upstream computes into empty outs of the right dtypes directly: the solution out becomes
  // the view of the driver's buffer (its strides), and outs the driver does not produce are
  // left as they were. Other outs receive copies (resize_output).
  const bool direct = sol->numel() == 0 && sol->dtype() == A->dtype() &&
                      (drv == Driver::Gels ||
                       (rank->dtype() == ScalarType::Long && rank->numel() == 0)) &&
                      (!svd || (sv->dtype() == real && sv->numel() == 0));
  if (!direct) {
    ops::ret_all(c, {r[0].tensor, r[1].tensor, r[2].tensor, r[3].tensor}, 4);
    return;
  }
  call("aten::set_.source_Tensor", {t(sol), t(r[0].tensor)});
  c.ret(sol);
  const bool residuals = r[1].tensor->numel() > 0;
  c.ret(residuals ? ops::write_out(c.tensor(5), r[1].tensor, c.key()) : c.tensor(5));
  c.ret(drv != Driver::Gels ? ops::write_out(rank, r[2].tensor, c.key()) : rank);
  c.ret(svd ? ops::write_out(sv, r[3].tensor, c.key()) : sv);
}

// Upstream registers no meta kernel (its shapes depend on the ranks): its dispatcher's refusal.
void linalg_lstsq_meta(Call&) {
  TN_FAIL(NotImplemented, "aten::linalg_lstsq.out: attempted to run this operator with Meta "
          "tensors, but there was no fake impl or Meta kernel registered. You may have run into "
          "this message while using an operator with PT2 compilation APIs (torch.compile/"
          "torch.export); in order to use this operator with those APIs you'll need to add a "
          "fake impl. Please see the following for next steps:  "
          "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html");
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_lstsq", DenseCPU, linalg_lstsq);
TN_REGISTER_KERNEL("aten::linalg_lstsq", Meta, linalg_lstsq_meta);
TN_REGISTER_KERNEL("aten::linalg_lstsq.out", DenseCPU, linalg_lstsq_out);
TN_REGISTER_KERNEL("aten::linalg_lstsq.out", Meta, linalg_lstsq_meta);

}  // namespace tn
