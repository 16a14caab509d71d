// The fused inference ops nn.TransformerEncoderLayer and nn.MultiheadAttention call in eval mode
// without grad (upstream's transformers/transformer.cpp and attention.cpp), written in door ops
// in upstream's order: _native_multi_head_attention (its SDPA path for an unmasked
// self-attention whose head size is a multiple of 8, else projection, biased and rescaled
// q/k/v, masked softmax, context and output projection) and _transformer_encoder_layer_fwd
// (attention, residual, layer norms before or after, the feed-forward block). Upstream's
// kernels fuse steps (its transform_bias_rescale_qkv, its masked softmax); ours take the same
// steps one op at a time, so results agree within the float allowance, not bit for bit.
#include <cmath>

#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  return call_tensor("aten::linear", {t(x), t(w), t(b)});
}
Tensor matmul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::matmul", {t(a), t(b)});
}
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  return call_tensor("aten::transpose.int", {t(a), i64(d0), i64(d1)});
}
Tensor view(const Tensor& a, const Dims& sizes) {
  return call_tensor("aten::view", {t(a), ints(sizes)});
}
Tensor reshape(const Tensor& a, const Dims& sizes) {
  return call_tensor("aten::reshape", {t(a), ints(sizes)});
}

// upstream's masked_softmax of the attention scores [B, H, L, S]: mask true where a score is
// left out; mask_type 0 an (L, S) attention mask, 1 a (B, S) key padding mask, else (2) one of
// the scores' shape. A row whose every score is left out comes out 0, as upstream's kernel.
Tensor masked_softmax(const Tensor& scores, const Tensor* mask_in, int64_t mask_type) {
  if (!mask_in) return call_tensor("aten::_softmax", {t(scores), i64(-1), Value::of_bool(false)});
  Tensor mask = *mask_in;
  if (mask->dtype() != ScalarType::Bool)
    mask = call_tensor("aten::_to_copy", {t(mask), Value::of_dtype(ScalarType::Bool)});
  const Dims& s = scores->sizes();
  if (mask->dim() != 2 || scores->dim() != 4) mask_type = 2;
  if (mask_type == 2) {
    TN_CHECK(s == mask->sizes(), "For mask_type == 2 mask shape should match input shape");
  } else if (mask_type == 1) {
    TN_CHECK(s[0] == mask->size(0) && s[2] == mask->size(1),
             "For mask_type == 1 mask shape should be (B, L)");
    mask = view(mask, {s[0], 1, 1, s[2]});
  } else {
    TN_CHECK(mask->dim() == 2 && s[2] == mask->size(0) && s[2] == mask->size(1),
             "For mask_type == 0 mask shape should be (L, L)");
  }
  mask = call_tensor("aten::expand", {t(mask), ints(s)});
  Value neg_inf = Value::of_scalar(Scalar::from_double(-INFINITY));
  Tensor filled = call_tensor("aten::masked_fill.Scalar", {t(scores), t(mask), neg_inf});
  Tensor p = call_tensor("aten::_softmax", {t(filled), i64(-1), Value::of_bool(false)});
  return call_tensor("aten::masked_fill.Scalar",
                     {t(p), t(mask), Value::of_scalar(Scalar::from_int(0))});
}

// _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
//   proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True,
//   mask_type=None) -> (Tensor, Tensor)
void native_multi_head_attention(Call& c) {
  const Tensor &query = c.tensor(0), &key = c.tensor(1), &value = c.tensor(2);
  const int64_t d = c.to_int(3), heads = c.to_int(4);
  const Tensor &qkv_w = c.tensor(5), &qkv_b = c.tensor(6);
  const Tensor &proj_w = c.tensor(7), &proj_b = c.tensor(8);
  const Tensor* mask = c.optional_tensor(9);
  const bool need_weights = c.to_bool(10), average = c.to_bool(11);
  const int64_t mask_type = c.arg(12).is_none() ? 2 : c.to_int(12);
  TN_CHECK(query->dim() == 3, "expected 3-D `query`, got ", query->dim(), "-D tensor");
  TN_CHECK(query->size(2) == d, "passed-in embed_dim ", d, " didn't match last dim of query ",
           query->size(2));
  TN_CHECK(key->dim() == 3, "expected 3-D `key`, got ", key->dim(), "-D tensor");
  TN_CHECK(value->dim() == 3, "expected 3-D `value`, got ", value->dim(), "-D tensor");
  TN_CHECK(query->sizes() == key->sizes() && key->sizes() == value->sizes(),
           "expected `query`/`key`/`value` shapes to match");
  TN_CHECK(qkv_w->dim() == 2, "expected 2-D `qkv_weight`, got ", qkv_w->dim(), "-D tensor");
  TN_CHECK(d * 3 == qkv_w->size(0), "expected `qkv_weight` first dim to be 3x embed_dim");
  TN_CHECK(d == qkv_w->size(1), "expected `qkv_weight` second dim to be embed_Dim");
  TN_CHECK(qkv_b->dim() == 1, "expected 1-D `qkv_bias`, got ", qkv_b->dim(), "-D tensor");
  TN_CHECK(qkv_b->size(0) == 3 * d,
           "expected `qkv_bias` first dim and first dim of query to be equal");
  TN_CHECK(heads > 0 && d % heads == 0, "`embed_dim` must divide evenly by `num_heads`");
  const int64_t dh = d / heads, batch = query->size(0);
  const bool self_attention = query.get() == key.get() && key.get() == value.get();
  ScalarType dt = query->dtype();
  bool flash_dtype = dt == ScalarType::Float || dt == ScalarType::Double ||
                     dt == ScalarType::BFloat16 || dt == ScalarType::Half;
  if (self_attention && dh % 8 == 0 && !need_weights && !mask && flash_dtype &&
      query->size(1) > 0) {
    // upstream's SDPA path: one packed projection, the heads split, fused attention.
    Tensor x = linear(query, qkv_w, qkv_b);
    std::vector<Value> chunks = call("aten::chunk", {t(x), i64(3), i64(-1)});
    const std::vector<Tensor>& parts = chunks[0].tensors;
    Tensor q = transpose(view(parts[0], {batch, -1, heads, dh}), 1, 2);
    Tensor k = transpose(view(parts[1], {batch, -1, heads, dh}), 1, 2);
    Tensor v = transpose(view(parts[2], {batch, -1, heads, dh}), 1, 2);
    Tensor y = call_tensor("aten::scaled_dot_product_attention", {t(q), t(k), t(v)});
    Tensor past = reshape(transpose(y, 1, 2), {batch, -1, d});
    c.ret(linear(past, proj_w, proj_b));
    c.ret(Value{});
    return;
  }
  // qkv_projection: [B, T, 3D] without the bias.
  auto slice_rows = [&](int64_t from, int64_t to) {
    return call_tensor("aten::slice.Tensor", {t(qkv_w), i64(0), i64(from), i64(to), i64(1)});
  };
  Tensor qkv;
  if (self_attention) {
    qkv = matmul(query, transpose(qkv_w, 0, 1));
  } else {
    Tensor q = matmul(query, transpose(slice_rows(0, d), 0, 1));
    Tensor k = matmul(key, transpose(slice_rows(d, 2 * d), 0, 1));
    Tensor v = matmul(value, transpose(slice_rows(2 * d, 3 * d), 0, 1));
    qkv = call_tensor("aten::cat", {Value::of_tensors({q, k, v}), i64(2)});
  }
  if (qkv->numel() == 0) {
    c.ret(qkv);
    c.ret(need_weights ? Value::of(qkv) : Value{});
    return;
  }
  // transform_bias_rescale_qkv: (qkv + bias) split into q, k, v [B, H, T, dh]; q / sqrt(dh).
  Tensor biased = call_tensor("aten::add.Tensor", {t(qkv), t(qkv_b)});
  std::vector<Value> parts = call("aten::chunk", {t(biased), i64(3), i64(-1)});
  const std::vector<Tensor>& p = parts[0].tensors;
  auto split_heads = [&](const Tensor& x) {
    return transpose(reshape(x, {batch, -1, heads, dh}), 1, 2);
  };
  double inv_sqrt = 1.0 / std::sqrt(static_cast<double>(dh));
  Tensor q = call_tensor("aten::mul.Scalar",
                         {t(split_heads(p[0])), Value::of_scalar(Scalar::from_double(inv_sqrt))});
  Tensor k = split_heads(p[1]), v = split_heads(p[2]);
  Tensor scores = matmul(q, transpose(k, 2, 3));
  scores = masked_softmax(scores, mask, mask_type);
  Tensor ctx = matmul(scores, v);
  Tensor merged = reshape(transpose(ctx, 1, 2), {batch, -1, d});
  c.ret(linear(merged, proj_w, proj_b));
  if (!need_weights) {
    c.ret(Value{});
    return;
  }
  if (average) {
    scores = call_tensor("aten::sum.dim_IntList", {t(scores), ints({1}), Value::of_bool(false)});
    scores = call_tensor("aten::div.Scalar",
                         {t(scores), Value::of_scalar(Scalar::from_int(heads))});
  }
  c.ret(scores);
}
TN_REGISTER_COMPOSITE("aten::_native_multi_head_attention", native_multi_head_attention);

// _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
//   proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
//   norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None)
void transformer_encoder_layer_fwd(Call& c) {
  const Tensor& src = c.tensor(0);
  if (src->numel() == 0) return c.ret(call_tensor("aten::clone", {c.arg(0)}));
  const int64_t d = c.to_int(1);
  const bool use_gelu = c.to_bool(7), norm_first = c.to_bool(8);
  const double eps = c.to_double(9);
  auto norm = [&](const Tensor& x, size_t w) {
    return call_tensor("aten::layer_norm", {t(x), ints({d}), c.arg(w), c.arg(w + 1),
                                            Value::of_double(eps), Value::of_bool(true)});
  };
  Tensor x = norm_first ? norm(src, 10) : src;
  x = call("aten::_native_multi_head_attention",
           {t(x), t(x), t(x), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6),
            c.arg(18), Value::of_bool(false), Value::of_bool(true), c.arg(19)})[0].tensor;
  call("aten::add_.Tensor", {t(x), c.arg(0)});
  if (!norm_first) x = norm(x, 10);
  Tensor pre_ffn = x;
  if (norm_first) x = norm(x, 12);
  TN_CHECK(x->dim() == 3, "batched input size should be 3");
  TN_CHECK(c.tensor(14)->dim() == 2 && c.tensor(16)->dim() == 2, "2d weights expected");
  Tensor h = matmul(x, transpose(c.tensor(14), 0, 1));
  call("aten::add_.Tensor", {t(h), c.arg(15)});
  h = use_gelu ? call_tensor("aten::gelu", {t(h)}) : call_tensor("aten::relu", {t(h)});
  h = matmul(h, transpose(c.tensor(16), 0, 1));
  call("aten::add_.Tensor", {t(h), c.arg(17)});
  call("aten::add_.Tensor", {t(h), t(pre_ffn)});
  if (!norm_first) h = norm(h, 12);
  c.ret(h);
}
TN_REGISTER_COMPOSITE("aten::_transformer_encoder_layer_fwd", transformer_encoder_layer_fwd);

}  // namespace
}  // namespace tn
