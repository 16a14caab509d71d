// nonzero(self): the indices of the non-zero elements (NaN counts), one row per element in
// row-major order, one column per dim, int64 (a 0-dim input gives n x 0); its out= form,
// nonzero_static (rows cut or filled to `size` with fill_value), argwhere and nonzero_numpy
// (the columns, as torch.nonzero(as_tuple=True) gives them), and equal. The count depends on the
// data, so Meta refuses nonzero by name, as upstream's meta does without a fake tensor mode.
#include <algorithm>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

// The row-major indices of every non-zero element of self, flattened (rows * ndim entries).
std::vector<int64_t> nonzero_indices(const Tensor& self, const std::string& key, int64_t* rows) {
  check_supported(self, key, /*allow_complex32=*/true);
  const int64_t nd = self->dim();
  std::vector<int64_t> out;
  Dims idx(static_cast<size_t>(nd), 0);
  *rows = 0;
  dispatch_dtype_complex32(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* base = data_of<T>(self, key);
    const int64_t n = self->numel();
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; ++d) off += idx[d] * self->stride(d);
      const T v = base[off];
      bool nz;
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        nz = static_cast<float>(v) != 0.f;  // NaN counts
      else if constexpr (std::is_same_v<T, chalf>)
        nz = static_cast<float>(v.real()) != 0.f || static_cast<float>(v.imag()) != 0.f;
      else
        nz = v != T(0);
      if (nz) {
        out.insert(out.end(), idx.begin(), idx.end());
        ++*rows;
      }
      for (int64_t d = nd - 1; d >= 0; --d) {  // next index, last dim fastest
        if (++idx[d] < self->size(d)) break;
        idx[d] = 0;
      }
    }
  });
  return out;
}

Tensor nonzero_of(const Tensor& self, const std::string& key) {
  int64_t rows = 0;
  std::vector<int64_t> idx = nonzero_indices(self, key, &rows);
  Tensor out = new_on(self, {rows, self->dim()}, ScalarType::Long);
  if (!idx.empty()) std::copy(idx.begin(), idx.end(), data_of<int64_t>(out, key));
  return out;
}

// nonzero(Tensor self)
void nonzero_cpu(Call& c) { c.ret(nonzero_of(c.tensor(0), c.key())); }
void nonzero_meta(Call& c) {
  TN_FAIL(NotImplemented, "aten::nonzero: the number of non-zero elements of a meta tensor is "
          "not known (its output shape depends on the data)");
  (void)c;
}
// nonzero.out(Tensor self, *, Tensor(a!) out): out must be int64.
void nonzero_out(Call& c) {
  const Tensor& out = c.tensor(1);
  TN_CHECK(out->dtype() == ScalarType::Long, "nonzero: Expected out tensor to have scalar type "
           "Long but got scalar type", enum_name(out->dtype()));
  Tensor r = nonzero_of(c.tensor(0), c.key());
  ops::resize_out(out, r->sizes());
  ops::copy_(out, r);
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::nonzero", DenseCPU, nonzero_cpu);
TN_REGISTER_KERNEL("aten::nonzero", Meta, nonzero_meta);
TN_REGISTER_KERNEL("aten::nonzero.out", DenseCPU, nonzero_out);

// nonzero_static(self, *, size, fill_value=-1) and its out=: nonzero's first `size` rows, the
// rest filled with fill_value; [size, self.dim()] int64. Meta gives the shape alone.
void check_static_size(int64_t size) {
  TN_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
}
template <bool kMeta>
void nonzero_static_into(const Tensor& out, const Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t size = c.to_int(1), fill = c.to_int(2);
  TN_CHECK(self->numel() < int64_t(2147483647), "nonzero_static is not supported for tensors "
           "with more than INT_MAX elements, See https://github.com/pytorch/pytorch/issues/51871");
  check_static_size(size);
  TN_CHECK(out->dtype() == ScalarType::Long, "nonzero_static: Expected out tensor to have scalar "
           "type Long but got scalar type", enum_name(out->dtype()));
  const Dims shape{size, self->dim()};
  if (out->sizes() != shape) ops::resize_out(out, shape);
  if (kMeta || out->numel() == 0) return;
  int64_t rows = 0;
  std::vector<int64_t> idx = nonzero_indices(self, c.key(), &rows);
  const int64_t kept = std::min(size, rows), nd = self->dim();
  int64_t* o = data_of<int64_t>(out, c.key());
  for (int64_t r = 0; r < size; ++r)
    for (int64_t d = 0; d < nd; ++d)
      o[r * out->stride(0) + d * out->stride(1)] = r < kept ? idx[size_t(r * nd + d)] : fill;
}
template <bool kMeta>
void nonzero_static(Call& c) {
  check_static_size(c.to_int(1));
  Tensor out = new_on(c.tensor(0), {c.to_int(1), c.tensor(0)->dim()}, ScalarType::Long);
  nonzero_static_into<kMeta>(out, c);
  c.ret(out);
}
template <bool kMeta>
void nonzero_static_out(Call& c) {
  nonzero_static_into<kMeta>(c.tensor(3), c);
  c.ret(c.tensor(3));
}
TN_REGISTER_KERNEL("aten::nonzero_static", DenseCPU, nonzero_static<false>);
TN_REGISTER_KERNEL("aten::nonzero_static", Meta, nonzero_static<true>);
TN_REGISTER_KERNEL("aten::nonzero_static.out", DenseCPU, nonzero_static_out<false>);
TN_REGISTER_KERNEL("aten::nonzero_static.out", Meta, nonzero_static_out<true>);

// argwhere(self): nonzero.
void argwhere(Call& c) { c.ret(call_tensor("aten::nonzero", {c.arg(0)})); }
TN_REGISTER_COMPOSITE("aten::argwhere", argwhere);

// nonzero_numpy(self): nonzero's columns (a 0-dim input as if 1-d).
void nonzero_numpy(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor x = self->dim() == 0 ? call_tensor("aten::unsqueeze", {t(self), Value::of_int(0)}) : self;
  Tensor nz = call_tensor("aten::nonzero", {t(x)});
  c.ret(call("aten::unbind.int", {t(nz), Value::of_int(1)})[0]);
}
TN_REGISTER_COMPOSITE("aten::nonzero_numpy", nonzero_numpy);
// where(condition): nonzero_numpy(condition), as upstream's composite.
TN_REGISTER_COMPOSITE("aten::where", nonzero_numpy);

// equal(self, other) -> bool: the same sizes and every element equal in the common dtype (NaN
// equals nothing, even itself: upstream's same-view fast path still looks for NaN). Devices
// must match.
void equal(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  TN_CHECK(a->device() == b->device(), "Cannot compare two tensors on different devices. Got: ",
           a->device().str(), " and ", b->device().str());
  if (a->sizes() != b->sizes()) return c.ret(Value::of_bool(false));
  TN_CHECK_KIND(a->dtype() != ScalarType::ComplexHalf, NotImplemented,
                "\"equal_notnan_cpu\" not implemented for 'ComplexHalf'");  // upstream's kernel
  Tensor same = call_tensor("aten::eq.Tensor", {t(a), t(b)});
  Tensor all = call_tensor("aten::all", {t(same)});
  c.ret(Value::of_bool(call("aten::_local_scalar_dense", {t(all)})[0].scalar.to_int() != 0));
}
TN_REGISTER_KERNEL("aten::equal", DenseCPU, equal);

}  // namespace
}  // namespace tn
