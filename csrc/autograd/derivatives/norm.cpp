// Derivatives of the normalisations added for training: native_group_norm (upstream's
// derivatives.yaml entry): the native_group_norm_backward kernel of kernels/cpu/nn_norm2.cpp for
// a first backward of the output alone, else (gradients flowing into the mean or rstd outputs,
// or create_graph) upstream's infinitely_differentiable_native_group_norm_backward in door ops.
#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor sum_dim(const Tensor& a, int64_t dim, bool keepdim) {
  return call_tensor("aten::sum.dim_IntList",
                     {V(a), Value::of_ints(Dims{dim}), Value::of_bool(keepdim)});
}
Tensor add_scalar(const Tensor& a, double x) {
  return call_tensor("aten::add.Scalar", {V(a), S(x)});
}

// Upstream's infinitely_differentiable_native_group_norm_backward: the gradients of input,
// weight and bias from those of out (dY), mean and rstd, over groups of D = C / G channels.
// Per group, with x of shape (N, G, D, HxW), s = 1 / (D HxW), ds = sum over HxW of dY x and
// db of dY: dX = a dY + b x + c, a = rstd gamma, b = (c' mean - b') rstd^3 s with b', c' the
// sums over D of ds gamma, db gamma, c = -b mean - c' rstd s; the mean and rstd gradients add
// var_mean's backward, dvar = -rstd^3 drstd / 2.
Grads group_norm_backward_door(const Saved& s, const Tensor& dY, const Tensor& dmean,
                               const Tensor& drstd) {
  const Tensor& X = s.tensor(0);
  const Tensor* gamma = s.arg(1).tag == Value::Tag::Tensor && s.arg(1).tensor ? &s.arg(1).tensor
                                                                              : nullptr;
  int64_t N = s.to_int(3), C = s.to_int(4), HxW = s.to_int(5), G = s.to_int(6);
  int64_t D = C / G;
  double sc = 1.0 / static_cast<double>(D * HxW);
  Tensor Xt = reshape(X, {N, G, D, HxW});
  Tensor mean_t = reshape(s.result(1), {N, G, 1, 1});
  Tensor rstd_t = reshape(s.result(2), {N, G, 1, 1});
  Tensor dYt, ds, db;
  if (dY) {
    dYt = reshape(dY, {N, G, D, HxW});
    ds = unsqueeze(sum_dim(mul(dYt, Xt), 3, false), -1);
    db = unsqueeze(sum_dim(dYt, 3, false), -1);
  }
  Grads out(3);
  if (s.need(0)) {
    Tensor gamma_t = gamma ? reshape(*gamma, {1, G, D, 1}) : Tensor();
    Tensor rstd_cube = mul(mul(rstd_t, rstd_t), rstd_t);
    Tensor dX;
    if (dY) {
      Tensor a = gamma ? mul(rstd_t, gamma_t) : rstd_t;
      Tensor b = unsqueeze(sum_dim(gamma ? mul(ds, gamma_t) : ds, 2, false), -2);
      Tensor c = unsqueeze(sum_dim(gamma ? mul(db, gamma_t) : db, 2, false), -2);
      b = mul(mul(sub(mul(c, mean_t), b), rstd_cube), Scalar::from_double(sc));
      c = sub(mul(neg(b), mean_t), mul(mul(c, rstd_t), Scalar::from_double(sc)));
      dX = add(add(mul(a, dYt), mul(b, Xt)), c);
    }
    if (dmean && drstd) {
      // var_mean_backward(dvar, dmean, x, dims {2, 3}, correction 0, keepdim): 2 / n dvar
      // (x - mean(x)) + dmean / n, n = D HxW.
      Tensor dvar = mul(mul(rstd_cube, Scalar::from_double(-0.5)), reshape(drstd, {N, G, 1, 1}));
      Tensor xmean = call_tensor("aten::mean.dim", {V(Xt), Value::of_ints(Dims{2, 3}),
                                                     Value::of_bool(true)});
      Tensor gvar = mul(mul(dvar, Scalar::from_double(2.0 * sc)), sub(Xt, xmean));
      Tensor gmean = div(expand(reshape(dmean, {N, G, 1, 1}), Xt->sizes()),
                         Scalar::from_int(D * HxW));
      Tensor vm = add(gvar, gmean);
      dX = dX ? add(dX, vm) : vm;
    }
    if (dX) out[0] = reshape(dX, X->sizes());
  }
  if (s.need(1) && dY)
    out[1] = reshape(sum_dim(mul(sub(ds, mul(db, mean_t)), rstd_t), 0, false), s.meta(1).sizes);
  if (s.need(2) && dY) out[2] = reshape(sum_dim(db, 0, false), s.meta(2).sizes);
  return out;
}

// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd): upstream
// takes the door-op path under create_graph or when mean or rstd have gradients, else
// native_group_norm_backward(grad.contiguous(), input, mean, rstd, weight, N, C, HxW, group,
// mask).
Grads group_norm_backward(const Saved& s, const Grads& g) {
  Tensor dmean = handed(g, 1) ? g[1] : Tensor();
  Tensor drstd = handed(g, 2) ? g[2] : Tensor();
  if (grad_mode_enabled() || dmean || drstd) {
    // As upstream's helper: the mean and rstd terms only when both have gradients, the others
    // only from out's (so a gradient of mean alone gives none, as upstream's does).
    return group_norm_backward_door(s, handed(g, 0) ? g[0] : Tensor(), dmean, drstd);
  }
  if (!g[0]) return Grads(3);
  Value w = s.arg(1).tag == Value::Tag::Tensor && s.arg(1).tensor ? s.arg(1) : Value{};
  Tensor dy = call_tensor("aten::contiguous", {V(g[0])});
  std::vector<Value> r = call(
      "aten::native_group_norm_backward",
      {V(dy), V(s.tensor(0)), V(s.result(1)), V(s.result(2)), w, s.arg(3), s.arg(4), s.arg(5),
       s.arg(6), bool_list({s.need(0), s.need(1), s.need(2)})});
  Grads out(3);
  for (size_t i = 0; i < 3; ++i)
    if (s.need(i) && r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::native_group_norm",
                       {"NativeGroupNormBackward0", {0, 1, 2}, {{0}, {1}}, 0b110,
                        group_norm_backward});

}  // namespace tn::autograd
