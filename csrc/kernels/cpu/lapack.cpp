// Looking up the LAPACK routines of lapack.h in the loaded BLAS library.
#include "kernels/cpu/lapack.h"

#include <dlfcn.h>

#include <string>

#include "core/error.h"
#include "kernels/cpu/blas_loader.h"

namespace tn::lapack {
namespace {

// s, d, c or z: LAPACK's prefix for T.
template <typename T> constexpr char prefix();
template <> constexpr char prefix<float>() { return 's'; }
template <> constexpr char prefix<double>() { return 'd'; }
template <> constexpr char prefix<std::complex<float>>() { return 'c'; }
template <> constexpr char prefix<std::complex<double>>() { return 'z'; }

// The routine <prefix><name>_ of the loaded library, or a refusal naming it.
template <typename F, typename T>
F routine(const char* name) {
  const Blas& b = blas();
  std::string symbol = std::string(1, prefix<T>()) + name + "_";
  void* p = b.handle ? dlsym(b.handle, symbol.c_str()) : nullptr;
  TN_CHECK_KIND(p, NotImplemented, "torchnative: the loaded BLAS library (", b.name,
                ") has no LAPACK routine ", symbol);
  return reinterpret_cast<F>(p);
}

}  // namespace

template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  using Fn = void (*)(const int*, const int*, T*, const int*, int*, int*);
  static const Fn fn = routine<Fn, T>("getrf");
  fn(&m, &n, a, &lda, ipiv, info);
}

template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb,
           int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*,
                      const int*, int*);
  static const Fn fn = routine<Fn, T>("getrs");
  fn(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}

#define TN_LAPACK_INSTANTIATE(T)                                                         \
  template void getrf<T>(int, int, T*, int, int*, int*);                                 \
  template void getrs<T>(char, int, int, const T*, int, const int*, T*, int, int*);
TN_LAPACK_INSTANTIATE(float)
TN_LAPACK_INSTANTIATE(double)
TN_LAPACK_INSTANTIATE(std::complex<float>)
TN_LAPACK_INSTANTIATE(std::complex<double>)
#undef TN_LAPACK_INSTANTIATE

}  // namespace tn::lapack
