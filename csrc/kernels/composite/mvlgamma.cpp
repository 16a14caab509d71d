// The multivariate log-gamma function, as upstream's UnaryOps.cpp composes it: mvlgamma (and
// mvlgamma_, mvlgamma.out; special_multigammaln(.out) are its aliases) is
//   sum over j < p of lgamma(self + (1 - p) / 2 + j / 2)  +  p (p - 1) / 4 log(pi)
// built from door ops: arange(-p / 2 + 1/2, 1/2, 1/2) in self's dtype (the default float dtype
// for integers), added to self.unsqueeze(-1), lgamma_ in place, summed over the last dim, the
// constant (p (p - 1) log(pi) / 4 in double) added in place. Bool input and p < 1 refused in
// upstream's words; out= (and mvlgamma_, upstream's out= into self) refuses a dtype the result
// cannot be cast to, with upstream's message.
#include <cmath>

#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::t;

void mvlgamma_check(const Tensor& self, int64_t p) {
  TN_CHECK(self->dtype() != ScalarType::Bool, "The input tensor may not be a boolean tensor.");
  TN_CHECK(p >= 1, "p has to be greater than or equal to 1");
  // (upstream's arange in a complex dtype refuses so)
  TN_CHECK_KIND(!is_complex(self->dtype()), NotImplemented, "\"arange_cpu\" not implemented "
                "for '", c10_dtype_name(self->dtype()), "'");
}

// The sum of lgamma over the p shifted copies of self, plus the constant, computed in dtype.
Tensor mvlgamma_of(const Tensor& self, int64_t p, ScalarType dtype) {
  Tensor args = call_tensor("aten::arange.start_step",
                            {ops::f64(-static_cast<double>(p) * 0.5 + 0.5), ops::f64(0.5),
                             ops::f64(0.5), Value::of_dtype(dtype), Value{},
                             Value::of_device(self->device())});
  args = call_tensor("aten::add.Tensor",
                     {t(args), t(call_tensor("aten::unsqueeze", {t(self), ops::i64(-1)}))});
  call_tensor("aten::lgamma_", {t(args)});
  Tensor r = call_tensor("aten::sum.dim_IntList",
                         {t(args), Value::of_ints(Dims{-1}), Value::of_bool(false), Value{}});
  const double p2_sub_p = static_cast<double>(p * (p - 1));
  call_tensor("aten::add_.Scalar", {t(r), ops::f64(p2_sub_p * std::log(M_PI) * 0.25)});
  return r;
}

ScalarType mvlgamma_dtype(const Tensor& self) {
  const ScalarType st = self->dtype();
  return is_floating(st) || is_complex(st) ? st : default_float_dtype();
}

// Upstream's meta kernels of mvlgamma are its Python ones (an elementwise rule, integers and
// bool to the default float dtype, a contiguous result), which check neither p nor bool; the
// functional one's arange(1 - p, 1) refuses a negative p.
Tensor meta_result(const Tensor& self) {
  return ops::empty(self->sizes(), mvlgamma_dtype(self), self->device());
}

template <bool kMeta>
void mvlgamma(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t p = c.to_int(1);
  if (kMeta) {
    TN_CHECK(p >= 0, "upper bound and lower bound inconsistent with step sign");
    return c.ret(meta_result(self));
  }
  mvlgamma_check(self, p);
  c.ret(mvlgamma_of(self, p, mvlgamma_dtype(self)));
}

// The functional result cast into out (resized as upstream's resize_output); upstream's
// message names self's dtype as the result's and the result's as the output's.
Tensor mvlgamma_into(const Tensor& self, const Value& p, const Tensor& out,
                     const std::string& key) {
  Tensor r = call_tensor("aten::mvlgamma", {t(self), p});
  TN_CHECK(can_cast(r->dtype(), out->dtype()), "mvlgamma: result type ",
           c10_dtype_name(self->dtype()), " can't be cast to the desired output type ",
           c10_dtype_name(r->dtype()));
  return ops::write_out(out, r, key);
}

// mvlgamma_: upstream's mvlgamma_out(self, p, self).
template <bool kMeta>
void mvlgamma_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  if (kMeta) return c.ret(self);
  mvlgamma_check(self, c.to_int(1));
  c.ret(mvlgamma_into(self, c.arg(1), self, c.key()));
}

template <bool kMeta>
void mvlgamma_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(2);
  if (kMeta) {  // upstream's Python out= wrapper
    const ScalarType rt = mvlgamma_dtype(self);
    TN_CHECK(can_cast(rt, out->dtype()), "Attempting to cast from torch.", name(rt),
             " to out tensor with dtype torch.", name(out->dtype()),
             ", but this can't be cast because it is not safe!");
    return c.ret(ops::write_out(out, meta_result(self), c.key()));
  }
  c.ret(mvlgamma_into(self, c.arg(1), out, c.key()));
}

constexpr char kMvlgamma[] = "aten::mvlgamma";
constexpr char kMvlgammaOut[] = "aten::mvlgamma.out";

}  // namespace

TN_REGISTER_KERNEL("aten::mvlgamma", DenseCPU, mvlgamma<false>);
TN_REGISTER_KERNEL("aten::mvlgamma", Meta, mvlgamma<true>);
TN_REGISTER_KERNEL("aten::mvlgamma_", DenseCPU, mvlgamma_inplace<false>);
TN_REGISTER_KERNEL("aten::mvlgamma_", Meta, mvlgamma_inplace<true>);
TN_REGISTER_KERNEL("aten::mvlgamma.out", DenseCPU, mvlgamma_out<false>);
TN_REGISTER_KERNEL("aten::mvlgamma.out", Meta, mvlgamma_out<true>);
TN_REGISTER_COMPOSITE("aten::special_multigammaln", ops::forward_to<kMvlgamma>);
TN_REGISTER_COMPOSITE("aten::special_multigammaln.out", ops::forward_to<kMvlgammaOut>);

}  // namespace tn
