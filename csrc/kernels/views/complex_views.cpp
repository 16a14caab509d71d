// Complex tensors seen as views: view_as_real / view_as_complex, real / imag, and upstream's
// math bits. x.conj() of a complex tensor is not a copy but a view whose conjugate bit is set
// (it reads as the conjugate of its bytes); its imaginary part is a view with the negative bit.
// Each bit adds its layer's key to the calls the tensor takes part in (core/tensor_impl.h), and
// the layer's fallback here resolves such inputs (a copy with the bit applied) before the kernels
// below run, as upstream's MathBitsFallback does. View ops pass the bits on to their results
// (make_view copies them), copy_ applies them while it copies, and empty_like reads only the
// geometry; those ops skip the layer. An op that writes into a tensor with a bit set (x.conj()
// .mul_(2)) writes into a resolved copy, which is then copied back through copy_ (which applies
// the bit), as upstream's fallback does for mutable arguments.
#include <cstring>
#include <utility>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

// --- the layers' fallback -----------------------------------------------------------------

bool arg_written(const Call& c, size_t i) {
  const auto& args = c.schema->arguments;
  if (i >= args.size()) return false;
  const SchemaType& t = args[i].type;
  return (t.alias && t.alias->is_write) || (t.list_alias && t.list_alias->is_write);
}

template <DispatchKey K>
void resolve_math_bit(Call& c) {
  constexpr bool kConj = K == DispatchKey::Conjugate;
  std::vector<std::pair<Tensor, Tensor>> written;  // (the argument, its resolved stand-in)
  auto resolve = [&](Tensor& t, size_t i) {
    if (!t || !(kConj ? t->is_conj() : t->is_neg())) return;
    Tensor r = call_tensor(kConj ? "aten::resolve_conj" : "aten::resolve_neg", {Value::of(t)});
    if (arg_written(c, i)) written.emplace_back(t, r);
    t = r;
  };
  for (size_t i = 0; i < c.args.size(); ++i) {
    Value& v = c.args[i];
    if (v.tag == Value::Tag::Tensor) resolve(v.tensor, i);
    if (v.tag == Value::Tag::TensorList || v.tag == Value::Tag::OptTensorList)
      for (Tensor& t : v.tensors) resolve(t, i);
  }
  redispatch_below(c, K);
  for (auto& [arg, stand_in] : written) {
    call("aten::copy_", {Value::of(arg), Value::of(stand_in)});
    for (Value& v : c.results) {  // an in-place op returns its argument, not the stand-in
      if (v.tag == Value::Tag::Tensor && v.tensor.get() == stand_in.get()) v.tensor = arg;
      if (v.tag == Value::Tag::TensorList)
        for (Tensor& t : v.tensors)
          if (t.get() == stand_in.get()) t = arg;
    }
  }
}

// Ops that handle the bits themselves: views (their result aliases an argument and carries its
// bits), copy_ (applies them), empty_like (geometry only), clone (empty_like and copy_: its
// result reads as self with no bit, which is what resolving is), and the bits' own ops; for the
// conjugate bit also dot / vdot (and their out= forms), which rewrite as upstream's kernels do
// (cpu/blas.cpp).
bool resolves_math_bits(int op) {
  const OpInfo& info = all_ops()[op];
  static const char* const kAware[] = {"copy_", "empty_like", "clone", "_conj", "_neg_view",
                                       "resolve_conj", "resolve_neg", "_conj_copy",
                                       "_neg_view_copy"};
  for (const char* n : kAware)
    if (std::strcmp(info.name, n) == 0) return false;
  const char* s = info.schema;
  const char* arrow = std::strstr(s, ") ->");
  if (arrow) {
    const char* r = arrow + 4;
    while (*r == ' ' || *r == '(') ++r;
    // "Tensor(a) ..." or "Tensor(a)[]": a view's result, never written.
    if (std::strncmp(r, "Tensor(", 7) == 0 && !std::strchr(r, '!')) return false;
  }
  return true;
}

// The conjugate bit also reaches dot and vdot (and their out= forms) unresolved.
bool resolves_conj_bit(int op) {
  const char* name = all_ops()[op].name;
  if (std::strcmp(name, "dot") == 0 || std::strcmp(name, "vdot") == 0) return false;
  return resolves_math_bits(op);
}

const bool kInstalled = [] {
  set_key_fallback(DispatchKey::Conjugate,
                   Kernel{resolve_math_bit<DispatchKey::Conjugate>, nullptr, nullptr},
                   resolves_conj_bit);
  set_key_fallback(DispatchKey::Negative,
                   Kernel{resolve_math_bit<DispatchKey::Negative>, nullptr, nullptr},
                   resolves_math_bits);
  return true;
}();

// --- the bits' ops ---------------------------------------------------------------------------

Tensor same_view(const Tensor& t) {
  return make_view(t, t->sizes(), t->strides(), t->storage_offset());
}

// _conj(Tensor(a) self) -> Tensor(a): a view with the conjugate bit flipped (complex tensors
// only: upstream's set_conj asserts it).
void conj_view(Call& c) {
  TN_CHECK(is_complex(c.tensor(0)->dtype()), "_conj: the conjugate bit can only be set on "
           "complex tensors, not on ", name(c.tensor(0)->dtype()),
           " (upstream: isComplexType(typeMetaToScalarType(dtype())) INTERNAL ASSERT FAILED)");
  Tensor v = same_view(c.tensor(0));
  v->set_conj(!c.tensor(0)->is_conj());
  c.ret(v);
}
// _neg_view(Tensor(a) self) -> Tensor(a): a view with the negative bit flipped.
void neg_view(Call& c) {
  Tensor v = same_view(c.tensor(0));
  v->set_neg(!c.tensor(0)->is_neg());
  c.ret(v);
}
TN_REGISTER_COMPOSITE("aten::_conj", conj_view);
TN_REGISTER_COMPOSITE("aten::_neg_view", neg_view);

// conj(Tensor(a) self) -> Tensor(a): self for real tensors, else _conj.
void conj(Call& c) {
  if (!is_complex(c.tensor(0)->dtype())) return c.ret(c.tensor(0));
  c.ret(call_tensor("aten::_conj", {c.arg(0)}));
}
TN_REGISTER_COMPOSITE("aten::conj", conj);

// resolve_conj / resolve_neg(Tensor(a) self) -> Tensor(a): self when the bit is clear, else
// self's clone, which reads the values through both bits (upstream's: resolving one bit drops
// the other too, and autograd records CloneBackward0).
template <bool Conj>
void resolve(Call& c) {
  const Tensor& self = c.tensor(0);
  if (!(Conj ? self->is_conj() : self->is_neg())) return c.ret(self);
  c.ret(call_tensor("aten::clone", {c.arg(0), Value{}}));
}
TN_REGISTER_COMPOSITE("aten::resolve_conj", resolve<true>);
TN_REGISTER_COMPOSITE("aten::resolve_neg", resolve<false>);

// --- views between complex and real -----------------------------------------------------------

// view_as_real(Tensor(a) self) -> Tensor(a): a complex tensor's values as pairs of reals (a last
// dim of 2, stride 1), over the same bytes.
void view_as_real(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(!self->is_conj(), "view_as_real doesn't work on unresolved conjugated tensors.  To "
           "resolve the conjugate tensor so you can view it as real, use self.resolve_conj(); "
           "however, be warned that the resulting tensor will NOT alias the original.");
  TN_CHECK(is_complex(self->dtype()), "view_as_real is only supported for complex tensors");
  Dims sizes = self->sizes(), strides;
  sizes.push_back(2);
  for (int64_t s : self->strides()) strides.push_back(2 * s);
  strides.push_back(1);
  c.ret(make_view(self, sizes, strides, 2 * self->storage_offset(), to_real_type(self->dtype())));
}
TN_REGISTER_COMPOSITE("aten::view_as_real", view_as_real);

// view_as_complex(Tensor(a) self) -> Tensor(a): pairs of reals (float16/32/64, a last dim of 2
// with stride 1) as complex values, over the same bytes.
void view_as_complex(Call& c) {
  const Tensor& self = c.tensor(0);
  ScalarType t = self->dtype();
  TN_CHECK(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half,
           "view_as_complex is only supported for float, double and half tensors, but got a "
           "tensor of scalar type: ", enum_name(t));
  TN_CHECK(self->dim() != 0, "Input tensor must have one or more dimensions");
  int64_t last = self->dim() - 1;
  TN_CHECK(self->size(last) == 2, "Tensor must have a last dimension of size 2");
  TN_CHECK(self->stride(last) == 1, "Tensor must have a last dimension with stride 1");
  Dims sizes(self->sizes().begin(), self->sizes().end() - 1), strides;
  for (int64_t d = 0; d < last; ++d) {
    TN_CHECK(self->stride(d) % 2 == 0,
             "Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(self->stride(d) / 2);
  }
  TN_CHECK(self->storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  ScalarType ct = t == ScalarType::Half     ? ScalarType::ComplexHalf
                  : t == ScalarType::Float ? ScalarType::ComplexFloat
                                           : ScalarType::ComplexDouble;
  c.ret(make_view(self, sizes, strides, self->storage_offset() / 2, ct));
}
TN_REGISTER_COMPOSITE("aten::view_as_complex", view_as_complex);

// real / imag(Tensor(a) self) -> Tensor(a): one half of view_as_real. A conjugate view's parts
// are read through its bytes' own view (real is unchanged; imag gets the negative bit).
Tensor part_of(Call& c, int64_t index) {
  const Tensor& self = c.tensor(0);
  Value base = c.arg(0);
  if (self->is_conj()) base = Value::of(call_tensor("aten::_conj", {c.arg(0)}));
  Tensor pairs = call_tensor("aten::view_as_real", {base});
  if (self->is_conj() && index == 1)
    pairs = call_tensor("aten::_neg_view", {Value::of(pairs)});
  return call_tensor("aten::select.int", {Value::of(pairs), Value::of_int(pairs->dim() - 1),
                                          Value::of_int(index)});
}
void real(Call& c) {
  if (!is_complex(c.tensor(0)->dtype())) return c.ret(c.tensor(0));
  c.ret(part_of(c, 0));
}
void imag(Call& c) {
  TN_CHECK(is_complex(c.tensor(0)->dtype()),
           "imag is not implemented for tensors with non-complex dtypes.");
  c.ret(part_of(c, 1));
}
TN_REGISTER_COMPOSITE("aten::real", real);
TN_REGISTER_COMPOSITE("aten::imag", imag);

}  // namespace
}  // namespace tn
