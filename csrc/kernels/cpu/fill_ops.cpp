// In-place writes that select elements by position or mask: masked_fill_ (.Scalar, .Tensor) and
// tril_/triu_, for dense CPU tensors (any strides) with meta kernels that only check shapes.
#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/copy.h"
#include "kernels/cpu/fill_flat.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {


// Upstream's checks for masked_fill_: a bool mask that broadcasts to self's shape.
Dims masked_fill_mask_strides(const Tensor& self, const Tensor& mask) {
  TN_CHECK(mask->dtype() == ScalarType::Bool, "masked_fill_ only supports boolean masks, but got "
           "mask with dtype ", cpp_type_name(mask->dtype()));
  Dims shape = broadcast_shapes(self->sizes(), mask->sizes());
  TN_CHECK(shape == self->sizes(), "output with shape ", dims_str(self->sizes()),
           " doesn't match the broadcast shape ", dims_str(shape));
  return broadcast_strides(*mask, shape);
}

void masked_fill_cpu(const Tensor& self, const Tensor& mask, Scalar value, const char* key) {
  // A complex value into a real tensor: upstream's checked conversion refuses a non-zero
  // imaginary part ("value cannot be converted to type float without overflow").
  if (value.is_complex()) check_scalar_fits(value, self->dtype());
  Dims mstrides = masked_fill_mask_strides(self, mask);
  const bool* m = static_cast<const bool*>(mask->dense_cpu_data(key));
  dispatch_dtype_complex32(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    T v = scalar_to<T>(value);
    T* p = static_cast<T*>(self->dense_cpu_data(key));
    if (self->is_contiguous() && mstrides == contiguous_strides(self->sizes())) {
      masked_fill_flat(p, m, self->numel(), &v, sizeof(T));  // both run in memory order
      return;
    }
    for_each_offset_pair(self->sizes(), self->strides(), 0, mstrides, 0,
                         [&](int64_t a, int64_t b) { if (m[b]) p[a] = v; });
  });
}

Tensor value_tensor(const Call& c) {
  const Tensor& v = c.tensor(2);
  TN_CHECK(v->dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ", v->dim(), " dimension(s).");
  return v;
}

// masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
void masked_fill_scalar_cpu(Call& c) {
  masked_fill_cpu(c.tensor(0), c.tensor(1), c.scalar(2), "aten::masked_fill_.Scalar");
  c.ret(c.tensor(0));
}
// masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
void masked_fill_tensor_cpu(Call& c) {
  Tensor v = value_tensor(c);
  const char* key = "aten::masked_fill_.Tensor";
  masked_fill_cpu(c.tensor(0), c.tensor(1), item_cpu(v, key), key);
  c.ret(c.tensor(0));
}
void masked_fill_meta(Call& c) {
  masked_fill_mask_strides(c.tensor(0), c.tensor(1));
  if (c.arg(2).tag == Value::Tag::Tensor) value_tensor(c);
  c.ret(c.tensor(0));
}
TN_REGISTER_KERNEL("aten::masked_fill_.Scalar", DenseCPU, masked_fill_scalar_cpu);
TN_REGISTER_KERNEL("aten::masked_fill_.Tensor", DenseCPU, masked_fill_tensor_cpu);
TN_REGISTER_KERNEL("aten::masked_fill_.Scalar", Meta, masked_fill_meta);
TN_REGISTER_KERNEL("aten::masked_fill_.Tensor", Meta, masked_fill_meta);

void check_tri(const Tensor& self, const char* what) {
  TN_CHECK(self->dim() >= 2, what, ": input tensor must have at least 2 dimensions");
}

// Zeroes, in every matrix of the batch, the elements with col - row above k (tril) or below k
// (triu).
template <bool kLower>
void tri_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t k = c.to_int(1);
  const char* key = kLower ? "aten::tril_" : "aten::triu_";
  check_tri(self, kLower ? "tril" : "triu");
  int64_t nd = self->dim();
  Dims bsizes(self->sizes().begin(), self->sizes().end() - 2);
  Dims bstrides(self->strides().begin(), self->strides().end() - 2);
  int64_t rows = self->size(nd - 2), cols = self->size(nd - 1);
  int64_t rs = self->stride(nd - 2), cs = self->stride(nd - 1);
  dispatch_dtype_complex32(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    T* p = static_cast<T*>(self->dense_cpu_data(key));
    T zero = convert<T>(0);
    for_each_offset(bsizes, bstrides, 0, [&](int64_t base) {
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          if (kLower ? j - i > k : j - i < k) p[base + i * rs + j * cs] = zero;
    });
  });
  c.ret(self);
}
template <bool kLower>
void tri_meta(Call& c) {
  check_tri(c.tensor(0), kLower ? "tril" : "triu");
  c.ret(c.tensor(0));
}
TN_REGISTER_KERNEL("aten::tril_", DenseCPU, tri_cpu<true>);
TN_REGISTER_KERNEL("aten::triu_", DenseCPU, tri_cpu<false>);
TN_REGISTER_KERNEL("aten::tril_", Meta, tri_meta<true>);
TN_REGISTER_KERNEL("aten::triu_", Meta, tri_meta<false>);

}  // namespace
}  // namespace tn
