// Derivatives of the nn ops a transformer's forward reaches: native_layer_norm, embedding,
// _safe_softmax (upstream's derivatives.yaml entries; the backward kernels it names are written
// here as door ops, in the order of upstream's CPU kernels' arithmetic where it is known).
#include <cmath>

#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor sum_dims(const Tensor& a, const Dims& dims, bool keepdim) {
  return call_tensor("aten::sum.dim_IntList",
                     {V(a), Value::of_ints(dims), Value::of_bool(keepdim)});
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd): upstream's
// native_layer_norm_backward. Per row (M rows of N), with dy' = dy * weight: ds = sum(dy' x),
// db = sum(dy'), a = rstd, b = (db mean - ds) a^3 / N, c = -b mean - db a / N, and
// dx = a dy' + b x + c; dweight = sum over rows of dy (x - mean) rstd; dbias = sum of dy.
//
// A first backward (grad mode off) of a float32/float64 CPU input runs upstream's kernel
// (kernels/cpu/nn_norm_backward.cpp, its bits); under create_graph the same formula runs in
// door ops so that it records (upstream records NativeLayerNormBackwardBackward0 there,
// layer_norm_double_backward, which we do not have: the double backward's values agree, its
// graph's node names differ).
Grads layer_norm_backward(const Saved& s, const Grads& g) {
  const Tensor& x = s.tensor(0);
  const Value& wv = s.arg(2);
  const Tensor* w = wv.tag == Value::Tag::Tensor && wv.tensor ? &wv.tensor : nullptr;
  Tensor mean = s.result(1);
  Tensor rstd = s.result(2);
  const Tensor& dy = g[0];
  ScalarType dt = x->dtype();
  bool cpu = x->device().type == DeviceType::CPU && dy->device().type == DeviceType::CPU;
  if (!grad_mode_enabled() && cpu && (dt == ScalarType::Float || dt == ScalarType::Double) &&
      dy->dtype() == dt && (!w || (*w)->dtype() == dt)) {
    // The weight is kept when the input's or its own gradient is wanted, the bias when its
    // gradient is: the kernel allocates each parameter's gradient like the parameter.
    auto kept = [](const Value& v) {
      return v.tag == Value::Tag::Tensor && v.tensor ? v : Value{};
    };
    std::vector<Value> r = call("aten::native_layer_norm_backward",
                                {V(dy), V(x), s.arg(1), V(mean), V(rstd), kept(wv),
                                 kept(s.arg(3)),
                                 bool_list({s.need(0), s.need(1), s.need(2)})});
    Grads out(3);
    for (int i = 0; i < 3; ++i)
      if (r[i].tag == Value::Tag::Tensor) out[i] = r[i].tensor;
    return out;
  }
  int64_t axis = x->dim() - static_cast<int64_t>(s.ints(1).size());
  Dims norm_dims, batch_dims;
  for (int64_t i = 0; i < x->dim(); ++i) (i < axis ? batch_dims : norm_dims).push_back(i);
  int64_t n = 1;
  for (int64_t i = axis; i < x->dim(); ++i) n *= x->sizes()[i];
  if (grad_mode_enabled() && x->requires_grad()) {
    // Double backward: the kept mean and rstd have no history, so they are recomputed from x
    // (the same statistics, recorded) for the second derivative to see their dependence on x.
    mean = mul(sum_dims(x, norm_dims, true), Scalar::from_double(1.0 / static_cast<double>(n)));
    Tensor xc = sub(x, mean);
    Tensor var = mul(sum_dims(mul(xc, xc), norm_dims, true),
                     Scalar::from_double(1.0 / static_cast<double>(n)));
    Value eps = Value::of_scalar(s.scalar(4));
    rstd = pow(call_tensor("aten::add.Scalar", {V(var), eps, Value::of_int(1)}),
               Scalar::from_double(-0.5));
  }
  Grads out(3);
  if (s.need(0)) {
    Tensor dyw = w ? mul(dy, *w) : dy;
    Tensor ds = sum_dims(mul(dyw, x), norm_dims, true);
    Tensor db = sum_dims(dyw, norm_dims, true);
    double scale = 1.0 / static_cast<double>(n);
    Tensor a3 = mul(mul(rstd, rstd), rstd);
    Tensor b = mul(mul(sub(mul(db, mean), ds), a3), Scalar::from_double(scale));
    Tensor c = sub(mul(neg(b), mean), mul(mul(db, rstd), Scalar::from_double(scale)));
    out[0] = add(add(mul(rstd, dyw), mul(b, x)), c);
  }
  if (s.need(1) || s.need(2)) {
    if (s.need(1)) {
      Tensor xhat = mul(sub(x, mean), rstd);
      Tensor dw = batch_dims.empty() ? mul(dy, xhat) : sum_dims(mul(dy, xhat), batch_dims, false);
      out[1] = dw;
    }
    if (s.need(2)) out[2] = batch_dims.empty() ? dy : sum_dims(dy, batch_dims, false);
  }
  return out;
}

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): upstream's
// embedding_backward, which is embedding_dense_backward (kernels/cpu/index2.cpp) for a dense
// gradient.
Grads embedding_backward(const Saved& s, const Grads& g) {
  TN_CHECK_KIND(!s.to_bool(4), NotImplemented,
                "torchnative: sparse gradients (embedding sparse=True) are not implemented");
  return {call_tensor("aten::embedding_dense_backward",
                      {V(g[0]), V(s.tensor(1)), Value::of_int(s.meta(0).sizes[0]),
                       Value::of_int(s.to_int(2)), Value::of_bool(s.to_bool(3))})};
}

// _safe_softmax(self, dim): softmax's backward on its result (rows of -inf give zeros there).
Grads safe_softmax_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  return {softmax_backward_data(g[0], y, wrap(s.to_int(1), y->dim()))};
}

// x (B, Hk, L, E) with each head repeated `groups` times in place: (B, Hk * groups, L, E), the
// key/value heads grouped-query attention shares among query heads.
Tensor repeat_heads(const Tensor& x, int64_t groups) {
  if (groups == 1) return x;
  const Dims& s = x->sizes();
  Tensor wide = expand(unsqueeze(x, 2), Dims{s[0], s[1], groups, s[2], s[3]});
  return reshape(wide, Dims{s[0], s[1] * groups, s[2], s[3]});
}
// The gradient of repeat_heads: each group of `groups` heads of g (B, Hq, L, E) summed.
Tensor sum_groups(const Tensor& g, int64_t groups) {
  if (groups == 1) return g;
  const Dims& s = g->sizes();
  Tensor split = reshape(g, Dims{s[0], s[1] / groups, groups, s[2], s[3]});
  return sum_dims(split, Dims{2}, false);
}

// _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, *, attn_mask,
// scale) -> (output, logsumexp): the attention weights P recomputed by the math path, then
// dV = P^T dO, dS = P * (dO V^T - rowsum(dO V^T * P)), dQ = scale dS K, dK = scale dS^T Q;
// with grouped heads (Hq = groups * Hk) K and V are repeated per query head and dK, dV summed
// back over each group.
Grads flash_attention_backward(const Saved& s, const Grads& g) {
  const Tensor& q = s.tensor(0);
  const Tensor& k = s.tensor(1);
  const Tensor& v = s.tensor(2);
  TN_CHECK_KIND(s.arg(3).tag != Value::Tag::Double || s.arg(3).d == 0.0, NotImplemented,
                "torchnative: the backward of flash attention with dropout is not implemented");
  int64_t groups = k->size(1) > 0 ? q->size(1) / k->size(1) : 1;
  double scale = s.arg(6).tag == Value::Tag::Double
                     ? s.arg(6).d
                     : 1.0 / std::sqrt(static_cast<double>(q->size(q->dim() - 1)));
  Value mask = s.arg(5).tag == Value::Tag::Tensor ? s.arg(5) : Value{};
  Tensor kx = repeat_heads(k, groups), vx = repeat_heads(v, groups);
  std::vector<Value> math = call(
      "aten::_scaled_dot_product_attention_math",
      {V(q), V(kx), V(vx), mask, Value::of_double(0.0), Value::of_bool(s.to_bool(4)), Value{},
       Value::of_double(scale)});
  const Tensor& p = math[1].tensor;
  auto matmul = [](const Tensor& a, const Tensor& b) {
    return call_tensor("aten::matmul", {V(a), V(b)});
  };
  const Tensor& dout = g[0];
  Tensor dp = matmul(dout, transpose(vx, -2, -1));
  Tensor ds = softmax_backward_data(dp, p, p->dim() - 1);
  Scalar sc = Scalar::from_double(scale);
  return {s.need(0) ? mul(matmul(ds, kx), sc) : Tensor(),
          s.need(1) ? sum_groups(mul(matmul(transpose(ds, -2, -1), q), sc), groups) : Tensor(),
          s.need(2) ? sum_groups(matmul(transpose(p, -2, -1), dout), groups) : Tensor()};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_scaled_dot_product_flash_attention_for_cpu",
                       {"ScaledDotProductFlashAttentionForCpuBackward0", {0, 1, 2},
                        {{0}, {1}, {2}, {5}}, 0, flash_attention_backward, 0b10, {5}});
TN_REGISTER_DERIVATIVE("aten::native_layer_norm",
                       {"NativeLayerNormBackward0", {0, 2, 3}, {{0}, {2, 0}, {2, 1}, {3, 2}},
                        0b110,
                        layer_norm_backward, 0b110});
TN_REGISTER_DERIVATIVE("aten::embedding",
                       {"EmbeddingBackward0", {0}, {{1}}, false, embedding_backward});
TN_REGISTER_DERIVATIVE("aten::_safe_softmax",
                       {"SafeSoftmaxBackward0", {0}, {}, true, safe_softmax_backward});

}  // namespace tn::autograd
