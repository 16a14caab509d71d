// Strided GEMM over OpenBLAS (see gemm.h). float32/float64 call cblas_sgemm/dgemm directly.
// float16/bfloat16 are widened to float, multiplied by sgemm and rounded once on the way back
// (upstream's CPU gemm also accumulates them in float; blocking order differs, so the last ulp
// may). Integers run a plain triple loop accumulating in int64, as upstream's reference gemm.
#include "kernels/cpu/gemm.h"

#include "kernels/cpu/blas_loader.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "kernels/dtype_dispatch.h"

namespace tn {
namespace {

// How BLAS can read a rows x cols operand in place: row-major (NoTrans) or column-major
// (Trans) with leading dim ld; false when neither stride is 1 (the caller packs).
bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, CBLAS_TRANSPOSE* trans,
                 int64_t* ld) {
  if (cols == 1) s1 = 1;
  if (rows == 1) s0 = std::max<int64_t>(cols, 1);
  if (s1 == 1 && s0 >= std::max<int64_t>(cols, 1)) {
    *trans = CblasNoTrans;
    *ld = s0;
    return true;
  }
  if (s0 == 1 && s1 >= std::max<int64_t>(rows, 1)) {
    *trans = CblasTrans;
    *ld = s1;
    return true;
  }
  return false;
}

// A contiguous row-major copy of a strided rows x cols operand, converted to U.
template <typename U, typename T>
std::vector<U> pack(int64_t rows, int64_t cols, const T* p, int64_t s0, int64_t s1) {
  std::vector<U> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = static_cast<U>(p[i * s0 + j * s1]);
  return out;
}

// One BLAS gemm call; row-major with C's leading dim n unless `order` and ldc say otherwise.
void blas_call(int64_t m, int64_t n, int64_t k, CBLAS_TRANSPOSE ta, const float* a, int64_t lda,
               CBLAS_TRANSPOSE tb, const float* b, int64_t ldb, float* c, GemmScale alpha,
               GemmScale beta, CBLAS_ORDER order = CblasRowMajor, int64_t ldc = -1) {
  blas().sgemm(order, ta, tb, m, n, k, static_cast<float>(alpha.re), a, lda, b, ldb,
              static_cast<float>(beta.re), c, ldc < 0 ? n : ldc);
}
void blas_call(int64_t m, int64_t n, int64_t k, CBLAS_TRANSPOSE ta, const double* a,
               int64_t lda, CBLAS_TRANSPOSE tb, const double* b, int64_t ldb, double* c,
               GemmScale alpha, GemmScale beta, CBLAS_ORDER order = CblasRowMajor,
               int64_t ldc = -1) {
  blas().dgemm(order, ta, tb, m, n, k, alpha.re, a, lda, b, ldb, beta.re, c, ldc < 0 ? n : ldc);
}

void blas_call(int64_t m, int64_t n, int64_t k, CBLAS_TRANSPOSE ta, const cfloat* a,
               int64_t lda, CBLAS_TRANSPOSE tb, const cfloat* b, int64_t ldb, cfloat* c,
               GemmScale alpha, GemmScale beta, CBLAS_ORDER order = CblasRowMajor,
               int64_t ldc = -1) {
  cfloat al(static_cast<float>(alpha.re), static_cast<float>(alpha.im));
  cfloat be(static_cast<float>(beta.re), static_cast<float>(beta.im));
  blas().cgemm(order, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc < 0 ? n : ldc);
}
void blas_call(int64_t m, int64_t n, int64_t k, CBLAS_TRANSPOSE ta, const cdouble* a,
               int64_t lda, CBLAS_TRANSPOSE tb, const cdouble* b, int64_t ldb, cdouble* c,
               GemmScale alpha, GemmScale beta, CBLAS_ORDER order = CblasRowMajor,
               int64_t ldc = -1) {
  cdouble al(alpha.re, alpha.im), be(beta.re, beta.im);
  blas().zgemm(order, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc < 0 ? n : ldc);
}

// Upstream's addmm_impl_cpu_ and cpublas::gemm planning the column-major BLAS call for
// C (m x n, row-major contiguous) = A·B: C is read as column-major when n == 1 and as its
// transpose otherwise (A and B then swap); each operand goes in as it lies (no transpose or
// transpose, by its raw strides) or as a contiguous copy; normalize_last_dims then rewrites the
// leading dims of size-1 shapes. MKL picks its kernels by these flags and dims, so a 1 x k by
// k x 1 product (or any n == 1 one) sums in upstream's order only when called exactly so.
// False when upstream would not call BLAS (a leading dim out of its bounds): the caller plans.
template <typename T>
bool upstream_planned_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t as0,
                           int64_t as1, const T* b, int64_t bs0, int64_t bs1, T* c,
                           GemmScale alpha, GemmScale beta) {
  const bool tc = n != 1;
  struct Operand {
    const T* p;
    int64_t rows, cols, s[2];
  };
  Operand m1{a, m, k, {as0, as1}}, m2{b, k, n, {bs0, bs1}};
  if (tc) std::swap(m1, m2);
  const int64_t M = tc ? n : m, N = tc ? m : n, K = k;
  const int p = tc ? 1 : 0, q = tc ? 0 : 1;
  std::vector<T> copy_a, copy_b;
  // Whether an operand goes in transposed, and its leading dim (its copy's when copied).
  auto place = [&](Operand& o, int64_t first, int64_t second, std::vector<T>& copy,
                   bool* trans) {
    if (o.s[p] == 1 && o.s[q] >= std::max<int64_t>(1, first)) {
      *trans = false;
    } else if (o.s[q] == 1 && o.s[p] >= std::max<int64_t>(1, second)) {
      *trans = true;
    } else {
      *trans = !tc;
      copy = pack<T>(o.rows, o.cols, o.p, o.s[0], o.s[1]);
      o = Operand{copy.data(), o.rows, o.cols, {o.cols, 1}};
    }
    return o.s[*trans == tc ? 1 : 0];
  };
  bool ta = false, tb = false;
  int64_t lda = place(m1, M, K, copy_a, &ta);
  int64_t ldb = place(m2, K, N, copy_b, &tb);
  int64_t ldc = tc ? n : 1;
  if (N == 1) ldc = M;  // normalize_last_dims
  if (ta) {
    if (M == 1) lda = K;
  } else if (K == 1) {
    lda = M;
  }
  if (tb) {
    if (K == 1) ldb = N;
  } else if (N == 1) {
    ldb = K;
  }
  const int64_t kIntMax = (1LL << 31) - 1;
  if (lda > kIntMax || ldb > kIntMax || ldc > kIntMax ||
      lda < std::max<int64_t>(1, ta ? K : M) || ldb < std::max<int64_t>(1, tb ? N : K) ||
      ldc < std::max<int64_t>(1, M))
    return false;
  blas_call(M, N, K, ta ? CblasTrans : CblasNoTrans, m1.p, lda, tb ? CblasTrans : CblasNoTrans,
            m2.p, ldb, c, alpha, beta, CblasColMajor, ldc);
  return true;
}

// float/double (and their complex types): operands in place where BLAS can read them, packed
// otherwise.
template <typename T>
void blas_gemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t as0, int64_t as1,
               const T* b, int64_t bs0, int64_t bs1, T* c, GemmScale alpha, GemmScale beta) {
  CBLAS_TRANSPOSE ta, tb;
  int64_t lda, ldb;
  std::vector<T> pa, pb;
  if (!blas_layout(m, k, as0, as1, &ta, &lda)) {
    pa = pack<T>(m, k, a, as0, as1);
    a = pa.data(), ta = CblasNoTrans, lda = std::max<int64_t>(k, 1);
  }
  if (!blas_layout(k, n, bs0, bs1, &tb, &ldb)) {
    pb = pack<T>(k, n, b, bs0, bs1);
    b = pb.data(), tb = CblasNoTrans, ldb = std::max<int64_t>(n, 1);
  }
  blas_call(m, n, k, ta, a, lda, tb, b, ldb, c, alpha, beta);
}

}  // namespace

template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, MatRef a, MatRef b, T* c, GemmScale alpha_,
          GemmScale beta_) {
  TN_CHECK(m < (1LL << 31) && n < (1LL << 31) && k < (1LL << 31),
           "matmul: sizes beyond 2^31 are not supported by torchnative's BLAS path");
  if (m == 0 || n == 0) return;
  const T* pa = static_cast<const T*>(a.p);
  const T* pb = static_cast<const T*>(b.p);
  if constexpr (is_complex_v<T>) {
    if (k == 0) {
      using R = typename T::value_type;
      T be(static_cast<R>(beta_.re), static_cast<R>(beta_.im));
      for (int64_t i = 0; i < m * n; ++i) c[i] = beta_.zero() ? T(0) : c[i] * be;
      return;
    }
    blas_gemm<T>(m, n, k, pa, a.s0, a.s1, pb, b.s0, b.s1, c, alpha_, beta_);
  } else {
    const double alpha = alpha_.re, beta = beta_.re;
    if (k == 0) {  // no products: C = beta*C (BLAS may not touch C at all)
      for (int64_t i = 0; i < m * n; ++i)
        c[i] = beta == 0 ? T(0) : T(static_cast<acc_t<T>>(static_cast<acc_t<T>>(c[i]) * beta));
      return;
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      blas_gemm<T>(m, n, k, pa, a.s0, a.s1, pb, b.s0, b.s1, c, alpha, beta);
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      std::vector<float> fa = pack<float>(m, k, pa, a.s0, a.s1);
      std::vector<float> fb = pack<float>(k, n, pb, b.s0, b.s1);
      std::vector<float> fc(static_cast<size_t>(m * n), 0.f);
      if (beta != 0)
        for (int64_t i = 0; i < m * n; ++i) fc[i] = static_cast<float>(c[i]);
      blas_call(m, n, k, CblasNoTrans, fa.data(), k, CblasNoTrans, fb.data(), n, fc.data(), alpha,
                beta);
      for (int64_t i = 0; i < m * n; ++i) c[i] = T(fc[i]);
    } else if constexpr (!is_complex_v<T>) {
      int64_t ial = static_cast<int64_t>(alpha), ibe = static_cast<int64_t>(beta);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          int64_t s = 0;
          for (int64_t q = 0; q < k; ++q)
            s += static_cast<int64_t>(pa[i * a.s0 + q * a.s1]) * pb[q * b.s0 + j * b.s1];
          int64_t old = ibe == 0 ? 0 : ibe * static_cast<int64_t>(c[i * n + j]);
          c[i * n + j] = static_cast<T>(old + ial * s);
        }
      }
    }
  }
}

template <typename T>
void gemm_as_addmm(int64_t m, int64_t n, int64_t k, MatRef a, MatRef b, T* c, GemmScale alpha,
                   GemmScale beta) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>) {
    if (m > 0 && n > 0 && k > 0 && m < (1LL << 31) && n < (1LL << 31) && k < (1LL << 31) &&
        upstream_planned_gemm<T>(m, n, k, static_cast<const T*>(a.p), a.s0, a.s1,
                                 static_cast<const T*>(b.p), b.s0, b.s1, c, alpha, beta))
      return;
  }
  gemm<T>(m, n, k, a, b, c, alpha, beta);
}

namespace {
void batch_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
                const float** a, int lda, const float** b, int ldb, float beta, float** c,
                int batch) {
  blas().sgemm_batch(CblasRowMajor, &ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c,
                     &n, 1, &batch);
}
void batch_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha,
                const double** a, int lda, const double** b, int ldb, double beta, double** c,
                int batch) {
  blas().dgemm_batch(CblasRowMajor, &ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c,
                     &n, 1, &batch);
}
}  // namespace

template <typename T>
void gemm_batched(int64_t batch, int64_t m, int64_t n, int64_t k, MatRef a, int64_t a_batch,
                  MatRef b, int64_t b_batch, T* c, GemmScale alpha, GemmScale beta) {
  auto one = [&](int64_t i) {
    gemm<T>(m, n, k, {static_cast<const T*>(a.p) + i * a_batch, a.s0, a.s1},
            {static_cast<const T*>(b.p) + i * b_batch, b.s0, b.s1}, c + i * m * n, alpha, beta);
  };
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    CBLAS_TRANSPOSE ta, tb;
    int64_t lda, ldb;
    bool batched = batch > 1 && m > 0 && n > 0 && k > 0 && batch < (1LL << 31) &&
                   m < (1LL << 31) && n < (1LL << 31) && k < (1LL << 31) &&
                   (std::is_same_v<T, float> ? blas().sgemm_batch != nullptr
                                             : blas().dgemm_batch != nullptr) &&
                   blas_layout(m, k, a.s0, a.s1, &ta, &lda) &&
                   blas_layout(k, n, b.s0, b.s1, &tb, &ldb);
    if (batched) {
      std::vector<const T*> pa(static_cast<size_t>(batch)), pb(pa.size());
      std::vector<T*> pc(pa.size());
      for (int64_t i = 0; i < batch; ++i) {
        pa[i] = static_cast<const T*>(a.p) + i * a_batch;
        pb[i] = static_cast<const T*>(b.p) + i * b_batch;
        pc[i] = c + i * m * n;
      }
      batch_call(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                 static_cast<T>(alpha.re), pa.data(), static_cast<int>(lda), pb.data(),
                 static_cast<int>(ldb), static_cast<T>(beta.re), pc.data(),
                 static_cast<int>(batch));
      return;
    }
  }
  for (int64_t i = 0; i < batch; ++i) one(i);
}

#define TN_GEMM_BATCHED(T)                                                                 \
  template void gemm_batched<T>(int64_t, int64_t, int64_t, int64_t, MatRef, int64_t, MatRef, \
                                int64_t, T*, GemmScale, GemmScale);
TN_GEMM_BATCHED(uint8_t)
TN_GEMM_BATCHED(int8_t)
TN_GEMM_BATCHED(int16_t)
TN_GEMM_BATCHED(int32_t)
TN_GEMM_BATCHED(int64_t)
TN_GEMM_BATCHED(Half)
TN_GEMM_BATCHED(BFloat16)
TN_GEMM_BATCHED(float)
TN_GEMM_BATCHED(double)
TN_GEMM_BATCHED(cfloat)
TN_GEMM_BATCHED(cdouble)
#undef TN_GEMM_BATCHED

#define TN_GEMM(T)                                                                           \
  template void gemm<T>(int64_t, int64_t, int64_t, MatRef, MatRef, T*, GemmScale, GemmScale); \
  template void gemm_as_addmm<T>(int64_t, int64_t, int64_t, MatRef, MatRef, T*, GemmScale,   \
                                 GemmScale);
TN_GEMM(uint8_t)
TN_GEMM(int8_t)
TN_GEMM(int16_t)
TN_GEMM(int32_t)
TN_GEMM(int64_t)
TN_GEMM(Half)
TN_GEMM(BFloat16)
TN_GEMM(float)
TN_GEMM(double)
TN_GEMM(cfloat)
TN_GEMM(cdouble)
#undef TN_GEMM

}  // namespace tn
