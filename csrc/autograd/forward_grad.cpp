// Forward-mode AD's state: the one dual level, the tangents made in it (each held by its
// tensor's ForwardGrad and listed by the level, so exiting drops them all), and upstream's
// layout rules for tangents of views and of tensors written in place.
#include "autograd/forward_grad.h"

#include <mutex>
#include <unordered_set>
#include <vector>

#include "dispatch/kernel.h"
#include "dispatch/keys.h"

namespace tn::autograd {

std::atomic<bool> g_dual_level_live{false};

namespace {

class ForwardGrad;

// The level's list, under one mutex as upstream's (levels are process-wide, not per thread).
std::mutex g_mutex;
std::unordered_set<ForwardGrad*> g_grads;
bool g_level = false;
thread_local bool t_fw_grad_mode = true;
// Whether entering the level added the Autograd key to this thread's calls (so that every
// call reaches the tangent recording, views that read their base's tangent included).
thread_local bool t_included_autograd = false;

// A tensor's tangent holder (AutogradMeta::fw_grad). Owned by that tensor's meta; the level
// lists it while it holds a tangent, and it leaves the list when its tensor dies.
class ForwardGrad final : public RefCounted {
 public:
  explicit ForwardGrad(TensorImpl* owner) : owner_(owner) {}
  ~ForwardGrad() override {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_grads.erase(this);
  }
  const Tensor& tangent() const { return tangent_; }
  void set(Tensor tangent) {
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      TN_CHECK(g_level, "Trying to access a forward AD level with an invalid index. This index "
               "was either not created or is already deleted.");
      g_grads.insert(this);
      tangent_ = std::move(tangent);
    }
    owner_->set_has_tangent(true);
  }
  // Called by the level's exit, under its mutex: hands the tangent over to be freed outside it.
  Tensor take() {
    owner_->set_has_tangent(false);
    return std::move(tangent_);
  }
  bool not_forward_view = false;

 private:
  TensorImpl* owner_;
  Tensor tangent_;
};

ForwardGrad* holder_of(const TensorImpl& t) {
  AutogradMeta* m = t.autograd_meta();
  return m && m->fw_grad ? static_cast<ForwardGrad*>(m->fw_grad.get()) : nullptr;
}

ForwardGrad& ensure_holder(const Tensor& t) {
  AutogradMeta& m = t->ensure_autograd_meta();
  if (!m.fw_grad) m.fw_grad = make<ForwardGrad>(t.get());
  return *static_cast<ForwardGrad*>(m.fw_grad.get());
}

// Upstream's has_same_meta: the same sizes, storage offset, and strides where a dim's size
// is not one.
bool same_layout(const TensorImpl& a, const TensorImpl& b) {
  if (a.storage_offset() != b.storage_offset() || a.dim() != b.dim()) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) return false;
    if (a.stride(d) != b.stride(d) && a.size(d) != 1) return false;
  }
  return true;
}

Tensor as_strided(const Tensor& t, const Dims& sizes, const Dims& strides, int64_t offset) {
  return call_tensor("aten::as_strided", {Value::of(t), Value::of_ints(sizes),
                                          Value::of_ints(strides), Value::of_int(offset)});
}

// Upstream's _new_zeros_with_same_feature_meta: zeros of like's dtype laid out as `self`
// (the same sizes, strides and storage offset over a storage as long as self's).
Tensor zeros_laid_out_as(const Tensor& like, const Tensor& self) {
  int64_t n = static_cast<int64_t>(self->storage()->nbytes()) / self->itemsize();
  Tensor flat = call_tensor("aten::zeros", {Value::of_ints(Dims{n}), Value::of_dtype(like->dtype()),
                                            Value{}, Value::of_device(like->device())});
  return as_strided(flat, self->sizes(), self->strides(), self->storage_offset());
}

// The view `view` of `base`, taken of base's tangent (laid out as base).
Tensor view_of_tangent(const Tensor& view, const Tensor& base, const Tensor& base_t) {
  int64_t offset = view->storage_offset() - base->storage_offset() + base_t->storage_offset();
  return as_strided(base_t, view->sizes(), view->strides(), offset);
}

void check_level(int64_t level) {
  TN_CHECK(level == 0 && g_level, "Trying to access a forward AD level with an invalid index. "
           "This index was either not created or is already deleted.");
}

}  // namespace

int64_t enter_dual_level() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    TN_CHECK(!g_level, "Nested forward mode AD is not supported at the moment");
    g_level = true;
  }
  g_dual_level_live.store(true, std::memory_order_relaxed);
  LocalKeys& keys = local_keys();
  t_included_autograd = !(keys.included & key_bit(DispatchKey::Autograd));
  keys.included |= key_bit(DispatchKey::Autograd);
  return 0;
}

void exit_dual_level(int64_t level) {
  std::vector<Tensor> dropped;  // freed after the lock: a tangent's death takes it again
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    TN_CHECK(g_level && level == 0, "Exiting a forward AD level that is not the last that was "
             "created is not support. Ensure they are released in the reverse order they were "
             "created.");
    for (ForwardGrad* g : g_grads) dropped.push_back(g->take());
    g_grads.clear();
    g_level = false;
  }
  g_dual_level_live.store(false, std::memory_order_relaxed);
  if (t_included_autograd) local_keys().included &= ~key_bit(DispatchKey::Autograd);
  t_included_autograd = false;
}

bool fw_grad_mode_enabled() { return t_fw_grad_mode; }
void set_fw_grad_mode(bool enabled) { t_fw_grad_mode = enabled; }

Tensor fw_grad(const Tensor& t, int64_t level) {
  if (!t || level != 0 || !t_fw_grad_mode || !dual_level_live()) return Tensor();
  ForwardGrad* h = holder_of(*t);
  if (h && h->tangent()) return h->tangent();
  if (h && h->not_forward_view) return Tensor();
  const Tensor& base = t->view_base();
  if (!base || !is_floating(t->dtype())) return Tensor();
  ForwardGrad* bh = holder_of(*base);
  if (!bh || !bh->tangent()) return Tensor();
  Tensor v = view_of_tangent(t, base, bh->tangent());
  ensure_holder(t).set(v);
  return v;
}

void set_fw_grad(const Tensor& t, const Tensor& tangent_in, int64_t level, bool in_place) {
  TN_CHECK(!fw_grad(tangent_in, level), "Setting a forward grad that itself has a forward "
           "gradient at the same level", level, " is not supported.");
  TN_CHECK((is_floating(tangent_in->dtype()) || info(tangent_in->dtype()).is_complex) &&
               (is_floating(t->dtype()) || info(t->dtype()).is_complex),
           "Expected both tensor and its forward grad to be floating point or complex");
  // The forward formulas are written for real tensors (reverse mode's complex ones are in
  // derivatives/; forward mode's conjugations are not).
  TN_CHECK_KIND(!is_complex(tangent_in->dtype()) && !is_complex(t->dtype()), NotImplemented,
                "forward-mode AD of complex tensors is not implemented by torchnative (a ",
                name(is_complex(t->dtype()) ? t->dtype() : tangent_in->dtype()),
                " tangent or primal)");
  check_level(level);
  ForwardGrad& h = ensure_holder(t);
  if (h.tangent()) {
    TN_CHECK_KIND(in_place && h.tangent() == tangent_in, Internal,
                  "Cannot set a value of a forward grad if it already exists. Inplace "
                  "operations should modify it inplace.");
    return;
  }
  TN_CHECK(t->sizes() == tangent_in->sizes(), "Trying to set a forward gradient that has a "
           "different size than that of the original Tensor, this is not supported. Tensor is "
           "of size ", dims_str(t->sizes()), " while the given forward gradient is of size ",
           dims_str(tangent_in->sizes()), ".");
  Tensor tangent = tangent_in;
  const Tensor& base = t->view_base();
  if (in_place && base && !h.not_forward_view && !fw_grad(base, level)) {
    // Upstream's case 4: the base gets a tangent of zeros and t's is the view of it.
    Tensor base_t;
    if (same_layout(*tangent, *base) && same_layout(*tangent, *t)) {
      base_t = tangent;
    } else {
      base_t = zeros_laid_out_as(tangent, base);
      Tensor v = view_of_tangent(t, base, base_t);
      call("aten::copy_", {Value::of(v), Value::of(tangent)});
      tangent = v;
    }
    set_fw_grad(base, base_t, level, false);
  }
  if (!same_layout(*tangent, *t)) {
    Tensor laid = zeros_laid_out_as(tangent, t);
    call("aten::copy_", {Value::of(laid), Value::of(tangent)});
    tangent = laid;
  }
  h.set(tangent);
}

void set_not_forward_view(const Tensor& t) { ensure_holder(t).not_forward_view = true; }

}  // namespace tn::autograd
