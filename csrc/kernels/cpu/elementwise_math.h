// Scalar arithmetic with upstream's semantics, for the elementwise functors: wrapping integer
// arithmetic (upstream's int8 + int8 wraps; signed overflow is not left undefined here), integer
// powers, floor division and Python-style remainder. Pure C++.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tn::ew_math {

template <typename T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    // Unsigned types narrower than int promote to (signed) int: multiply in uint64.
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename T>
inline T wrap_neg(T a) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
  } else {
    return -a;
  }
}

// a / b truncating, for b != 0 (min / -1 wraps instead of trapping).
template <typename T>
inline T div_trunc_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrap_neg(a);
  }
  return static_cast<T>(a / b);
}

// a % b with C's sign (fmod), for b != 0.
template <typename T>
inline T mod_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

// Upstream's c10::div_floor_integer.
template <typename T>
inline T div_floor_int(T a, T b) {
  T q = div_trunc_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if ((a < 0) != (b < 0)) {
      T r = mod_int(a, b);
      return r ? static_cast<T>(q - 1) : q;
    }
  }
  return q;
}

// Upstream's c10::div_floor_floating (Python's // on floats). r rounds each intermediate to the
// dtype computed in (float16/bfloat16 arithmetic rounds every step; identity otherwise).
template <typename A, typename R>
inline A div_floor_float(A a, A b, R r) {
  if (b == 0) return r(a / b);
  A mod = r(std::fmod(a, b));
  A div = r(r(a - mod) / b);
  if (mod != 0 && (b < 0) != (mod < 0)) div = r(div - A(1));
  A floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (r(div - floordiv) > A(0.5)) floordiv = r(floordiv + A(1));
  } else {
    floordiv = std::copysign(A(0), r(a / b));
  }
  return floordiv;
}

template <typename A>
inline A div_floor_float(A a, A b) {
  return div_floor_float(a, b, [](A v) { return v; });
}

// Python's %: the result takes the divisor's sign.
template <typename T>
inline T remainder_int(T a, T b) {
  T r = mod_int(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && (r < 0) != (b < 0)) r = wrap_add(r, b);
  }
  return r;
}

template <typename A>
inline A remainder_float(A a, A b) {
  A mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

// Upstream's powi: integer powers by squaring; negative exponents give 0 except for bases 1
// and -1 (whose sign then follows the exponent's parity).
template <typename T>
inline T powi(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (-b) % 2 ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (b) {
    if (b & 1) result = wrap_mul(result, a);
    b = static_cast<T>(b / 2);
    a = wrap_mul(a, a);
  }
  return result;
}

// NaN-propagating maximum and minimum (upstream's scalar path: of equal values, such as -0.0 and
// 0.0, the first wins).
template <typename A>
inline A maximum(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (a != a || b != b) return std::numeric_limits<A>::quiet_NaN();
  }
  return a < b ? b : a;
}

template <typename A>
inline A minimum(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (a != a || b != b) return std::numeric_limits<A>::quiet_NaN();
  }
  return b < a ? b : a;
}

// Upstream's SIMD maximum and minimum (vmaxps/vminps, NaN or-ed back in): of equal values the
// second wins.
template <typename A>
inline A maximum_vec(A a, A b) {
  if (a != a || b != b) return std::numeric_limits<A>::quiet_NaN();
  return a > b ? a : b;
}

template <typename A>
inline A minimum_vec(A a, A b) {
  if (a != a || b != b) return std::numeric_limits<A>::quiet_NaN();
  return a < b ? a : b;
}

}  // namespace tn::ew_math
