// One strided GEMM for every dtype the matmul family computes: C = alpha*A·B + beta*C, with A,
// B given by pointer and strides (transposed views reach BLAS through its trans flags when one
// stride is 1; other layouts are packed first). Dense CPU only; C is row-major contiguous.
#pragma once

#include <cstdint>

namespace tn {

struct MatRef {
  const void* p;
  int64_t s0, s1;  // element strides of rows and columns
};

// alpha or beta: a real number, or for the complex dtypes a complex one (addmm's and baddbmm's
// complex factors, which c/zgemm take as they are); a real dtype reads re only.
struct GemmScale {
  double re = 0, im = 0;
  GemmScale(double r) : re(r) {}  // NOLINT: a real factor converts implicitly
  GemmScale(double r, double i) : re(r), im(i) {}
  bool zero() const { return re == 0 && im == 0; }
};

// A is m x k, B is k x n, C is m x n with leading dim n. beta == 0 ignores C's old contents
// (NaN included), as BLAS and upstream do. T is one of our element types (not bool).
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, MatRef a, MatRef b, T* c, GemmScale alpha,
          GemmScale beta);

// The same product planned as upstream's mm/addmm plans its BLAS call (C read column-major when
// n == 1, operands by their raw strides, upstream's leading-dim rules), so MKL runs the kernels,
// and sums in the order, it runs for upstream; mm, addmm and their users call this.
template <typename T>
void gemm_as_addmm(int64_t m, int64_t n, int64_t k, MatRef a, MatRef b, T* c, GemmScale alpha,
                   GemmScale beta);

// `batch` products C_i = alpha*A_i·B_i + beta*C_i, A_i at a.p + i * a_batch (elements), B_i
// likewise, C_i at c + i * m * n. float and double whose matrices BLAS reads in place go to
// MKL's batched GEMM in one call, as upstream's bmm (its cpublas::gemm_batched_with_stride);
// one product, other dtypes, packed layouts and OpenBLAS run gemm per product.
template <typename T>
void gemm_batched(int64_t batch, int64_t m, int64_t n, int64_t k, MatRef a, int64_t a_batch,
                  MatRef b, int64_t b_batch, T* c, GemmScale alpha, GemmScale beta);

}  // namespace tn
