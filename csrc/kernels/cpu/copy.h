// CPU helpers shared by the byte-moving kernels (copy_, index, masked_fill, tril/triu): dtype
// conversion with upstream's casting rules, a walk over two strided tensors, and a strided copy.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/tensor_impl.h"
#include "dispatch/value.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/strided.h"

namespace tn {

template <typename T>
constexpr bool is_float_like_v = std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                                 std::is_same_v<T, BFloat16>;

// A float's truncation to int32 as x86's cvttss2si / cvttsd2si gives it, which upstream's
// static_cast compiles to: NaN and values outside int32's range become INT32_MIN. Written out
// because the bare cast is undefined for them in C++ (ours compiled to a 64-bit truncation).
template <typename F>
inline int32_t truncate_to_int32(F v) {
  if (!(v > F(-2147483649.0) && v < F(2147483648.0))) return INT32_MIN;
  return static_cast<int32_t>(v);
}

// The same for int64 (cvttsd2si's 64-bit form): NaN and out-of-range values become INT64_MIN.
template <typename F>
inline int64_t truncate_to_int64(F v) {
  if (!(v >= F(-9223372036854775808.0) && v < F(9223372036854775808.0))) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// float -> float16 as F16C's instruction converts: nearest even; a NaN keeps its sign and its
// payload's top ten bits, quieted (0x7FA12345 -> 0x7F09), where half.h's portable conversion
// (c10's) gives 0x7E00.
inline uint16_t half_bits_f16c(float f) {
  const uint32_t u = float_bits(f), abs = u & 0x7fffffffU;
  if (abs > 0x7f800000U)
    return static_cast<uint16_t>(((u >> 16) & 0x8000U) | 0x7e00U | ((abs >> 13) & 0x3ffU));
  return Half(f).x;
}
// Whether upstream's copy kernel runs its AVX2 build (also on AVX-512 machines), whose
// c10::Half(float) is F16C's, rather than its baseline build (c10's portable conversion).
bool copy_runs_avx2_build();
// float -> float16 as upstream's copy kernels convert element by element.
inline Half half_like_f16c(float f) {
  Half h(f);
  if (h.x & 0x3ffU && (h.x & 0x7c00U) == 0x7c00U && copy_runs_avx2_build())
    h.x = half_bits_f16c(f);
  return h;
}

// float16 -> float the same way (F16C's instruction): exact, but a signalling NaN comes out
// quieted (0x7C45 -> 0x7FC8A000), where half.h's exact conversion keeps it signalling.
inline float float_like_f16c(Half h) {
  const float f = static_cast<float>(h);
  return (h.x & 0x7fffU) > 0x7c00U ? bits_float(float_bits(f) | 0x00400000U) : f;
}

// Upstream's c10::convert: to bool is `!= 0`; float to int64 and to uint8 goes through int64 (so
// -1.0 to uint8 wraps to 255 rather than being undefined); to int32, int16 and int8 through
// int32 as above (NaN to int16 is 0, INT32_MIN's low bits); 16-bit floats round through
// float (float16 both ways as F16C does: half_like_f16c, float_like_f16c).
// Complex to real keeps the real part (bool: either part != 0); real to complex has imag 0.
template <typename D, typename S>
inline D convert(S s) {
  if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (std::is_same_v<S, Half>) {
    return convert<D>(float_like_f16c(s));
  } else if constexpr (is_complex_v<S> && is_complex_v<D>) {
    using R = typename D::value_type;
    return D(convert<R>(s.real()), convert<R>(s.imag()));
  } else if constexpr (is_complex_v<S>) {
    if constexpr (std::is_same_v<D, bool>) return s.real() != 0 || s.imag() != 0;
    else return convert<D>(s.real());
  } else if constexpr (is_complex_v<D>) {
    using R = typename D::value_type;
    return D(convert<R>(s), R(0));
  } else if constexpr (std::is_same_v<D, bool>) {
    return static_cast<acc_t<S>>(s) != 0;
  } else if constexpr (std::is_same_v<D, Half>) {
    return half_like_f16c(static_cast<float>(static_cast<acc_t<S>>(s)));
  } else if constexpr (std::is_same_v<D, BFloat16>) {
    return D(static_cast<float>(static_cast<acc_t<S>>(s)));
  } else if constexpr (is_float_like_v<S> && !is_float_like_v<D>) {
    if constexpr (std::is_signed_v<D> && sizeof(D) <= 4) {
      return static_cast<D>(truncate_to_int32(static_cast<acc_t<S>>(s)));
    } else {
      return static_cast<D>(truncate_to_int64(static_cast<acc_t<S>>(s)));
    }
  } else {
    return static_cast<D>(static_cast<acc_t<S>>(s));
  }
}

// "Float" for float32: upstream's ScalarType names, as its messages print them.
inline std::string short_name_of(ScalarType t) {
  std::string s = info(t).legacy_name;
  return s.size() > 6 ? s.substr(0, s.size() - 6) : std::string(name(t));  // strip "Tensor"
}

// A Scalar as a T, the way upstream's Scalar::to<T> converts it.
template <typename T>
inline T scalar_to(const Scalar& v) {
  if (v.is_complex()) return convert<T>(cdouble(v.d, v.im));
  if (v.is_floating()) return convert<T>(v.d);
  if (v.is_bool()) return convert<T>(v.b);
  return convert<T>(v.i);
}

// Calls f(offset_a, offset_b) for every element of `sizes`, row-major.
template <typename F>
void for_each_offset_pair(const Dims& sizes, const Dims& sa, int64_t base_a, const Dims& sb,
                          int64_t base_b, F&& f) {
  int64_t n = numel_of(sizes);
  if (n == 0) return;
  int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) return f(base_a, base_b);
  Dims idx(nd, 0);
  int64_t a = base_a, b = base_b;
  int64_t inner = sizes[nd - 1], ia = sa[nd - 1], ib = sb[nd - 1];
  for (int64_t done = 0; done < n; done += inner) {
    if (ia == 1 && ib == 1) {  // unit strides spelled out, so that the compiler vectorises
      for (int64_t k = 0; k < inner; ++k) f(a + k, b + k);
    } else if (ia == 1 && ib == 0) {  // a broadcast row (a bias, a mask)
      for (int64_t k = 0; k < inner; ++k) f(a + k, b);
    } else {
      for (int64_t k = 0; k < inner; ++k) f(a + k * ia, b + k * ib);
    }
    for (int64_t d = nd - 2; d >= 0; --d) {  // carry into the outer dims
      if (++idx[d] < sizes[d]) {
        a += sa[d];
        b += sb[d];
        break;
      }
      a -= (sizes[d] - 1) * sa[d];
      b -= (sizes[d] - 1) * sb[d];
      idx[d] = 0;
    }
  }
}

// Copies src into dst element by element, converting dtypes; src has dst's shape (broadcast
// with zero strides beforehand if needed). Both dense CPU; no overlap checks here.
void copy_dense_cpu(const Tensor& dst, const Tensor& src, const char* op_key);

// A dtype-converting copy between tensors laid out alike, in one pass over memory (Note
// [Converting copies in memory order], copy_convert.cpp); false, having written nothing, for
// any other layout.
bool copy_convert_flat(const Tensor& dst, const Tensor& src, char* d, const char* s,
                       const char* key);

// The single value of a one-element dense CPU tensor, as a Scalar of its category.
Scalar item_cpu(const Tensor& t, const char* op_key);

}  // namespace tn
