// The ADInplaceOrView key's kernel: after an op that writes one of its arguments (schema alias
// "Tensor(a!)": in-place ops, out=, copy_, fill_...), bumps the written tensors' version
// counters, which every view of them shares (upstream's ADInplaceOrView kernels do this and the
// autograd engine reads it to refuse stale saved tensors). Kernels never bump versions
// themselves. Views need nothing here: a view shares its base's counter from birth
// (core/tensor_impl.h, make_view).
#include <cstring>

#include "autograd/grad_mode.h"
#include "dispatch/kernel.h"

namespace tn {
namespace {

// Upstream's VariableVersion::bump: an inference tensor keeps no counter, and outside inference
// mode an update of one is refused (after the kernel ran, as upstream's is).
void bump(const Tensor& t) {
  if (t->is_inference() && !inference_mode_enabled())
    TN_FAIL(Runtime, "Inplace update to inference tensor outside InferenceMode is not "
            "allowed.You can make a clone to get a normal tensor before doing inplace update."
            "See https://github.com/pytorch/rfcs/pull/17 for more details.");
  t->bump_version();
}

// Upstream's refusal of a write, with grad mode on, into a view made under no_grad of a tensor
// that requires grad (checked here, before the kernel, for calls the Autograd key records and
// for those it never sees, where nothing requires grad).
void check_view_made_without_grad(const Tensor& t) {
  const Ptr<TensorImpl>& base = t->view_base();
  if (!base || !base->requires_grad() || t->requires_grad() || !grad_mode_enabled() ||
      inference_mode_enabled())
    return;
  TN_FAIL(Runtime, "A view was created in no_grad mode and is being modified inplace with grad "
          "mode enabled. Given that this use case is ambiguous and error-prone, it is "
          "forbidden. You can clarify your code by moving both the view and the inplace either "
          "both inside the no_grad block (if you don't want the inplace to be tracked) or both "
          "outside (if you want the inplace to be tracked).");
}

void bump_written(Call& call) {
  const auto& args = call.schema->arguments;
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const SchemaType& t = args[i].type;
    if (t.alias && t.alias->is_write && !args[i].is_out &&
        call.args[i].tag == Value::Tag::Tensor && call.args[i].tensor)
      check_view_made_without_grad(call.args[i].tensor);
  }
  redispatch_below(call, DispatchKey::ADInplaceOrView);
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const SchemaType& t = args[i].type;
    bool written = (t.alias && t.alias->is_write) || (t.list_alias && t.list_alias->is_write);
    if (!written) continue;
    Value& v = call.args[i];
    if (v.tag == Value::Tag::Tensor && v.tensor) bump(v.tensor);
    if (v.tag == Value::Tag::TensorList)
      for (const Tensor& x : v.tensors)
        if (x) bump(x);
  }
}

// Note [Non-differentiable views]
// view.dtype's result shares self's bytes and version counter but is not a view of it for
// autograd (upstream's make_variable_non_differentiable_view: no _base; detach's result is
// made the same way, kernels/views/views.cpp). Upstream makes that tensor in its
// ADInplaceOrView kernel with a shallow copy, which, while the Python key is live (a
// TorchDispatchMode on the stack, a __torch_dispatch__ tensor), is an aten::detach call that
// the mode sees right after view.dtype; here the same detach goes through the door then.
void non_differentiable_view(Call& call) {
  redispatch_below(call, DispatchKey::ADInplaceOrView);
  if (!(call.keys & key_bit(DispatchKey::Python)) || call.results.empty()) return;
  Value& r = call.results[0];
  r.tensor = call_tensor("aten::detach", {Value::of(r.tensor)});
}
TN_REGISTER_KERNEL("aten::view.dtype", ADInplaceOrView, non_differentiable_view);

// From the schema's text, so that the table of every op is computed without parsing them all.
bool writes_an_argument(int op) {
  const char* s = all_ops()[op].schema;
  const char* arrow = std::strstr(s, ") ->");
  const char* bang = std::strchr(s, '!');
  return bang && (!arrow || bang < arrow);
}

const bool kInstalled = [] {
  set_key_fallback(DispatchKey::ADInplaceOrView, Kernel{bump_written, nullptr, nullptr},
                   writes_an_argument);
  return true;
}();

}  // namespace
}  // namespace tn
