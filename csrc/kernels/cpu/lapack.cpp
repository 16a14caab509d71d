// Looking up the LAPACK routines of lapack.h in the loaded BLAS library.
#include "kernels/cpu/lapack.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

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

template <typename T>
void potrf(char uplo, int n, T* a, int lda, int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*);
  static const Fn fn = routine<Fn, T>("potrf");
  fn(&uplo, &n, a, &lda, info);
}

template <typename T>
void potrs(char uplo, int n, int nrhs, const T* a, int lda, T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, T*, const int*,
                      int*);
  static const Fn fn = routine<Fn, T>("potrs");
  fn(&uplo, &n, &nrhs, a, &lda, b, &ldb, info);
}

template <typename T>
void potri(char uplo, int n, T* a, int lda, int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*);
  static const Fn fn = routine<Fn, T>("potri");
  fn(&uplo, &n, a, &lda, info);
}

template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {
  using Fn = void (*)(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
  static const Fn fn = routine<Fn, T>("geqrf");
  fn(&m, &n, a, &lda, tau, work, &lwork, info);
}

template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {
  using Fn = void (*)(const int*, const int*, const int*, T*, const int*, const T*, T*,
                      const int*, int*);
  constexpr bool kComplex = prefix<T>() == 'c' || prefix<T>() == 'z';
  static const Fn fn = routine<Fn, T>(kComplex ? "ungqr" : "orgqr");
  fn(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

template <typename T>
void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c,
           int ldc, T* work, int lwork, int* info) {
  using Fn = void (*)(const char*, const char*, const int*, const int*, const int*, const T*,
                      const int*, const T*, T*, const int*, T*, const int*, int*);
  constexpr bool kComplex = prefix<T>() == 'c' || prefix<T>() == 'z';
  static const Fn fn = routine<Fn, T>(kComplex ? "unmqr" : "ormqr");
  fn(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, info);
}

template <typename T>
void sytrf(bool hermitian, char uplo, int n, T* a, int lda, int* ipiv, T* work, int lwork,
           int* info) {
  using Fn = void (*)(const char*, const int*, T*, const int*, int*, T*, const int*, int*);
  constexpr bool kComplex = prefix<T>() == 'c' || prefix<T>() == 'z';
  static const Fn sy = routine<Fn, T>("sytrf");
  static const Fn he = kComplex ? routine<Fn, T>("hetrf") : sy;
  (hermitian ? he : sy)(&uplo, &n, a, &lda, ipiv, work, &lwork, info);
}

template <typename T>
void sytrs(bool hermitian, char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv,
           T* b, int ldb, int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const T*, const int*, const int*, T*,
                      const int*, int*);
  constexpr bool kComplex = prefix<T>() == 'c' || prefix<T>() == 'z';
  static const Fn sy = routine<Fn, T>("sytrs");
  static const Fn he = kComplex ? routine<Fn, T>("hetrs") : sy;
  (hermitian ? he : sy)(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}

template <typename T>
void syevd(char jobz, char uplo, int n, T* a, int lda, real_of<T>* w, T* work, int lwork,
           real_of<T>* rwork, int lrwork, int* iwork, int liwork, int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*,
                        int*, const int*, int*);
    static const Fn fn = routine<Fn, T>("syevd");
    fn(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);
  } else {
    using Fn = void (*)(const char*, const char*, const int*, T*, const int*, R*, T*, const int*,
                        R*, const int*, int*, const int*, int*);
    static const Fn fn = routine<Fn, T>("heevd");
    fn(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info);
  }
}

template <typename T>
void gesdd(char jobz, int m, int n, T* a, int lda, real_of<T>* s, T* u, int ldu, T* vt,
           int ldvt, T* work, int lwork, real_of<T>* rwork, int* iwork, int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*,
                        T*, const int*, T*, const int*, int*, int*);
    static const Fn fn = routine<Fn, T>("gesdd");
    fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
  } else {
    using Fn = void (*)(const char*, const int*, const int*, T*, const int*, R*, T*, const int*,
                        T*, const int*, T*, const int*, R*, int*, int*);
    static const Fn fn = routine<Fn, T>("gesdd");
    fn(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info);
  }
}

template <typename T>
void geev(char jobvl, char jobvr, int n, T* a, int lda, T* w, T* vl, int ldvl, T* vr, int ldvr,
          T* work, int lwork, real_of<T>* rwork, int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, T*,
                        const int*, T*, const int*, T*, const int*, int*);
    static const Fn fn = routine<Fn, T>("geev");
    fn(&jobvl, &jobvr, &n, a, &lda, w, w ? w + n : nullptr, vl, &ldvl, vr, &ldvr, work, &lwork,
       info);
  } else {
    using Fn = void (*)(const char*, const char*, const int*, T*, const int*, T*, T*, const int*,
                        T*, const int*, T*, const int*, R*, int*);
    static const Fn fn = routine<Fn, T>("geev");
    fn(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, info);
  }
}

template <typename T>
void gels(char trans, int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork,
          int* info) {
  using Fn = void (*)(const char*, const int*, const int*, const int*, T*, const int*, T*,
                      const int*, T*, const int*, int*);
  static const Fn fn = routine<Fn, T>("gels");
  fn(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info);
}

template <typename T>
void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, real_of<T> rcond,
           int* rank, T* work, int lwork, real_of<T>* rwork, int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*,
                        const R*, int*, T*, const int*, int*);
    static const Fn fn = routine<Fn, T>("gelsy");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, info);
  } else {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, int*,
                        const R*, int*, T*, const int*, R*, int*);
    static const Fn fn = routine<Fn, T>("gelsy");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, rwork, info);
  }
}

template <typename T>
void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_of<T>* s,
           real_of<T> rcond, int* rank, T* work, int lwork, real_of<T>* rwork, int* iwork,
           int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*,
                        const R*, int*, T*, const int*, int*, int*);
    static const Fn fn = routine<Fn, T>("gelsd");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, info);
  } else {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*,
                        const R*, int*, T*, const int*, R*, int*, int*);
    static const Fn fn = routine<Fn, T>("gelsd");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, info);
  }
}

template <typename T>
void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_of<T>* s,
           real_of<T> rcond, int* rank, T* work, int lwork, real_of<T>* rwork, int* info) {
  using R = real_of<T>;
  if constexpr (std::is_same_v<T, R>) {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*,
                        const R*, int*, T*, const int*, int*);
    static const Fn fn = routine<Fn, T>("gelss");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
  } else {
    using Fn = void (*)(const int*, const int*, const int*, T*, const int*, T*, const int*, R*,
                        const R*, int*, T*, const int*, R*, int*);
    static const Fn fn = routine<Fn, T>("gelss");
    fn(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, info);
  }
}

#define TN_LAPACK_INSTANTIATE(T)                                                         \
  template void getrf<T>(int, int, T*, int, int*, int*);                                 \
  template void getrs<T>(char, int, int, const T*, int, const int*, T*, int, int*);        \
  template void potrf<T>(char, int, T*, int, int*);                                      \
  template void potrs<T>(char, int, int, const T*, int, T*, int, int*);                  \
  template void potri<T>(char, int, T*, int, int*);                                      \
  template void geqrf<T>(int, int, T*, int, T*, T*, int, int*);                          \
  template void orgqr<T>(int, int, int, T*, int, const T*, T*, int, int*);                \
  template void ormqr<T>(char, char, int, int, int, const T*, int, const T*, T*, int, T*,   \
                         int, int*);                                                     \
  template void sytrf<T>(bool, char, int, T*, int, int*, T*, int, int*);                \
  template void sytrs<T>(bool, char, int, int, const T*, int, const int*, T*, int, int*);   \
  template void syevd<T>(char, char, int, T*, int, real_of<T>*, T*, int, real_of<T>*, int,   \
                         int*, int, int*);                                               \
  template void gesdd<T>(char, int, int, T*, int, real_of<T>*, T*, int, T*, int, T*, int,   \
                         real_of<T>*, int*, int*);                                       \
  template void geev<T>(char, char, int, T*, int, T*, T*, int, T*, int, T*, int,          \
                        real_of<T>*, int*);                                              \
  template void gels<T>(char, int, int, int, T*, int, T*, int, T*, int, int*);           \
  template void gelsy<T>(int, int, int, T*, int, T*, int, int*, real_of<T>, int*, T*, int, \
                         real_of<T>*, int*);                                             \
  template void gelsd<T>(int, int, int, T*, int, T*, int, real_of<T>*, real_of<T>, int*, T*, \
                         int, real_of<T>*, int*, int*);                                  \
  template void gelss<T>(int, int, int, T*, int, T*, int, real_of<T>*, real_of<T>, int*, T*, \
                         int, real_of<T>*, int*);
TN_LAPACK_INSTANTIATE(float)
TN_LAPACK_INSTANTIATE(double)
TN_LAPACK_INSTANTIATE(std::complex<float>)
TN_LAPACK_INSTANTIATE(std::complex<double>)
#undef TN_LAPACK_INSTANTIATE

}  // namespace tn::lapack
