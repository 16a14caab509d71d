// Calling a templated kernel body for a tensor's dtype: dispatch_dtype(t, key, [&](auto zero) {
// using T = decltype(zero); ... }). Dtypes without a case refuse by name with the op's key.
#pragma once

#include <cstdint>

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

// The arithmetic type a kernel computes a T in: float for the 16-bit floats, T otherwise.
template <typename T> struct Acc { using type = T; };
template <> struct Acc<Half> { using type = float; };
template <> struct Acc<BFloat16> { using type = float; };
template <typename T> using acc_t = typename Acc<T>::type;

}  // namespace tn
