// Dense-CPU helpers private to the reduction, matmul and nn kernels: typed data pointers, dtype
// casts into contiguous buffers, strided write-back, and the walk over reduced slices.
// Not registered ops: they exist so composites here need no elementwise op from another family.
#pragma once

#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/strided.h"

namespace tn {

// Element 0 of t (its storage offset applied); refuses non-dense representations by name.
template <typename T>
T* data_of(const Tensor& t, const std::string& key) {
  return static_cast<T*>(t->dense_cpu_data(key.c_str()));
}

// Upstream's CPU accumulation types for sequential scans (cumsum): float -> double,
// 16-bit floats -> float, integers -> int64.
template <typename T> struct ScanAcc { using type = int64_t; };
template <> struct ScanAcc<float> { using type = double; };
template <> struct ScanAcc<double> { using type = double; };
template <> struct ScanAcc<Half> { using type = float; };
template <> struct ScanAcc<BFloat16> { using type = float; };
template <> struct ScanAcc<bool> { using type = bool; };
template <> struct ScanAcc<cfloat> { using type = cdouble; };  // upstream's CPU acc_type
template <> struct ScanAcc<cdouble> { using type = cdouble; };

// Converts between any two of our element types as upstream's static_cast does (copy.h's
// convert is c10::convert, which differs for NaN and out-of-range floats to integers).
template <typename To, typename From>
inline To static_convert(From v) {
  constexpr bool kFrom16 = std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>;
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kFrom16) return static_cast<float>(v) != 0.f;
    else return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>)
    return To(static_cast<float>(v));
  else if constexpr (kFrom16)
    return static_cast<To>(static_cast<float>(v));
  else return static_cast<To>(v);
}

// torch.get_num_threads(): the intra-op thread count (set_num_threads; default the machine's
// cores), which parallel_for (parallel.h) splits work between; _fused_adam_, still on one
// thread, reproduces upstream's split from it.
int intra_op_threads();
void set_intra_op_threads(int n);

// Writes src (same shape, any strides, any dtype) into dst (any strides) with a cast.
void copy_cast(const Tensor& dst, const Tensor& src, const std::string& key);
// t itself when it already has dtype dt; else a contiguous copy cast to dt.
Tensor cast_to(const Tensor& t, ScalarType dt, const std::string& key);
// A contiguous tensor with t's values and dtype (t itself when already contiguous).
Tensor contiguous(const Tensor& t, const std::string& key);

// Offsets (in elements, relative to element 0) of every reduced slice and of the elements
// inside one slice, both in row-major order: outer has one entry per output element.
struct ReduceGeom {
  std::vector<int64_t> outer;
  std::vector<int64_t> inner;
};
ReduceGeom reduce_geom(const Tensor& t, const std::vector<bool>& mask);

// Pairwise (tree) sum of get(0..n-1) in A: error grows as log n, like upstream's cascade sum,
// but upstream's vectorised lane order is not reproduced, so float results are not bit-identical.
template <typename A, typename Get>
A pairwise_sum(int64_t lo, int64_t hi, Get&& get) {
  if (hi - lo <= 16) {
    A s = A(0);
    for (int64_t k = lo; k < hi; ++k) s += get(k);
    return s;
  }
  int64_t mid = lo + (hi - lo) / 2;
  return pairwise_sum<A>(lo, mid, get) + pairwise_sum<A>(mid, hi, get);
}

}  // namespace tn
