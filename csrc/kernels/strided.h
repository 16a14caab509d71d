// Walking the elements of a strided tensor in row-major order, for kernels that do not need a
// vectorised path. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor_impl.h"

namespace tn {

// Calls f(offset_in_elements) for every element of sizes/strides, in row-major order.
template <typename F>
void for_each_offset(const Dims& sizes, const Dims& strides, int64_t base, F&& f) {
  int64_t n = numel_of(sizes);
  if (n == 0) return;
  int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd == 0) {
    f(base);
    return;
  }
  Dims idx(nd, 0);
  int64_t off = base;
  int64_t inner = sizes[nd - 1], inner_stride = strides[nd - 1];
  for (int64_t done = 0; done < n; done += inner) {
    for (int64_t k = 0; k < inner; ++k) f(off + k * inner_stride);
    for (int64_t d = nd - 2; d >= 0; --d) {  // carry into the outer dims
      if (++idx[d] < sizes[d]) {
        off += strides[d];
        break;
      }
      off -= (sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace tn
