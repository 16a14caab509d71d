// The Autograd key's kernel for differentiable ops that are not CompositeImplicit (those
// decompose at this key instead, and their pieces pass through here). Until the engine exists
// (issue 8) it records no graph node: it runs the op below itself and marks the floating results
// of a call that had an input requiring grad, under grad mode, as requiring grad and not leaves.
// Grad mode off, or no such input: straight through (the key is in a call's set only when one of
// its tensors requires grad, so ordinary calls never reach this function).
#include "autograd/grad_mode.h"
#include "dispatch/kernel.h"

namespace tn {
namespace {

thread_local bool t_grad_mode = true;

bool any_requires_grad(const Call& call) {
  for (const Value& v : call.args) {
    if (v.tag == Value::Tag::Tensor && v.tensor && v.tensor->requires_grad()) return true;
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (const Tensor& t : v.tensors)
        if (t && t->requires_grad()) return true;
  }
  return false;
}

void mark(Tensor& t) {
  if (!t || !is_floating(t->dtype())) return;
  t->set_requires_grad(true);
  t->ensure_autograd_meta().is_leaf = false;
}

// Upstream refuses to write in place into a leaf that requires grad, under grad mode.
void check_no_leaf_written(const Call& call) {
  const auto& args = call.schema->arguments;
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const auto& alias = args[i].type.alias;
    const Value& v = call.args[i];
    if (alias && alias->is_write && v.tag == Value::Tag::Tensor && v.tensor &&
        v.tensor->requires_grad() && v.tensor->is_leaf())
      TN_FAIL(Runtime, "a leaf Variable that requires grad is being used in an in-place "
              "operation.");
  }
}

void autograd_kernel(Call& call) {
  bool record = t_grad_mode && any_requires_grad(call);
  if (record) check_no_leaf_written(call);
  {
    // What the kernels below call inside is not differentiated again, nor version-bumped.
    ExcludeKeys below(key_bit(DispatchKey::Autograd) | key_bit(DispatchKey::ADInplaceOrView));
    redispatch_below(call, DispatchKey::Autograd);
  }
  if (!record) return;
  for (Value& v : call.results) {
    // An in-place result is its argument: it becomes a non-leaf that requires grad too.
    if (v.tag == Value::Tag::Tensor) mark(v.tensor);
    if (v.tag == Value::Tag::TensorList)
      for (Tensor& t : v.tensors) mark(t);
  }
}

bool differentiable(int op) {
  const OpInfo& info = all_ops()[op];
  return info.differentiable && !info.composite_implicit;
}

const bool kInstalled = [] {
  set_key_fallback(DispatchKey::Autograd, Kernel{autograd_kernel, nullptr, nullptr},
                   differentiable);
  return true;
}();

}  // namespace

bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode(bool enabled) { t_grad_mode = enabled; }

}  // namespace tn
