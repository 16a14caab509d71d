// The memory layout padded results take (shared by the padding composites and kernels).
#pragma once

#include <algorithm>

#include "core/tensor_impl.h"

namespace tn {

// Strides of sizes in the layout upstream's suggest_memory_format() picks for like.
inline Dims pad_strides_like(const Tensor& like, const Dims& sizes) {
  if (!suggests_channels_last(*like)) return contiguous_strides(sizes);
  // channels_last(_3d): C innermost, then the spatial dims from last to first, then N.
  Dims strides(sizes.size());
  int64_t step = 1;
  strides[1] = step;
  step *= std::max<int64_t>(sizes[1], 1);
  for (size_t d = sizes.size() - 1; d >= 2; --d) {
    strides[d] = step;
    step *= std::max<int64_t>(sizes[d], 1);
  }
  strides[0] = step;
  return strides;
}

}  // namespace tn
