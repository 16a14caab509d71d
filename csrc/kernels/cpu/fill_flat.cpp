// See fill_flat.h. Both split between threads above upstream's grain, as its TensorIterator
// loops are; each element is written alone, so the split changes nothing.
#include "kernels/cpu/fill_flat.h"

#include <cstring>

#include "core/error.h"
#include "kernels/cpu/parallel.h"

namespace tn {
namespace {

// Each element is chosen alone, with bit masks rather than a branch (a random mask would
// mispredict half the time: that is what upstream's loop pays) and stored back either way, so
// that the loop vectorises.
template <typename B>
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic"))) void fill_span(
    B* __restrict p, const unsigned char* __restrict m, int64_t n, B v) {
  for (int64_t i = 0; i < n; ++i) {
    const B keep = static_cast<B>(m[i] == 0) - B(1);  // all ones where set, else zero
    p[i] = (p[i] & ~keep) | (v & keep);
  }
}

template <typename B>
void masked_fill_width(void* dst, const bool* mask, int64_t n, const void* value) {
  B v;
  std::memcpy(&v, value, sizeof(B));
  B* p = static_cast<B*>(dst);
  const unsigned char* m = reinterpret_cast<const unsigned char*>(mask);
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { fill_span(p + b, m + b, e - b, v); });
}

// -O2's cost model leaves even this loop scalar (one 4-byte store a cycle): vectorised, it runs
// at the memory's speed.
template <typename B>
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic"))) void fill_run(
    B* __restrict p, int64_t n, B v) {
  for (int64_t i = 0; i < n; ++i) p[i] = v;
}

template <typename B>
void fill_width(void* dst, int64_t n, const void* value) {
  B v;
  std::memcpy(&v, value, sizeof(B));
  B* p = static_cast<B*>(dst);
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) { fill_run(p + b, e - b, v); });
}

// 16-byte elements: each as two 8-byte words under the same mask byte.
void masked_fill_pairs(void* dst, const bool* mask, int64_t n, const void* value) {
  uint64_t v[2];
  std::memcpy(v, value, sizeof(v));
  uint64_t* p = static_cast<uint64_t*>(dst);
  const unsigned char* m = reinterpret_cast<const unsigned char*>(mask);
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const uint64_t keep = static_cast<uint64_t>(m[i] == 0) - 1;
      p[2 * i] = (p[2 * i] & ~keep) | (v[0] & keep);
      p[2 * i + 1] = (p[2 * i + 1] & ~keep) | (v[1] & keep);
    }
  });
}

}  // namespace

void fill_flat(void* dst, int64_t n, const void* value, int elem_size) {
  switch (elem_size) {
    case 1: return fill_width<uint8_t>(dst, n, value);
    case 2: return fill_width<uint16_t>(dst, n, value);
    case 4: return fill_width<uint32_t>(dst, n, value);
    case 8: return fill_width<uint64_t>(dst, n, value);
    case 16: {  // complex128
      uint64_t v[2];
      std::memcpy(v, value, sizeof(v));
      uint64_t* p = static_cast<uint64_t*>(dst);
      parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          p[2 * i] = v[0];
          p[2 * i + 1] = v[1];
        }
      });
      return;
    }
    default: TN_CHECK(false, "fill_: no flat fill for ", elem_size, "-byte elements");
  }
}

void masked_fill_flat(void* dst, const bool* mask, int64_t n, const void* value, int elem_size) {
  switch (elem_size) {
    case 1: return masked_fill_width<uint8_t>(dst, mask, n, value);
    case 2: return masked_fill_width<uint16_t>(dst, mask, n, value);
    case 4: return masked_fill_width<uint32_t>(dst, mask, n, value);
    case 8: return masked_fill_width<uint64_t>(dst, mask, n, value);
    case 16:  // complex128: its two halves as one 8-byte pair each
      return masked_fill_pairs(dst, mask, n, value);
    default: TN_CHECK(false, "masked_fill_: no flat fill for ", elem_size, "-byte elements");
  }
}

}  // namespace tn
