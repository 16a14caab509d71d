// cov and corrcoef, composed as upstream's Correlation.cpp composes them (its checks and words,
// its corner cases for one observation, its order of operations), so their values and gradients
// are those of the ops they call: the weighted mean, the centred input, mm, true_divide; corrcoef
// divides by the standard deviations and clips to [-1, 1].
#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

Value S(int64_t v) { return Value::of_scalar(Scalar::from_int(v)); }
// upstream's is_scalar_tensor_true: equal(x, ones) (so a meta tensor refuses as equal does).
bool truthy(const Tensor& x) {
  Tensor one = call_tensor("aten::ones_like", {t(x), Value{}, Value{}, Value{}, Value{},
                                               Value{}});
  return call("aten::equal", {t(x), t(one)})[0].b;
}
Tensor long_scalar(int64_t v, Device device) {
  return call_tensor("aten::scalar_tensor", {S(v), Value::of_dtype(ScalarType::Long), Value{},
                                             Value::of_device(device)});
}
Tensor op2(const char* key, const Tensor& a, const Tensor& b) {
  return call_tensor(key, {t(a), t(b)});
}
Tensor op1(const char* key, const Tensor& a) { return call_tensor(key, {t(a)}); }
Tensor sum_all(const Tensor& x) { return call_tensor("aten::sum", {t(x), Value{}}); }

// upstream's checks of fweights (integral) or aweights (floating) against n observations.
void check_weights(const Tensor& w, const char* which, bool integral, int64_t n) {
  TN_CHECK(w->dim() <= 1, "cov(): expected ", which, " to have one or fewer dimensions but got ",
           which, " with ", w->dim(), " dimensions");
  const bool ok = integral ? is_integral(w->dtype(), false) : is_floating(w->dtype());
  TN_CHECK(ok, "cov(): expected ", which, " to have ", integral ? "integral" : "floating point",
           " dtype but got ", which, " with ", enum_name(w->dtype()), " dtype");
  TN_CHECK(w->numel() == n, "cov(): expected ", which, " to have the same numel as there are "
           "observations in the input but got ", w->numel(), " != ", n);
  TN_CHECK(n == 0 || truthy(call_tensor("aten::ge.Scalar", {t(op1("aten::min", w)), S(0)})),
           "cov(): ", which, " cannot be negative");
}

Tensor cov_of(const Tensor& self, int64_t correction, const Tensor* fw, const Tensor* aw) {
  TN_CHECK(self->dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an "
           "input with ", self->dim(), " dimensions");
  TN_CHECK(self->dtype() != ScalarType::Bool, "cov(): bool dtype is not supported for input");
  Tensor in = self->dim() < 2 ? view(self, {1, -1}) : self;
  const int64_t n = in->size(1);
  Tensor w;
  if (fw) {
    check_weights(*fw, "fweights", true, n);
    w = *fw;
  }
  if (aw) {
    check_weights(*aw, "aweights", false, n);
    w = w ? op2("aten::mul.Tensor", w, *aw) : *aw;
  }
  const Tensor w_sum = w ? sum_all(w) : long_scalar(n, in->device());
  TN_CHECK(!w || truthy(call_tensor("aten::ne.Scalar", {t(w_sum), S(0)})),
           "cov(): weights sum to zero, can't be normalized");
  Tensor summed = call_tensor("aten::sum.dim_IntList", {t(w ? op2("aten::mul.Tensor", in, w) : in),
                                                        ints({1}), Value::of_bool(false),
                                                        Value{}});
  const Tensor avg = op2("aten::div.Tensor", summed, w_sum);
  Tensor norm;
  if (!w) {
    norm = long_scalar(n - correction, in->device());
  } else if (correction == 0) {
    norm = w_sum;
  } else if (!aw) {
    norm = call_tensor("aten::sub.Scalar", {t(w_sum), S(correction), S(1)});
  } else if (!fw && n == 1 && correction == 1) {
    norm = long_scalar(0, in->device());
  } else {
    Tensor waw = sum_all(op2("aten::mul.Tensor", w, *aw));
    Tensor k = op2("aten::div.Tensor", call_tensor("aten::mul.Scalar", {t(waw), S(correction)}),
                   w_sum);
    norm = call_tensor("aten::sub.Tensor", {t(w_sum), t(k), S(1)});
  }
  if (truthy(call_tensor("aten::le.Scalar", {t(norm), S(0)}))) {
    warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
         "of observations.");
    call("aten::zero_", {t(norm)});
  }
  if (n == 1 && (fw != nullptr) != (aw != nullptr)) {
    // upstream zeroes the input's own (2-D view of the) storage here, then promotes integers
    call("aten::zero_", {t(in)});
    if (is_integral(in->dtype(), true))
      in = call_tensor("aten::_to_copy", {t(in), Value::of_dtype(ScalarType::Float)});
  } else {
    in = call_tensor("aten::sub.Tensor",
                     {t(in), t(call_tensor("aten::unsqueeze", {t(avg), i64(1)})), S(1)});
  }
  Tensor rhs = op1("aten::conj", op1("aten::t", w ? op2("aten::mul.Tensor", in, w) : in));
  Tensor c = op2("aten::mm", in, rhs);
  return op1("aten::squeeze", op2("aten::true_divide.Tensor", c, norm));
}

// cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)
void cov(Call& c) {
  c.ret(cov_of(c.tensor(0), c.to_int(1), c.optional_tensor(2), c.optional_tensor(3)));
}

Tensor clip11(const Tensor& x) {
  return call_tensor("aten::clip", {t(x), S(-1), S(1)});
}
// corrcoef(Tensor self): cov over the outer product of the standard deviations, clipped.
void corrcoef(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got "
           "an input with ", self->dim(), " dimensions");
  Tensor cv = cov_of(self, 1, nullptr, nullptr);
  if (cv->dim() == 0) return c.ret(op2("aten::div.Tensor", cv, cv));
  Tensor d = call_tensor("aten::diagonal", {t(cv), i64(0), i64(0), i64(1)});
  Tensor sd = op1("aten::sqrt", is_complex(d->dtype()) ? op1("aten::real", d) : d);
  cv = op2("aten::div.Tensor", cv, view(sd, {-1, 1}));
  cv = op2("aten::div.Tensor", cv, view(sd, {1, -1}));
  if (!is_complex(cv->dtype())) return c.ret(clip11(cv));
  c.ret(op2("aten::complex", clip11(op1("aten::real", cv)), clip11(op1("aten::imag", cv))));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::cov", cov);
TN_REGISTER_COMPOSITE("aten::corrcoef", corrcoef);

}  // namespace tn
