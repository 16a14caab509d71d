// The CPU loop of elementwise ops. After the shared rule (kernels/rules/elementwise.h) has chosen
// the dtypes and the output, EwIter lays the operands over the output's shape (any strides,
// broadcast dims as stride 0, dims ordered by the output's strides and coalesced), and ew_run
// applies a scalar functor to every element. The functor sees each operand as the C++ type the
// op computes in (acc_t<T>: float for float16/bfloat16) whatever its stored dtype: operands that
// are not already contiguous in that type are converted chunk by chunk into small buffers, so
// the inner loop is always over contiguous arrays (the fast path, which the compiler vectorises).
// Loops above upstream's grain run on several threads (run_rows). Pure C++.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"

namespace tn {

// --- dtype dispatch with upstream's refusal ------------------------------------------------

// kEwAll is the real dtypes; an op that computes complex numbers adds kEwComplex (c10's
// complex<float>/complex<double> have std::complex's layout, which the loops compute in).
// kEwComplexHalf admits complex32, computed as complex<float> (its acc_t): the loop loads each
// operand into complex<float> and rounds the result's parts back to float16 as it stores them.
enum EwTypeSet : unsigned {
  kEwBool = 1, kEwInts = 2, kEwFloats = 4, kEwAll = 7, kEwComplex = 8, kEwAllComplex = 15,
  kEwComplexHalf = 16
};

// Calls f(T{}) for the dtype t when t is in Set; otherwise refuses as upstream's AT_DISPATCH
// does: NotImplementedError "\"abs_cpu\" not implemented for 'Bool'".
template <unsigned Set, typename F>
void ew_dispatch(ScalarType t, const char* name, F&& f) {
  switch (t) {
    case ScalarType::Bool: if constexpr ((Set & kEwBool) != 0) { f(bool{}); return; } break;
    case ScalarType::Byte: if constexpr ((Set & kEwInts) != 0) { f(uint8_t{}); return; } break;
    case ScalarType::Char: if constexpr ((Set & kEwInts) != 0) { f(int8_t{}); return; } break;
    case ScalarType::Short: if constexpr ((Set & kEwInts) != 0) { f(int16_t{}); return; } break;
    case ScalarType::Int: if constexpr ((Set & kEwInts) != 0) { f(int32_t{}); return; } break;
    case ScalarType::Long: if constexpr ((Set & kEwInts) != 0) { f(int64_t{}); return; } break;
    case ScalarType::Half: if constexpr ((Set & kEwFloats) != 0) { f(Half{}); return; } break;
    case ScalarType::BFloat16:
      if constexpr ((Set & kEwFloats) != 0) { f(BFloat16{}); return; }
      break;
    case ScalarType::Float: if constexpr ((Set & kEwFloats) != 0) { f(float{}); return; } break;
    case ScalarType::Double: if constexpr ((Set & kEwFloats) != 0) { f(double{}); return; } break;
    case ScalarType::ComplexFloat:
      if constexpr ((Set & kEwComplex) != 0) { f(cfloat{}); return; }
      break;
    case ScalarType::ComplexDouble:
      if constexpr ((Set & kEwComplex) != 0) { f(cdouble{}); return; }
      break;
    case ScalarType::ComplexHalf:
      if constexpr ((Set & kEwComplexHalf) != 0) { f(cfloat{}); return; }
      break;
    default: break;
  }
  TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", c10_dtype_name(t), "'");
}

template <typename T> constexpr ScalarType ew_dtype_of();
template <> constexpr ScalarType ew_dtype_of<bool>() { return ScalarType::Bool; }
template <> constexpr ScalarType ew_dtype_of<uint8_t>() { return ScalarType::Byte; }
template <> constexpr ScalarType ew_dtype_of<int8_t>() { return ScalarType::Char; }
template <> constexpr ScalarType ew_dtype_of<int16_t>() { return ScalarType::Short; }
template <> constexpr ScalarType ew_dtype_of<int32_t>() { return ScalarType::Int; }
template <> constexpr ScalarType ew_dtype_of<int64_t>() { return ScalarType::Long; }
template <> constexpr ScalarType ew_dtype_of<Half>() { return ScalarType::Half; }
template <> constexpr ScalarType ew_dtype_of<BFloat16>() { return ScalarType::BFloat16; }
template <> constexpr ScalarType ew_dtype_of<float>() { return ScalarType::Float; }
template <> constexpr ScalarType ew_dtype_of<double>() { return ScalarType::Double; }
template <> constexpr ScalarType ew_dtype_of<cfloat>() { return ScalarType::ComplexFloat; }
template <> constexpr ScalarType ew_dtype_of<cdouble>() { return ScalarType::ComplexDouble; }

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// std::numeric_limits<T>::max() / lowest(), with float16 and bfloat16.
template <typename T>
inline T max_of() {
  if constexpr (std::is_same_v<T, Half>) return Half(65504.0f);
  else if constexpr (std::is_same_v<T, BFloat16>) return BFloat16(3.3895313892515355e38f);
  else return std::numeric_limits<T>::max();
}
template <typename T>
inline T lowest_of() {
  if constexpr (is_reduced_float_v<T>) return T(-static_cast<float>(max_of<T>()));
  else return std::numeric_limits<T>::lowest();
}

// --- value conversion, with upstream's semantics (c10::convert) ----------------------------

// From -> To as upstream casts between dtypes: to bool is "!= 0" (NaN is true); floats to uint8
// go through int64; float16/bfloat16 go through float.
template <typename To, typename From>
inline To ew_cast(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From> && is_complex_v<To>) {
    using R = typename To::value_type;
    return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else if constexpr (is_complex_v<From>) {
    // To a real type: "!= 0" for bool, otherwise the real part, as upstream's c10::convert.
    if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    else return ew_cast<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(ew_cast<R>(v), R(0));
  } else if constexpr (is_reduced_float_v<From>) {
    return ew_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t> && std::is_floating_point_v<From>) {
    return static_cast<uint8_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

// A Scalar as T, converted with ew_cast (no range check; callers check_scalar_fits first).
template <typename T>
inline T ew_scalar(const Scalar& s) {
  if (s.is_complex()) return ew_cast<T>(cdouble(s.d, s.im));
  if (s.is_floating()) return ew_cast<T>(s.d);
  if (s.is_bool()) return ew_cast<T>(s.b);
  return ew_cast<T>(s.i);
}

// m elements of dtype `src` at p (byte stride) -> dst.
template <typename T>
void ew_load(ScalarType src, const char* p, int64_t stride, T* dst, int64_t m) {
  dispatch_dtype_complex32(src, "elementwise load", [&](auto zero) {
    using S = decltype(zero);
    for (int64_t i = 0; i < m; ++i)
      dst[i] = ew_cast<T>(*reinterpret_cast<const S*>(p + i * stride));
  });
}

// m elements of src -> dtype `dst` at p (byte stride).
template <typename T>
void ew_store(const T* src, ScalarType dst, char* p, int64_t stride, int64_t m) {
  dispatch_dtype_complex32(dst, "elementwise store", [&](auto zero) {
    using D = decltype(zero);
    for (int64_t i = 0; i < m; ++i) *reinterpret_cast<D*>(p + i * stride) = ew_cast<D>(src[i]);
  });
}

// --- the iteration ---------------------------------------------------------------------------

constexpr int kEwMaxTensors = kEwMaxOperands + 1;

// The output (tensor 0) and the operands (1..n) laid over the output's shape, in bytes.
// Not copyable: data[] points into numbers[] for number operands.
struct EwIter {
  EwIter() = default;
  EwIter(const EwIter&) = delete;
  EwIter& operator=(const EwIter&) = delete;

  int ntensors = 0;
  char* data[kEwMaxTensors] = {};
  ScalarType dtype[kEwMaxTensors] = {};
  Dims sizes;                                 // dim 0 moves fastest
  Dims strides[kEwMaxTensors];                // bytes, per dim of `sizes` (at least one dim)
  int64_t numel = 0;
  EwOperand ops[kEwMaxOperands];              // the operands as the rule read them
  ScalarType common = ScalarType::Float;      // the dtype the rule computes in
  alignas(16) int64_t numbers[2 * kEwMaxOperands] = {};  // number operands (16 bytes each)

  // Drops operand k (1-based tensor index) once its value has been taken out, as upstream's
  // remove_operand (mul and div by a scalar in float16/bfloat16).
  void remove_operand(int k);
  // Whether tensor k is the same value at every position (stride 0 along every dim).
  bool is_scalar(int k) const;
};

// Lays `out` (already allocated or checked by the rule) and s's operands into `it`.
void ew_iter_init(EwIter& it, const EwSpec& s, const Tensor& out, const char* op_key);

// The compute step of a structured elementwise overload: reads the operands again (no checks),
// builds the iteration, runs F, and bumps the version of a tensor written in place or out=.
void ew_cpu_run(Call& c, const EwRule& r, void (*compute)(EwIter&, const Call&));
template <const EwRule& R, void (*F)(EwIter&, const Call&)>
void ew_cpu(Call& c) {
  ew_cpu_run(c, R, F);
}

// Registers an elementwise overload: the shared meta rule R and the CPU compute F. Several may
// share a line (macros registering families of overloads), hence __COUNTER__.
#define TN_REGISTER_ELEMENTWISE(op, rule, compute)                           \
  static ::tn::KernelRegistrar TN_CONCAT(tn_ew_reg_, __COUNTER__)(op, ::tn::ew_meta<rule>, \
                                                                   ::tn::ew_cpu<rule, compute>)

namespace ew_detail {

constexpr int64_t kChunk = 512;  // elements per buffered chunk: the buffers stay in L1

// o[i] = f(in[i]...) for i < m over contiguous arrays. Written in blocks of 8 so that the
// compiler vectorises it at -O2 (GCC's cheap cost model will not vectorise a loop of unknown
// trip count, but does vectorise the straight-line block). o may be an input's own array (in
// place): __restrict lets the block be vectorised, which stays right for that exact aliasing;
// partial overlaps are refused by the rule.
template <typename Out, typename... In, typename F, size_t... I>
inline void core(Out* __restrict o, const std::tuple<const In*...>& in, int64_t m, F& f,
                 std::index_sequence<I...>) {
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j)
      o[i + j] = static_cast<Out>(f(static_cast<acc_t<In>>(std::get<I>(in)[i + j])...));
  }
  for (; i < m; ++i)
    o[i] = static_cast<Out>(f(static_cast<acc_t<In>>(std::get<I>(in)[i])...));
}

// Calls row(ptrs, n) for every row of dim 0 inside [begin, end) of the iteration's linear
// index (dim 0 fastest), in order: a range that starts or ends inside a row gives that row's
// part, as upstream's serial_for_each gives a loop the rows of a parallel_for chunk.
template <typename R>
void for_each_row(const EwIter& it, int64_t begin, int64_t end, R&& row) {
  if (begin >= end) return;
  char* ptrs[kEwMaxTensors];
  for (int k = 0; k < it.ntensors; ++k) ptrs[k] = it.data[k];
  size_t nd = it.sizes.size();
  const int64_t n0 = it.sizes[0];
  if (nd == 1) {
    for (int k = 0; k < it.ntensors; ++k) ptrs[k] += begin * it.strides[k][0];
    row(ptrs, end - begin);
    return;
  }
  Dims idx(nd, 0);
  int64_t rest = begin;
  for (size_t d = 0; d < nd; ++d) {
    idx[d] = rest % it.sizes[d];
    rest /= it.sizes[d];
    for (int k = 0; k < it.ntensors; ++k) ptrs[k] += idx[d] * it.strides[k][d];
  }
  for (int64_t pos = begin; pos < end;) {
    int64_t len = std::min(n0 - idx[0], end - pos);
    row(ptrs, len);
    pos += len;
    if (pos >= end) break;
    for (int k = 0; k < it.ntensors; ++k) ptrs[k] -= idx[0] * it.strides[k][0];
    idx[0] = 0;  // the next row starts at its beginning
    for (size_t d = 1; d < nd; ++d) {  // carry into the outer dims
      if (++idx[d] < it.sizes[d]) {
        for (int k = 0; k < it.ntensors; ++k) ptrs[k] += it.strides[k][d];
        break;
      }
      for (int k = 0; k < it.ntensors; ++k) ptrs[k] -= (it.sizes[d] - 1) * it.strides[k][d];
      idx[d] = 0;
    }
  }
}

// One operand's chunk source: straight from memory when it is contiguous in T, else converted
// into buf (a stride-0 operand is converted once and reused while its address or its value
// stays the same).
template <typename T>
struct Source {
  // User-provided, so that the tuple of Sources run_rows value-initialises does not zero the
  // buffers first (4 KiB each; most calls never touch them).
  Source() noexcept {}  // NOLINT(modernize-use-equals-default)

  alignas(64) T buf[kChunk];
  const char* filled_from = nullptr;
  int64_t filled = 0;

  const T* get(ScalarType dt, const char* p, int64_t stride, int64_t m) {
    bool same = dt == ew_dtype_of<T>();
    if (same && stride == static_cast<int64_t>(sizeof(T))) return reinterpret_cast<const T*>(p);
    if (stride == 0) {
      if (filled_from == p && filled >= m) return buf;
      T v;
      ew_load<T>(dt, p, 0, &v, 1);
      filled_from = p;
      // A row broadcasting another address often holds the same value (a 0/1 mask): the
      // buffer is refilled only when the bits differ. The fill is written in blocks of 8, which
      // GCC vectorises at -O2 (a plain loop stayed scalar: 1,600 instructions a row of 384,
      // most of hidden * mask at 6 x 15 x 384).
      if (filled >= m && std::memcmp(&v, buf, sizeof(T)) == 0) return buf;
      int64_t i = 0;
      for (; i + 8 <= m; i += 8) {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) buf[i + j] = v;
      }
      for (; i < m; ++i) buf[i] = v;
      filled = m;
      return buf;
    }
    filled_from = nullptr;
    filled = 0;
    ew_load<T>(dt, p, stride, buf, m);
    return buf;
  }
};

}  // namespace ew_detail

namespace ew_detail {

inline int64_t inner_stride(const EwIter& it, int k) { return it.strides[k][0]; }

// The chunk [i0, i0 + m) of every operand, as contiguous arrays of the types computed in.
template <typename... In, size_t... I>
std::tuple<const In*...> gather(std::tuple<Source<In>...>& src, const EwIter& it,
                                char* const* ptrs, int64_t i0, [[maybe_unused]] int64_t m,
                                std::index_sequence<I...>) {
  return std::tuple<const In*...>(std::get<I>(src).get(
      it.dtype[I + 1], ptrs[I + 1] + i0 * inner_stride(it, I + 1), inner_stride(it, I + 1),
      m)...);
}

}  // namespace ew_detail

namespace ew_detail {

// Runs the chunks of the rows inside [begin, end): body(out, in, m, first, n, ptrs) computes m
// elements whose first index in the row (or the row's part in the range) of n is `first`, over
// contiguous arrays of the types computed in. Buffers on this thread's stack.
template <typename Out, typename... In, typename Body>
void run_rows_range(const EwIter& it, int64_t begin, int64_t end, Body& body) {
  using Seq = std::index_sequence_for<In...>;
  std::tuple<Source<In>...> sources;  // on the stack: at most 3 x 4 KiB
  alignas(64) Out obuf[kChunk];
  bool out_same = it.dtype[0] == ew_dtype_of<Out>();
  for_each_row(it, begin, end, [&](char* const* ptrs, int64_t n) {
    int64_t os = inner_stride(it, 0);
    bool direct = out_same && os == static_cast<int64_t>(sizeof(Out));
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
      int64_t m = n - i0 < kChunk ? n - i0 : kChunk;
      auto in = gather<In...>(sources, it, ptrs, i0, m, Seq{});
      char* op = ptrs[0] + i0 * os;
      if (direct) {
        body(reinterpret_cast<Out*>(op), in, m, i0, n, ptrs);
      } else {
        body(obuf, in, m, i0, n, ptrs);
        ew_store<Out>(obuf, it.dtype[0], op, os, m);
      }
    }
  });
}

// Every row, split between threads as upstream's TensorIterator::for_each splits an
// elementwise loop: parallel_for over the linear index with grain kGrainSize (parallel.h), each
// thread's range walked as rows. Bodies run concurrently, so they (and the functors in them)
// must only read what they capture.
template <typename Out, typename... In, typename Body>
void run_rows(const EwIter& it, Body&& body) {
  TN_ASSERT(it.ntensors == static_cast<int>(sizeof...(In)) + 1);
  if (it.numel == 0) return;
  parallel_for(0, it.numel, kGrainSize,
               [&](int64_t b, int64_t e) { run_rows_range<Out, In...>(it, b, e, body); });
}

template <typename... In, size_t... I>
std::tuple<const In*...> advanced(const std::tuple<const In*...>& in, int64_t k,
                                  std::index_sequence<I...>) {
  return std::tuple<const In*...>((std::get<I>(in) + k)...);
}

// Upstream's rule for taking its vectorised path on a row (cpu_kernel_vec): every operand is
// contiguous, or exactly one input is a broadcast scalar and the rest are contiguous.
inline bool row_is_vectorised(const EwIter& it) {
  int scalars = 0;
  for (int k = 0; k < it.ntensors; ++k) {
    int64_t s = inner_stride(it, k);
    if (s == itemsize(it.dtype[k])) continue;
    if (s != 0 || k == 0 || ++scalars > 1) return false;
  }
  return true;
}

// The bytes of one SIMD block of upstream's vectorised loop (Note [Vector and scalar paths]):
// two 32-byte vectors, for the kernels upstream registers without an AVX-512 entry (their AVX2
// build runs on AVX-512 machines too), and on AVX2 machines for all.
constexpr int64_t kUpstreamBlockBytes = 64;
// The block of a kernel upstream registers for AVX-512 too (ALSO_REGISTER_AVX512_DISPATCH: the
// SLEEF-based ones, sigmoid, silu, gelu and their backwards, pow, exp2): two 64-byte vectors on
// an AVX-512 build, kUpstreamBlockBytes otherwise.
int64_t avx512_kernel_block_bytes();

}  // namespace ew_detail

// Applies f to every element: out = f(acc_t<In>(operand)...), stored as Out and then converted
// to the output's dtype. Out and In... are the types the op computes in; f is a scalar functor.
template <typename Out, typename... In, typename F>
void ew_run(const EwIter& it, F&& f) {
  using Seq = std::index_sequence_for<In...>;
  ew_detail::run_rows<Out, In...>(
      it, [&](Out* o, const std::tuple<const In*...>& in, int64_t m, int64_t, int64_t,
              char* const*) { ew_detail::core(o, in, m, f, Seq{}); });
}

// Whether this CPU runs AVX2 and FMA instructions (elementwise_loop.cpp; cached), whatever
// ATEN_CPU_CAPABILITY says: ew_run_wide's choice changes speed only, never bits.
bool ew_cpu_has_avx2_fma();

namespace ew_detail {

// ew_run over [begin, end) compiled for AVX2+FMA: `flatten` inlines the whole loop (and f) into
// this function, so it is generated for 8 floats a vector and std::fma becomes one vfmadd
// instruction rather than a call into libm's software fma (about 2 ns an element on the
// baseline build: add_(t, alpha), lerp_ and addcmul_ ran 14x slower than upstream's). It is
// called per thread's range, inside parallel_for: a parallel_for inside it would run the loop in
// a lambda of the baseline build. The TUs that call ew_run_wide are compiled with
// -ffp-contract=off (CMakeLists.txt), so no a * b + c is fused that was not fused before.
template <typename Out, typename... In, typename F>
__attribute__((target("avx2,fma"), flatten)) void ew_range_avx2(const EwIter& it, int64_t begin,
                                                                 int64_t end, F& f) {
  using Seq = std::index_sequence_for<In...>;
  auto body = [&](Out* o, const std::tuple<const In*...>& in, int64_t m, int64_t, int64_t,
                  char* const*) { core(o, in, m, f, Seq{}); };
  run_rows_range<Out, In...>(it, begin, end, body);
}

}  // namespace ew_detail

// ew_run for functors made only of IEEE-exact steps (+, -, *, /, sqrt, std::fma, comparisons):
// their result per element does not depend on the vector width or the instruction set, so they
// take the AVX2+FMA build where the CPU runs it (Note [Wide builds of exact elementwise loops]).
template <typename Out, typename... In, typename F>
void ew_run_wide(const EwIter& it, F&& f) {
  if (!ew_cpu_has_avx2_fma()) return ew_run<Out, In...>(it, f);
  TN_ASSERT(it.ntensors == static_cast<int>(sizeof...(In)) + 1);
  if (it.numel == 0) return;
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
    ew_detail::ew_range_avx2<Out, In...>(it, b, e, f);
  });
}

// Upstream's grain for its MKL vector-math ops (IMPLEMENT_FLOAT_KERNEL's iter.for_each).
constexpr int64_t kVmlGrainSize = 2048;

// A unary op over contiguous runs, f(out, in, m), for array functions whose result per element
// does not depend on where a call starts or ends (MKL's vector math). Where both operands run
// contiguous in the compute dtypes, f takes each thread's whole run (at most 2^30 elements a
// call), as upstream's vector-math lambda calls MKL once per contiguous run, split at its grain:
// MKL's per-call cost is not small (vmsExp over 3M floats: 1.32 ms in one call, 1.59 ms in calls
// of 512). Elsewhere chunks of at most kChunk elements, converted as ew_run converts. out may be
// in (in place).
template <typename Out, typename In, typename F>
void ew_run_array(const EwIter& it, F&& f) {
  TN_ASSERT(it.ntensors == 2);
  if (it.numel == 0) return;
  const bool runs = it.dtype[0] == ew_dtype_of<Out>() && it.dtype[1] == ew_dtype_of<In>() &&
                    ew_detail::inner_stride(it, 0) == static_cast<int64_t>(sizeof(Out)) &&
                    ew_detail::inner_stride(it, 1) == static_cast<int64_t>(sizeof(In));
  if (runs) {
    parallel_for(0, it.numel, kVmlGrainSize, [&](int64_t b, int64_t e) {
      ew_detail::for_each_row(it, b, e, [&](char* const* ptrs, int64_t n) {
        Out* o = reinterpret_cast<Out*>(ptrs[0]);
        const In* a = reinterpret_cast<const In*>(ptrs[1]);
        constexpr int64_t kMost = int64_t(1) << 30;  // MKL counts in int
        for (int64_t i = 0; i < n; i += kMost) f(o + i, a + i, std::min(kMost, n - i));
      });
    });
    return;
  }
  ew_detail::run_rows<Out, In>(it, [&](Out* o, const std::tuple<const In*>& in, int64_t m,
                                       int64_t, int64_t, char* const*) {
    f(o, std::get<0>(in), m);
  });
}

// ew_run for ops whose upstream result depends on the path taken (Note [Vector and scalar
// paths], elementwise_loop.cpp): as upstream's cpu_kernel_vec, on a vectorised row the elements
// before the last n % block use `vec` and the rest `scalar`; other rows use `scalar` throughout.
// block_bytes: upstream's block (ew_detail::kUpstreamBlockBytes, or avx512_kernel_block_bytes()).
template <typename Out, typename... In, typename FV, typename FS>
void ew_run_split(const EwIter& it, FV&& vec, FS&& scalar,
                  int64_t block_bytes = ew_detail::kUpstreamBlockBytes) {
  using Seq = std::index_sequence_for<In...>;
  const int64_t block = block_bytes / static_cast<int64_t>(sizeof(Out));
  bool vectorised = ew_detail::row_is_vectorised(it);
  ew_detail::run_rows<Out, In...>(
      it, [&](Out* o, const std::tuple<const In*...>& in, int64_t m, int64_t i0, int64_t n,
              char* const*) {
        int64_t vec_end = vectorised ? n - n % block : 0;  // row index where the tail starts
        int64_t k = vec_end - i0;                           // chunk index where it starts
        if (k <= 0) return ew_detail::core(o, in, m, scalar, Seq{});
        if (k >= m) return ew_detail::core(o, in, m, vec, Seq{});
        ew_detail::core(o, in, k, vec, Seq{});
        ew_detail::core(o + k, ew_detail::advanced<In...>(in, k, Seq{}), m - k, scalar, Seq{});
      });
}

}  // namespace tn
