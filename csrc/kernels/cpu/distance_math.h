// The per-norm arithmetic of upstream's cpu/DistanceOpsKernel.cpp, shared by cdist.cpp and
// pdist.cpp: for each p (0, 1, 2, inf, other) how |a - b| is mapped, how the mapped terms are
// reduced, how the reduction is finished, and the gradient of one difference. Written per
// element: upstream's vector bodies apply the same operations lane by lane (no lane meets
// another in the backward, and the forward's lane order is pdist.cpp's business).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/tensor_impl.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn::dist {

// x.size(d) as upstream's accessor answers it: a dim outside x's refuses (IndexError) in its
// words, so the kernels' reads of a 0-dim or 1-dim operand's sizes refuse as upstream's do.
inline int64_t size_at(const Tensor& x, int64_t d) {
  const int64_t n = x->dim();
  if (n == 0) TN_FAIL(Index, "Dimension specified as ", d, " but tensor has no dimensions");
  TN_CHECK_KIND(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [",
                -n, ", ", n - 1, "], but got ", d, ")");
  return x->sizes()[d < 0 ? d + n : d];
}

// The norm kinds in upstream's order of tests (p == 0, 1, 2, inf, else).
enum class Norm { Zero, One, Two, Inf, P };

inline Norm norm_of(double p) {
  if (p == 0.0) return Norm::Zero;
  if (p == 1.0) return Norm::One;
  if (p == 2.0) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return Norm::P;
}

// A NaN in either operand of upstream's vector minimum / maximum: its AVX2 build ORs the
// unordered-compare mask in (all bits set), its baseline build returns the NaN operand.
template <typename T>
inline T nan_of(T a, T b) {
  if (!sleef::available()) return std::isnan(a) ? a : b;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const Bits ones = ~Bits(0);
  T r;
  std::memcpy(&r, &ones, sizeof r);
  return r;
}
template <typename T>
inline T vmin(T a, T b) { return std::isnan(a) || std::isnan(b) ? nan_of(a, b) : (a < b ? a : b); }
template <typename T>
inline T vmax(T a, T b) { return std::isnan(a) || std::isnan(b) ? nan_of(a, b) : (a > b ? a : b); }

// Vectorized<T>::pow: SLEEF's u10 where upstream's vector build calls it, std::pow otherwise.
template <typename T>
inline T vpow(T x, T y) { return sleef::available() ? sleef::pow(x, y) : std::pow(x, y); }

// Upstream's Dist::sign of a vector: min(max(0, ceil v), 1) + min(max(-1, floor v), 0).
template <typename T>
inline T vsign(T v) {
  return vmin(vmax(T(0), std::ceil(v)), T(1)) + vmin(vmax(T(-1), std::floor(v)), T(0));
}

// One mapped term of the vector forward (pdist): map(|a - b|) with the vector functions.
template <Norm N, typename T>
inline T vmap(T d, T p) {
  if constexpr (N == Norm::Zero) return vmin(std::ceil(d), T(1));
  else if constexpr (N == Norm::Two) return d * d;
  else if constexpr (N == Norm::P) return vpow(d, p);
  else return d;
}
// The vector reduction step (sum, or NaN-propagating max for inf).
template <Norm N, typename T>
inline T vred(T agg, T up) {
  if constexpr (N == Norm::Inf) return vmax(agg, up);
  else return agg + up;
}

// The finish, on the reduced value (scalar_t; 1.0 / p taken in double as upstream's).
template <Norm N, typename T>
inline T finish(T agg, T p) {
  if constexpr (N == Norm::Two) return std::sqrt(agg);
  else if constexpr (N == Norm::P) return static_cast<T>(std::pow(agg, 1.0 / p));
  else return agg;
}

// The gradient kinds of the backward, in upstream's order (p == 0 has none: zeros).
enum class Grad { One, LessThanTwo, Two, Inf, P };

inline Grad grad_of(double p) {
  if (p == 1.0) return Grad::One;
  if (p < 2.0) return Grad::LessThanTwo;
  if (p == 2.0) return Grad::Two;
  if (std::isinf(p)) return Grad::Inf;
  return Grad::P;
}

// Upstream's F::backward(diff, grad, dist, p) for one lane.
template <Grad G, typename T>
inline T backward(T diff, T grad, T dist, T p) {
  if constexpr (G == Grad::One) {
    return grad * vsign(diff);
  } else if constexpr (G == Grad::LessThanTwo) {
    T r = dist == 0.0 ? T(0)
                      : vsign(diff) * vpow(std::abs(diff), p - T(1)) * grad / vpow(dist, p - T(1));
    return diff == T(0) && p < T(1) ? T(0) : r;
  } else if constexpr (G == Grad::Two) {
    return dist == 0.0 ? T(0) : grad * diff / dist;
  } else if constexpr (G == Grad::Inf) {
    return grad * vsign(diff) *
           (T(1) - vmin(T(1), std::ceil(std::abs(std::abs(diff) - dist))));
  } else {
    return dist == 0.0 ? T(0)
                       : diff * vpow(std::abs(diff), p - T(2)) * grad / vpow(dist, p - T(1));
  }
}

}  // namespace tn::dist
