// The BLAS entry points the kernels call, loaded from Debian's OpenBLAS on first use.
// Why not link it: OpenBLAS picks its kernels when it loads, and the Debian build (0.3.21) does
// not recognise every AVX-512 Xeon; it then falls back to its SSE3 "Prescott" kernels (~30 vs
// ~130 GFLOP/s single-threaded here, docs/BENCH_DISPATCH.md). Loading it ourselves lets us name
// the kernel family from the CPU's features first (OPENBLAS_CORETYPE), unless the user set it.
#pragma once

#include <cblas.h>

namespace tn {

struct Blas {
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
  void (*set_num_threads)(int);
};

// Loads OpenBLAS once (thread-safe); refuses with a clear error when it cannot be loaded.
const Blas& blas();

}  // namespace tn
