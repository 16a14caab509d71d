// Derivatives of the products of Householder reflectors, as upstream's FunctionsManual writes
// them: linalg_householder_product (LinalgHouseholderProductBackward0; orgqr, its alias,
// records it too) and ormqr (OrmqrBackward0), both through householder_product_backward.
#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {V(a), V(b)});
}
Tensor conj(const Tensor& x) { return call_tensor("aten::conj", {V(x)}); }
void sub_(const Tensor& x, const Tensor& y) { call("aten::sub_.Tensor", {V(x), V(y)}); }

// upstream's apply_simple_transformation with u = v (condition_with_I): K <- (I - t v v^H) K
// (left) or K (I - t v v^H); in place over rows / columns k.. of K when in_place (a first-order
// backward), else out of place (so that higher-order gradients see it).
Tensor reflect(int64_t m, int64_t k, const Tensor& v_full, const Tensor& t, Tensor K,
               bool in_place, bool left) {
  const Tensor tu = unsqueeze(t, -1);
  if (in_place) {
    const Tensor v = narrow(v_full, -2, k, m - k);
    if (left) {
      const Tensor Kk = narrow(K, -2, k, m - k);
      sub_(Kk, mul(mul(tu, v), matmul(ops::mH(v), Kk)));
    } else {
      const Tensor Kk = narrow(K, -1, k, m - k);
      sub_(Kk, mul(matmul(Kk, mul(tu, v)), ops::mH(v)));
    }
    return K;
  }
  const Tensor tr = left ? mul(mul(tu, v_full), matmul(ops::mH(v_full), K))
                         : mul(matmul(K, mul(tu, v_full)), ops::mH(v_full));
  return sub(K, tr);
}

// upstream's householder_product_backward(grad, result, input, tau, flip_order).
std::pair<Tensor, Tensor> householder_backward(const Tensor& grad, const Tensor& result,
                                               const Tensor& input_, const Tensor& tau,
                                               bool flip) {
  if (!grad || input_->numel() == 0 || tau->numel() == 0) return {};
  const int64_t m = input_->size(input_->dim() - 2), k = tau->size(tau->dim() - 1);
  Tensor input = call_tensor("aten::tril", {V(input_), Value::of_int(-1)});
  call("aten::fill_.Scalar", {V(call_tensor("aten::diagonal", {V(input), Value::of_int(0),
                                                               Value::of_int(-2),
                                                               Value::of_int(-1)})),
                              S(1.0)});
  const Tensor cols = narrow(input, -1, 0, k);
  const Tensor norm2 = call_tensor("aten::sum.dim_IntList",
                                   {V(mul(cols, conj(cols))), Value::of_ints({-2}),
                                    Value::of_bool(false), Value{}});
  const Tensor sigma = div(tau, call_tensor("aten::sub.Scalar", {V(mul(tau, norm2)), S(1.0)}));
  Tensor K = matmul(result, ops::mH(grad));
  const bool in_place = !grad_mode_enabled();
  auto flip_i = [&](int64_t i) { return flip ? k - i - 1 : i; };
  const bool apply_left = !flip;
  const int64_t zero = flip_i(0);
  K = reflect(m, zero, narrow(input, -1, zero, 1), narrow(sigma, -1, zero, 1), K, in_place,
              apply_left);
  Tensor input_grad = call_tensor("aten::zeros_like", {V(input_)});
  Tensor tau_grad = call_tensor("aten::zeros_like", {V(tau)});
  for (int64_t j = 0; j < k; ++j) {
    const int64_t i = flip_i(j);
    const Tensor v_i = narrow(input, -1, i, 1), t_i = narrow(tau, -1, i, 1);
    // update_grad: the gradients of v_i and tau_i from K
    const Tensor v = narrow(v_i, -2, i, m - i);
    const Tensor vHK = matmul(ops::mH(v), narrow(K, -2, i, m - i));
    const Tensor Kv = matmul(narrow(K, -1, i, m - i), v);
    const Tensor tu = unsqueeze(t_i, -1);
    const Tensor v_grad = sub(squeeze(conj(mul(neg(tu), vHK)), -2), squeeze(mul(tu, Kv), -1));
    const Tensor t_grad = neg(conj(matmul(narrow(vHK, -1, i, m - i), v)));
    auto select_last = [&](const Tensor& x) {
      return call_tensor("aten::select.int", {V(x), Value::of_int(-1), Value::of_int(i)});
    };
    ops::copy_(select_last(input_grad), v_grad);
    ops::copy_(select_last(tau_grad), squeeze(squeeze(t_grad, -1), -1));
    if (i != flip_i(k - 1)) {
      const int64_t nx = flip ? i - 1 : i + 1;
      K = reflect(m, nx, narrow(input, -1, nx, 1), narrow(sigma, -1, nx, 1), K, in_place,
                  apply_left);
      K = reflect(m, i, v_i, t_i, K, in_place, !apply_left);
    }
  }
  call("aten::tril_", {V(input_grad), Value::of_int(-1)});
  return {input_grad, tau_grad};
}

// linalg_householder_product(input, tau)
Grads householder_product_backward(const Saved& s, const Grads& g) {
  auto [gi, gt] = householder_backward(g[0], s.result(0), s.tensor(0), s.tensor(1), false);
  return {s.need(0) ? gi : Tensor(), s.need(1) ? gt : Tensor()};
}

// ormqr(self, input2 = tau, input3 = other, left, transpose): other gets ormqr(self, tau,
// grad, left, !transpose); self and tau householder_product_backward with grad and result
// (conjugate-transposed, or swapped and flipped) as upstream's ormqr_backward picks them.
Grads ormqr_backward(const Saved& s, const Grads& g) {
  const Tensor &grad = g[0], &result = s.result(0), &self = s.tensor(0), &tau = s.tensor(1);
  if (!grad) return {Tensor(), Tensor(), Tensor()};
  const bool left = s.to_bool(3), transpose = s.to_bool(4);
  Grads out(3);
  if (s.need(2))
    out[2] = call_tensor("aten::ormqr", {V(self), V(tau), V(grad), Value::of_bool(left),
                                         Value::of_bool(!transpose)});
  if (s.need(0) || s.need(1)) {
    std::pair<Tensor, Tensor> r;
    if (left != transpose) {
      r = householder_backward(transpose ? ops::mH(grad) : grad,
                               transpose ? ops::mH(result) : result, self, tau, false);
    } else {
      r = householder_backward(transpose ? result : ops::mH(result),
                               transpose ? grad : ops::mH(grad), self, tau, true);
    }
    if (s.need(0)) out[0] = r.first;
    if (s.need(1)) out[1] = r.second;
  }
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::linalg_householder_product",
                       {"LinalgHouseholderProductBackward0", {0, 1}, {{0}, {1}}, 1,
                        householder_product_backward});
TN_COMPLEX_READY("aten::linalg_householder_product");
TN_REGISTER_DERIVATIVE("aten::ormqr", {"OrmqrBackward0", {0, 1, 2}, {{0}, {1}}, 1,
                                       ormqr_backward});
TN_COMPLEX_READY("aten::ormqr");

}  // namespace tn::autograd
