// The values torch.use_deterministic_algorithms(True) writes into memory that a factory leaves
// uninitialised (upstream's fill_empty_deterministic_): NaN for floating and complex dtypes
// (NaN + 0j), an integer dtype's largest value, True. No-ops unless the mode and
// torch.utils.deterministic.fill_uninitialized_memory are both on; nothing is written to meta
// tensors (their fill_ writes nothing).
#pragma once

#include <cstdint>

#include "dispatch/value.h"

namespace tn {

// Every element of t.
void fill_uninitialized(const Tensor& t);

// resize_'s new elements: t's storage elements from old_storage_nbytes / itemsize to its end.
void fill_uninitialized_storage_tail(const Tensor& t, int64_t old_storage_nbytes);

}  // namespace tn
