// Creation ops: empty, empty_strided (allocate on the requested device, so one kernel serves CPU
// and meta) and fill_/zero_ (write values; a no-op on meta tensors, which hold no bytes).
#include <cstring>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/uninitialized_fill.h"
#include "kernels/cpu/copy.h"
#include "kernels/cpu/fill_flat.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/factory_rules.h"
#include "kernels/strided.h"

namespace tn {
namespace {

// Factory options: dtype (default float dtype), layout (strided only), device, pin_memory.
struct Options {
  ScalarType dtype;
  Device device;
};

Options factory_options(const Call& c, size_t dtype_arg) {
  Options o{c.optional_dtype(dtype_arg).value_or(default_float_dtype()), Device{}};
  const Value& layout = c.arg(dtype_arg + 1);
  const Value& device = c.arg(dtype_arg + 2);
  if (!device.is_none()) o.device = device.device;
  check_pin_memory(c.arg(dtype_arg + 3), layout, o.device);
  TN_CHECK_KIND(layout.is_none() || layout.i == 0, NotImplemented, c.key(),
                ": only the strided layout is implemented by torchnative");
  TN_CHECK_KIND(info(o.dtype).supported, NotImplemented, c.key(),
                " has no kernel in torchnative for dtype ", name(o.dtype));
  return o;
}

// empty.memory_format(SymInt[] size, *, ScalarType? dtype, Layout? layout, Device? device,
//                     bool? pin_memory, MemoryFormat? memory_format)
void empty_memory_format(Call& c) {
  Options o = factory_options(c, 1);
  const Value& mf = c.arg(5);
  check_memory_format_rank(mf, static_cast<int64_t>(c.int_list(0).size()));
  TN_CHECK_KIND(mf.is_none() || mf.memory_format == MemoryFormatKind::Contiguous ||
                    mf.memory_format == MemoryFormatKind::Preserve,
                NotImplemented, c.key(), ": channels_last memory formats are not implemented");
  Tensor t = empty_tensor(c.int_list(0), o.dtype, o.device);
  fill_uninitialized(t);
  c.ret(t);
}
TN_REGISTER_COMPOSITE("aten::empty.memory_format", empty_memory_format);

// empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype, Layout? layout,
//               Device? device, bool? pin_memory)
void empty_strided(Call& c) {
  Options o = factory_options(c, 2);
  const Dims& sizes = c.int_list(0);
  const Dims& strides = c.int_list(1);
  for (int64_t s : sizes)
    TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", dims_str(sizes));
  TN_CHECK(sizes.size() == strides.size(), "dimensionality of sizes (", sizes.size(),
           ") must match dimensionality of strides (", strides.size(), ")");
  warn_if_complex_half(o.dtype);
  size_t nbytes = storage_bytes_needed(sizes, strides, 0, itemsize(o.dtype));
  Storage st = make<StorageImpl>(nbytes, o.device, true);
  Tensor t = make<TensorImpl>(st, o.dtype, sizes, strides, 0, representation_of(o.device.type));
  fill_uninitialized(t);
  c.ret(t);
}
TN_REGISTER_COMPOSITE("aten::empty_strided", empty_strided);

// Writes v into every element of t (any strides).
void fill_dense(const Tensor& t, Scalar v, const std::string& key) {
  dispatch_dtype_complex32(t->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    T value = scalar_to<T>(v);  // copy.h: upstream's Scalar::to<T>
    T* data = static_cast<T*>(t->dense_cpu_data(key.c_str())) - t->storage_offset();
    if (t->is_contiguous()) {
      fill_flat(data + t->storage_offset(), t->numel(), &value, sizeof(T));
      return;
    }
    for_each_offset(t->sizes(), t->strides(), t->storage_offset(),
                    [&](int64_t off) { data[off] = value; });
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
void fill_scalar_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  if (self->dtype() != ScalarType::Bool) check_scalar_fits(c.scalar(1), self->dtype());
  fill_dense(self, c.scalar(1), c.key());
  c.ret(self);
}
void fill_scalar_meta(Call& c) {
  ScalarType t = c.tensor(0)->dtype();
  if (t != ScalarType::Bool) check_scalar_fits(c.scalar(1), t);
  c.ret(c.tensor(0));
}
TN_REGISTER_KERNEL("aten::fill_.Scalar", DenseCPU, fill_scalar_cpu);
TN_REGISTER_KERNEL("aten::fill_.Scalar", Meta, fill_scalar_meta);

// zero_(Tensor(a!) self) -> Tensor(a!): fill_ with 0, on whatever representation self has.
void zero_(Call& c) {
  c.ret(call_tensor("aten::fill_.Scalar", {c.arg(0), Value::of_scalar(Scalar::from_int(0))}));
}
TN_REGISTER_COMPOSITE("aten::zero_", zero_);

// The functional forms functionalization and the foreach ops' slow paths call:
// copy(self, src, non_blocking) -> a new tensor with self's geometry (sizes and strides, as
// upstream's clone_preserve_strides) holding src broadcast and converted;
// fill.Scalar(self, value) -> empty_like(self) filled with value (zero's is
// composite/functional_forms.cpp's).
void copy_functional(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor r = call_tensor("aten::empty_strided",
                         {Value::of_ints(self->sizes()), Value::of_ints(self->strides()),
                          Value::of_dtype(self->dtype()), Value{},
                          Value::of_device(self->device())});
  call("aten::copy_", {Value::of(r), c.arg(1), c.arg(2)});
  c.ret(r);
}
void fill_functional(Call& c) {
  Tensor r = call_tensor("aten::empty_like", {c.arg(0)});
  c.ret(call_tensor("aten::fill_.Scalar", {Value::of(r), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::copy", copy_functional);
TN_REGISTER_COMPOSITE("aten::fill.Scalar", fill_functional);

}  // namespace
}  // namespace tn
