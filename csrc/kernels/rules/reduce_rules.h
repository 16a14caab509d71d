// Shape and dtype rules shared by every back end of the reduction, matmul and nn families:
// dim wrapping, reduced shapes, output allocation on the input's device, and upstream's dtype
// spellings for error messages. No bytes are touched here.
#pragma once

#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "dispatch/kernel.h"

namespace tn {

// Wraps a possibly negative dim into [0, ndim); a 0-dim tensor accepts 0 and -1 (IndexError).
int64_t wrap_dim(int64_t d, int64_t ndim);
// Which dims a reduction over `dims` touches; an empty list means every dim. Refuses repeats.
std::vector<bool> reduce_mask(int64_t ndim, const Dims& dims);
// Argument i as a dim list: None and [] both mean "all dims" (as upstream's dim=None).
Dims opt_dims(const Call& c, size_t i);
// sizes with the masked dims dropped (or kept as 1).
Dims reduced_sizes(const Dims& sizes, const std::vector<bool>& mask, bool keepdim);
// A new contiguous tensor on like's device (meta stays meta: no bytes).
Tensor new_on(const Tensor& like, const Dims& sizes, ScalarType dtype);
// sum/prod/cumsum: integral and bool inputs accumulate in int64 unless dtype= says otherwise.
ScalarType sum_dtype(ScalarType in, std::optional<ScalarType> dtype);
// Refuses dtypes torchnative does not compute (complex, fp8, ...) by name.
// Also refuses complex32, which upstream's reductions, sorts and matmuls do not compute on the
// CPU, unless the caller's kernel does (allow_complex32: nonzero).
void check_supported(const Tensor& t, const std::string& op, bool allow_complex32 = false);
// Broadcasts two shapes as upstream (RuntimeError naming the first mismatching dim).
// A view of t expanded to sizes (stride 0 on broadcast dims); refuses sizes t cannot expand to,
// in upstream's words.
Tensor expand_view(const Tensor& t, const Dims& sizes);
// Resizes an out= tensor to sizes as upstream's resize_output (contiguous when it had to change).
void resize_out(const Tensor& out, const Dims& sizes);
// A result computed on `from` copied into out on another device: upstream's out= wrappers
// refuse it ("Attempting to copy from device cpu to device meta, but cross-device copies are
// not allowed!").
void check_out_device(const Tensor& out, const Device& from);

}  // namespace tn
