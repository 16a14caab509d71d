// Factories written over empty_strided + fill_/copy_ (so a device=meta call allocates no bytes):
// zeros/ones/full (+ .out), the *_like family, scalar_tensor, eye and the new_* methods; and
// lift_fresh, which the Python constructors call on the tensor they built.
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using namespace ops;

struct Opts {
  ScalarType dtype;
  Device device;
};

// dtype/layout/device/pin_memory at args [i, i+4), each falling back to `fallback`.
Opts options_at(const Call& c, size_t i, Opts fallback) {
  Opts o{c.optional_dtype(i).value_or(fallback.dtype), fallback.device};
  if (!c.arg(i + 2).is_none()) o.device = c.arg(i + 2).device;
  check_pin_memory(c.arg(i + 3), c.arg(i + 1), o.device);
  TN_CHECK_KIND(c.arg(i + 1).is_none() || c.arg(i + 1).i == 0, NotImplemented, c.key(),
                ": only the strided layout is implemented by torchnative");
  TN_CHECK_KIND(info(o.dtype).supported, NotImplemented, c.key(),
                " has no kernel in torchnative for dtype ", name(o.dtype));
  return o;
}
Opts default_opts() { return {default_float_dtype(), Device{}}; }

Tensor filled(Tensor t, Scalar v) {
  call("aten::fill_.Scalar", {ops::t(t), Value::of_scalar(v)});
  return t;
}

// zeros/ones(SymInt[] size, *, dtype?, layout?, device?, pin_memory?) -> Tensor
template <int kValue>
void constant(Call& c) {
  Opts o = options_at(c, 1, default_opts());
  c.ret(filled(empty(c.int_list(0), o.dtype, o.device), Scalar::from_int(kValue)));
}
TN_REGISTER_COMPOSITE("aten::zeros", constant<0>);
TN_REGISTER_COMPOSITE("aten::ones", constant<1>);

// zeros.out / ones.out(SymInt[] size, *, Tensor(a!) out)
template <int kValue>
void constant_out(Call& c) {
  const Tensor& out = c.tensor(1);
  resize_out(out, c.int_list(0));
  c.ret(filled(out, Scalar::from_int(kValue)));
}
TN_REGISTER_COMPOSITE("aten::zeros.out", constant_out<0>);
TN_REGISTER_COMPOSITE("aten::ones.out", constant_out<1>);

// full's dtype when none is given: bool for bool, int64 for int, the default float dtype else.
ScalarType full_dtype(const Scalar& v) {
  return v.is_bool()       ? ScalarType::Bool
         : v.is_integral() ? ScalarType::Long
         : v.is_complex()  ? default_complex_dtype()
                           : default_float_dtype();
}

// full(SymInt[] size, Scalar fill_value, *, dtype?, layout?, device?, pin_memory?)
void full(Call& c) {
  Scalar v = c.scalar(1);
  Opts o = options_at(c, 2, {full_dtype(v), Device{}});
  c.ret(filled(empty(c.int_list(0), o.dtype, o.device), v));
}
TN_REGISTER_COMPOSITE("aten::full", full);
void full_out(Call& c) {
  const Tensor& out = c.tensor(2);
  resize_out(out, c.int_list(0));
  c.ret(filled(out, c.scalar(1)));
}
TN_REGISTER_COMPOSITE("aten::full.out", full_out);

// empty_like(self, *, dtype?, layout?, device?, pin_memory?, MemoryFormat? memory_format):
// preserve (the default) keeps dense strides, else orders dense strides like self's.
Tensor like(const Call& c, size_t opts_at) {
  const Tensor& self = c.tensor(0);
  Opts o = options_at(c, opts_at, {self->dtype(), self->device()});
  Dims strides = strides_in_format(*self, format_of(c.arg(opts_at + 4), self->dim()));
  return empty_strided(self->sizes(), strides, o.dtype, o.device);
}
void empty_like(Call& c) { c.ret(like(c, 1)); }
template <int kValue>
void constant_like(Call& c) { c.ret(filled(like(c, 1), Scalar::from_int(kValue))); }
// full_like(Tensor self, Scalar fill_value, *, dtype?, layout?, device?, pin_memory?, mf?)
void full_like(Call& c) { c.ret(filled(like(c, 2), c.scalar(1))); }
TN_REGISTER_COMPOSITE("aten::empty_like", empty_like);
TN_REGISTER_COMPOSITE("aten::zeros_like", constant_like<0>);
TN_REGISTER_COMPOSITE("aten::ones_like", constant_like<1>);
TN_REGISTER_COMPOSITE("aten::full_like", full_like);

// lift_fresh(Tensor(a) self) -> Tensor(a): self itself (upstream's lifts a fresh constant into a
// functional wrapper; with none, it is the identity, which a dispatch mode sees).
void lift_fresh(Call& c) { c.ret(c.tensor(0)); }
TN_REGISTER_COMPOSITE("aten::lift_fresh", lift_fresh);

// new_empty/new_zeros/new_ones(Tensor self, SymInt[] size, *, dtype?, layout?, device?, pin?):
// dtype and device default to self's.
Tensor new_tensor(const Call& c, size_t opts_at) {
  const Tensor& self = c.tensor(0);
  Opts o = options_at(c, opts_at, {self->dtype(), self->device()});
  return empty(c.int_list(1), o.dtype, o.device);
}
void new_empty(Call& c) { c.ret(new_tensor(c, 2)); }
template <int kValue>
void new_constant(Call& c) { c.ret(filled(new_tensor(c, 2), Scalar::from_int(kValue))); }
// new_full(Tensor self, SymInt[] size, Scalar fill_value, *, dtype?, layout?, device?, pin?)
void new_full(Call& c) { c.ret(filled(new_tensor(c, 3), c.scalar(2))); }
TN_REGISTER_COMPOSITE("aten::new_empty", new_empty);
TN_REGISTER_COMPOSITE("aten::new_zeros", new_constant<0>);
TN_REGISTER_COMPOSITE("aten::new_ones", new_constant<1>);
TN_REGISTER_COMPOSITE("aten::new_full", new_full);

// empty_permuted(SymInt[] size, int[] physical_layout, *, dtype?, layout?, device?, pin?):
// dense in memory in the order physical_layout names (its first dim outermost), with the
// logical sizes `size`; not a view.
void empty_permuted(Call& c) {
  const Dims& size = c.int_list(0);
  const Dims& layout = c.int_list(1);
  size_t n = size.size();
  TN_CHECK(layout.size() == n, "Number of dimensions in size does not match the length of the "
           "physical_layout; i.e. len(size) = ", n, " is not equal to len(physical_layout) = ",
           layout.size());
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < n; ++i) {
    TN_CHECK(layout[i] >= 0 && layout[i] < static_cast<int64_t>(n),
             "Dimension out of range (expected to be between 0 and ", n - 1, ", but got ",
             layout[i], " at index ", i, ").  NB: negative dims not currently supported; file "
             "an issue if you want it.");
    TN_CHECK(!seen[layout[i]], "Duplicate dim not allowed");
    seen[layout[i]] = true;
  }
  Opts o = options_at(c, 2, default_opts());
  Dims strides(n);
  int64_t step = 1;
  for (size_t k = n; k-- > 0;) {
    strides[layout[k]] = step;
    TN_CHECK(!__builtin_mul_overflow(step, std::max<int64_t>(size[layout[k]], 1), &step),
             "numel: integer multiplication overflow");
  }
  c.ret(empty_strided(size, strides, o.dtype, o.device));
}
TN_REGISTER_COMPOSITE("aten::empty_permuted", empty_permuted);

// scalar_tensor(Scalar s, *, dtype?, layout?, device?, pin_memory?): the default float dtype
// whatever the number's type, as upstream.
void scalar_tensor(Call& c) {
  Opts o = options_at(c, 1, default_opts());
  c.ret(filled(empty({}, o.dtype, o.device), c.scalar(0)));
}
TN_REGISTER_COMPOSITE("aten::scalar_tensor", scalar_tensor);

// Writes the identity pattern into a zero-filled (n, m) tensor through its diagonal view.
Tensor eye_fill(Tensor t) {
  filled(t, Scalar::from_int(0));
  if (t->numel() > 0) filled(call_tensor("aten::diagonal", {ops::t(t)}), Scalar::from_int(1));
  return t;
}
void eye_check(int64_t n, const char* what) {
  TN_CHECK(n >= 0, what, " must be greater or equal to 0, got ", n);
}

// eye(SymInt n, *, ...) and eye.m(SymInt n, SymInt m, *, ...)
void eye(Call& c) {
  int64_t n = c.to_int(0);
  eye_check(n, "n");
  Opts o = options_at(c, 1, default_opts());
  c.ret(eye_fill(empty({n, n}, o.dtype, o.device)));
}
void eye_m(Call& c) {
  int64_t n = c.to_int(0), m = c.to_int(1);
  eye_check(n, "n");
  eye_check(m, "m");
  Opts o = options_at(c, 2, default_opts());
  c.ret(eye_fill(empty({n, m}, o.dtype, o.device)));
}
TN_REGISTER_COMPOSITE("aten::eye", eye);
TN_REGISTER_COMPOSITE("aten::eye.m", eye_m);
void eye_out(Call& c) {
  int64_t n = c.to_int(0);
  eye_check(n, "n");
  resize_out(c.tensor(1), {n, n});
  c.ret(eye_fill(c.tensor(1)));
}
void eye_m_out(Call& c) {
  int64_t n = c.to_int(0), m = c.to_int(1);
  eye_check(n, "n");
  eye_check(m, "m");
  resize_out(c.tensor(2), {n, m});
  c.ret(eye_fill(c.tensor(2)));
}
TN_REGISTER_COMPOSITE("aten::eye.out", eye_out);
TN_REGISTER_COMPOSITE("aten::eye.m_out", eye_m_out);

}  // namespace
}  // namespace tn
