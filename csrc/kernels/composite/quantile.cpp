// quantile and nanquantile (q a tensor or a float, each with its out= form), composed as
// upstream's Sorting.cpp composes them (CompositeImplicit: autograd records the pieces, the
// result's node SqueezeBackward4): the input sorted along the reduced dim (or flattened), q
// turned into ranks (NaN rows pushed to the last rank for quantile; ranks over the non-NaN
// count for nanquantile), the interpolation's rounding, the values gathered below and above
// and lerped, then q's dim moved first.
#include <string>

#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::t;

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp interpolation_of(const Value& v) {
  const std::string& s = v.str;
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  TN_CHECK(s == "nearest", "quantile() interpolation must be one of linear, lower, higher, "
           "midpoint or nearest, but got ", s);
  return Interp::Nearest;
}

// upstream's quantile_checks.
void check_inputs(const Tensor& self, const Tensor& q) {
  TN_CHECK(self->numel() > 0, "quantile() input tensor must be non-empty");
  TN_CHECK(q->dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  TN_CHECK(self->dtype() == ScalarType::Float || self->dtype() == ScalarType::Double,
           "quantile() input tensor must be either float or double dtype");
  TN_CHECK(self->dtype() == q->dtype(), "quantile() q tensor must be same dtype as the input "
           "tensor");
  TN_CHECK(self->device() == q->device(), "quantile() q tensor must be on the same device as "
           "the input tensor");
}

// upstream's quantile_output_shape: q's size first (a 1-D q), then the reduced shape.
Dims output_shape(bool has_dim, const Tensor& self, const Tensor& q, bool keepdim, int64_t dim) {
  Dims out;
  if (has_dim && self->dim() > 0) {
    out = self->sizes();
    if (keepdim) out[static_cast<size_t>(dim)] = 1;
    else out.erase(out.begin() + dim);
  } else if (keepdim) {
    out = Dims(static_cast<size_t>(self->dim()), 1);
  }
  if (q->dim() > 0) out.insert(out.begin(), q->numel());
  return out;
}

Tensor op1(const char* name, const Tensor& a) { return call_tensor(name, {t(a)}); }
Tensor op2(const char* name, const Tensor& a, const Tensor& b) {
  return call_tensor(name, {t(a), t(b)});
}
Tensor to_long(const Tensor& a) {
  return call_tensor("aten::_to_copy", {t(a), Value::of_dtype(ScalarType::Long)});
}
Tensor sort_values(const Tensor& a) { return call("aten::sort", {t(a)})[0].tensor; }

// upstream's quantile_compute.
Tensor compute(const Tensor& self, const Tensor& q, bool has_dim, Interp mode, bool ignore_nan,
               int64_t dim, Dims out_shape) {
  if (self->device().type == DeviceType::CPU) {
    Tensor in_range = call_tensor("aten::logical_and", {
        t(call_tensor("aten::ge.Scalar", {t(q), i64(0)})),
        t(call_tensor("aten::le.Scalar", {t(q), i64(1)}))});
    Value all = call("aten::_local_scalar_dense", {t(op1("aten::all", in_range))})[0];
    TN_CHECK(all.scalar.to_int() != 0, "quantile() q values must be in the range [0, 1]");
  }
  Tensor sorted;
  if (!has_dim) {
    sorted = sort_values(call_tensor("aten::flatten.using_ints", {t(self)}));
  } else if (dim == self->dim() - 1) {
    sorted = sort_values(self);
  } else {
    Tensor u = call_tensor("aten::unsqueeze", {t(self), i64(-1)});
    sorted = sort_values(call_tensor("aten::transpose.int", {t(u), i64(dim), i64(-1)}));
  }
  if (q->dim() == 0) out_shape.insert(out_shape.begin(), q->numel());
  Dims in_shape(out_shape.begin() + 1, out_shape.end());
  in_shape.push_back(0);
  const int64_t n = sorted->sizes().back();
  in_shape.back() = n;
  sorted = call_tensor("aten::view", {t(sorted), ops::ints(in_shape)});
  TN_CHECK(n <= (int64_t{1} << 24), "quantile() input tensor is too large");
  Tensor nan = op1("aten::isnan", sorted);
  Tensor ranks;
  if (ignore_nan) {
    Tensor count = call_tensor("aten::sum.dim_IntList", {t(op1("aten::logical_not", nan)),
                                                         ops::ints({-1}), Value::of_bool(true)});
    ranks = op2("aten::mul.Tensor", q, call_tensor("aten::sub.Scalar", {t(count), i64(1)}));
    Tensor neg = call_tensor("aten::lt.Scalar", {t(ranks), i64(0)});
    call("aten::masked_fill_.Scalar", {t(ranks), t(neg), i64(0)});
  } else {
    Tensor scaled = call_tensor("aten::mul.Scalar", {t(q), i64(n - 1)});
    Tensor any = call_tensor("aten::any.dim", {t(nan), i64(-1), Value::of_bool(true)});
    std::vector<Value> tl = call("aten::broadcast_tensors", {Value::of_tensors({scaled, any})});
    const auto& both = tl[0].tensors;
    ranks = call_tensor("aten::masked_fill.Scalar", {t(both[0]), t(both[1]), i64(n - 1)});
  }
  if (mode == Interp::Lower) call("aten::floor_", {t(ranks)});
  else if (mode == Interp::Higher) call("aten::ceil_", {t(ranks)});
  else if (mode == Interp::Nearest) call("aten::round_", {t(ranks)});
  Tensor below_at = to_long(ranks);
  Tensor values = call_tensor("aten::gather", {t(sorted), i64(-1), t(below_at)});
  if (mode == Interp::Linear || mode == Interp::Midpoint) {
    Tensor weights = mode == Interp::Midpoint
        ? call_tensor("aten::full_like", {t(ranks), ops::f64(0.5)})
        : op2("aten::sub.Tensor", ranks, below_at);
    call("aten::ceil_", {t(ranks)});
    Tensor above = call_tensor("aten::gather", {t(sorted), i64(-1), t(to_long(ranks))});
    call("aten::lerp_.Tensor", {t(values), t(above), t(weights)});
  }
  if (q->dim() == 0) {
    call("aten::squeeze_.dim", {t(values), i64(-1)});
  } else {
    call("aten::unsqueeze_", {t(values), i64(0)});
    call("aten::transpose_", {t(values), i64(0), i64(-1)});
    call("aten::squeeze_.dim", {t(values), i64(-1)});
  }
  return values;
}

// (self, q, dim, keepdim, interpolation[, out]): q a tensor, or a float made one of self's
// dtype after upstream's range check (the .scalar overloads).
template <bool IgnoreNan, bool ScalarQ, bool Out>
void quantile(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor q;
  if (ScalarQ) {
    const double qv = c.to_double(1);
    TN_CHECK(qv >= 0 && qv <= 1, "quantile() q must be in the range [0, 1] but got ", qv);
    q = call_tensor("aten::scalar_tensor", {ops::f64(qv), Value::of_dtype(self->dtype()),
                                            Value{}, Value::of_device(self->device())});
  } else {
    q = c.tensor(1);
  }
  const Interp mode = interpolation_of(c.arg(4));
  check_inputs(self, q);
  if (Out) {
    const Tensor& out = c.tensor(5);
    TN_CHECK(self->dtype() == out->dtype(), "quantile() out tensor must be same dtype as the "
             "input tensor");
    TN_CHECK(self->device() == out->device(), "quantile() out tensor must be on the same "
             "device as the input tensor");
  }
  const bool has_dim = !c.arg(2).is_none();
  const int64_t dim = wrap_dim(has_dim ? c.to_int(2) : 0, self->dim());
  Dims shape = output_shape(has_dim, self, q, c.to_bool(3), dim);
  if (Out) ops::resize_out(c.tensor(5), shape);
  Tensor r = compute(self, q, has_dim, mode, IgnoreNan, dim, shape);
  if (!Out) return c.ret(r);
  ops::copy_(c.tensor(5), r);
  c.ret(c.tensor(5));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::quantile", (quantile<false, false, false>));
TN_REGISTER_COMPOSITE("aten::quantile.out", (quantile<false, false, true>));
TN_REGISTER_COMPOSITE("aten::quantile.scalar", (quantile<false, true, false>));
TN_REGISTER_COMPOSITE("aten::quantile.scalar_out", (quantile<false, true, true>));
TN_REGISTER_COMPOSITE("aten::nanquantile", (quantile<true, false, false>));
TN_REGISTER_COMPOSITE("aten::nanquantile.out", (quantile<true, false, true>));
TN_REGISTER_COMPOSITE("aten::nanquantile.scalar", (quantile<true, true, false>));
TN_REGISTER_COMPOSITE("aten::nanquantile.scalar_out", (quantile<true, true, true>));

}  // namespace tn
