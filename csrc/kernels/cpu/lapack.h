// The LAPACK routines upstream's CPU linear algebra calls, for float, double, complex64 and
// complex128: looked up by their Fortran names (sgetrf_, zgetrs_...) in the BLAS library
// blas_loader.h loaded (oneMKL's mkl_rt exports LAPACK, the same release upstream links; so
// does OpenBLAS). Called as upstream calls them: column-major matrices, Fortran int, no hidden
// string lengths for the one-character options. A routine the library lacks refuses by name
// at its first call.
#pragma once

#include <complex>
#include <type_traits>

namespace tn::lapack {

// ?getrf: the LU factorisation with partial pivoting of an m x n matrix (ipiv 1-based).
template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info);

// ?getrs: solves A X = B, A^T X = B ('T') or A^H X = B ('C') from ?getrf's factors; B is
// overwritten by X.
template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb,
           int* info);

// ?potrf: the Cholesky factor of a Hermitian positive-definite matrix, in the triangle uplo
// ('L' or 'U') names; the other triangle is left as it was.
template <typename T>
void potrf(char uplo, int n, T* a, int lda, int* info);

// ?potrs: solves A X = B from ?potrf's factor; B is overwritten by X.
template <typename T>
void potrs(char uplo, int n, int nrhs, const T* a, int lda, T* b, int ldb, int* info);

// ?potri: the inverse of A from ?potrf's factor, written into the triangle uplo names.
template <typename T>
void potri(char uplo, int n, T* a, int lda, int* info);

// ?geqrf: the QR factorisation of an m x n matrix as Householder reflectors below the diagonal
// and their scales tau (min(m, n)); R above. lwork = -1 asks for the best workspace size,
// written into work[0].
template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info);

// ?orgqr (?ungqr for complex): the first n columns of the product of k reflectors, in place
// of the reflectors; lwork = -1 as above.
template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info);

// ?ormqr (?unmqr for complex): C overwritten by Q C, Q^T C ('T', 'C' for complex), C Q or
// C Q^T (side 'R'), Q the product of the first k reflectors of a (?geqrf's layout).
template <typename T>
void ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c,
           int ldc, T* work, int lwork, int* info);

// ?sytrf (hermitian: ?hetrf; the same routine for real T): the Bunch-Kaufman LDL^T (LDL^H)
// factorisation of the triangle uplo names, in place; ipiv 1-based, negative for 2x2 blocks.
template <typename T>
void sytrf(bool hermitian, char uplo, int n, T* a, int lda, int* ipiv, T* work, int lwork,
           int* info);
// ?sytrs (?hetrs): solves A X = B from ?sytrf's (?hetrf's) factors; B is overwritten by X.
template <typename T>
void sytrs(bool hermitian, char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv,
           T* b, int ldb, int* info);

// The real type of T: float for complex64, double for complex128, T itself otherwise.
template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> using real_of = typename RealOf<T>::type;

// The workspace size a routine's lwork = -1 query wrote into work[0] (its real part).
template <typename T>
int workspace_size(T w) {
  if constexpr (std::is_same_v<T, real_of<T>>) return static_cast<int>(w);
  else return static_cast<int>(w.real());
}

// ?syevd (?heevd for complex): the eigenvalues (ascending, into w) and, when jobz is 'V', the
// eigenvectors (over a) of a symmetric/Hermitian matrix, by divide and conquer. rwork is the
// complex routine's (ignored for real T). lwork = lrwork = liwork = -1 queries the sizes.
template <typename T>
void syevd(char jobz, char uplo, int n, T* a, int lda, real_of<T>* w, T* work, int lwork,
           real_of<T>* rwork, int lrwork, int* iwork, int liwork, int* info);

// ?gesdd: the singular values (descending, into s) and, by jobz ('A' all, 'S' the first
// min(m, n), 'N' none), the singular vectors U and V^H, by divide and conquer; a is destroyed.
// rwork is the complex routine's (ignored for real T).
template <typename T>
void gesdd(char jobz, int m, int n, T* a, int lda, real_of<T>* s, T* u, int ldu, T* vt,
           int ldvt, T* work, int lwork, real_of<T>* rwork, int* iwork, int* info);

// ?geev: the eigenvalues and, when jobvr is 'V', the right eigenvectors (unit norm, largest
// component real) of a general n x n matrix; a is destroyed. For real T, w holds 2n values:
// the real parts, then the imaginary parts (as upstream lays them), and vr the real vectors
// whose conjugate pairs share two columns. rwork (2n) is the complex routine's.
template <typename T>
void geev(char jobvl, char jobvr, int n, T* a, int lda, T* w, T* vl, int ldvl, T* vr, int ldvr,
          T* work, int lwork, real_of<T>* rwork, int* info);

// The least-squares drivers: minimise |B - A X| for an m x n A (destroyed) and B of max(m, n)
// rows (overwritten by X in its first n rows). lwork = -1 queries the workspace into work[0]
// (and ?gelsd's rwork[0] / iwork[0] sizes).
// ?gels: QR or LQ, A of full rank.
template <typename T>
void gels(char trans, int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork,
          int* info);
// ?gelsy: complete orthogonal factorisation with column pivoting (jpvt, n, nonzero entries
// fixed in front); the effective rank by rcond into rank. rwork (2n) is the complex routine's.
template <typename T>
void gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, real_of<T> rcond,
           int* rank, T* work, int lwork, real_of<T>* rwork, int* info);
// ?gelsd: SVD by divide and conquer; the singular values into s (min(m, n)).
template <typename T>
void gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_of<T>* s,
           real_of<T> rcond, int* rank, T* work, int lwork, real_of<T>* rwork, int* iwork,
           int* info);
// ?gelss: SVD; the singular values into s. rwork (5 min(m, n)) is the complex routine's.
template <typename T>
void gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_of<T>* s,
           real_of<T> rcond, int* rank, T* work, int lwork, real_of<T>* rwork, int* info);

}  // namespace tn::lapack
