// TensorImpl and Storage definitions (see tensor_impl.h, storage.h).
#include "core/tensor_impl.h"

#include "core/backend.h"
#include "core/warning.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

namespace tn {

namespace {
// Element span [lo, hi] (relative to the storage start) of a geometry, exact in 128 bits;
// negative strides (internal views such as flip's) reach below the offset.
bool element_span(const Dims& sizes, const Dims& strides, int64_t offset, __int128* lo,
                  __int128* hi) {
  *lo = *hi = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return false;  // no elements
    __int128 span = static_cast<__int128>(sizes[d] - 1) * strides[d];
    (span < 0 ? *lo : *hi) += span;
  }
  return true;
}
}  // namespace

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

const char* device_type_name(DeviceType t) {
  switch (t) {
#define TN_DEVICE_NAME(e, name, rep_name) \
  case DeviceType::e: return name;
    TN_FORALL_BACKENDS(TN_DEVICE_NAME)
#undef TN_DEVICE_NAME
  }
  return "?";
}

bool device_type_of_name(const std::string& t, DeviceType* out) {
#define TN_DEVICE_OF_NAME(e, name, rep_name) \
  if (t == name) {                        \
    *out = DeviceType::e;                 \
    return true;                          \
  }
  TN_FORALL_BACKENDS(TN_DEVICE_OF_NAME)
#undef TN_DEVICE_OF_NAME
  return false;
}

const char* representation_name(Representation r) {
  switch (r) {
#define TN_REP_NAME(e, name, rep_name) \
  case Representation::e: return rep_name;
    TN_FORALL_BACKENDS(TN_REP_NAME)
#undef TN_REP_NAME
  }
  return "?";
}

// 64-byte alignment: what SIMD kernels and upstream's allocator give. Refuses as upstream's
// DefaultCPUAllocator does (RuntimeError, same text): a size past PTRDIFF_MAX is a negative
// number that wrapped, and a failed allocation names the bytes and errno.
bool suggests_channels_last(const TensorImpl& t) {
  int64_t nd = t.dim();
  if (nd != 4 && nd != 5) return false;
  if (t.stride(1) == 0) return false;
  // From the innermost: channels, the spatial dims from the last, then the batch.
  int64_t order[5] = {1, nd - 1, nd - 2, nd - 3, 0};
  int64_t n_order = nd == 4 ? 4 : 5;
  if (nd == 4) order[3] = 0;
  int64_t min = 0;
  for (int64_t k = 0; k < n_order; ++k) {
    int64_t d = order[k];
    if (t.size(d) == 0) return false;
    if (t.stride(d) < min) return false;
    // The batch stride equal to the channels' stride (N = 1 or C = 1 ambiguity): contiguous.
    if (d == 0 && min == t.stride(1)) return false;
    min = t.stride(d);
    if (t.size(d) > 1) min *= t.size(d);
  }
  return true;
}

Dims channels_last_strides(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t step = 1;
  strides[1] = step;
  step *= std::max<int64_t>(sizes[1], 1);
  for (size_t d = sizes.size() - 1; d >= 2; --d) {
    strides[d] = step;
    step *= std::max<int64_t>(sizes[d], 1);
  }
  strides[0] = step;
  return strides;
}

bool is_channels_last_contiguous(const TensorImpl& t) {
  int64_t nd = t.dim();
  if (nd != 4 && nd != 5) return false;
  int64_t order[5] = {1, nd - 1, nd - 2, nd - 3, 0};
  if (nd == 4) order[3] = 0;
  int64_t expected = 1;
  for (int64_t k = 0; k < nd; ++k) {
    int64_t d = order[k];
    if (t.size(d) == 1) continue;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

void* cpu_alloc(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  TN_CHECK(nbytes <= static_cast<size_t>(INT64_MAX),
           "alloc_cpu() seems to have been called with negative number: ", nbytes);
  void* p = std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
  TN_CHECK(p, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
           " bytes. Error code 12 (Cannot allocate memory)");
  return p;
}

void cpu_free(void* p) { std::free(p); }

StorageImpl::StorageImpl(size_t nbytes, Device device, bool resizable)
    : nbytes_(nbytes), device_(device), resizable_(resizable) {
  const Backend& b = backend(device.type);
  if (b.holds_bytes) {
    allocator_ = b.allocator;
    data_ = allocator_->allocate(nbytes);
  }
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, Deleter deleter,
                         bool resizable)
    : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)),
      resizable_(resizable) {}

StorageImpl::~StorageImpl() {
  if (!data_) return;
  if (allocator_)
    allocator_->release(data_, nbytes_);
  else if (deleter_)
    deleter_(data_);
}

void StorageImpl::resize(size_t nbytes) {
  TN_CHECK(resizable_, "Trying to resize storage that is not resizable");
  const Backend& b = backend(device_.type);
  if (!b.holds_bytes) {
    nbytes_ = nbytes;
    return;
  }
  void* fresh = b.allocator->allocate(nbytes);
  if (data_) {
    size_t keep = nbytes < nbytes_ ? nbytes : nbytes_;
    if (keep) copy_bytes(device_.type, fresh, device_.type, data_, keep);
    if (allocator_)
      allocator_->release(data_, nbytes_);
    else if (deleter_)
      deleter_(data_);
  }
  data_ = fresh;
  allocator_ = b.allocator;
  deleter_ = nullptr;
  nbytes_ = nbytes;
}

namespace {
thread_local bool t_inference_mode = false;
}  // namespace
bool inference_mode_enabled() { return t_inference_mode; }
void set_inference_mode(bool enabled) { t_inference_mode = enabled; }

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Dims sizes, Dims strides,
                       int64_t offset, Representation rep)
    : storage_(std::move(storage)), dtype_(dtype), rep_(rep), sizes_(std::move(sizes)),
      strides_(std::move(strides)), offset_(offset), inference_(t_inference_mode),
      version_(make<VersionCounter>()) {
  refresh();
}

AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

void TensorImpl::set_requires_grad(bool v) {
  if (!v && !autograd_) return;
  ensure_autograd_meta().requires_grad = v;
  bool keyed = v || autograd_->has_tangent;
  keys_ = keyed ? keys_ | key_bit(DispatchKey::Autograd) : keys_ & ~key_bit(DispatchKey::Autograd);
}

void TensorImpl::set_has_tangent(bool v) {
  if (!v && !autograd_) return;
  ensure_autograd_meta().has_tangent = v;
  bool keyed = v || autograd_->requires_grad;
  keys_ = keyed ? keys_ | key_bit(DispatchKey::Autograd) : keys_ & ~key_bit(DispatchKey::Autograd);
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
  refresh_span();
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

void* TensorImpl::data_of(Representation want, const char* op_key) const {
  TN_CHECK_KIND(rep_ == want, NotImplemented, op_key, " has no kernel for ",
                representation_name(rep_), " tensors of dtype ", name(dtype_));
  // A wrapper subclass's storage has a size and no bytes: its data is not there to read.
  TN_CHECK(storage_->data() || numel_ == 0 || storage_->nbytes() == 0,
           "Cannot access data pointer of Tensor that doesn't have storage (", op_key, ")");
  check_storage_holds(op_key);
  return data_unchecked();
}

void TensorImpl::refresh_span() {
  __int128 lo = 0, hi = 0;
  if (!element_span(sizes_, strides_, offset_, &lo, &hi)) {
    needed_bytes_ = 0;  // no elements: any storage holds them
    return;
  }
  __int128 end = (hi + 1) * itemsize();
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  needed_bytes_ = lo < 0 || end > static_cast<__int128>(kNever) ? kNever : static_cast<int64_t>(end);
}

// A storage resized (or set_) under a live tensor no longer holds it: refuse the bytes.
void TensorImpl::check_storage_holds(const char* op_key) const {
  if (storage_holds()) return;
  TN_FAIL(Runtime, op_key, ": the tensor's sizes ", dims_str(sizes_), ", strides ",
          dims_str(strides_), ", storage offset ", offset_, " and itemsize ", itemsize(),
          " reach past its storage of ", storage_->nbytes(), " bytes (was it resized?)");
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

// Note [Checked size arithmetic]: every product or sum of sizes, strides, offsets and itemsize
// goes through these helpers, each refusing overflow with upstream's message for its quantity
// (numel, storage bytes); a hostile shape then raises instead of wrapping to a small buffer.
Dims contiguous_strides(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    if (d == 0) break;  // the full product is no stride: its overflow is contiguous_nbytes's
    TN_CHECK(!__builtin_mul_overflow(s, sizes[d] > 1 ? sizes[d] : 1, &s),
             "Stride calculation overflowed");
  }
  return strides;
}

int64_t numel_of(const Dims& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    TN_CHECK(!__builtin_mul_overflow(n, s, &n), "numel: integer multiplication overflow");
  return n;
}

size_t contiguous_nbytes(const Dims& sizes, int itemsize) {
  uint64_t n = static_cast<uint64_t>(itemsize);
  bool overflowed = false;
  for (int64_t s : sizes) overflowed |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  TN_CHECK(!overflowed && n <= static_cast<uint64_t>(INT64_MAX),
           "Storage size calculation overflowed with sizes=", dims_str(sizes));
  return static_cast<size_t>(n);
}

// Upstream's computeStorageNbytes: the byte just past the furthest element, in uint64.
size_t storage_bytes_needed(const Dims& sizes, const Dims& strides, int64_t offset,
                            int itemsize) {
  uint64_t last = 0;
  bool overflowed = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    uint64_t span = 0;
    overflowed |= __builtin_mul_overflow(static_cast<uint64_t>(sizes[d] - 1),
                                         static_cast<uint64_t>(strides[d]), &span);
    overflowed |= __builtin_add_overflow(last, span, &last);
  }
  uint64_t n = 0;
  overflowed |= __builtin_add_overflow(last, static_cast<uint64_t>(offset) + 1, &n);
  overflowed |= __builtin_mul_overflow(n, static_cast<uint64_t>(itemsize), &n);
  TN_CHECK(!overflowed && n <= static_cast<uint64_t>(INT64_MAX),
           "Storage size calculation overflowed with sizes=", dims_str(sizes),
           " and strides=", dims_str(strides));
  return static_cast<size_t>(n);
}


void check_in_bounds(const Dims& sizes, const Dims& strides, int64_t offset, int itemsize,
                     size_t storage_nbytes) {
  TN_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  bool negative = false;
  for (int64_t s : strides) negative |= s < 0;
  size_t need = 0;
  __int128 lo = 0, hi = 0;
  if (!negative) {
    need = storage_bytes_needed(sizes, strides, offset, itemsize);  // upstream's overflow text
  } else if (element_span(sizes, strides, offset, &lo, &hi)) {
    __int128 bytes = (hi + 1) * itemsize;
    need = lo < 0 || bytes > INT64_MAX ? SIZE_MAX : static_cast<size_t>(bytes);
  }
  TN_CHECK(need <= storage_nbytes, "setStorage: sizes ", dims_str(sizes), ", strides ",
           dims_str(strides), ", storage offset ", offset, ", and itemsize ", itemsize,
           " requiring a storage size of ", need, " are out of bounds for storage of size ",
           storage_nbytes);
}

void warn_complex_half_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    warn("ComplexHalf support is experimental and many operators don't support it yet.");
  });
}

Tensor empty_tensor(const Dims& sizes, ScalarType dtype, Device device) {
  for (int64_t s : sizes)
    TN_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s);
  warn_if_complex_half(dtype);
  size_t nbytes = contiguous_nbytes(sizes, itemsize(dtype));
  Representation rep = representation_of(device.type);
  Storage st = make<StorageImpl>(nbytes, device, true);
  return make<TensorImpl>(st, dtype, sizes, contiguous_strides(sizes), 0, rep);
}

Tensor make_view(const Tensor& self, Dims sizes, Dims strides, int64_t offset) {
  return make_view(self, std::move(sizes), std::move(strides), offset, self->dtype());
}

Tensor make_view(const Tensor& self, Dims sizes, Dims strides, int64_t offset, ScalarType dtype) {
  check_in_bounds(sizes, strides, offset, itemsize(dtype), self->storage()->nbytes());
  Tensor v = make<TensorImpl>(self->storage(), dtype, std::move(sizes), std::move(strides),
                              offset, self->representation());
  v->share_version(*self);
  v->set_view_base(self->view_base() ? self->view_base() : self);
  v->copy_math_bits(*self);
  return v;
}

}  // namespace tn
