// TensorImpl and Storage definitions (see tensor_impl.h, storage.h).
#include "core/tensor_impl.h"

#include <cstdlib>
#include <cstring>

namespace tn {

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::Meta: return "meta";
  }
  return "?";
}

const char* representation_name(Representation r) {
  switch (r) {
    case Representation::DenseCPU: return "dense CPU";
    case Representation::Meta: return "Meta";
  }
  return "?";
}

// 64-byte alignment: what SIMD kernels and upstream's allocator give.
void* cpu_alloc(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  void* p = std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
  TN_CHECK_KIND(p, OutOfMemory, "torchnative: CPU allocation of ", nbytes, " bytes failed");
  return p;
}

void cpu_free(void* p) { std::free(p); }

StorageImpl::StorageImpl(size_t nbytes, Device device, bool resizable)
    : nbytes_(nbytes), device_(device), resizable_(resizable) {
  if (device.type == DeviceType::CPU) {
    data_ = cpu_alloc(nbytes);
    deleter_ = cpu_free;
  }
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, Deleter deleter,
                         bool resizable)
    : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)),
      resizable_(resizable) {}

StorageImpl::~StorageImpl() {
  if (data_ && deleter_) deleter_(data_);
}

void StorageImpl::resize(size_t nbytes) {
  TN_CHECK(resizable_, "Trying to resize storage that is not resizable");
  if (device_.type == DeviceType::Meta) {
    nbytes_ = nbytes;
    return;
  }
  void* fresh = cpu_alloc(nbytes);
  if (data_) {
    std::memcpy(fresh, data_, nbytes < nbytes_ ? nbytes : nbytes_);
    if (deleter_) deleter_(data_);
  }
  data_ = fresh;
  deleter_ = cpu_free;
  nbytes_ = nbytes;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Dims sizes, Dims strides,
                       int64_t offset, Representation rep)
    : storage_(std::move(storage)), dtype_(dtype), rep_(rep), sizes_(std::move(sizes)),
      strides_(std::move(strides)), offset_(offset), version_(make<VersionCounter>()) {
  refresh();
}

void TensorImpl::set_sizes_strides(Dims sizes, Dims strides, int64_t offset) {
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  offset_ = offset;
  refresh();
}

// Recomputes numel and contiguity (size-1 dims may carry any stride, as upstream).
void TensorImpl::refresh() {
  numel_ = numel_of(sizes_);
  contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      contiguous_ = false;
      return;
    }
    expected *= sizes_[d];
  }
}

void* TensorImpl::dense_cpu_data(const char* op_key) const {
  TN_CHECK_KIND(rep_ == Representation::DenseCPU, NotImplemented, op_key,
                " has no kernel for ", representation_name(rep_), " tensors of dtype ",
                name(dtype_));
  return data_unchecked();
}

Dims broadcast_shapes(const Dims& a, const Dims& b) {
  size_t n = a.size() > b.size() ? a.size() : b.size();
  Dims out(n);
  for (size_t k = 0; k < n; ++k) {  // k counts from the last dimension
    int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    TN_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x,
             ") must match the size of tensor b (", y, ") at non-singleton dimension ",
             n - 1 - k);
    out[n - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

std::string dims_str(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

Dims contiguous_strides(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return strides;
}

int64_t numel_of(const Dims& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

size_t storage_bytes_needed(const Dims& sizes, const Dims& strides, int64_t offset,
                            int itemsize) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return static_cast<size_t>(offset + last + 1) * itemsize;
}

Tensor empty_tensor(const Dims& sizes, ScalarType dtype, Device device) {
  for (int64_t s : sizes)
    TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s);
  size_t nbytes = static_cast<size_t>(numel_of(sizes)) * itemsize(dtype);
  Representation rep =
      device.type == DeviceType::Meta ? Representation::Meta : Representation::DenseCPU;
  Storage st = make<StorageImpl>(nbytes, device, true);
  return make<TensorImpl>(st, dtype, sizes, contiguous_strides(sizes), 0, rep);
}

Tensor make_view(const Tensor& self, Dims sizes, Dims strides, int64_t offset) {
  Tensor v = make<TensorImpl>(self->storage(), self->dtype(), std::move(sizes),
                              std::move(strides), offset, self->representation());
  v->share_version(*self);
  v->set_view_base(self->view_base() ? self->view_base() : self);
  return v;
}

}  // namespace tn
