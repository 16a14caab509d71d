// Upstream's TensorArg checks as EmbeddingBag.cpp spells them (checkScalarTypes, checkContiguous
// "while checking arguments for embedding_bag"), shared by the embedding_bag kernels
// (kernels/cpu/embedding_bag.cpp) and composites (kernels/composite/embedding_bag.cpp).
#pragma once

#include "core/error.h"
#include "core/tensor_impl.h"

namespace tn::embedding_bag {

inline bool is_index(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

// checkScalarTypes(..., {kLong, kInt}) on argument #1 `name`.
inline void check_index_arg(const Tensor& t, const char* name) {
  TN_CHECK(is_index(t->dtype()), "Expected tensor for argument #1 '", name, "' to have one of "
           "the following scalar types: Long, Int; but got torch.", info(t->dtype()).legacy_name,
           " instead (while checking arguments for embedding_bag)");
}

// checkContiguous on argument #1 `name`.
inline void check_contiguous_arg(const Tensor& t, const char* name) {
  TN_CHECK(t->is_contiguous(), "Expected contiguous tensor, but got non-contiguous tensor for "
           "argument #1 '", name, "' (while checking arguments for embedding_bag)");
}

}  // namespace tn::embedding_bag
