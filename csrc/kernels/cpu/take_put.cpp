// take (functional, out=), put_ and put (IndexKernel.cpp, TensorAdvancedIndexing.cpp): self
// read or written as if flattened, at the linear indices of a Long index (negative ones counted
// from the end), with upstream's checks in its order. The CPU kernels walk (out or source,
// index) in upstream's iterator order (walk_like_iterator), so the first index out of range is
// the one upstream names and put_'s accumulation adds in upstream's order.
#include "core/determinism.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/random.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

// The storage offset (in elements, from the data pointer) of linear index i of t.
int64_t offset_of_linear(const TensorImpl& t, int64_t i) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t n = t.size(d);
    off += (i % n) * t.stride(d);
    i /= n;
  }
  return off;
}

// Index idx checked against numel and wrapped (upstream's cpu_take_put_kernel).
int64_t wrap_linear(int64_t idx, int64_t numel) {
  TN_CHECK_KIND(idx >= -numel && idx < numel, Index, "out of range: tried to access index ", idx,
                " on a tensor of ", numel, " elements.");
  return idx < 0 ? idx + numel : idx;
}

// --- take ------------------------------------------------------------------------------------

// upstream's take_out checks, for out (of index's shape).
void check_take(const Tensor& self, const Tensor& index, const Tensor& out) {
  TN_CHECK(index->dtype() == ScalarType::Long, "take(): Expected a long tensor for index, but "
           "got ", enum_name(index->dtype()));
  TN_CHECK(self->dtype() == out->dtype(), "take(): self and out expected to have the same "
           "dtype, but got self.dtype = ", enum_name(self->dtype()), " and out.dtype = ",
           enum_name(out->dtype()));
  TN_CHECK(self->device() == out->device() && index->device() == out->device(), "take(): self, "
           "index and out expected to be in the same device, but got self.device = ",
           self->device().str(), ", index.device = ", index->device().str(),
           ", and out.device = ", out->device().str());
  TN_CHECK_KIND(!(self->numel() == 0 && index->numel() != 0), Index,
                "take(): tried to take from an empty tensor");
  check_no_internal_overlap(*out);
  check_no_overlap(*out, *index);
  check_no_overlap(*out, *self);
}

// out[k] = self.flatten()[index[k]] for every element of index (out has index's shape).
void take_into(const Tensor& self, const Tensor& index, const Tensor& out,
               const std::string& key) {
  if (index->numel() == 0) return;
  const int64_t numel = self->numel();
  const int64_t* ip = data_of<int64_t>(index, key);
  const bool dense = self->is_contiguous();
  dispatch_dtype_complex32(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* src = data_of<T>(self, key);
    T* dst = data_of<T>(out, key);
    walk_like_iterator(out->sizes(), {out->strides(), index->strides()},
                       [&](int64_t o, int64_t k) {
                         int64_t i = wrap_linear(ip[k], numel);
                         dst[o] = src[dense ? i : offset_of_linear(*self, i)];
                       });
  });
}

// take(self, index): a new tensor of index's shape.
template <bool kCpu>
void take(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(1);
  Tensor out = new_on(self, index->sizes(), self->dtype());
  check_take(self, index, out);
  if (kCpu) take_into(self, index, out, c.key());
  c.ret(out);
}
// take.out(self, index, *, out): out resized to index's shape first, as upstream's.
template <bool kCpu>
void take_out(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(1), &out = c.tensor(2);
  ops::resize_out(out, index->sizes());
  check_take(self, index, out);
  if (kCpu) take_into(self, index, out, c.key());
  c.ret(out);
}

// --- put_ ------------------------------------------------------------------------------------

// put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False): self.flatten()'s
// elements at index set to (accumulate: increased by) source's, in upstream's iterator order
// over (source, index); a repeated index keeps the last source (accumulate: the sum, added in
// that order).
template <bool kCpu>
void put_(Call& c) {
  const Tensor &self = c.tensor(0), &index = c.tensor(1), &source = c.tensor(2);
  const bool accumulate = c.to_bool(3);
  if (!accumulate) alert_not_deterministic("put_");  // duplicate indices: the last write wins
  TN_CHECK(index->dtype() == ScalarType::Long, "put_(): Expected a long tensor for index, but "
           "got ", enum_name(index->dtype()));
  TN_CHECK(self->dtype() == source->dtype(), "put_(): self and source expected to have the same "
           "dtype, but got self.dtype = ", enum_name(self->dtype()), " and source.dtype = ",
           enum_name(source->dtype()));
  TN_CHECK(self->device() == source->device() && self->device() == index->device(), "put_(): "
           "self, index and source expected to be in the same device, but got self.device = ",
           self->device().str(), ", index.device = ", index->device().str(),
           ", and source.device = ", source->device().str());
  TN_CHECK_KIND(source->numel() == index->numel(), Index, "put_(): Expected source and index to "
                "have the same number of elements, but got source.numel() = ", source->numel(),
                ", index.numel() = ", index->numel());
  TN_CHECK_KIND(!(self->numel() == 0 && index->numel() != 0), Index,
                "put_(): Tried to put elements into an empty tensor");
  check_no_internal_overlap(*self);
  check_no_overlap(*self, *index);
  check_no_overlap(*self, *source);
  c.ret(self);
  if (!kCpu || index->numel() == 0) return;
  const std::string& key = c.key();
  Tensor idx = call_tensor("aten::reshape", {ops::t(index), Value::of_ints(source->sizes())});
  const int64_t numel = self->numel();
  const int64_t* ip = data_of<int64_t>(idx, key);
  const bool dense = self->is_contiguous();
  dispatch_dtype_complex32(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    T* dst = data_of<T>(self, key);
    const T* src = data_of<T>(source, key);
    walk_like_iterator(source->sizes(), {source->strides(), idx->strides()},
                       [&](int64_t s, int64_t k) {
                         int64_t i = wrap_linear(ip[k], numel);
                         T& d = dst[dense ? i : offset_of_linear(*self, i)];
                         if (!accumulate) {
                           d = src[s];
                         } else if constexpr (std::is_same_v<T, bool>) {
                           d = d || src[s];
                         } else {
                           d = T(static_cast<acc_t<T>>(d) + static_cast<acc_t<T>>(src[s]));
                         }
                       });
  });
}

// put(self, index, source, accumulate=False): upstream's composite, a clone (layout kept)
// put_ in place.
void put(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor result = ops::empty_strided(self->sizes(), preserve_strides(*self), self->dtype(),
                                     self->device());
  ops::copy_(result, self);
  c.ret(call_tensor("aten::put_", {ops::t(result), c.arg(1), c.arg(2), c.arg(3)}));
}

}  // namespace

TN_REGISTER_KERNEL("aten::take", DenseCPU, take<true>);
TN_REGISTER_KERNEL("aten::take", Meta, take<false>);
TN_REGISTER_KERNEL("aten::take.out", DenseCPU, take_out<true>);
TN_REGISTER_KERNEL("aten::take.out", Meta, take_out<false>);
TN_REGISTER_KERNEL("aten::put_", DenseCPU, put_<true>);
TN_REGISTER_KERNEL("aten::put_", Meta, put_<false>);
TN_REGISTER_COMPOSITE("aten::put", put);

}  // namespace tn
