// scaled_dot_product_attention as upstream's CompositeImplicitAutograd one decomposes it on the
// CPU: checks, an empty-input shortcut, a boolean mask made additive (where), then the flash
// kernel (_scaled_dot_product_flash_attention_for_cpu, kernels/cpu/nn_attention.cpp) when
// upstream's CPU selection (sdp_utils_cpp's use_flash_attention_cpp) accepts the inputs, else
// the math path (_scaled_dot_product_attention_math, written here in door ops); and
// _safe_softmax, which the math path calls. A dispatch mode sees upstream's sequence.
#include <cmath>

#include "kernels/composite/ops.h"

namespace tn {
namespace {

using namespace ops;

Value scalar_value(double x) { return Value::of_scalar(Scalar::from_double(x)); }

// upstream's convert_boolean_attn_mask: a bool mask becomes 0 where true, -inf where false,
// in dtype; any other mask is additive already.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask->dtype() != ScalarType::Bool) return mask;
  Value strided;
  strided.tag = Value::Tag::Layout;
  Tensor neg_inf = call_tensor("aten::scalar_tensor",
                               {scalar_value(-INFINITY), Value::of_dtype(dtype), Value{},
                                Value::of_device(mask->device())});
  Tensor zero = call_tensor("aten::scalar_tensor",
                            {scalar_value(0.0), Value::of_dtype(dtype), strided,
                             Value::of_device(mask->device())});
  return call_tensor("aten::where.self", {t(mask), t(zero), t(neg_inf)});
}

// upstream's validate_sdpa_input.
void check_sdpa_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask) {
  TN_CHECK(q->dtype() == k->dtype() && q->dtype() == v->dtype(), "Expected query, key, and value "
           "to have the same dtype, but got query.dtype: ", cpp_type_name(q->dtype()),
           " key.dtype: ", cpp_type_name(k->dtype()), " and value.dtype: ",
           cpp_type_name(v->dtype()), " instead.");
  TN_CHECK(q->device() == k->device() && q->device() == v->device(), "Expected query, key, and "
           "value to have the same device type, but got query.device: ", q->device().str(),
           " key.device: ", k->device().str(), " and value.device: ", v->device().str(),
           " instead.");
  TN_CHECK(q->dim() >= 2 && k->dim() >= 2 && v->dim() >= 2, "Expected query, key, and value to "
           "all be  at least 2 dimensional, but got query.dim: ", q->dim(), " key.dim: ",
           k->dim(), " and value.dim: ", v->dim(), " instead.");
  if (!mask) return;
  ScalarType m = (*mask)->dtype();
  TN_CHECK(m == ScalarType::Bool || m == ScalarType::Float || m == q->dtype(),
           "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
           "attn_mask.dtype: ", cpp_type_name(m), " and  query.dtype: ",
           cpp_type_name(q->dtype()), " instead.");
}

// upstream's use_flash_attention_cpp: every gate must pass for the CPU flash kernel.
bool flash_accepts(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                   double dropout_p, bool gqa) {
  if (q->device().type != DeviceType::CPU || dropout_p > 0.0) return false;
  if (q->dim() != 4 || k->dim() != 4 || v->dim() != 4) return false;
  if (q->size(0) != k->size(0) || q->size(0) != v->size(0)) return false;
  int64_t hq = q->size(1), hk = k->size(1), hv = v->size(1);
  bool heads_ok = (hq == hk && hq == hv) || (gqa && hk == hv && hk > 0 && hq % hk == 0);
  if (!heads_ok) return false;
  if (mask) {
    const Tensor& m = *mask;
    if (m->requires_grad()) return false;
    int64_t md = m->dim();
    if (md < 2) return false;
    if (m->size(md - 2) != q->size(2) && m->size(md - 2) != 1) return false;
    if (m->size(md - 1) != k->size(2) && m->size(md - 1) != 1) return false;
    bool shape_ok = md == 2 || (md == 4 && (m->size(0) == 1 || m->size(0) == q->size(0)) &&
                                (m->size(1) == 1 || m->size(1) == hq));
    if (!shape_ok) return false;
  }
  if (q->size(3) != k->size(3) || q->size(3) != v->size(3)) return false;
  if (q->size(2) == 0 || k->size(2) == 0) return false;
  if (q->stride(3) != 1 || k->stride(3) != 1 || v->stride(3) != 1) return false;
  ScalarType d = q->dtype();
  return d == ScalarType::Float || d == ScalarType::Double || d == ScalarType::BFloat16 ||
         d == ScalarType::Half;
}

// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//   float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False)
void sdpa(Call& c) {
  const Tensor &q = c.tensor(0), &k = c.tensor(1), &v = c.tensor(2);
  const Tensor* mask = c.optional_tensor(3);
  double dropout_p = c.to_double(4);
  bool causal = c.to_bool(5), gqa = c.to_bool(7);
  check_sdpa_inputs(q, k, v, mask);
  if (q->numel() == 0 || k->numel() == 0 || v->numel() == 0) {
    // Upstream's empty shortcut: zeros of the output's shape, plus every input's sum times 0
    // (which keeps each input in the graph).
    Dims shape = q->sizes();
    shape.back() = v->size(v->dim() - 1);
    Value strided;
    strided.tag = Value::Tag::Layout;
    Tensor zeros = call_tensor("aten::zeros", {ints(shape), Value::of_dtype(q->dtype()), strided,
                                               Value::of_device(q->device())});
    Tensor sk = call_tensor("aten::sum", {t(k)}), sv = call_tensor("aten::sum", {t(v)});
    Tensor sq = call_tensor("aten::sum", {t(q)});
    Tensor total = call_tensor("aten::add.Tensor",
                               {t(call_tensor("aten::add.Tensor", {t(sk), t(sv)})), t(sq)});
    Tensor nothing = call_tensor("aten::mul.Scalar",
                                 {t(total), Value::of_scalar(Scalar::from_int(0))});
    return c.ret(call_tensor("aten::add.Tensor", {t(zeros), t(nothing)}));
  }
  bool flash = flash_accepts(q, k, v, mask, dropout_p, gqa);
  Value m;
  if (mask) m = t(additive_mask(*mask, q->dtype()));
  if (flash) {
    auto r = call("aten::_scaled_dot_product_flash_attention_for_cpu",
                  {t(q), t(k), t(v), Value::of_double(dropout_p), Value::of_bool(causal), m,
                   c.arg(6)});
    return c.ret(r[0]);
  }
  auto r = call("aten::_scaled_dot_product_attention_math",
                {t(q), t(k), t(v), m, Value::of_double(dropout_p), Value::of_bool(causal),
                 Value{}, c.arg(6), Value::of_bool(gqa)});
  c.ret(r[0]);
}
TN_REGISTER_COMPOSITE("aten::scaled_dot_product_attention", sdpa);

// key or value with each of its heads repeated `times` in place (repeat_interleave along -3),
// as upstream spells it: unsqueeze, expand, a contiguous clone, then the two dims merged.
Tensor repeat_heads(const Tensor& x, int64_t times) {
  int64_t d = x->dim() - 3;
  Tensor u = call_tensor("aten::unsqueeze", {t(x), i64(d + 1)});
  Dims wide = u->sizes();
  wide[d + 1] = times;
  Tensor e = call_tensor("aten::expand", {t(u), ints(wide)});
  Dims merged = x->sizes();
  merged[d] *= times;
  return view(clone_contiguous(e), merged);
}

// _scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value,
//   Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False,
//   Tensor? dropout_mask=None, *, float? scale=None, bool enable_gqa=False) -> (Tensor, Tensor)
// q and k are each scaled by sqrt(scale) before their product (upstream's choice, for
// stability); a negative scale puts its sign on q. Half and bfloat16 inputs are computed in
// float and both results converted back, as upstream's.
Tensor to_dtype(const Tensor& x, ScalarType dtype) {
  if (x->dtype() == dtype) return x;  // Tensor.to: no call when nothing changes
  return call_tensor("aten::_to_copy", {t(x), Value::of_dtype(dtype)});
}

void sdpa_math(Call& c) {
  const ScalarType origin = c.tensor(0)->dtype();
  const bool reduced = origin == ScalarType::Half || origin == ScalarType::BFloat16;
  const ScalarType acc = reduced ? ScalarType::Float : origin;
  const Tensor q0 = to_dtype(c.tensor(0), acc), k = to_dtype(c.tensor(1), acc),
               v = to_dtype(c.tensor(2), acc);
  const Tensor* mask0 = c.optional_tensor(3);
  double dropout_p = c.to_double(4);
  bool causal = c.to_bool(5), gqa = c.to_bool(8);
  TN_CHECK_KIND(c.arg(6).is_none(), NotImplemented, c.key(),
                " with a dropout_mask is not implemented by torchnative");
  bool negative = !c.arg(7).is_none() && c.to_double(7) < 0;
  double s = c.arg(7).is_none() ? 1.0 / std::sqrt(static_cast<double>(q0->size(q0->dim() - 1)))
                                : std::abs(c.to_double(7));
  double root = std::sqrt(s);
  Tensor q = call_tensor("aten::mul.Scalar", {t(q0), scalar_value(negative ? -root : root)});
  Value mask = mask0 ? t(*mask0) : Value{};
  if (causal) {
    TN_CHECK(!mask0, "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
             "is_causal=True");
    Value strided;
    strided.tag = Value::Tag::Layout;
    Dims ls{q->size(q->dim() - 2), k->size(k->dim() - 2)};
    Tensor ones = call_tensor("aten::ones", {ints(ls), Value::of_dtype(ScalarType::Bool), strided,
                                             Value::of_device(q->device())});
    mask = t(additive_mask(call_tensor("aten::tril", {t(ones)}), q->dtype()));
  }
  Tensor key = k, value = v;
  if (gqa && q->dim() >= 3) {
    int64_t hq = q->size(q->dim() - 3), hk = k->size(k->dim() - 3), hv = v->size(v->dim() - 3);
    bool same = hq == hk && hk == hv;
    TN_CHECK(same || (hk > 0 && hv > 0 && hq % hk == 0 && hq % hv == 0),
             "Number of heads in key and value must divide the number of heads in query");
    if (!same) key = repeat_heads(k, hq / hk), value = repeat_heads(v, hq / hv);
  }
  Tensor kt = call_tensor("aten::transpose.int", {t(key), i64(-2), i64(-1)});
  kt = call_tensor("aten::mul.Scalar", {t(kt), scalar_value(root)});
  Tensor attn = call_tensor("aten::matmul", {t(q), t(kt)});
  // Upstream adds in place unless a tensor is subclass-like, which a dispatch mode makes every
  // tensor; the out-of-place add gives the same values either way.
  if (!mask.is_none()) attn = call_tensor("aten::add.Tensor", {t(attn), mask});
  attn = call_tensor("aten::_safe_softmax", {t(attn), i64(-1)});
  if (dropout_p > 0.0)
    attn = call_tensor("aten::dropout", {t(attn), Value::of_double(dropout_p),
                                         Value::of_bool(true)});
  // Upstream converts the weights it returns before it takes the product.
  Tensor weights = to_dtype(attn, origin);
  c.ret(to_dtype(call_tensor("aten::matmul", {t(attn), t(value)}), origin));
  c.ret(weights);
}
TN_REGISTER_COMPOSITE("aten::_scaled_dot_product_attention_math", sdpa_math);

// _safe_softmax(Tensor self, int dim, ScalarType? dtype=None): softmax, with 0 for a row that
// is -inf throughout (upstream's is CompositeExplicit: a mode sees this op, not its pieces).
void safe_softmax(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor out = call_tensor("aten::softmax.int", {t(self), c.arg(1), c.arg(2)});
  Tensor masked = call_tensor("aten::eq.Scalar", {t(self), scalar_value(-INFINITY)});
  Tensor dead = call_tensor("aten::all.dim", {t(masked), c.arg(1), Value::of_bool(true)});
  Tensor zero = call_tensor("aten::scalar_tensor",
                            {scalar_value(0.0), Value::of_dtype(out->dtype()), Value{},
                             Value::of_device(out->device())});
  c.ret(call_tensor("aten::where.self", {t(dead), t(zero), t(out)}));
}
TN_REGISTER_COMPOSITE("aten::_safe_softmax", safe_softmax);

}  // namespace
}  // namespace tn
