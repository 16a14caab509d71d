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

// The float functions upstream's unary kernels compute through MKL's vector math (its vml.h):
// float32 and float64 arrays, mode VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE as upstream
// passes it. Bit for bit what upstream's sqrt, exp, log... give (same library, same release):
// tests/ops/test_unary_vml.py.
enum class VmlFn : int {
  Sqrt, Exp, Ln, Log2, Log10, Sin, Cos, Tan, Tanh, Erf, Acos, Asin, Atan, Erfc, ErfInv,
  kCount
};
constexpr long long kVmlUpstreamMode = 0x2 | 0x140000 | 0x100;
using VmlS = void (*)(int n, const float* a, float* r, long long mode);
using VmlD = void (*)(int n, const double* a, double* r, long long mode);

struct Blas {
  const char* name;  // "mkl" or "openblas"
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
  decltype(&cblas_sdot) sdot;
  decltype(&cblas_ddot) ddot;
  // Complex dots (result through the last pointer), as upstream's dot calls ?dotu.
  decltype(&cblas_cdotu_sub) cdotu;
  decltype(&cblas_zdotu_sub) zdotu;
  decltype(&cblas_cdotc_sub) cdotc;  // vdot: ?dotc
  decltype(&cblas_zdotc_sub) zdotc;
  // Matrix-vector products (upstream's mv / addmv call ?gemv).
  decltype(&cblas_sgemv) sgemv;
  decltype(&cblas_dgemv) dgemv;
  decltype(&cblas_cgemv) cgemv;
  decltype(&cblas_zgemv) zgemv;
  // Triangular solves (upstream's linalg.solve_triangular calls ?trsm).
  decltype(&cblas_strsm) strsm;
  decltype(&cblas_dtrsm) dtrsm;
  decltype(&cblas_ctrsm) ctrsm;  // complex64 / complex128 (alpha points to a complex)
  decltype(&cblas_ztrsm) ztrsm;
  // complex64 / complex128 products (alpha, beta point to a complex of the operands' type).
  decltype(&cblas_cgemm) cgemm;
  decltype(&cblas_zgemm) zgemm;
  void (*set_num_threads)(int);
  // MKL's cblas_?gemm_batch (one group of equal-sized products; MKL_INT is int in the LP64
  // interface mkl_rt starts with), which upstream's bmm calls for float and double operands
  // whose matrices are contiguous or transposed. Null with OpenBLAS (Debian's 0.3.21 has none):
  // a loop of ?gemm calls then.
  using SgemmBatch = void (*)(CBLAS_ORDER, const CBLAS_TRANSPOSE*, const CBLAS_TRANSPOSE*,
                              const int*, const int*, const int*, const float*, const float**,
                              const int*, const float**, const int*, const float*, float**,
                              const int*, int, const int*);
  using DgemmBatch = void (*)(CBLAS_ORDER, const CBLAS_TRANSPOSE*, const CBLAS_TRANSPOSE*,
                              const int*, const int*, const int*, const double*,
                              const double**, const int*, const double**, const int*,
                              const double*, double**, const int*, int, const int*);
  SgemmBatch sgemm_batch = nullptr;
  DgemmBatch dgemm_batch = nullptr;
  // Null with OpenBLAS, which has no vector math: the kernels then keep their std:: functions.
  VmlS vml_s[static_cast<int>(VmlFn::kCount)] = {};
  VmlD vml_d[static_cast<int>(VmlFn::kCount)] = {};
  // The loaded library, for the kernels that look up entry points of their own (MKL's DFTI in
  // kernels/cpu/fft.cpp).
  void* handle = nullptr;
};

// Loads the configured BLAS once (thread-safe); refuses with a clear error naming the library
// and its path when it cannot be loaded. Never substitutes the other one.
const Blas& blas();

}  // namespace tn
