// Saved tensors (see saved_variable.h), with upstream's SavedVariable semantics: under hooks,
// no version check (the hooks own the bytes) and the pack hook must not change its input.
#include "autograd/saved_variable.h"

#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

std::unique_ptr<PackedTensor> (*g_default_packer)(const Tensor&) = nullptr;
thread_local bool t_default_hooks = false;

// Runs pack on t under no_grad, refusing a pack hook that writes into t.
std::unique_ptr<PackedTensor> pack_checked(const Tensor& t,
                                           const std::function<std::unique_ptr<PackedTensor>(
                                               const Tensor&)>& pack) {
  GradModeGuard no_grad(false);
  uint32_t before = t->version();
  std::unique_ptr<PackedTensor> p = pack(t);
  TN_CHECK(t->version() == before, "A saved tensor pack hook is modifying its input in place. "
           "Tensors provided as input to pack hook cannot be modified by in-place operations "
           "as this can lead to unexpected side-effects. Please open an issue if you need to "
           "perform in-place operations on the input to a pack hook.");
  return p;
}

}  // namespace

void set_default_packer(std::unique_ptr<PackedTensor> (*packer)(const Tensor& t)) {
  g_default_packer = packer;
}
void set_default_hooks_active(bool active) { t_default_hooks = active; }

SavedVariable::SavedVariable(const Tensor& t, bool is_output, int output_nr) {
  if (!t) return;
  TN_CHECK(!t->is_inference(), "Inference tensors cannot be saved for backward. Please do not "
           "use Tensors created in inference mode in computation tracked by autograd. To work "
           "around this, you can make a clone to get a normal tensor and use it in autograd, or "
           "use `torch.no_grad()` instead of `torch.inference_mode()`.");
  none_ = false;
  version_ = t->version();
  is_output_ = is_output;
  is_leaf_ = t->is_leaf();
  requires_grad_ = t->requires_grad();
  const AutogradMeta* m = t->autograd_meta();
  output_nr_ = is_output ? output_nr : (m ? m->output_nr : 0);
  if (t_default_hooks && g_default_packer) {
    if (is_leaf_) {
      if (requires_grad_) grad_accumulator_ = gradient_edge(t).fn;
    } else if (!is_output) {
      grad_fn_ = m->grad_fn;
    }
    packed_ = pack_checked(t, g_default_packer);
    if (packed_) return;
    grad_fn_ = nullptr;
    grad_accumulator_ = nullptr;
  }
  data_ = is_output ? alias_without_history(t) : t;
}

Tensor SavedVariable::unpack(Node* saved_for, bool with_history) const {
  if (none_) return Tensor();
  TN_CHECK(!released_ && (data_ || packed_), kSavedFreed);
  if (!packed_) {
    const Node* by = is_output_ ? saved_for : grad_fn_of(*data_);
    const AutogradMeta* m = data_->autograd_meta();
    check_saved_version(data_, version_, by,
                        is_output_ ? output_nr_ : (m ? m->output_nr : 0));
    if (!is_output_ || !with_history || !requires_grad_ || !saved_for) return data_;
    Tensor a = alias_without_history(data_);
    a->set_requires_grad(true);
    AutogradMeta& am = a->ensure_autograd_meta();
    am.is_leaf = false;
    am.grad_fn = Ptr<RefCounted>(saved_for);
    am.output_nr = output_nr_;
    return a;
  }
  Tensor d = packed_->unpack();
  Ptr<RefCounted> fn;
  if (!is_leaf_) {
    fn = is_output_ ? Ptr<RefCounted>(saved_for) : grad_fn_;
    TN_CHECK(fn || saved_for, "Trying to use a saved tensor that has been detached in-place, "
             "i.e. with .detach_().This is not supported, please use out-of-place `.detach()` "
             "instead");
    if (!fn) fn = Ptr<RefCounted>(saved_for);
  }
  if (!fn && !requires_grad_ && !d->requires_grad()) return d;
  if (is_output_ && !with_history && !d->requires_grad()) return d;
  // The unpacked bytes with the saved tensor's history (upstream's make_variable).
  Tensor v = alias_without_history(d);
  if (fn) {
    v->set_requires_grad(true);
    AutogradMeta& am = v->ensure_autograd_meta();
    am.is_leaf = false;
    am.grad_fn = std::move(fn);
    am.output_nr = output_nr_;
  } else if (requires_grad_) {
    v->set_requires_grad(true);
    v->ensure_autograd_meta().grad_accumulator = grad_accumulator_.get();
  }
  return v;
}

void SavedVariable::release() {
  data_ = Tensor();
  packed_.reset();
  grad_fn_ = nullptr;
  grad_accumulator_ = nullptr;
  released_ = true;
}

void SavedVariable::register_hooks(const Packer& pack) {
  TN_CHECK(!packed_, "Calling register_hooks on a saved tensor whose hooks have already been "
           "set. Hint: only one pair of hooks is allowed at a time.");
  TN_CHECK(!none_, "Calling register_hooks on a saved tensor with value None is forbidden");
  TN_CHECK(!released_ && data_, "Calling register_hooks on a saved tensor after it has been "
           "freed. Saved intermediate values of the graph are freed when you call .backward() "
           "or autograd.grad(). Specify retain_graph=True if you need to backward through the "
           "graph a second time or if you need to access saved variables after calling "
           "backward.");
  if (is_leaf_) {
    if (requires_grad_) grad_accumulator_ = gradient_edge(data_).fn;
  } else if (!is_output_) {
    grad_fn_ = data_->autograd_meta()->grad_fn;
  }
  // A kept input is handed over without its history (upstream packs data.detach()).
  Tensor handed = is_output_ ? data_ : alias_without_history(data_);
  packed_ = pack_checked(handed, pack);
  TN_CHECK(packed_, "register_hooks: the pack hook returned nothing");
  data_ = Tensor();
}

}  // namespace tn::autograd
