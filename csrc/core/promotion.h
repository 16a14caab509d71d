// Type promotion as upstream defines it: promote_types over the dtype lattice, and result_type
// with Python numbers as "wrapped numbers" (they only raise the category: bool < int < float <
// complex).
// Pure C++.
#pragma once

#include <vector>

#include "core/scalar_type.h"

namespace tn {

// Upstream's promote_types table for the dtypes we compute (others refuse, Type error).
ScalarType promote_types(ScalarType a, ScalarType b);

enum class Category : int8_t { Bool = 0, Integral = 1, Floating = 2, Complex = 3 };
Category category(ScalarType t);
// float16/float32/float64 -> complex32/complex64/complex128 (complex types are their own);
// RuntimeError "Unknown Complex ScalarType for BFloat16" otherwise, as upstream's toComplexType.
ScalarType to_complex_type(ScalarType t);
// complex128 when the default float dtype is float64, complex64 otherwise.
ScalarType default_complex_dtype();

// Accumulates operands in upstream's three tiers: dimensioned tensors, 0-dim tensors, and
// wrapped numbers (Python scalars). A lower tier only matters when it raises the category.
class ResultType {
 public:
  void add_tensor(ScalarType t, bool zero_dim);
  void add_number(ScalarType t);  // Long for int, Double for float, Bool for bool
  ScalarType result() const;      // default float dtype for a wrapped float over ints

 private:
  bool has_dim_ = false, has_zero_ = false, has_wrapped_ = false;
  ScalarType dim_ = ScalarType::Bool, zero_ = ScalarType::Bool, wrapped_ = ScalarType::Bool;
};

ScalarType combine_categories(bool has_hi, ScalarType hi, bool has_lo, ScalarType lo);

// Whether a result of `from` may be written into a tensor of `to` (in-place ops, out=).
bool can_cast(ScalarType from, ScalarType to);

// The default floating dtype (torch.get_default_dtype); process-wide.
ScalarType default_float_dtype();
void set_default_float_dtype(ScalarType t);

}  // namespace tn
