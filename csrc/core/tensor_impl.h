// TensorImpl: sizes, strides and a storage offset over a shared Storage, a dtype, a
// representation, and a version counter shared by all views of one base. Pure C++, no ops.
#pragma once

#include <cstdint>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "core/intrusive.h"
#include "core/scalar_type.h"
#include "core/storage.h"

namespace tn {

using Dims = std::vector<int64_t>;

// Shared between a tensor and every view of it; bumped by each in-place write.
struct VersionCounter : RefCounted {
  std::atomic<uint32_t> version{0};
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, ScalarType dtype, Dims sizes, Dims strides, int64_t offset,
             Representation rep);

  const Storage& storage() const { return storage_; }
  ScalarType dtype() const { return dtype_; }
  Representation representation() const { return rep_; }
  Device device() const { return storage_->device(); }
  const Dims& sizes() const { return sizes_; }
  const Dims& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  int64_t storage_offset() const { return offset_; }
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return contiguous_; }
  int itemsize() const { return tn::itemsize(dtype_); }

  // The one way a kernel reaches dense CPU bytes: refuses every other representation by name.
  void* dense_cpu_data(const char* op_key) const;
  // Whether the storage still covers every element (false after storage().resize_(0)).
  bool storage_holds() const;
  // Refuses (RuntimeError naming op_key) a tensor its storage no longer covers.
  void check_storage_holds(const char* op_key) const;
  // Raw element pointer for any representation that holds bytes (used by copies between them).
  void* data_unchecked() const {
    return static_cast<char*>(storage_->data()) + offset_ * itemsize();
  }

  // Metadata changes (views are new TensorImpls; these serve set_/resize_/as_strided_).
  void set_sizes_strides(Dims sizes, Dims strides, int64_t offset);
  void set_storage(Storage s) { storage_ = std::move(s); }
  void set_dtype(ScalarType t) { dtype_ = t; }

  const Ptr<VersionCounter>& version_counter() const { return version_; }
  void share_version(const TensorImpl& base) { version_ = base.version_; }
  uint32_t version() const { return version_->version.load(); }
  void bump_version() { version_->version.fetch_add(1); }

  bool requires_grad() const { return requires_grad_; }
  void set_requires_grad(bool v) { requires_grad_ = v; }
  // A result computed from tensors that require grad is not a leaf (there is no graph yet).
  bool is_leaf() const { return is_leaf_; }
  void set_is_leaf(bool v) { is_leaf_ = v; }

  // A Python number passed where a tensor is expected (x + 1): a 0-dim tensor that takes part in
  // type promotion as a number, not as a tensor (upstream's wrapped numbers).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  // Views remember the tensor they view (upstream's _base): the root, never a view itself.
  const Ptr<TensorImpl>& view_base() const { return base_; }
  void set_view_base(Ptr<TensorImpl> b) { base_ = std::move(b); }

  // The Python object wrapping this tensor, if one is alive (kept by csrc/python, non-owning),
  // so that the same tensor always comes back as the same object.
  void* python_object() const { return pyobj_; }
  void set_python_object(void* o) { pyobj_ = o; }

 private:
  void refresh();

  Storage storage_;
  ScalarType dtype_;
  Representation rep_;
  Dims sizes_;
  Dims strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  bool contiguous_ = true;
  bool requires_grad_ = false;
  bool is_leaf_ = true;
  bool wrapped_number_ = false;
  Ptr<VersionCounter> version_;
  Ptr<TensorImpl> base_;
  void* pyobj_ = nullptr;
};

using Tensor = Ptr<TensorImpl>;

// Upstream's infer_size: the broadcast of two shapes (RuntimeError naming the clashing dim).
Dims broadcast_shapes(const Dims& a, const Dims& b);
// "[2, 3]": sizes as upstream prints them in messages.
std::string dims_str(const Dims& d);
// Size arithmetic, every product and sum checked (Note [Checked size arithmetic]).
// Contiguous (row-major) strides for sizes.
Dims contiguous_strides(const Dims& sizes);
// Product of sizes; RuntimeError "numel: integer multiplication overflow".
int64_t numel_of(const Dims& sizes);
// Bytes of a contiguous tensor; RuntimeError "Storage size calculation overflowed ...".
size_t contiguous_nbytes(const Dims& sizes, int itemsize);
// A new, uninitialised, contiguous tensor on device.
Tensor empty_tensor(const Dims& sizes, ScalarType dtype, Device device);
// A view sharing self's storage and version counter, checked against that storage.
Tensor make_view(const Tensor& self, Dims sizes, Dims strides, int64_t offset);
// The same, reinterpreting the bytes as dtype (view.dtype): checked with dtype's itemsize.
Tensor make_view(const Tensor& self, Dims sizes, Dims strides, int64_t offset, ScalarType dtype);
// Bytes needed to hold sizes/strides starting at offset (elements), times itemsize (upstream's
// computeStorageNbytes); RuntimeError "Storage size calculation overflowed ...".
size_t storage_bytes_needed(const Dims& sizes, const Dims& strides, int64_t offset, int itemsize);
// Upstream's checkInBoundsForStorage (plus its offset and negative-stride checks): RuntimeError
// "setStorage: sizes ... are out of bounds for storage of size ..." when they reach past it.
void check_in_bounds(const Dims& sizes, const Dims& strides, int64_t offset, int itemsize,
                     size_t storage_nbytes);

}  // namespace tn
