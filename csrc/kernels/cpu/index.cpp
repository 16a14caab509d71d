// Indexing by tensors on dense CPU tensors: index_select, index.Tensor (advanced indexing) and
// index_put_ (with and without accumulate), each with a meta kernel that computes shapes only.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/copy.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

// The values of an integer tensor broadcast to shape, as int64, row-major.
std::vector<int64_t> read_indices(const Tensor& idx, const Dims& shape, const char* key) {
  std::vector<int64_t> out;
  out.reserve(numel_of(shape));
  Dims strides = broadcast_strides(*idx, shape);
  dispatch_dtype(idx->dtype(), key, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_integral_v<T>) {
      const T* p = static_cast<const T*>(idx->dense_cpu_data(key));
      for_each_offset(shape, strides, 0, [&](int64_t o) { out.push_back(int64_t(p[o])); });
    }
  });
  return out;
}

// index_select(Tensor self, int dim, Tensor index): shape rule and checks.
Dims index_select_shape(const Tensor& self, int64_t dim, const Tensor& index, int64_t* d) {
  *d = wrap_dim(dim, self->dim());
  TN_CHECK_KIND(index->dim() <= 1, Index, "index_select(): Index is supposed to be a vector");
  TN_CHECK(index->dtype() == ScalarType::Long || index->dtype() == ScalarType::Int,
           "index_select(): Expected dtype int32 or int64 for index");
  Dims shape = self->sizes();
  if (self->dim() > 0) shape[*d] = index->numel();
  return shape;
}

// Copies self's slice index[i] into the result's slice i, for each i.
void index_select_fill(const Tensor& out, const Tensor& self, int64_t d, const Tensor& index) {
  const char* key = "aten::index_select";
  auto idx = read_indices(index, index->sizes(), key);
  int64_t size = self->dim() == 0 ? 1 : self->size(d);
  // Upstream's 1-d path (index_select_out_cpu_'s vector case) raises IndexError; others its
  // RuntimeError.
  for (int64_t i : idx) {
    TN_CHECK_KIND(self->dim() > 1 || (i >= 0 && i < size), Index, "index out of range in self");
    TN_CHECK(i >= 0 && i < size, "INDICES element is out of DATA bounds, id=", i, " axis_dim=",
             size);
  }
  if (self->dim() == 0) {
    if (!idx.empty()) copy_dense_cpu(out, self, key);
    return;
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t j = idx[i];
    Dims ss = self->sizes(), st = self->strides(), os = out->strides();
    ss.erase(ss.begin() + d);
    st.erase(st.begin() + d);
    os.erase(os.begin() + d);
    Tensor src = make_view(self, ss, st, self->storage_offset() + j * self->stride(d));
    Tensor dst = make_view(out, ss, os, out->storage_offset() + int64_t(i) * out->stride(d));
    copy_dense_cpu(dst, src, key);
  }
}

void index_select_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t d;
  Dims shape = index_select_shape(self, c.to_int(1), c.tensor(2), &d);
  Tensor out = empty_tensor(shape, self->dtype(), self->device());
  index_select_fill(out, self, d, c.tensor(2));
  c.ret(out);
}
void index_select_meta(Call& c) {
  int64_t d;
  const Tensor& self = c.tensor(0);
  c.ret(empty_tensor(index_select_shape(self, c.to_int(1), c.tensor(2), &d), self->dtype(),
                     self->device()));
}
// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out): the checks and the
// resize, then on the CPU (Fill) the values; Meta's kernel is the first part.
template <bool Fill>
void index_select_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(3);
  int64_t d;
  Dims shape = index_select_shape(self, c.to_int(1), c.tensor(2), &d);
  TN_CHECK(out->dtype() == self->dtype(), "index_select(): self and result must have the same "
           "scalar type");
  // Upstream's checks of the written-to tensor, before it is resized.
  check_no_internal_overlap(*out);
  check_no_overlap(*out, *self);
  check_no_overlap(*out, *c.tensor(2));
  ops::resize_out(out, shape);
  if constexpr (Fill) index_select_fill(out, self, d, c.tensor(2));
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::index_select", DenseCPU, index_select_cpu);
TN_REGISTER_KERNEL("aten::index_select", Meta, index_select_meta);
TN_REGISTER_KERNEL("aten::index_select.out", DenseCPU, index_select_out<true>);
TN_REGISTER_KERNEL("aten::index_select.out", Meta, index_select_out<false>);

// Advanced indexing resolved against self: one long index per indexed dim (bool masks already
// turned into their nonzero coordinates), broadcast to a common shape.
struct IndexPlan {
  std::vector<Tensor> per_dim;  // self->dim() entries; null where the dim is not indexed
  Dims bshape;                  // broadcast shape of the index tensors
  Dims pre, post;               // dims of self kept before / after the indexed block
  Dims result;                  // pre sizes + bshape + post sizes
};

// Coordinates of the true elements of a bool/uint8 mask: one int64 tensor per mask dim.
std::vector<Tensor> mask_coords(const Tensor& mask, const char* key) {
  TN_CHECK_KIND(mask->representation() == Representation::DenseCPU, NotImplemented, key,
                ": boolean mask indices have a data-dependent shape; torchnative does not "
                "implement them for ", representation_name(mask->representation()), " tensors");
  std::vector<std::vector<int64_t>> coords(mask->dim());
  const uint8_t* p = static_cast<const uint8_t*>(mask->dense_cpu_data(key));
  Dims idx(mask->dim(), 0);
  for_each_offset(mask->sizes(), mask->strides(), 0, [&](int64_t o) {
    if (p[o])
      for (int64_t d = 0; d < mask->dim(); ++d) coords[d].push_back(idx[d]);
    for (int64_t d = mask->dim() - 1; d >= 0; --d) {  // advance the row-major counter
      if (++idx[d] < mask->size(d)) break;
      idx[d] = 0;
    }
  });
  std::vector<Tensor> out;
  for (auto& v : coords) {
    Tensor t = empty_tensor({int64_t(v.size())}, ScalarType::Long, Device{});
    std::copy(v.begin(), v.end(), static_cast<int64_t*>(t->dense_cpu_data(key)));
    out.push_back(t);
  }
  return out;
}

IndexPlan plan_index(const Tensor& self, const std::vector<Tensor>& indices, const char* key) {
  IndexPlan p;
  int64_t used = 0;
  for (const Tensor& t : indices) used += !t ? 1 : (t->dtype() == ScalarType::Bool ||
                                                    t->dtype() == ScalarType::Byte) ? t->dim() : 1;
  TN_CHECK_KIND(used <= self->dim(), Index, "too many indices for tensor of dimension ",
                self->dim(), " (got ", used, ")");
  p.per_dim.assign(self->dim(), Tensor());
  int64_t d = 0;
  for (const Tensor& t : indices) {
    if (!t) { ++d; continue; }
    ScalarType dt = t->dtype();
    if (dt == ScalarType::Bool || dt == ScalarType::Byte) {
      TN_CHECK_KIND(t->dim() > 0, NotImplemented, key, ": 0-dim boolean indices are not "
                    "implemented by torchnative");
      for (int64_t j = 0; j < t->dim(); ++j)
        TN_CHECK_KIND(t->size(j) == self->size(d + j), Index, "The shape of the mask ",
                      dims_str(t->sizes()), " at index ", j, " does not match the shape of the "
                      "indexed tensor ", dims_str(self->sizes()), " at index ", d + j);
      for (Tensor& coord : mask_coords(t, key)) p.per_dim[d++] = coord;
      continue;
    }
    TN_CHECK_KIND(dt == ScalarType::Long || dt == ScalarType::Int, Index,
                  "tensors used as indices must be long, int, byte or bool tensors");
    p.per_dim[d++] = t;
  }
  int64_t first = -1, last = -1;
  bool any = false, adjacent = true;
  for (int64_t k = 0; k < self->dim(); ++k) {
    if (!p.per_dim[k]) continue;
    if (!any) {
      p.bshape = p.per_dim[k]->sizes();
      first = k;
    } else {
      try {
        p.bshape = broadcast_shapes(p.bshape, p.per_dim[k]->sizes());
      } catch (const Error&) {
        std::string shapes;
        for (const Tensor& t : p.per_dim)
          if (t) shapes += (shapes.empty() ? "" : ", ") + dims_str(t->sizes());
        TN_FAIL(Index, "shape mismatch: indexing tensors could not be broadcast together with "
                "shapes ", shapes);
      }
      adjacent = adjacent && last == k - 1;
    }
    any = true;
    last = k;
  }
  TN_CHECK_KIND(any, NotImplemented, key, ": indexing with only None entries is not "
                "implemented by torchnative");
  for (int64_t k = 0; k < self->dim(); ++k) {
    if (p.per_dim[k]) continue;
    (adjacent && k < first ? p.pre : p.post).push_back(k);
  }
  for (int64_t k : p.pre) p.result.push_back(self->size(k));
  p.result.insert(p.result.end(), p.bshape.begin(), p.bshape.end());
  for (int64_t k : p.post) p.result.push_back(self->size(k));
  return p;
}

// Storage offsets (elements) in self of every result element, row-major over plan.result;
// IndexError for out-of-range indices.
std::vector<int64_t> gather_offsets(const Tensor& self, const IndexPlan& p, const char* key) {
  int64_t nb = numel_of(p.bshape);
  std::vector<int64_t> adv(nb, 0);  // (nb,): offset contributed by the indexed dims
  for (int64_t k = 0; k < self->dim(); ++k) {
    if (!p.per_dim[k]) continue;
    auto idx = read_indices(p.per_dim[k], p.bshape, key);
    int64_t size = self->size(k);
    for (int64_t b = 0; b < nb; ++b) {
      int64_t i = idx[b];
      TN_CHECK_KIND(i >= -size && i < size, Index, "index ", i, " is out of bounds for dimension ",
                    k, " with size ", size);
      adv[b] += (i < 0 ? i + size : i) * self->stride(k);
    }
  }
  auto sub = [&](const Dims& dims, Dims* sizes, Dims* strides) {
    for (int64_t k : dims) {
      sizes->push_back(self->size(k));
      strides->push_back(self->stride(k));
    }
  };
  Dims pre_sizes, pre_strides, post_sizes, post_strides;
  sub(p.pre, &pre_sizes, &pre_strides);
  sub(p.post, &post_sizes, &post_strides);
  std::vector<int64_t> out;
  out.reserve(numel_of(p.result));
  for_each_offset(pre_sizes, pre_strides, self->storage_offset(), [&](int64_t base) {
    for (int64_t b = 0; b < nb; ++b)
      for_each_offset(post_sizes, post_strides, base + adv[b],
                      [&](int64_t o) { out.push_back(o); });
  });
  return out;
}

// Base pointer of t's storage (offsets from gather_offsets already include storage_offset).
template <typename T>
T* storage_base(const Tensor& t, const char* key) {
  return static_cast<T*>(t->dense_cpu_data(key)) - t->storage_offset();
}

// index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
void index_cpu(Call& c) {
  const char* key = "aten::index.Tensor";
  const Tensor& self = c.tensor(0);
  IndexPlan p = plan_index(self, c.tensor_list(1), key);
  Tensor out = empty_tensor(p.result, self->dtype(), self->device());
  auto offs = gather_offsets(self, p, key);
  dispatch_dtype_complex32(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    const T* src = storage_base<T>(self, key);
    T* dst = static_cast<T*>(out->dense_cpu_data(key));
    for (size_t k = 0; k < offs.size(); ++k) dst[k] = src[offs[k]];
  });
  c.ret(out);
}
void index_meta(Call& c) {
  const Tensor& self = c.tensor(0);
  IndexPlan p = plan_index(self, c.tensor_list(1), "aten::index.Tensor");
  c.ret(empty_tensor(p.result, self->dtype(), self->device()));
}
TN_REGISTER_KERNEL("aten::index.Tensor", DenseCPU, index_cpu);
TN_REGISTER_KERNEL("aten::index.Tensor", Meta, index_meta);

// Checks of index_put_; returns the strides of values broadcast to the indexing result.
Dims index_put_check(const Tensor& self, const Tensor& values, const IndexPlan& p) {
  TN_CHECK(values->dtype() == self->dtype(), "Index put requires the source and destination "
           "dtypes match, got ", short_name_of(self->dtype()), " for the destination and ",
           short_name_of(values->dtype()), " for the source.");
  bool ok = values->dim() <= static_cast<int64_t>(p.result.size());
  for (int64_t i = 1; ok && i <= values->dim(); ++i) {
    int64_t v = values->size(values->dim() - i), r = p.result[p.result.size() - i];
    ok = v == 1 || v == r;
  }
  TN_CHECK(ok, "shape mismatch: value tensor of shape ", dims_str(values->sizes()),
           " cannot be broadcast to indexing result of shape ", dims_str(p.result));
  return broadcast_strides(*values, p.result);
}

// index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False): writes in
// row-major order of the indexing result, so the last duplicate wins; with accumulate, sums are
// formed serially in that order (as upstream's CPU kernel; same rounding for one thread).
void index_put_cpu(Call& c) {
  const char* key = "aten::index_put_";
  const Tensor& self = c.tensor(0);
  const Tensor& values = c.tensor(2);
  bool acc = c.to_bool(3);
  IndexPlan p = plan_index(self, c.tensor_list(1), key);
  Dims vstrides = index_put_check(self, values, p);
  auto offs = gather_offsets(self, p, key);
  dispatch_dtype_complex32(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    T* dst = storage_base<T>(self, key);
    const T* src = static_cast<const T*>(values->dense_cpu_data(key));
    size_t k = 0;
    for_each_offset(p.result, vstrides, 0, [&](int64_t o) {
      T& d = dst[offs[k++]];
      if (!acc) {
        d = src[o];
      } else if constexpr (std::is_same_v<T, bool>) {
        d = d || src[o];
      } else {
        d = static_cast<T>(static_cast<acc_t<T>>(d) + static_cast<acc_t<T>>(src[o]));
      }
    });
  });
  c.ret(self);
}
void index_put_meta(Call& c) {
  const Tensor& self = c.tensor(0);
  IndexPlan p = plan_index(self, c.tensor_list(1), "aten::index_put_");
  index_put_check(self, c.tensor(2), p);
  c.ret(self);
}
TN_REGISTER_KERNEL("aten::index_put_", DenseCPU, index_put_cpu);
TN_REGISTER_KERNEL("aten::index_put_", Meta, index_put_meta);

// _index_put_impl_(self, indices, values, accumulate=False, unsafe=False): index_put_.
void index_put_impl(Call& c) {
  c.ret(call_tensor("aten::index_put_", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)}));
}
TN_REGISTER_COMPOSITE("aten::_index_put_impl_", index_put_impl);

}  // namespace
}  // namespace tn
