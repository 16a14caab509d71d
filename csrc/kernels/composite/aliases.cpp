// Ops that upstream defines as CompositeImplicitAutograd calls of another op: the aliases
// (absolute -> abs, divide -> div, multiply -> mul, ...), std/var without a correction (->
// .correction), outer (view then mul) and where with Scalar operands (scalar_tensor then
// where.self). They run at Autograd, so a dispatch mode sees the op they call, as upstream's.
#include "core/promotion.h"
#include "core/warning.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

// The registration of one alias overload: TN_ALIAS(name, alias overload, target overload).
#define TN_ALIAS(id, from, to)                  \
  constexpr char k_##id[] = to;                 \
  TN_REGISTER_COMPOSITE(from, forward_to<k_##id>)

TN_ALIAS(absolute, "aten::absolute", "aten::abs");
TN_ALIAS(absolute_, "aten::absolute_", "aten::abs_");
TN_ALIAS(absolute_out, "aten::absolute.out", "aten::abs.out");
TN_ALIAS(negative, "aten::negative", "aten::neg");
TN_ALIAS(negative_, "aten::negative_", "aten::neg_");
TN_ALIAS(negative_out, "aten::negative.out", "aten::neg.out");
TN_ALIAS(fix, "aten::fix", "aten::trunc");
TN_ALIAS(fix_, "aten::fix_", "aten::trunc_");
TN_ALIAS(fix_out, "aten::fix.out", "aten::trunc.out");
TN_ALIAS(expit, "aten::special_expit", "aten::sigmoid");
TN_ALIAS(expit_out, "aten::special_expit.out", "aten::sigmoid.out");
TN_ALIAS(clip, "aten::clip", "aten::clamp");
TN_ALIAS(clip_t, "aten::clip.Tensor", "aten::clamp.Tensor");
TN_ALIAS(clip_out, "aten::clip.out", "aten::clamp.out");
TN_ALIAS(clip_t_out, "aten::clip.Tensor_out", "aten::clamp.Tensor_out");
TN_ALIAS(clip_, "aten::clip_", "aten::clamp_");
TN_ALIAS(clip_t_, "aten::clip_.Tensor", "aten::clamp_.Tensor");
TN_ALIAS(multiply_t, "aten::multiply.Tensor", "aten::mul.Tensor");
TN_ALIAS(multiply_s, "aten::multiply.Scalar", "aten::mul.Scalar");
TN_ALIAS(multiply_out, "aten::multiply.out", "aten::mul.out");
TN_ALIAS(multiply_t_, "aten::multiply_.Tensor", "aten::mul_.Tensor");
TN_ALIAS(multiply_s_, "aten::multiply_.Scalar", "aten::mul_.Scalar");
TN_ALIAS(subtract_t, "aten::subtract.Tensor", "aten::sub.Tensor");
TN_ALIAS(subtract_s, "aten::subtract.Scalar", "aten::sub.Scalar");
TN_ALIAS(subtract_out, "aten::subtract.out", "aten::sub.out");
TN_ALIAS(subtract_t_, "aten::subtract_.Tensor", "aten::sub_.Tensor");
TN_ALIAS(subtract_s_, "aten::subtract_.Scalar", "aten::sub_.Scalar");
TN_ALIAS(divide_t, "aten::divide.Tensor", "aten::div.Tensor");
TN_ALIAS(divide_s, "aten::divide.Scalar", "aten::div.Scalar");
TN_ALIAS(divide_tm, "aten::divide.Tensor_mode", "aten::div.Tensor_mode");
TN_ALIAS(divide_sm, "aten::divide.Scalar_mode", "aten::div.Scalar_mode");
TN_ALIAS(divide_out, "aten::divide.out", "aten::div.out");
TN_ALIAS(divide_out_m, "aten::divide.out_mode", "aten::div.out_mode");
TN_ALIAS(divide_t_, "aten::divide_.Tensor", "aten::div_.Tensor");
TN_ALIAS(divide_s_, "aten::divide_.Scalar", "aten::div_.Scalar");
TN_ALIAS(divide_tm_, "aten::divide_.Tensor_mode", "aten::div_.Tensor_mode");
TN_ALIAS(divide_sm_, "aten::divide_.Scalar_mode", "aten::div_.Scalar_mode");
TN_ALIAS(true_divide_t, "aten::true_divide.Tensor", "aten::div.Tensor");
TN_ALIAS(true_divide_s, "aten::true_divide.Scalar", "aten::div.Scalar");
TN_ALIAS(true_divide_out, "aten::true_divide.out", "aten::div.out");
TN_ALIAS(true_divide_t_, "aten::true_divide_.Tensor", "aten::div_.Tensor");
TN_ALIAS(true_divide_s_, "aten::true_divide_.Scalar", "aten::div_.Scalar");
TN_ALIAS(greater_s, "aten::greater.Scalar", "aten::gt.Scalar");
TN_ALIAS(greater_t, "aten::greater.Tensor", "aten::gt.Tensor");
TN_ALIAS(greater_so, "aten::greater.Scalar_out", "aten::gt.Scalar_out");
TN_ALIAS(greater_to, "aten::greater.Tensor_out", "aten::gt.Tensor_out");
TN_ALIAS(greater_s_, "aten::greater_.Scalar", "aten::gt_.Scalar");
TN_ALIAS(greater_t_, "aten::greater_.Tensor", "aten::gt_.Tensor");
TN_ALIAS(greater_equal_s, "aten::greater_equal.Scalar", "aten::ge.Scalar");
TN_ALIAS(greater_equal_t, "aten::greater_equal.Tensor", "aten::ge.Tensor");
TN_ALIAS(greater_equal_so, "aten::greater_equal.Scalar_out", "aten::ge.Scalar_out");
TN_ALIAS(greater_equal_to, "aten::greater_equal.Tensor_out", "aten::ge.Tensor_out");
TN_ALIAS(greater_equal_s_, "aten::greater_equal_.Scalar", "aten::ge_.Scalar");
TN_ALIAS(greater_equal_t_, "aten::greater_equal_.Tensor", "aten::ge_.Tensor");
TN_ALIAS(less_s, "aten::less.Scalar", "aten::lt.Scalar");
TN_ALIAS(less_t, "aten::less.Tensor", "aten::lt.Tensor");
TN_ALIAS(less_so, "aten::less.Scalar_out", "aten::lt.Scalar_out");
TN_ALIAS(less_to, "aten::less.Tensor_out", "aten::lt.Tensor_out");
TN_ALIAS(less_s_, "aten::less_.Scalar", "aten::lt_.Scalar");
TN_ALIAS(less_t_, "aten::less_.Tensor", "aten::lt_.Tensor");
TN_ALIAS(less_equal_s, "aten::less_equal.Scalar", "aten::le.Scalar");
TN_ALIAS(less_equal_t, "aten::less_equal.Tensor", "aten::le.Tensor");
TN_ALIAS(less_equal_so, "aten::less_equal.Scalar_out", "aten::le.Scalar_out");
TN_ALIAS(less_equal_to, "aten::less_equal.Tensor_out", "aten::le.Tensor_out");
TN_ALIAS(less_equal_s_, "aten::less_equal_.Scalar", "aten::le_.Scalar");
TN_ALIAS(less_equal_t_, "aten::less_equal_.Tensor", "aten::le_.Tensor");
TN_ALIAS(not_equal_s, "aten::not_equal.Scalar", "aten::ne.Scalar");
TN_ALIAS(not_equal_t, "aten::not_equal.Tensor", "aten::ne.Tensor");
TN_ALIAS(not_equal_so, "aten::not_equal.Scalar_out", "aten::ne.Scalar_out");
TN_ALIAS(not_equal_to, "aten::not_equal.Tensor_out", "aten::ne.Tensor_out");
TN_ALIAS(not_equal_s_, "aten::not_equal_.Scalar", "aten::ne_.Scalar");
TN_ALIAS(not_equal_t_, "aten::not_equal_.Tensor", "aten::ne_.Tensor");

// std / var (Tensor self, bool unbiased=True) and .dim (self, int[1]? dim, bool unbiased=True,
// bool keepdim=False): the .correction overload with correction = unbiased ? 1 : 0 (its
// results as they come: std_mean/var_mean return two).
template <const char* kTarget, bool kWithDim>
void with_correction(Call& c) {
  int64_t correction = c.to_bool(kWithDim ? 2 : 1) ? 1 : 0;
  std::vector<Value> args{c.arg(0), kWithDim ? c.arg(1) : Value{},
                          Value::of_scalar(Scalar::from_int(correction)),
                          Value::of_bool(kWithDim && c.to_bool(3))};
  for (Value& v : call(kTarget, std::move(args))) c.ret(std::move(v));
}
constexpr char kStdCorrection[] = "aten::std.correction";
constexpr char kVarCorrection[] = "aten::var.correction";
TN_REGISTER_COMPOSITE("aten::std", (with_correction<kStdCorrection, false>));
TN_REGISTER_COMPOSITE("aten::std.dim", (with_correction<kStdCorrection, true>));
TN_REGISTER_COMPOSITE("aten::var", (with_correction<kVarCorrection, false>));
TN_REGISTER_COMPOSITE("aten::var.dim", (with_correction<kVarCorrection, true>));
// std_mean / var_mean (the same two spellings), returning both results.
constexpr char kStdMeanCorrection[] = "aten::std_mean.correction";
constexpr char kVarMeanCorrection[] = "aten::var_mean.correction";
TN_REGISTER_COMPOSITE("aten::std_mean", (with_correction<kStdMeanCorrection, false>));
TN_REGISTER_COMPOSITE("aten::std_mean.dim", (with_correction<kStdMeanCorrection, true>));
TN_REGISTER_COMPOSITE("aten::var_mean", (with_correction<kVarMeanCorrection, false>));
TN_REGISTER_COMPOSITE("aten::var_mean.dim", (with_correction<kVarMeanCorrection, true>));

// outer(Tensor self, Tensor vec2): self as a column (view (n, 1)) times vec2.
void outer(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  TN_CHECK(a->dim() == 1, "outer: Expected 1-D argument self, but got ", a->dim(), "-D");
  TN_CHECK(b->dim() == 1, "outer: Expected 1-D argument vec2, but got ", b->dim(), "-D");
  Tensor column = view(a, {a->size(0), 1});
  c.ret(call_tensor("aten::mul.Tensor", {t(column), t(b)}));
}
TN_REGISTER_COMPOSITE("aten::outer", outer);

ScalarType number_dtype(const Scalar& s) {
  return s.default_dtype();
}

// A 0-dim tensor of s in dtype on device, as upstream's where overloads make it.
Tensor scalar_tensor_of(const Scalar& s, ScalarType dtype, Device device) {
  Value strided;
  strided.tag = Value::Tag::Layout;
  return call_tensor("aten::scalar_tensor", {Value::of_scalar(s), Value::of_dtype(dtype), strided,
                                             Value::of_device(device)});
}

// where.Scalar(Tensor condition, Scalar self, Scalar other): both numbers in their result type
// on the condition's device (other first, as upstream), then where.self.
void where_scalars(Call& c) {
  const Tensor& cond = c.tensor(0);
  ResultType rt;
  rt.add_number(number_dtype(c.scalar(1)));
  rt.add_number(number_dtype(c.scalar(2)));
  Tensor other = scalar_tensor_of(c.scalar(2), rt.result(), cond->device());
  Tensor self = scalar_tensor_of(c.scalar(1), rt.result(), cond->device());
  c.ret(call_tensor("aten::where.self", {t(cond), t(self), t(other)}));
}

// where.ScalarOther(condition, Tensor self, Scalar other) and where.ScalarSelf(condition,
// Scalar self, Tensor other): the number in the result type of it and the tensor.
template <bool kScalarSelf>
void where_one_scalar(Call& c) {
  const Tensor& cond = c.tensor(0);
  const Tensor& tensor = c.tensor(kScalarSelf ? 2 : 1);
  const Scalar& number = c.scalar(kScalarSelf ? 1 : 2);
  ResultType rt;
  rt.add_tensor(tensor->dtype(), tensor->dim() == 0);
  rt.add_number(number_dtype(number));
  ScalarType common = rt.result();
  Tensor wrapped = scalar_tensor_of(number, common, tensor->device());
  // The tensor in the common dtype too (Tensor.to: a _to_copy only when it changes).
  Tensor same = tensor->dtype() == common
                    ? tensor
                    : call_tensor("aten::_to_copy", {t(tensor), Value::of_dtype(common)});
  c.ret(call_tensor("aten::where.self", kScalarSelf ? std::vector<Value>{t(cond), t(wrapped),
                                                                         t(same)}
                                                    : std::vector<Value>{t(cond), t(same),
                                                                         t(wrapped)}));
}
TN_REGISTER_COMPOSITE("aten::where.Scalar", where_scalars);
TN_REGISTER_COMPOSITE("aten::where.ScalarOther", where_one_scalar<false>);
TN_REGISTER_COMPOSITE("aten::where.ScalarSelf", where_one_scalar<true>);

// numpy's arc- names, swapaxes/swapdims, concat/concatenate, ger, and the torch.special names
// of ops that exist under another name.
TN_ALIAS(arctan2, "aten::arctan2", "aten::atan2");
TN_ALIAS(arctan2_, "aten::arctan2_", "aten::atan2_");
TN_ALIAS(arctan2_out, "aten::arctan2.out", "aten::atan2.out");
TN_ALIAS(arccos, "aten::arccos", "aten::acos");
TN_ALIAS(arccos_, "aten::arccos_", "aten::acos_");
TN_ALIAS(arccos_out, "aten::arccos.out", "aten::acos.out");
TN_ALIAS(arcsin, "aten::arcsin", "aten::asin");
TN_ALIAS(arcsin_, "aten::arcsin_", "aten::asin_");
TN_ALIAS(arcsin_out, "aten::arcsin.out", "aten::asin.out");
TN_ALIAS(arctan, "aten::arctan", "aten::atan");
TN_ALIAS(arctan_, "aten::arctan_", "aten::atan_");
TN_ALIAS(arctan_out, "aten::arctan.out", "aten::atan.out");
TN_ALIAS(arccosh, "aten::arccosh", "aten::acosh");
TN_ALIAS(arccosh_, "aten::arccosh_", "aten::acosh_");
TN_ALIAS(arccosh_out, "aten::arccosh.out", "aten::acosh.out");
TN_ALIAS(arcsinh, "aten::arcsinh", "aten::asinh");
TN_ALIAS(arcsinh_, "aten::arcsinh_", "aten::asinh_");
TN_ALIAS(arcsinh_out, "aten::arcsinh.out", "aten::asinh.out");
TN_ALIAS(arctanh, "aten::arctanh", "aten::atanh");
TN_ALIAS(arctanh_, "aten::arctanh_", "aten::atanh_");
TN_ALIAS(arctanh_out, "aten::arctanh.out", "aten::atanh.out");
TN_ALIAS(swapaxes, "aten::swapaxes", "aten::transpose.int");
TN_ALIAS(swapdims, "aten::swapdims", "aten::transpose.int");
TN_ALIAS(concat, "aten::concat", "aten::cat");
TN_ALIAS(concat_out, "aten::concat.out", "aten::cat.out");
TN_ALIAS(concatenate, "aten::concatenate", "aten::cat");
TN_ALIAS(concatenate_out, "aten::concatenate.out", "aten::cat.out");
TN_ALIAS(ger, "aten::ger", "aten::outer");
// ger.out warns (every call, as upstream's TORCH_WARN), then is outer.out.
void ger_out(Call& c) {
  warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer "
       "instead.");
  for (Value& v : call("aten::outer.out", {c.arg(0), c.arg(1), c.arg(2)})) c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::ger.out", ger_out);
TN_ALIAS(sp_digamma, "aten::special_digamma", "aten::digamma");
TN_ALIAS(sp_digamma_out, "aten::special_digamma.out", "aten::digamma.out");
TN_ALIAS(sp_psi, "aten::special_psi", "aten::digamma");
TN_ALIAS(sp_psi_out, "aten::special_psi.out", "aten::digamma.out");
TN_ALIAS(sp_erf, "aten::special_erf", "aten::erf");
TN_ALIAS(sp_erf_out, "aten::special_erf.out", "aten::erf.out");
TN_ALIAS(sp_erfc, "aten::special_erfc", "aten::erfc");
TN_ALIAS(sp_erfc_out, "aten::special_erfc.out", "aten::erfc.out");
TN_ALIAS(sp_exp2, "aten::special_exp2", "aten::exp2");
TN_ALIAS(sp_exp2_out, "aten::special_exp2.out", "aten::exp2.out");
TN_ALIAS(sp_expm1, "aten::special_expm1", "aten::expm1");
TN_ALIAS(sp_expm1_out, "aten::special_expm1.out", "aten::expm1.out");
TN_ALIAS(sp_gammaln, "aten::special_gammaln", "aten::lgamma");
TN_ALIAS(sp_gammaln_out, "aten::special_gammaln.out", "aten::lgamma.out");
TN_ALIAS(sp_log1p, "aten::special_log1p", "aten::log1p");
TN_ALIAS(sp_log1p_out, "aten::special_log1p.out", "aten::log1p.out");
TN_ALIAS(sp_polygamma, "aten::special_polygamma", "aten::polygamma");
TN_ALIAS(sp_polygamma_out, "aten::special_polygamma.out", "aten::polygamma.out");
TN_ALIAS(sp_round, "aten::special_round", "aten::round.decimals");
TN_ALIAS(sp_round_out, "aten::special_round.out", "aten::round.decimals_out");
TN_ALIAS(sp_log_softmax, "aten::special_log_softmax", "aten::log_softmax.int");
TN_ALIAS(sp_softmax, "aten::special_softmax", "aten::softmax.int");
TN_ALIAS(sp_logsumexp, "aten::special_logsumexp", "aten::logsumexp");
TN_ALIAS(sp_logsumexp_out, "aten::special_logsumexp.out", "aten::logsumexp.out");
TN_ALIAS(sp_sinc, "aten::special_sinc", "aten::sinc");
TN_ALIAS(sp_sinc_out, "aten::special_sinc.out", "aten::sinc.out");
TN_ALIAS(sp_xlogy, "aten::special_xlogy", "aten::xlogy.Tensor");
TN_ALIAS(sp_xlogy_ss, "aten::special_xlogy.self_scalar", "aten::xlogy.Scalar_Self");
TN_ALIAS(sp_xlogy_os, "aten::special_xlogy.other_scalar", "aten::xlogy.Scalar_Other");
TN_ALIAS(sp_xlogy_out, "aten::special_xlogy.out", "aten::xlogy.OutTensor");
TN_ALIAS(sp_xlogy_ss_out, "aten::special_xlogy.self_scalar_out", "aten::xlogy.OutScalar_Self");
TN_ALIAS(sp_xlogy_os_out, "aten::special_xlogy.other_scalar_out",
         "aten::xlogy.OutScalar_Other");

// special_ndtr(Tensor self) and .out: (1 + erf(x / sqrt(2))) / 2, as upstream's calc_ndtr
// writes it (x * M_SQRT1_2, then + 1, then * 0.5).
Tensor ndtr_of(const Tensor& x) {
  const Value sqrt1_2 = Value::of_scalar(Scalar::from_double(0.70710678118654752440));
  Tensor scaled = call_tensor("aten::mul.Scalar", {t(x), sqrt1_2});
  Tensor e = call_tensor("aten::erf", {t(scaled)});
  Tensor one_plus = call_tensor("aten::add.Scalar", {t(e), Value::of_scalar(Scalar::from_int(1)),
                                                     Value::of_scalar(Scalar::from_int(1))});
  return call_tensor("aten::mul.Scalar", {t(one_plus), Value::of_scalar(Scalar::from_double(0.5))});
}
void special_ndtr(Call& c) { c.ret(ndtr_of(c.tensor(0))); }
// (.out checks the cast itself, with upstream's message that names no op)
void special_ndtr_out(Call& c) {
  const Tensor& out = c.tensor(1);
  Tensor r = ndtr_of(c.tensor(0));
  TN_CHECK(can_cast(r->dtype(), out->dtype()), "result type ", enum_name(r->dtype()),
           " can't be cast to the desired output type ", enum_name(out->dtype()));
  c.ret(write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::special_ndtr", special_ndtr);
TN_REGISTER_COMPOSITE("aten::special_ndtr.out", special_ndtr_out);

// chalf(Tensor self, *, MemoryFormat? memory_format=None): to(complex32).
void chalf(Call& c) {
  c.ret(call_tensor("aten::to.dtype", {c.arg(0), Value::of_dtype(ScalarType::ComplexHalf),
                                       Value::of_bool(false), Value::of_bool(false), c.arg(1)}));
}
TN_REGISTER_COMPOSITE("aten::chalf", chalf);

}  // namespace
}  // namespace tn
