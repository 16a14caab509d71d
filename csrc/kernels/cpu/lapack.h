// The LAPACK routines upstream's CPU linear algebra calls, for float, double, complex64 and
// complex128: looked up by their Fortran names (sgetrf_, zgetrs_...) in the BLAS library
// blas_loader.h loaded (oneMKL's mkl_rt exports LAPACK, the same release upstream links; so
// does OpenBLAS). Called as upstream calls them: column-major matrices, Fortran int, no hidden
// string lengths for the one-character options. A routine the library lacks refuses by name
// at its first call.
#pragma once

#include <complex>

namespace tn::lapack {

// ?getrf: the LU factorisation with partial pivoting of an m x n matrix (ipiv 1-based).
template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info);

// ?getrs: solves A X = B, A^T X = B ('T') or A^H X = B ('C') from ?getrf's factors; B is
// overwritten by X.
template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb,
           int* info);

}  // namespace tn::lapack
