// The memory layout padded results take (shared by the padding composites and kernels).
#pragma once

#include "core/tensor_impl.h"

namespace tn {

// Strides of sizes in the layout upstream's suggest_memory_format() picks for like.
inline Dims pad_strides_like(const Tensor& like, const Dims& sizes) {
  if (!suggests_channels_last(*like)) return contiguous_strides(sizes);
  return channels_last_strides(sizes);
}

}  // namespace tn
