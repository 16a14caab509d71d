// Tensor predicates that are operators upstream, answered from metadata (the math bits conj and
// neg included; zerotensor is never set on our tensors), and item / is_nonzero (from the one
// element).
// Valid for every representation.
#include <algorithm>

#include "core/backend.h"
#include "dispatch/kernel.h"

namespace tn {
namespace {

void always_false(Call& c) { c.ret(Value::of_bool(false)); }
void is_conj(Call& c) { c.ret(Value::of_bool(c.tensor(0)->is_conj())); }
void is_neg(Call& c) { c.ret(Value::of_bool(c.tensor(0)->is_neg())); }

// is_same_size(Tensor self, Tensor other) -> bool
void is_same_size(Call& c) { c.ret(Value::of_bool(c.tensor(0)->sizes() == c.tensor(1)->sizes())); }

// is_floating_point / is_complex / is_signed (Tensor self) -> bool
void is_floating_point(Call& c) { c.ret(Value::of_bool(is_floating(c.tensor(0)->dtype()))); }
void is_complex_dtype(Call& c) { c.ret(Value::of_bool(info(c.tensor(0)->dtype()).is_complex)); }
// is_inference(Tensor self) -> bool: made under torch.inference_mode (core/tensor_impl.h).
void is_inference(Call& c) { c.ret(Value::of_bool(c.tensor(0)->is_inference())); }

void is_signed(Call& c) { c.ret(Value::of_bool(info(c.tensor(0)->dtype()).is_signed)); }

// _has_compatible_shallow_copy_type(Tensor self, Tensor from) -> bool: may `self.data = from`
// swap the bytes under self (nn.Module.to asks)? Upstream: yes between dense strided tensors of
// any devices, and between tensors of one representation; not between meta and dense.
void compatible_shallow_copy(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  bool dense = backend(a->device().type).holds_bytes && backend(b->device().type).holds_bytes;
  c.ret(Value::of_bool(a->representation() == b->representation() || dense));
}

// is_nonzero(Tensor self) -> bool: the one element (item) compared with zero, as upstream's
// composite; no element or several are ambiguous.
// item(Tensor self) -> Scalar: _local_scalar_dense of a one-element tensor.
void item(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->numel() == 1, "a Tensor with ", self->numel(), " elements cannot be converted "
           "to Scalar");
  c.ret(call("aten::_local_scalar_dense", {c.arg(0)})[0]);
}
void is_nonzero(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  TN_CHECK(self->numel() < 2, "Boolean value of Tensor with more than one value is ambiguous");
  Scalar s = call("aten::_local_scalar_dense", {c.arg(0)})[0].scalar;
  bool nonzero = s.is_complex()    ? (s.to_double() != 0 || s.imag() != 0)
                 : s.is_floating() ? s.to_double() != 0
                 : s.is_bool()     ? s.b
                                   : s.to_int() != 0;
  c.ret(Value::of_bool(nonzero));
}

// _is_all_true / _is_any_true(Tensor self) -> Tensor: all() / any() of a bool tensor (what
// torch._assert_async and symbolic checks call).
template <bool All>
void is_all_any_true(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->dtype() == ScalarType::Bool, All ? "_is_all_true" : "_is_any_true",
           " expects a bool tensor, got ", name(self->dtype()));
  c.ret(call_tensor(All ? "aten::all" : "aten::any", {c.arg(0)}));
}
TN_REGISTER_COMPOSITE("aten::_is_all_true", is_all_any_true<true>);
TN_REGISTER_COMPOSITE("aten::_is_any_true", is_all_any_true<false>);

TN_REGISTER_COMPOSITE("aten::_has_compatible_shallow_copy_type", compatible_shallow_copy);
TN_REGISTER_COMPOSITE("aten::_is_zerotensor", always_false);
TN_REGISTER_COMPOSITE("aten::is_conj", is_conj);
TN_REGISTER_COMPOSITE("aten::is_neg", is_neg);
TN_REGISTER_COMPOSITE("aten::is_inference", is_inference);
TN_REGISTER_COMPOSITE("aten::is_same_size", is_same_size);
TN_REGISTER_COMPOSITE("aten::is_floating_point", is_floating_point);
TN_REGISTER_COMPOSITE("aten::is_complex", is_complex_dtype);
TN_REGISTER_COMPOSITE("aten::is_signed", is_signed);
TN_REGISTER_COMPOSITE("aten::is_nonzero", is_nonzero);
TN_REGISTER_COMPOSITE("aten::item", item);

}  // namespace
}  // namespace tn

namespace tn {
namespace {

// masked_select(Tensor self, Tensor mask) -> Tensor: the elements where the (broadcast) mask is
// true, as a 1-D tensor; boolean indexing of the broadcast pair.
void masked_select(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& mask = c.tensor(1);
  TN_CHECK(mask->dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  Dims shape = broadcast_shapes(self->sizes(), mask->sizes());
  if (shape.empty()) shape = {1};  // 0-dim: one element, kept or not (index takes no 0-dim mask)
  Tensor s = call_tensor("aten::expand", {Value::of(self), Value::of_ints(shape)});
  Tensor m = call_tensor("aten::expand", {Value::of(mask), Value::of_ints(shape)});
  Value indices;
  indices.tag = Value::Tag::OptTensorList;
  indices.tensors = {m};
  c.ret(call_tensor("aten::index.Tensor", {Value::of(s), indices}));
}
TN_REGISTER_COMPOSITE("aten::masked_select", masked_select);

}  // namespace
}  // namespace tn
