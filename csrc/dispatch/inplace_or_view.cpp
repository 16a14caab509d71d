// The ADInplaceOrView key's kernel: after an op that writes one of its arguments (schema alias
// "Tensor(a!)": in-place ops, out=, copy_, fill_...), bumps the written tensors' version
// counters, which every view of them shares (upstream's ADInplaceOrView kernels do this and the
// autograd engine reads it to refuse stale saved tensors). Kernels never bump versions
// themselves. Views need nothing here: a view shares its base's counter from birth
// (core/tensor_impl.h, make_view).
#include <cstring>

#include "dispatch/kernel.h"

namespace tn {
namespace {

void bump_written(Call& call) {
  redispatch_below(call, DispatchKey::ADInplaceOrView);
  const auto& args = call.schema->arguments;
  for (size_t i = 0; i < args.size() && i < call.args.size(); ++i) {
    const SchemaType& t = args[i].type;
    bool written = (t.alias && t.alias->is_write) || (t.list_alias && t.list_alias->is_write);
    if (!written) continue;
    Value& v = call.args[i];
    if (v.tag == Value::Tag::Tensor && v.tensor) v.tensor->bump_version();
    if (v.tag == Value::Tag::TensorList)
      for (const Tensor& x : v.tensors)
        if (x) x->bump_version();
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
