// The BLAS entry points the kernels call, loaded on first use from the library chosen at
// configure time (CMake option TN_BLAS):
//
//   mkl       Intel oneMKL from the `mkl` wheel of our pinned list (installed into .venv): the
//             library upstream's x86-64 wheel computes its GEMMs with (torch.__config__.show()
//             names oneMKL 2024.2; we pin the same release). Same library, same CPU dispatch:
//             float32/float64 products are bit-identical to upstream's (tests/ops/
//             test_linear_seeded.py). Its GNU OpenMP layer runs on Debian's libgomp, which we
//             load first; set_num_threads sizes it, as upstream sizes its OpenMP pool.
//   openblas  Debian's OpenBLAS, for machines without MKL. Debian's build (0.3.21) does not
//             recognise every AVX-512 Xeon and falls back to its SSE3 "Prescott" kernels (~30 vs
//             ~130 GFLOP/s single-threaded here), so we name the kernel family from the CPU's
//             features first (OPENBLAS_CORETYPE), unless the user set it. Sums in another order
//             than upstream: products agree within upstream's own float32 error, not bit for bit.
//
// Only the declarations of Debian's cblas.h are used; both libraries export the same CBLAS ABI.
#pragma once

#include <cblas.h>

namespace tn {

struct Blas {
  const char* name;  // "mkl" or "openblas"
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
  decltype(&cblas_sdot) sdot;
  decltype(&cblas_ddot) ddot;
  void (*set_num_threads)(int);
};

// Loads the configured BLAS once (thread-safe); refuses with a clear error naming the library
// and its path when it cannot be loaded. Never substitutes the other one.
const Blas& blas();

}  // namespace tn
