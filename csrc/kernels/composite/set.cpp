// set_: make a tensor look at another storage (or another tensor's storage) with given sizes,
// strides and offset. Metadata only, so valid for every representation (torch.load and
// safetensors build tensors this way).
#include "dispatch/kernel.h"

namespace tn {
namespace {

void set_storage(const Tensor& self, const Storage& st, int64_t offset, Dims sizes, Dims strides,
                 const std::string& key) {
  TN_CHECK(offset >= 0, key, ": Tensor: invalid storage offset ", offset);
  if (strides.empty()) strides = contiguous_strides(sizes);
  TN_CHECK(strides.size() == sizes.size(), key, ": mismatch in length of strides and shape");
  for (int64_t s : sizes) TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s);
  // Upstream grows the storage to what a new geometry needs (resize_impl_cpu_); one that is
  // not resizable (a checkpoint's record, a numpy array's memory) refuses there. When the
  // geometry is self's own, upstream resizes nothing and checks the bounds instead.
  size_t need = storage_bytes_needed(sizes, strides, offset, self->itemsize());
  bool same_geometry = sizes == self->sizes() && strides == self->strides();
  if (need > st->nbytes() && !same_geometry) st->resize(need);
  check_in_bounds(sizes, strides, offset, self->itemsize(), st->nbytes());
  Representation rep = representation_of(st->device().type);
  TN_CHECK(rep == self->representation(), key, ": storage on ", st->device().str(),
           " cannot back a tensor on ", self->device().str());
  self->set_storage(st);
  self->set_sizes_strides(std::move(sizes), std::move(strides), offset);
}

// set_.source_Storage(Tensor(a!) self, Storage source)
void set_source_storage(Call& c) {
  const Tensor& self = c.tensor(0);
  const Storage& st = c.arg(1).storage;
  int64_t n = static_cast<int64_t>(st->nbytes()) / self->itemsize();
  set_storage(self, st, 0, {n}, {1}, c.key());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::set_.source_Storage", set_source_storage);

// set_.source_Storage_storage_offset(self, Storage source, SymInt storage_offset,
//                                    SymInt[] size, SymInt[] stride=[])
void set_source_storage_offset(Call& c) {
  const Tensor& self = c.tensor(0);
  set_storage(self, c.arg(1).storage, c.to_int(2), c.int_list(3), c.int_list(4), c.key());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::set_.source_Storage_storage_offset", set_source_storage_offset);

// set_.source_Tensor(Tensor(a!) self, Tensor source)
void set_source_tensor(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& src = c.tensor(1);
  TN_CHECK(self->dtype() == src->dtype(), c.key(), ": expected source of dtype ",
           name(self->dtype()), " but got ", name(src->dtype()));
  set_storage(self, src->storage(), src->storage_offset(), src->sizes(), src->strides(),
              c.key());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::set_.source_Tensor", set_source_tensor);

// set_(Tensor(a!) self): an empty tensor on a fresh storage.
void set_empty(Call& c) {
  const Tensor& self = c.tensor(0);
  set_storage(self, make<StorageImpl>(0, self->device(), true), 0, {0}, {1}, c.key());
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::set_", set_empty);

}  // namespace
}  // namespace tn
