// cat's shape rule and its copy over other ops (composite/shape.cpp), shared with the dense CPU
// kernel (kernels/cpu/cat.cpp), which fills the same result row by row where it can.
#pragma once

#include <vector>

#include "core/tensor_impl.h"

namespace tn {

// Upstream's legacy cat rule: a 1-D tensor of size 0 is skipped for shapes (not for dtype).
bool cat_skips(const Tensor& t);

struct CatPlan {
  Dims shape;
  int64_t dim = 0;
  ScalarType dtype = ScalarType::Float;
};

// Output shape, wrapped dim and promoted dtype of cat, with upstream's checks in its order (the
// inputs' devices, zero-dim inputs, the dim, then for cat.out whether the promoted dtype casts
// to out's, then the sizes).
CatPlan plan_cat(const std::vector<Tensor>& ts, int64_t dim, const Tensor* out = nullptr);

// Copies each input into its slice of out along the plan's dim (one copy_ per input).
void cat_fill(const Tensor& out, const std::vector<Tensor>& ts, const CatPlan& p);

}  // namespace tn
