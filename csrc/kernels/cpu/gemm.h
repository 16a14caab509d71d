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

// A is m x k, B is k x n, C is m x n with leading dim n. beta == 0 ignores C's old contents
// (NaN included), as BLAS and upstream do. T is one of our element types (not bool).
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, MatRef a, MatRef b, T* c, double alpha, double beta);

}  // namespace tn
