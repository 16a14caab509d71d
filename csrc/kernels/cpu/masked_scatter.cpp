// masked_scatter_(self, mask, source): the elements of self where mask (bool, broadcast to
// self) is true, in row-major order, take source's elements in order; masked_scatter (self and
// mask broadcast together, a contiguous copy written), its out= form, and
// masked_scatter_backward (the gradient's elements under the mask, padded with zeros to
// source's size), as upstream's CPU path and composites compute them.
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

void check_args(const Tensor& self, const Tensor& mask, const Tensor& source) {
  TN_CHECK(mask->dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but "
           "got mask with dtype ", enum_name(mask->dtype()));
  TN_CHECK(self->dtype() == source->dtype(), "masked_scatter: expected self and source to have "
           "same dtypes but got", enum_name(self->dtype()), " and ", enum_name(source->dtype()));
}

template <bool Fill>
void masked_scatter_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& source = c.tensor(2);
  check_supported(self, c.key());
  check_args(self, c.tensor(1), source);
  Tensor mask = expand_view(c.tensor(1), self->sizes());
  if constexpr (Fill) {
    const std::string& key = c.key();
    Tensor m = contiguous(mask, key);
    Tensor src = contiguous(source, key);
    const bool* mp = data_of<bool>(m, key);
    const int64_t available = src->numel();
    dispatch_dtype_complex(self->dtype(), key, [&](auto zero) {
      using T = decltype(zero);
      T* base = data_of<T>(self, key);
      const T* sp = data_of<T>(src, key);
      int64_t used = 0, k = 0;
      Dims idx(static_cast<size_t>(self->dim()), 0);
      for (int64_t n = 0; n < self->numel(); ++n, ++k) {
        if (mp[k]) {
          TN_CHECK(used < available, "Number of elements of source < number of ones in mask");
          int64_t off = 0;
          for (int64_t d = 0; d < self->dim(); ++d) off += idx[d] * self->stride(d);
          base[off] = sp[used++];
        }
        for (int64_t d = self->dim() - 1; d >= 0; --d) {
          if (++idx[d] < self->size(d)) break;
          idx[d] = 0;
        }
      }
    });
  }
  c.ret(self);
}
TN_REGISTER_KERNEL("aten::masked_scatter_", DenseCPU, masked_scatter_inplace<true>);
TN_REGISTER_KERNEL("aten::masked_scatter_", Meta, masked_scatter_inplace<false>);

// masked_scatter(self, mask, source): self and mask broadcast together, self's broadcast copied
// contiguous, then masked_scatter_.
Tensor masked_scatter_of(const Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& mask = c.tensor(1);
  Dims shape = broadcast_shapes(self->sizes(), mask->sizes());
  Tensor s = expand_view(self, shape);
  Tensor m = expand_view(mask, shape);
  Tensor out = ops::clone_contiguous(s);
  call("aten::masked_scatter_", {t(out), t(m), c.arg(2)});
  return out;
}
void masked_scatter(Call& c) { c.ret(masked_scatter_of(c)); }
void masked_scatter_out(Call& c) { c.ret(ops::write_out(c.tensor(3), masked_scatter_of(c), c.key())); }
TN_REGISTER_COMPOSITE("aten::masked_scatter", masked_scatter);
TN_REGISTER_COMPOSITE("aten::masked_scatter.out", masked_scatter_out);

// masked_scatter_backward(grad_output, mask, sizes): grad_output's elements under the mask, then
// zeros up to the product of sizes, viewed as sizes.
void masked_scatter_backward(Call& c) {
  const Dims& sizes = c.int_list(2);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  Tensor picked = call_tensor("aten::masked_select", {c.arg(0), c.arg(1)});
  const int64_t missing = numel - picked->numel();
  if (missing > 0) {
    const Tensor& g = c.tensor(0);
    Tensor zeros = call_tensor("aten::zeros", {ops::ints({missing}), Value::of_dtype(g->dtype()),
                                               Value{}, Value::of_device(g->device())});
    picked = call_tensor("aten::cat", {Value::of_tensors({picked, zeros}), Value::of_int(0)});
  }
  c.ret(call_tensor("aten::view", {t(picked), ops::ints(sizes)}));
}
TN_REGISTER_COMPOSITE("aten::masked_scatter_backward", masked_scatter_backward);

}  // namespace
}  // namespace tn
