// Calling a templated kernel body for a tensor's dtype: dispatch_dtype(t, key, [&](auto zero) {
// using T = decltype(zero); ... }). Dtypes without a case refuse by name with the op's key.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace tn {

template <typename F>
void dispatch_dtype(ScalarType t, const std::string& op_key, F&& f) {
  switch (t) {
    case ScalarType::Bool: f(bool{}); return;
    case ScalarType::Byte: f(uint8_t{}); return;
    case ScalarType::Char: f(int8_t{}); return;
    case ScalarType::Short: f(int16_t{}); return;
    case ScalarType::Int: f(int32_t{}); return;
    case ScalarType::Long: f(int64_t{}); return;
    case ScalarType::Half: f(Half{}); return;
    case ScalarType::BFloat16: f(BFloat16{}); return;
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    default:
      TN_FAIL(NotImplemented, op_key, " has no kernel in torchnative for dense CPU tensors of dtype ",
              name(t));
  }
}

// The complex dtypes are computed as std::complex, whose layout (two values, real first) is
// c10::complex's. Kernels spell the arithmetic out on real() and imag() (ew_math's complex
// functors) rather than use std::complex's operators, whose C99 Annex G recovery of infinities
// upstream's c10::complex does not make.
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
template <typename T> struct IsComplex : std::false_type {};
template <typename R> struct IsComplex<std::complex<R>> : std::true_type {};
template <> struct IsComplex<ComplexHalf> : std::true_type {};
using chalf = ComplexHalf;
template <typename T> constexpr bool is_complex_v = IsComplex<T>::value;

// dispatch_dtype with complex64 and complex128 too, for kernels written for them.
template <typename F>
void dispatch_dtype_complex(ScalarType t, const std::string& op_key, F&& f) {
  switch (t) {
    case ScalarType::ComplexFloat: f(cfloat{}); return;
    case ScalarType::ComplexDouble: f(cdouble{}); return;
    default: dispatch_dtype(t, op_key, f);
  }
}

// dispatch_dtype_complex with complex32 too (core/half.h's ComplexHalf), for the kernels that
// upstream runs on it: copies, fills, indexing, and the elementwise ops that compute it in
// complex<float>.
template <typename F>
void dispatch_dtype_complex32(ScalarType t, const std::string& op_key, F&& f) {
  if (t == ScalarType::ComplexHalf) {
    f(chalf{});
    return;
  }
  dispatch_dtype_complex(t, op_key, f);
}

// The arithmetic type a kernel computes a T in: float for the 16-bit floats, T otherwise.
template <typename T> struct Acc { using type = T; };
template <> struct Acc<Half> { using type = float; };
template <> struct Acc<BFloat16> { using type = float; };
template <> struct Acc<ComplexHalf> { using type = cfloat; };
template <typename T> using acc_t = typename Acc<T>::type;

}  // namespace tn
