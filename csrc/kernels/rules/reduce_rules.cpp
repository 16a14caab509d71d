// Shape and dtype rules for reductions, matmul and nn ops (see reduce_rules.h).
#include "kernels/rules/reduce_rules.h"

#include <sstream>

#include "kernels/rules/elementwise.h"

namespace tn {

int64_t wrap_dim(int64_t d, int64_t ndim) {
  int64_t n = ndim > 0 ? ndim : 1;
  TN_CHECK_KIND(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [",
                -n, ", ", n - 1, "], but got ", d, ")");
  return d < 0 ? d + n : d;
}

std::vector<bool> reduce_mask(int64_t ndim, const Dims& dims) {
  // Upstream keeps a dim list as a 64-bit mask (dim_list_to_bitset): a list of dims on a
  // tensor of more dims is refused; no list (every dim) is not.
  TN_CHECK(dims.empty() || ndim <= 64, "only tensors with up to 64 dims are supported");
  std::vector<bool> mask(ndim, dims.empty());
  bool zero_dim_seen = false;  // a 0-dim tensor's dim 0 (and -1), named twice, is refused too
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    const bool seen = ndim == 0 ? zero_dim_seen : static_cast<bool>(mask[w]);
    TN_CHECK(!seen, "dim ", w, " appears multiple times in the list of dims");
    if (ndim == 0) zero_dim_seen = true;
    else mask[w] = true;
  }
  return mask;
}

Dims opt_dims(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return {};
  if (c.arg(i).tag == Value::Tag::Int) return {c.arg(i).i};
  return c.int_list(i);
}

Dims reduced_sizes(const Dims& sizes, const std::vector<bool>& mask, bool keepdim) {
  Dims out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Tensor new_on(const Tensor& like, const Dims& sizes, ScalarType dtype) {
  return empty_tensor(sizes, dtype, like->device());
}

ScalarType sum_dtype(ScalarType in, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(in, true) ? ScalarType::Long : in;
}

void check_supported(const Tensor& t, const std::string& op, bool allow_complex32) {
  TN_CHECK_KIND(info(t->dtype()).supported, NotImplemented, op,
                " has no kernel in torchnative for tensors of dtype ", name(t->dtype()));
  TN_CHECK_KIND(allow_complex32 || t->dtype() != ScalarType::ComplexHalf, NotImplemented, "\"",
                op, "\" not implemented for 'ComplexHalf'");
}


Tensor expand_view(const Tensor& t, const Dims& sizes) {
  int64_t lead = static_cast<int64_t>(sizes.size()) - t->dim();
  TN_CHECK(lead >= 0, "expand(torch.", info(t->dtype()).legacy_name, "{", dims_str(t->sizes()),
           "}, size=", dims_str(sizes), "): the number of sizes provided (", sizes.size(),
           ") must be greater or equal to the number of dimensions in the tensor (", t->dim(),
           ")");
  Dims strides(sizes.size(), 0);
  for (int64_t d = 0; d < t->dim(); ++d) {
    int64_t s = t->size(d);
    TN_CHECK(s == sizes[lead + d] || s == 1, "The expanded size of the tensor (", sizes[lead + d],
             ") must match the existing size (", s, ") at non-singleton dimension ", lead + d,
             ".  Target sizes: ", dims_str(sizes), ".  Tensor sizes: ", dims_str(t->sizes()));
    strides[lead + d] = s == sizes[lead + d] && s != 1 ? t->stride(d) : 0;
  }
  return make_view(t, sizes, strides, t->storage_offset());
}

void resize_out(const Tensor& out, const Dims& sizes) {
  resize_output(*out, sizes, contiguous_strides(sizes));
}

void check_out_device(const Tensor& out, const Device& from) {
  TN_CHECK(out->device().type == from.type, "Attempting to copy from device ", from.str(),
           " to device ", out->device().str(), ", but cross-device copies are not allowed!");
}

}  // namespace tn
