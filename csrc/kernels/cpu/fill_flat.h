// fill_ and masked_fill_ on contiguous memory (their kernels in factory.cpp and fill_ops.cpp take
// these for that case): apart so that the parallel loop's header stays out of the byte-moving
// kernels' includes. Both move bits, so one loop per element width serves every dtype.
#pragma once

#include <cstdint>

namespace tn {

// Sets the n elements of dst (elem_size bytes each: 1, 2, 4, 8 or 16) to *value.
void fill_flat(void* dst, int64_t n, const void* value, int elem_size);

// Sets element i of dst to *value where mask[i] is set (masked_fill_ where self and its mask
// both run in memory order).
void masked_fill_flat(void* dst, const bool* mask, int64_t n, const void* value, int elem_size);

}  // namespace tn
