// TensorImpl: sizes, strides and a storage offset over a shared Storage, a dtype, a
// representation, and a version counter shared by all views of one base. Pure C++, no ops.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/device.h"
#include "core/dims.h"
#include "core/dispatch_key.h"
#include "core/error.h"
#include "core/intrusive.h"
#include "core/scalar_type.h"
#include "core/storage.h"

namespace tn {

// Shared between a tensor and every view of it; bumped by each in-place write.
struct VersionCounter : RefCounted {
  std::atomic<uint32_t> version{0};
};

class TensorImpl;

// Autograd's state of one tensor (upstream's AutogradMeta): absent until the tensor requires
// grad or is given a grad. csrc/autograd reads and writes it; the graph node type is that
// layer's, held here opaquely.
struct AutogradMeta {
  bool requires_grad = false;
  bool is_leaf = true;       // false for results computed from tensors that require grad
  bool retains_grad = false;
  bool has_hooks = false;    // a leaf with register_hook hooks (csrc/python keeps them)
  bool has_post_accumulate_hooks = false;  // register_post_accumulate_grad_hook (csrc/python)
  Ptr<TensorImpl> grad;      // .grad (None when null)
  Ptr<RefCounted> grad_fn;   // the node that made it (csrc/autograd/node.h); null for leaves
  int output_nr = 0;         // which of grad_fn's forward outputs it is
  // A leaf's AccumulateGrad node, non-owning: the node owns the leaf, and clears this when it
  // dies (upstream's weak grad_accumulator_), so every use of a leaf shares one node.
  RefCounted* grad_accumulator = nullptr;
  // A view's: the version its grad_fn was made at. When the shared counter has moved on (an
  // in-place write into its base or another view of it), the grad_fn is made again from the
  // base's history (csrc/autograd/view_history.cpp), as upstream's views regenerate theirs.
  uint32_t view_version = 0;
  // Forward-mode AD (csrc/autograd/forward_grad.h): the tangent's holder, opaque here, and
  // whether it holds one now (a dual tensor takes the Autograd key, as one requiring grad does).
  Ptr<RefCounted> fw_grad;
  bool has_tangent = false;
};

// Inference mode (torch.inference_mode), per thread. Tensors made while it is on are inference
// tensors (TensorImpl::is_inference); the autograd layer records nothing while it is on.
bool inference_mode_enabled();
void set_inference_mode(bool enabled);

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

  // The one way a kernel reaches a back end's bytes: refuses every other representation by
  // name (a CPU kernel cannot be handed another device's pointer), and a tensor its storage
  // does not cover (check_storage_holds).
  void* data_of(Representation want, const char* op_key) const;
  void* dense_cpu_data(const char* op_key) const { return data_of(Representation::DenseCPU, op_key); }
  // Whether the storage still covers every element (false after storage().resize_(0)): the
  // bytes the geometry reaches are worked out when it changes, so the check costs a compare.
  bool storage_holds() const {
    return static_cast<uint64_t>(needed_bytes_) <= storage_->nbytes();
  }
  // Refuses (RuntimeError naming op_key) a tensor its storage no longer covers.
  void check_storage_holds(const char* op_key) const;
  // Raw element pointer for any representation that holds bytes (the back-end contract's copies).
  void* data_unchecked() const {
    return static_cast<char*>(storage_->data()) + offset_ * itemsize();
  }

  // Metadata changes (views are new TensorImpls; these serve set_/resize_/as_strided_).
  void set_sizes_strides(Dims sizes, Dims strides, int64_t offset);
  void set_storage(Storage s) { storage_ = std::move(s); }
  // `x.data = y` across dense devices (nn.Module.to): the storage and its representation change.
  void set_representation(Representation r) { rep_ = r; }
  void set_dtype(ScalarType t) {
    dtype_ = t;
    refresh_span();
  }

  const Ptr<VersionCounter>& version_counter() const { return version_; }
  // Shares base's version counter (and, as upstream's views do, whether it is an inference
  // tensor).
  void share_version(const TensorImpl& base) {
    version_ = base.version_;
    inference_ = base.inference_;
  }
  uint32_t version() const { return version_->version.load(); }
  void bump_version() { version_->version.fetch_add(1); }

  // Autograd's state (null until needed; csrc/autograd/autograd_state.h is its interface).
  AutogradMeta* autograd_meta() const { return autograd_.get(); }
  AutogradMeta& ensure_autograd_meta();
  bool requires_grad() const { return autograd_ && autograd_->requires_grad; }
  bool is_leaf() const { return !autograd_ || autograd_->is_leaf; }
  // Sets the flag and the Autograd key this tensor adds to every call it takes part in.
  void set_requires_grad(bool v);
  // Sets AutogradMeta::has_tangent (forward AD's), keeping the Autograd key while either holds.
  void set_has_tangent(bool v);

  // The keys beyond its back end's that this tensor adds to each call's key set (Autograd when
  // it requires grad, Python when it is a __torch_dispatch__ subclass).
  KeySet key_set() const { return keys_; }
  void set_python_dispatch(bool v) {
    keys_ = v ? keys_ | key_bit(DispatchKey::Python) : keys_ & ~key_bit(DispatchKey::Python);
  }
  // Upstream's math bits: a conjugate view (x.conj() of a complex tensor) reads as the
  // conjugate of its bytes, a negative view as their negation. Each adds its layer's key; ops
  // that do not handle the bit see the tensor resolved there (kernels/views/math_bits.cpp).
  bool is_conj() const { return (keys_ & key_bit(DispatchKey::Conjugate)) != 0; }
  bool is_neg() const { return (keys_ & key_bit(DispatchKey::Negative)) != 0; }
  void set_conj(bool v) { set_key(DispatchKey::Conjugate, v); }
  void set_neg(bool v) { set_key(DispatchKey::Negative, v); }
  // Copies the math bits of `from` (views share their base's reading of the bytes).
  void copy_math_bits(const TensorImpl& from) {
    constexpr KeySet kBits = key_bit(DispatchKey::Conjugate) | key_bit(DispatchKey::Negative);
    keys_ = static_cast<KeySet>((keys_ & ~kBits) | (from.keys_ & kBits));
  }

  // A Python number passed where a tensor is expected (x + 1): a 0-dim tensor that takes part in
  // type promotion as a number, not as a tensor (upstream's wrapped numbers).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  // An inference tensor: made while inference mode was on (not a view of a normal tensor).
  // Upstream's: it keeps no version counter, refuses in-place updates and requires_grad=True
  // outside inference mode, and cannot be saved for backward.
  bool is_inference() const { return inference_; }

  // Views remember the tensor they view (upstream's _base): the root, never a view itself.
  const Ptr<TensorImpl>& view_base() const { return base_; }
  void set_view_base(Ptr<TensorImpl> b) { base_ = std::move(b); }

  // The Python object wrapping this tensor, if one is alive (kept by csrc/python, non-owning),
  // so that the same tensor always comes back as the same object.
  void* python_object() const { return pyobj_; }
  void set_python_object(void* o) { pyobj_ = o; }

 private:
  void set_key(DispatchKey k, bool v) {
    keys_ = static_cast<KeySet>(v ? keys_ | key_bit(k) : keys_ & ~key_bit(k));
  }
  void refresh();
  void refresh_span();

  Storage storage_;
  ScalarType dtype_;
  Representation rep_;
  Dims sizes_;
  Dims strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  int64_t needed_bytes_ = 0;  // storage bytes the elements reach; int64 max when never held
  bool contiguous_ = true;
  bool wrapped_number_ = false;
  bool inference_;
  KeySet keys_ = 0;
  std::unique_ptr<AutogradMeta> autograd_;
  Ptr<VersionCounter> version_;
  Ptr<TensorImpl> base_;
  void* pyobj_ = nullptr;
};

using Tensor = Ptr<TensorImpl>;

// Upstream's infer_size: the broadcast of two shapes (RuntimeError naming the clashing dim).
Dims broadcast_shapes(const Dims& a, const Dims& b);
// "[2, 3]": sizes as upstream prints them in messages.
std::string dims_str(const Dims& d);
// Upstream's suggest_memory_format() is channels_last (or channels_last_3d) for t: a 4-d (5-d)
// tensor whose strides order the channels innermost, then the spatial dims, then the batch
// (c10's is_channels_last_strides_2d/3d, ambiguous layouts resolved as upstream's are).
bool suggests_channels_last(const TensorImpl& t);
// Channels-last strides for 4-d (5-d) sizes: C innermost, then the spatial dims from the last,
// then N (c10's get_channels_last_strides_2d/3d; a size of 0 steps as 1).
Dims channels_last_strides(const Dims& sizes);
// t.is_contiguous(memory_format=channels_last(_3d)): the strides of its dims of size > 1 are
// channels_last_strides' (c10's compute_channels_last_contiguous_2d/3d); false for other ranks.
bool is_channels_last_contiguous(const TensorImpl& t);

// Size arithmetic, every product and sum checked (Note [Checked size arithmetic]).
// Contiguous (row-major) strides for sizes.
Dims contiguous_strides(const Dims& sizes);
// Product of sizes; RuntimeError "numel: integer multiplication overflow".
int64_t numel_of(const Dims& sizes);
// Bytes of a contiguous tensor; RuntimeError "Storage size calculation overflowed ...".
size_t contiguous_nbytes(const Dims& sizes, int itemsize);
// A new, uninitialised, contiguous tensor on device.
Tensor empty_tensor(const Dims& sizes, ScalarType dtype, Device device);
// Upstream's TORCH_WARN_ONCE at every complex32 allocation (empty_tensor, empty_strided, the
// elementwise outputs call it): one comparison inline, the warning out of line.
void warn_complex_half_once();
inline void warn_if_complex_half(ScalarType dtype) {
  if (dtype == ScalarType::ComplexHalf) warn_complex_half_once();
}
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
