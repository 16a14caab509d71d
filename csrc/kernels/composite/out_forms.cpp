// The out= spellings of ops whose functional form we have, written over it: the functional op
// runs on the arguments before the outs, and each result goes into its out (resized as
// upstream's resize_output, with its warning). Which outs are accepted is the op's own upstream
// rule, checked on every out before anything is written:
//   exact   structured kernels (gather, scatter*, index_add, max/min with dim, and the composites
//           that write through one: linear, softmax, svd): an out must have the result's dtype
//           ("Expected out tensor to have dtype float, but got double instead") and device (in
//           the structured kernel's words, or for some the copy's);
//   cast    the others: the result is cast into out where can_cast allows it; a few say so in
//           their own words (max(), masked_select, log_sigmoid; mean.dtype_out has its own).
// Outs are the schema's last arguments, in the functional's result order.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using OutCheck = void (*)(const Tensor& self, const Tensor& out, const Tensor& result);

void exact(const Tensor&, const Tensor& out, const Tensor& result) {
  ops::check_out_dtype(out, result->dtype());
  TN_CHECK(out->device() == result->device(), "Expected out tensor to have device ",
           result->device().str(), ", but got ", out->device().str(), " instead");
}
// The same dtype rule, where upstream's device check is the copy's (index_add, scatter_reduce,
// linear, softmax): "Attempting to copy from device cpu to device meta, ...".
void exact_dtype(const Tensor&, const Tensor& out, const Tensor& result) {
  ops::check_out_dtype(out, result->dtype());
  check_out_device(out, result->device());
}
void cast(const Tensor&, const Tensor& out, const Tensor& result) {
  TN_CHECK(can_cast(result->dtype(), out->dtype()), "result type ", enum_name(result->dtype()),
           " can't be cast to the desired output type ", enum_name(out->dtype()));
  check_out_device(out, result->device());
}
// max() / min() without dim: upstream's bare canCast check, in its words.
void cast_unary(const Tensor& self, const Tensor& out, const Tensor&) {
  TN_CHECK(can_cast(self->dtype(), out->dtype()), "Expected canCast( typeMetaToScalarType("
           "self.dtype()), typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could "
           "this error message be improved?  If so, please report an enhancement request to "
           "PyTorch.)");
  check_out_device(out, self->device());
}
void same_as_self(const Tensor& self, const Tensor& out, const Tensor& result) {
  TN_CHECK(out->dtype() == self->dtype(), "masked_select(): self and result must have the same "
           "scalar type");
  check_out_device(out, result->device());
}
void expected_scalar_type(const Tensor&, const Tensor& out, const Tensor& result) {
  TN_CHECK(out->dtype() == result->dtype(), "expected scalar type ", enum_name(result->dtype()),
           " but found ", enum_name(out->dtype()));
  check_out_device(out, result->device());
}
// take_along_dim checks that every tensor, out included, is on self's device first.
void exact_same_device(const Tensor& self, const Tensor& out, const Tensor& result) {
  TN_CHECK(out->device() == self->device(), "Expected tensor to have ", self->device().str(),
           " Device, but got tensor with ", out->device().str(), " Device (while checking "
           "arguments for torch.take_along_dim():)");
  exact(self, out, result);
}

// Which inputs an out may not share memory with (upstream's assert_no_overlap in the ops'
// meta functions): none, every tensor input, or every one but self (scatter and index_add
// may write into self itself).
enum class Apart { None, All, AllButSelf };

template <const char* Functional, OutCheck Check, Apart A = Apart::None>
void out_over_functional(Call& c) {
  size_t n_out = 0;
  for (const Argument& a : c.schema->arguments) n_out += a.is_out ? 1 : 0;
  const size_t first = c.args.size() - n_out;
  std::vector<Value> args(c.args.begin(), c.args.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<Value> r = call(Functional, args);
  TN_ASSERT(r.size() == n_out);
  for (size_t i = 0; i < n_out; ++i) Check(c.tensor(0), c.tensor(first + i), r[i].tensor);
  // Upstream's meta functions resize the out first, then assert no overlap with the inputs.
  if (A != Apart::None)
    for (size_t o = first; o < c.args.size(); ++o) {
      resize_out(c.tensor(o), r[o - first].tensor->sizes());
      for (size_t i = A == Apart::All ? 0 : 1; i < first; ++i)
        if (c.arg(i).tag == Value::Tag::Tensor) check_no_overlap(*c.tensor(o), *c.tensor(i));
    }
  for (size_t i = 0; i < n_out; ++i)
    c.ret(ops::write_out(c.tensor(first + i), r[i].tensor, c.key()));
}

constexpr Apart kAll = Apart::All, kBut = Apart::AllButSelf;

// max.unary_out / min.unary_out: as the functional, except that upstream's out= form does not
// refuse an empty input: its out is the reduction's starting value (max: -inf, or the dtype's
// lowest; min: inf or its highest), written in self's dtype and cast into out.
// mean.dtype_out(self, *, dtype, out): self's dtype must cast to out's; a dtype given must be
// out's; without one the mean is computed in out's dtype (upstream's mean.out takes it from
// the result).
void mean_dtype_out(Call& c) {
  const Tensor &self = c.tensor(0), &out = c.tensor(2);
  TN_CHECK(can_cast(self->dtype(), out->dtype()), "mean.dtype_out(): input types can't be "
           "cast to the desired output type ", enum_name(out->dtype()));
  std::optional<ScalarType> dtype = c.optional_dtype(1);
  if (dtype) ops::check_out_dtype(out, *dtype);
  TN_CHECK(dtype || is_floating(self->dtype()) || is_complex(self->dtype()), "mean(): could not "
           "infer output dtype. Input dtype must be either a floating point or complex dtype. "
           "Got: ", enum_name(self->dtype()));
  Tensor r = call_tensor("aten::mean", {c.arg(0), Value::of_dtype(dtype.value_or(out->dtype()))});
  check_out_device(out, r->device());
  c.ret(ops::write_out(out, r, c.key()));
}

constexpr char kMaxAll[] = "aten::max", kMinAll[] = "aten::min";
template <bool Max>
void minmax_unary_out(Call& c) {
  const Tensor &self = c.tensor(0), &out = c.tensor(1);
  if (self->numel() != 0) return out_over_functional<Max ? kMaxAll : kMinAll, cast_unary>(c);
  cast_unary(self, out, self);
  const ScalarType dt = self->dtype();
  TN_CHECK_KIND(!is_complex(dt), NotImplemented, "\"", Max ? "max_all" : "min_all",
                "\" not implemented for '", enum_name(dt), "'");
  Scalar start;
  if (is_floating(dt)) {
    start = Scalar::from_double(Max ? -INFINITY : INFINITY);
  } else if (dt == ScalarType::Bool) {
    start = Scalar::from_bool(!Max);
  } else {
    dispatch_dtype(dt, c.key(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral_v<T>)
        start = Scalar::from_int(static_cast<int64_t>(Max ? std::numeric_limits<T>::lowest()
                                                          : std::numeric_limits<T>::max()));
    });
  }
  resize_out(out, {});
  c.ret(call_tensor("aten::fill_.Scalar", {Value::of(out), Value::of_scalar(start)}));
}

#define TN_OUT_FORM(id, out_overload, functional, ...) \
  constexpr char k_##id[] = functional;               \
  TN_REGISTER_COMPOSITE(out_overload, (out_over_functional<k_##id, __VA_ARGS__>))

TN_OUT_FORM(gather, "aten::gather.out", "aten::gather", exact, kAll);
TN_OUT_FORM(scatter_src, "aten::scatter.src_out", "aten::scatter.src", exact, kBut);
TN_OUT_FORM(scatter_value, "aten::scatter.value_out", "aten::scatter.value", exact,
            kBut);
TN_OUT_FORM(scatter_reduce, "aten::scatter.reduce_out", "aten::scatter.reduce", exact,
            kBut);
TN_OUT_FORM(scatter_value_reduce, "aten::scatter.value_reduce_out", "aten::scatter.value_reduce",
            exact, kBut);
TN_OUT_FORM(scatter_add, "aten::scatter_add.out", "aten::scatter_add", exact, kBut);
TN_OUT_FORM(scatter_reduce_two, "aten::scatter_reduce.two_out", "aten::scatter_reduce.two",
            exact_dtype, kBut);
TN_OUT_FORM(index_add, "aten::index_add.out", "aten::index_add", exact_dtype, kBut);
TN_OUT_FORM(max_dim, "aten::max.dim_max", "aten::max.dim", exact);
TN_OUT_FORM(min_dim, "aten::min.dim_min", "aten::min.dim", exact);
TN_OUT_FORM(max_other, "aten::max.out", "aten::max.other", cast);
TN_OUT_FORM(min_other, "aten::min.out", "aten::min.other", cast);
TN_REGISTER_COMPOSITE("aten::max.unary_out", minmax_unary_out<true>);
TN_REGISTER_COMPOSITE("aten::min.unary_out", minmax_unary_out<false>);
TN_OUT_FORM(take_along_dim, "aten::take_along_dim.out", "aten::take_along_dim",
            exact_same_device, kAll);
TN_OUT_FORM(masked_select, "aten::masked_select.out", "aten::masked_select", same_as_self,
            kAll);
TN_OUT_FORM(diff, "aten::diff.out", "aten::diff", cast);
TN_OUT_FORM(linear, "aten::linear.out", "aten::linear", exact_dtype);
TN_OUT_FORM(log_sigmoid, "aten::log_sigmoid.out", "aten::log_sigmoid", expected_scalar_type);
TN_OUT_FORM(softmax, "aten::softmax.int_out", "aten::softmax.int", exact_dtype);
TN_OUT_FORM(log_softmax, "aten::log_softmax.int_out", "aten::log_softmax.int", exact_dtype);
TN_REGISTER_COMPOSITE("aten::mean.dtype_out", mean_dtype_out);
TN_OUT_FORM(native_batch_norm, "aten::native_batch_norm.out", "aten::native_batch_norm", cast);
TN_OUT_FORM(svd, "aten::svd.U", "aten::svd", exact);

}  // namespace
}  // namespace tn
