// trapezoid, trapz and cumulative_trapezoid (with sample points x, or a spacing dx), upstream's
// CompositeImplicit compositions (Integration.cpp) step for step, so autograd and a dispatch mode
// see the pieces:
//   with x:  dx = x[1:] - x[:-1] along dim (a 1-d x viewed onto dim; a shorter x padded with
//            leading 1s), then sum((y[:-1] + y[1:]) * dx) / 2 (the cumulative form: the cumsum
//            divided by 2);
//   with dx: (sum(y) - (y[0] + y[-1]) * 0.5) * dx (cumulative: cumsum(dx / 2 * (y[:-1] + y[1:]))).
// No samples along dim gives zeros (trapezoid only).
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end) {
  return call_tensor("aten::slice.Tensor", {t(x), i64(dim), i64(start), i64(end), i64(1)});
}
constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
Tensor add(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::add.Tensor", {t(a), t(b)});
}
Tensor pair_sums(const Tensor& y, int64_t dim) {  // y[:-1] + y[1:] along dim
  return add(slice(y, dim, 0, -1), slice(y, dim, 1, kEnd));
}
Tensor sum_dim(const Tensor& x, int64_t dim) {
  return call_tensor("aten::sum.dim_IntList", {t(x), ints({dim}), Value::of_bool(false), Value{}});
}

// x viewed so that its differences broadcast against y's along dim (upstream's x_viewed), then
// those differences.
Tensor spacing(const Tensor& y, const Tensor& x, int64_t dim, const char* name) {
  Tensor viewed = x;
  if (x->dim() == 1) {
    TN_CHECK(x->size(0) == y->size(dim), name, ": There must be one `x` value for each sample "
             "point");
    Dims sizes(static_cast<size_t>(y->dim()), 1);
    sizes[dim] = x->size(0);
    viewed = ops::view(x, sizes);
  } else if (x->dim() < y->dim()) {
    Dims sizes(static_cast<size_t>(y->dim()), 1);
    for (int64_t i = 0; i < x->dim(); ++i) sizes[y->dim() - 1 - i] = x->size(x->dim() - 1 - i);
    viewed = ops::view(x, sizes);
  }
  return call_tensor("aten::sub.Tensor", {t(slice(viewed, dim, 1, kEnd)),
                                          t(slice(viewed, dim, 0, -1))});
}

Tensor zeros_except(const Tensor& y, int64_t dim) {
  Dims sizes = y->sizes();
  sizes.erase(sizes.begin() + dim);
  return call_tensor("aten::zeros", {ints(sizes), Value::of_dtype(y->dtype()), Value{},
                                     Value::of_device(y->device())});
}

void check_real_dx(const Scalar& dx, const char* name) {
  TN_CHECK(!(dx.is_complex() || dx.is_bool()), name, ": Currently, we only support dx as a "
           "real number.");
}

// trapezoid.x / trapz.x (Tensor y, Tensor x, *, int dim=-1)
void trapezoid_x(Call& c) {
  const Tensor &y = c.tensor(0), &x = c.tensor(1);
  const int64_t dim = wrap_dim(c.to_int(2), y->dim());
  if (y->size(dim) == 0) return c.ret(zeros_except(y, dim));
  TN_CHECK(y->dtype() != ScalarType::Bool && x->dtype() != ScalarType::Bool, "trapezoid: "
           "received a bool input for `x` or `y`, but bool is not supported");
  Tensor dx = spacing(y, x, dim, "trapezoid");
  Tensor s = sum_dim(call_tensor("aten::mul.Tensor", {t(pair_sums(y, dim)), t(dx)}), dim);
  c.ret(call_tensor("aten::div.Scalar", {t(s), ops::f64(2.0)}));
}
// trapezoid.dx (Tensor y, *, Scalar dx=1, int dim=-1) and trapz.dx (float dx).
void trapezoid_dx(Call& c) {
  const Tensor& y = c.tensor(0);
  const int64_t dim = wrap_dim(c.to_int(2), y->dim());
  if (y->size(dim) == 0) return c.ret(zeros_except(y, dim));
  TN_CHECK(y->dtype() != ScalarType::Bool, "trapezoid: received a bool input for `y`, but bool "
           "is not supported");
  const Scalar dx = c.scalar(1);
  check_real_dx(dx, "trapezoid");
  auto select = [&](int64_t i) {
    return call_tensor("aten::select.int", {t(y), i64(dim), i64(i)});
  };
  Tensor ends = call_tensor("aten::mul.Scalar", {t(add(select(0), select(-1))), ops::f64(0.5)});
  Tensor inner = call_tensor("aten::sub.Tensor", {t(sum_dim(y, dim)), t(ends)});
  c.ret(call_tensor("aten::mul.Scalar", {t(inner), ops::f64(dx.to_double())}));
}
TN_REGISTER_COMPOSITE("aten::trapezoid.x", trapezoid_x);
TN_REGISTER_COMPOSITE("aten::trapezoid.dx", trapezoid_dx);
TN_REGISTER_COMPOSITE("aten::trapz.x", trapezoid_x);
TN_REGISTER_COMPOSITE("aten::trapz.dx", trapezoid_dx);

// cumulative_trapezoid.x (Tensor y, Tensor x, *, int dim=-1)
void cumulative_trapezoid_x(Call& c) {
  const Tensor &y = c.tensor(0), &x = c.tensor(1);
  const int64_t dim = wrap_dim(c.to_int(2), y->dim());
  TN_CHECK(y->dtype() != ScalarType::Bool && x->dtype() != ScalarType::Bool,
           "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not "
           "supported");
  Tensor dx = spacing(y, x, dim, "cumulative_trapezoid");
  Tensor acc = call_tensor("aten::cumsum", {t(call_tensor("aten::mul.Tensor",
                                                          {t(pair_sums(y, dim)), t(dx)})),
                                            i64(dim), Value{}});
  c.ret(call_tensor("aten::div.Scalar", {t(acc), ops::f64(2.0)}));
}
// cumulative_trapezoid.dx (Tensor y, *, Scalar dx=1, int dim=-1)
void cumulative_trapezoid_dx(Call& c) {
  const Tensor& y = c.tensor(0);
  TN_CHECK(y->dtype() != ScalarType::Bool, "cumulative_trapezoid: received a bool input for "
           "`y`, but bool is not supported");
  const Scalar dx = c.scalar(1);
  check_real_dx(dx, "cumulative_trapezoid");
  const int64_t dim = c.to_int(2);
  Tensor scaled = call_tensor("aten::mul.Scalar", {t(pair_sums(y, dim)),
                                                   ops::f64(dx.to_double() / 2.0)});
  c.ret(call_tensor("aten::cumsum", {t(scaled), i64(dim), Value{}}));
}
TN_REGISTER_COMPOSITE("aten::cumulative_trapezoid.x", cumulative_trapezoid_x);
TN_REGISTER_COMPOSITE("aten::cumulative_trapezoid.dx", cumulative_trapezoid_dx);

}  // namespace
}  // namespace tn
