// Dtype-converting copies between tensors laid out alike (copy_dense_cpu in copy.cpp asks here
// first): one flat pass over memory, vectorised, split between threads as upstream's copy is.
// See Note [Converting copies in memory order] (docs/DESIGN_NOTES.md).
#include <cstring>

#include <immintrin.h>

#include "kernels/composite/shape_util.h"
#include "kernels/cpu/copy.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/parallel.h"

namespace tn {
namespace {

#define TN_CVT_VEC __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#define TN_CVT_AVX2 \
  __attribute__((target("avx2,f16c"), optimize("tree-vectorize", "vect-cost-model=dynamic")))

template <typename D, typename S>
TN_CVT_VEC void convert_span(D* __restrict d, const S* __restrict s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
}
template <typename D, typename S>
TN_CVT_AVX2 void convert_span_avx2(D* __restrict d, const S* __restrict s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
}

// float32 -> bfloat16: nearest even, NaN 0xFFFF, as integer steps the compiler vectorises.
inline void bf16_span_body(uint16_t* __restrict d, const uint32_t* __restrict s, int64_t n,
                           uint16_t nan) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = s[i];
    const uint32_t rounded = (u + 0x7fffU + ((u >> 16) & 1U)) >> 16;
    d[i] = static_cast<uint16_t>((u & 0x7fffffffU) > 0x7f800000U ? nan : rounded);
  }
}
TN_CVT_VEC void bf16_span(uint16_t* __restrict d, const uint32_t* __restrict s, int64_t n,
                          uint16_t nan) {
  bf16_span_body(d, s, n, nan);
}
TN_CVT_AVX2 void bf16_span_avx2(uint16_t* __restrict d, const uint32_t* __restrict s,
                                int64_t n, uint16_t nan) {
  bf16_span_body(d, s, n, nan);
}

// float32 -> float16 (see the note).
TN_CVT_AVX2 void half_span_f16c(uint16_t* d, const float* s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) d[i] = half_bits_f16c(s[i]);
}
void half_span(uint16_t* d, const float* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = half_bits_f16c(s[i]);
}

// float16 -> float32 (see the note): blocks of 8 exact, NaN payload kept; the tail's NaN is
// 0x7FFFFFFF.
inline float tail_float(uint16_t h) {
  return (h & 0x7fffU) > 0x7c00U ? bits_float(0x7fffffffU) : Half::to_float(h);
}
TN_CVT_AVX2 void float_span_f16c(float* d, const uint16_t* s, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(d + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
  for (; i < n; ++i) d[i] = tail_float(s[i]);
}
void float_span(float* d, const uint16_t* s, int64_t n) {
  const int64_t blocks = n - n % 8;
  for (int64_t i = 0; i < blocks; ++i) {
    Half h;
    h.x = s[i];
    d[i] = float_like_f16c(h);
  }
  for (int64_t i = blocks; i < n; ++i) d[i] = tail_float(s[i]);
}

bool wide() {
  static const bool ok = cpu::cpu_runs(cpu::Isa::Avx2) && __builtin_cpu_supports("f16c");
  return ok;
}

// Whether dst and src walk their elements in the same memory order from element 0 over exactly
// numel elements: same sizes, the same strides where a size exceeds 1, no gaps or overlaps.
bool same_dense_layout(const Tensor& dst, const Tensor& src) {
  if (dst->sizes() != src->sizes()) return false;
  if (dst->is_contiguous() && src->is_contiguous()) return true;
  for (int64_t k = 0; k < dst->dim(); ++k)
    if (dst->size(k) > 1 && dst->stride(k) != src->stride(k)) return false;
  return non_overlapping_and_dense(dst->sizes(), dst->strides());
}

}  // namespace

bool copy_runs_avx2_build() {
  static const bool on = cpu::avx2_registered_isa() != cpu::Isa::Base;
  return on;
}

bool copy_convert_flat(const Tensor& dst, const Tensor& src, char* d, const char* s,
                       const char* key) {
  const ScalarType dt = dst->dtype(), st = src->dtype();
  if (dt == ScalarType::BFloat16 && st == ScalarType::Double) return false;  // copy.cpp's rule
  if (!same_dense_layout(dst, src)) return false;
  const int64_t n = dst->numel();
  const bool avx2 = wide();
  if (dt == ScalarType::BFloat16 && st == ScalarType::Float) {
    auto* dp = reinterpret_cast<uint16_t*>(d);
    auto* sp = reinterpret_cast<const uint32_t*>(s);
    const uint16_t nan = copy_runs_avx2_build() ? 0xffffU : 0x7fc0U;
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      (avx2 ? bf16_span_avx2 : bf16_span)(dp + b, sp + b, e - b, nan);
    });
    return true;
  }
  if (dt == ScalarType::Half && st == ScalarType::Float) {
    auto* dp = reinterpret_cast<uint16_t*>(d);
    auto* sp = reinterpret_cast<const float*>(s);
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      (avx2 ? half_span_f16c : half_span)(dp + b, sp + b, e - b);
    });
    return true;
  }
  if (dt == ScalarType::Float && st == ScalarType::Half) {
    auto* dp = reinterpret_cast<float*>(d);
    auto* sp = reinterpret_cast<const uint16_t*>(s);
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      (avx2 ? float_span_f16c : float_span)(dp + b, sp + b, e - b);
    });
    return true;
  }
  dispatch_dtype_complex32(dt, key, [&](auto dz) {
    using D = decltype(dz);
    dispatch_dtype_complex32(st, key, [&](auto sz) {
      using S = decltype(sz);
      D* dp = reinterpret_cast<D*>(d);
      const S* sp = reinterpret_cast<const S*>(s);
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
        (avx2 ? convert_span_avx2<D, S> : convert_span<D, S>)(dp + b, sp + b, e - b);
      });
    });
  });
  return true;
}

}  // namespace tn
