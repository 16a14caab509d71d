// float16 and bfloat16 storage types with upstream's conversions: float -> half/bfloat16 rounds to
// nearest even (NaN stays NaN), half/bfloat16 -> float is exact. Arithmetic happens in float,
// as upstream's CPU kernels do. Pure C++.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>

namespace tn {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) {  // NOLINT: implicit, as upstream's
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffU) > 0x7f800000U) {
      x = 0x7fc0;  // canonical NaN
    } else {
      uint32_t rounding_bias = 0x7fffU + ((u >> 16) & 1U);
      x = static_cast<uint16_t>((u + rounding_bias) >> 16);
    }
  }
  operator float() const { return bits_float(static_cast<uint32_t>(x) << 16); }  // NOLINT
};

struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) { x = from_float(f); }                  // NOLINT
  operator float() const { return to_float(x); }       // NOLINT

  static uint16_t from_float(float f) {
    uint32_t u = float_bits(f);
    uint32_t sign = (u >> 16) & 0x8000U;
    uint32_t abs = u & 0x7fffffffU;
    if (abs >= 0x7f800000U) {  // inf or NaN
      return static_cast<uint16_t>(sign | 0x7c00U | (abs > 0x7f800000U ? 0x200U : 0U));
    }
    if (abs >= 0x477ff000U) return static_cast<uint16_t>(sign | 0x7c00U);  // rounds to inf
    if (abs < 0x38800000U) {  // subnormal half (or zero): add 0.5 as a float to round
      float a = bits_float(abs) + 0.5f;
      return static_cast<uint16_t>(sign | (float_bits(a) - 0x3f000000U));
    }
    uint32_t mant_odd = (abs >> 13) & 1U;
    abs += 0xc8000fffU + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (abs >> 13));
  }

  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t exp = (h >> 10) & 0x1fU;
    uint32_t mant = h & 0x3ffU;
    if (exp == 0x1f) return bits_float(sign | 0x7f800000U | (mant << 13));
    if (exp == 0) {
      if (mant == 0) return bits_float(sign);
      float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
      return sign ? -v : v;
    }
    return bits_float(sign | ((exp + 112U) << 23) | (mant << 13));
  }
};

// complex32: two float16 values, real first (c10::complex<c10::Half>'s layout). Like Half it
// is a storage type: kernels compute it as std::complex<float> (acc_t) and round each part back,
// as upstream's complex<Half> operators do.
struct ComplexHalf {
  using value_type = Half;
  Half re, im;
  ComplexHalf() = default;
  ComplexHalf(Half r, Half i) : re(r), im(i) {}
  ComplexHalf(const std::complex<float>& z) : re(z.real()), im(z.imag()) {}  // NOLINT
  Half real() const { return re; }
  Half imag() const { return im; }
  operator std::complex<float>() const {  // NOLINT: exact, as Half -> float
    return {static_cast<float>(re), static_cast<float>(im)};
  }
};

}  // namespace tn
