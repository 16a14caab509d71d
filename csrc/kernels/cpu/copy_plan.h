// The same-dtype CPU copy between two storages into a dense destination, planned as
// Note [Permuted copies] (docs/DESIGN_NOTES.md) says; copy_dense_cpu (copy.cpp) tries it first.
// Apart from copy.h because its `convert` and cpu_util.h's (which parallel.h includes) collide.
#pragma once

#include "core/tensor_impl.h"

namespace tn {

// Copies src's bytes into dst (same dtype and shape, src broadcast beforehand) and returns true,
// or returns false having touched nothing where the plan does not apply: one storage, a dst
// that is not dense, more than 16 dims of size above one.
bool copy_planned(const Tensor& dst, const Tensor& src, char* d, const char* s);

}  // namespace tn
