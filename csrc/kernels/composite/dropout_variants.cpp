// feature_dropout, alpha_dropout and feature_alpha_dropout, with their in-place forms, as
// upstream's CompositeImplicit Dropout.cpp writes them (dropout itself: kernels/cpu/nn_misc.cpp):
// the input itself when nothing is dropped (p == 0, not training, or no elements); with p == 1,
// input * 0-d zeros; otherwise a noise tensor filled by bernoulli_(1 - p) from the default
// generator in upstream's order (so a seeded call gives upstream's bits), one draw per element
// of the input's shape or, for the feature forms, per (N, C) channel (shape N x C x 1 x ...),
// then scaled: by 1 / (1 - p), or for the alpha forms to keep SELU's mean and variance:
// noise * a plus b = (noise - 1) * alpha * a + alpha * a * p.
#include <cmath>

#include "kernels/composite/ops.h"

namespace tn {
namespace {

using ops::t;

Value num(double v) { return Value::of_scalar(Scalar::from_double(v)); }

// The noise: laid out as the input (empty_like, so draws follow its memory order), or for the
// feature forms a contiguous N x C x 1 x ... of its dtype.
Tensor make_noise(const Tensor& x, bool feature) {
  if (!feature) return call_tensor("aten::empty_like", {t(x)});
  TN_CHECK(x->dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  Dims sizes(static_cast<size_t>(x->dim()), 1);
  sizes[0] = x->size(0);
  sizes[1] = x->size(1);
  return ops::empty(sizes, x->dtype(), x->device());
}

// (input, p, train), upstream's _dropout_impl<Feature, Alpha, InPlace>.
template <bool Feature, bool Alpha, bool InPlace>
void dropout_variant(Call& c) {
  const Tensor& x = c.tensor(0);
  const double p = c.to_double(1);
  TN_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !c.to_bool(2) || x->numel() == 0) return c.ret(x);
  const char* mul = InPlace ? "aten::mul_.Tensor" : "aten::mul.Tensor";
  if (p == 1) {
    Tensor zero = call_tensor("aten::zeros", {ops::ints({}), Value::of_dtype(x->dtype()),
                                              Value{}, Value::of_device(x->device())});
    return c.ret(call_tensor(mul, {t(x), t(zero)}));
  }
  Tensor noise = make_noise(x, Feature);
  call("aten::bernoulli_.float", {t(noise), Value::of_double(1 - p)});
  if (!Alpha) {
    call("aten::div_.Scalar", {t(noise), num(1 - p)});
    return c.ret(call_tensor(mul, {t(x), t(noise)}));
  }
  // SELU's negative saturation value (alpha), as upstream's constant.
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = call_tensor("aten::add.Scalar", {t(noise), Value::of_scalar(Scalar::from_int(-1))});
  call("aten::mul_.Scalar", {t(b), num(kAlpha * a)});
  call("aten::add_.Scalar", {t(b), num(kAlpha * a * p)});
  call("aten::mul_.Scalar", {t(noise), num(a)});
  Tensor y = call_tensor(mul, {t(x), t(noise)});
  c.ret(call_tensor("aten::add_.Tensor", {t(y), t(b)}));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::feature_dropout", (dropout_variant<true, false, false>));
TN_REGISTER_COMPOSITE("aten::feature_dropout_", (dropout_variant<true, false, true>));
TN_REGISTER_COMPOSITE("aten::alpha_dropout", (dropout_variant<false, true, false>));
TN_REGISTER_COMPOSITE("aten::alpha_dropout_", (dropout_variant<false, true, true>));
TN_REGISTER_COMPOSITE("aten::feature_alpha_dropout", (dropout_variant<true, true, false>));
TN_REGISTER_COMPOSITE("aten::feature_alpha_dropout_", (dropout_variant<true, true, true>));

}  // namespace tn
