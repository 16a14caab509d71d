// Upstream's float sum, order for order (Note [The cascade sum] in docs/DESIGN_NOTES.md): the
// dims laid out as its TensorIterator lays a reduction (reduced dims first, sorted by stride,
// coalesced), each 2-D slice summed by its cascade (partial sums in levels of 16, four
// interleaved rows, lanes of 32 bytes, the build upstream's sum runs everywhere), the output zeroed and each
// slice's sum added into it. Serial: upstream's threads split a reduction only past 32,768
// elements. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor_impl.h"

namespace tn {

// ceil(log2(x)), 1 for x <= 2 (upstream's CeilLog2; the cascade sums' and nll_loss's levels).
inline int64_t ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  return 64 - __builtin_clzll(static_cast<uint64_t>(x - 1));
}

// out (float32 or float64, self's dtype; the reduced shape, keepdim or not, any strides) = the
// sum of self over the dims mask marks. False, with out untouched, for any other dtype.
bool cascade_sum(const Tensor& self, const std::vector<bool>& mask, const Tensor& out);

}  // namespace tn
