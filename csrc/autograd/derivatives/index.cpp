// Derivatives of gather, scatter (.src, .value; .reduce and .value_reduce have none upstream:
// they record its NotImplemented node, autograd_layer.cpp), scatter_add, scatter_reduce.two,
// index_add, index_copy, index_fill, take and put (upstream's derivatives.yaml entries and its
// FunctionsManual's gather_backward / scatter_reduce_backward). The kernels are in
// kernels/cpu/index2.cpp, index_fill_copy.cpp and take_put.cpp; take_along_dim is a composite and
// differentiates through gather.
#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Value dim_of(const Saved& s) { return Value::of_int(s.to_int(1)); }
Tensor gather(const Tensor& g, const Saved& s) {
  return call_tensor("aten::gather", {V(g), dim_of(s), V(s.tensor(2)), Value::of_bool(false)});
}
Tensor scatter_zero(const Tensor& g, const Saved& s) {
  return call_tensor("aten::scatter.value", {V(g), dim_of(s), V(s.tensor(2)),
                                             S(Scalar::from_int(0))});
}
Tensor scatter_add(const Tensor& into, const Saved& s, const Tensor& src) {
  return call_tensor("aten::scatter_add", {V(into), dim_of(s), V(s.tensor(2)), V(src)});
}

// gather(self, dim, index, *, sparse_grad): gather_backward, zeros of self's shape with grad
// scatter-added at index.
Grads gather_backward(const Saved& s, const Grads& g) {
  TN_CHECK_KIND(!s.to_bool(3), NotImplemented,
                "torchnative: gather's backward with sparse_grad=True (a sparse gradient) is "
                "not implemented");
  const ArgMeta& m = s.meta(0);
  return {scatter_add(d::zeros(m.sizes, g[0]->dtype(), m.device), s, g[0])};
}

// scatter.src(self, dim, index, src): self gets grad with zeros where src went; src grad there.
Grads scatter_src_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? scatter_zero(g[0], s) : Tensor(), s.need(1) ? gather(g[0], s) : Tensor()};
}
Grads scatter_value_backward(const Saved& s, const Grads& g) { return {scatter_zero(g[0], s)}; }

// scatter_add(self, dim, index, src): self gets grad, src grad where it went.
Grads scatter_add_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? g[0] : Tensor(), s.need(1) ? gather(g[0], s) : Tensor()};
}

Tensor eq(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::eq.Tensor", {V(a), V(b)});
}
Tensor scatter_reduce(const Tensor& self, const Saved& s, const Tensor& src) {
  return call_tensor("aten::scatter_reduce.two", {V(self), dim_of(s), V(s.tensor(2)), V(src),
                                                  s.arg(4), Value::of_bool(s.to_bool(5))});
}
Tensor masked_fill(const Tensor& t, const Tensor& mask, int64_t value) {
  return call_tensor("aten::masked_fill.Scalar", {V(t), V(mask), S(Scalar::from_int(value))});
}

// prod: each position's gradient is grad times the product of the others, computed as
// result / x where x != 0 and by redoing the product with x replaced by 1 where x == 0 (for
// src, only where it is its destination's single zero; with two or more zeros it is 0).
// Upstream defers an error to double backward when a destination has two or more src zeros;
// ours refuses that case under create_graph at once.
void scatter_prod_backward(const Saved& s, const Tensor& g, Tensor& grad_self, Tensor& grad_src) {
  const Tensor &self = s.tensor(0), &src = s.tensor(3), &result = s.result(0);
  Tensor self_zero = call_tensor("aten::eq.Scalar", {V(self), S(Scalar::from_int(0))});
  Tensor masked_self = masked_fill(self, self_zero, 1);
  grad_self = div(mul(g, scatter_reduce(masked_self, s, src)), masked_self);
  Tensor src_zero = call_tensor("aten::eq.Scalar", {V(src), S(Scalar::from_int(0))});
  Tensor zeros = call_tensor("aten::zeros_like", {V(self)});
  Tensor n_zeros = gather(scatter_add(zeros, s, to_dtype(src_zero, self->dtype())), s);
  Tensor single = call_tensor("aten::bitwise_and.Tensor",
                              {V(src_zero), V(call_tensor("aten::eq.Scalar",
                                                          {V(n_zeros), S(Scalar::from_int(1))}))});
  if (grad_mode_enabled()) {
    Tensor many = call_tensor("aten::any", {V(call_tensor("aten::gt.Scalar",
                                                          {V(n_zeros), S(Scalar::from_int(1))}))});
    bool two = call("aten::_local_scalar_dense", {V(many)})[0].scalar.to_int() != 0;
    TN_CHECK_KIND(!two, NotImplemented,
                  "torchnative: scatter_reduce's backward with reduce='prod' under "
                  "create_graph, where a destination has two or more zeros in src, is not "
                  "implemented (upstream defers an error to double backward)");
  }
  Tensor masked_src_result = scatter_reduce(self, s, masked_fill(src, single, 1));
  grad_src = call_tensor(
      "aten::where.self",
      {V(single), V(gather(mul(g, masked_src_result), s)),
       V(div(gather(mul(g, result), s), masked_fill(src, src_zero, 1)))});
}

// amax, amin: the gradient is split evenly among the positions equal to the result (self's
// and src's alike).
void scatter_extremum_backward(const Saved& s, const Tensor& g, Tensor& grad_self,
                               Tensor& grad_src) {
  const Tensor &self = s.tensor(0), &src = s.tensor(3), &result = s.result(0);
  Tensor value = gather(result, s);
  Tensor self_is = eq(self, result), src_is = eq(src, value);
  Tensor n = scatter_add(to_dtype(self_is, self->dtype()), s, to_dtype(src_is, self->dtype()));
  Tensor share = div(g, n);
  grad_self = mul(self_is, share);
  grad_src = mul(src_is, gather(share, s));
}

// scatter_reduce.two(self, dim, index, src, reduce, *, include_self): upstream's
// scatter_reduce_backward (mean divides by each destination's count N).
Grads scatter_reduce_backward(const Saved& s, const Grads& g) {
  const std::string& reduce = s.arg(4).str;
  bool include_self = s.to_bool(5);
  Tensor grad_self = g[0], grad_src;
  if (reduce == "sum") {
    grad_src = gather(g[0], s);
  } else if (reduce == "prod") {
    scatter_prod_backward(s, g[0], grad_self, grad_src);
  } else if (reduce == "amax" || reduce == "amin") {
    scatter_extremum_backward(s, g[0], grad_self, grad_src);
  } else {
    TN_CHECK_KIND(reduce == "mean", NotImplemented,
                  "torchnative: the backward of scatter_reduce with reduce='", reduce,
                  "' is not implemented");
    Tensor n = call_tensor(include_self ? "aten::ones_like" : "aten::zeros_like", {V(g[0])});
    Tensor one = call_tensor("aten::ones_like", {V(s.tensor(3))});
    n = scatter_add(n, s, one);
    Tensor empty = call_tensor("aten::eq.Scalar", {V(n), S(Scalar::from_int(0))});
    n = call_tensor("aten::masked_fill.Scalar", {V(n), V(empty), S(Scalar::from_int(1))});
    grad_self = div(g[0], n);
    grad_src = div(gather(g[0], s), gather(n, s));
  }
  if (!include_self) grad_self = scatter_zero(grad_self, s);
  return {s.need(0) ? grad_self : Tensor(), s.need(1) ? grad_src : Tensor()};
}

// index_add(self, dim, index, source, *, alpha): self gets grad; source grad's slices at
// index (expanded to source's shape), times alpha: upstream's formula, which does not conjugate
// a complex alpha (its other complex formulas do); kept, so that gradients agree.
Grads index_add_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = g[0];
  if (s.need(1)) {
    const ArgMeta& src = s.meta(1);
    Tensor index = s.tensor(2);
    if (src.sizes.empty()) index = squeeze(index, 0);
    Tensor picked = call_tensor("aten::index_select", {V(g[0]), dim_of(s), V(index)});
    if (!src.sizes.empty()) picked = expand(picked, src.sizes);
    out[1] = maybe_multiply(picked, s.scalar(4));
  }
  return out;
}

// masked_scatter(self, mask, source): self: grad with zeros under the mask; source:
// masked_scatter_backward(grad, mask, source's sizes).
Grads masked_scatter_grad(const Saved& s, const Grads& g) {
  Tensor gs, gsrc;
  if (s.need(0))
    gs = call_tensor("aten::masked_fill.Scalar", {V(g[0]), V(s.tensor(1)),
                                                  Value::of_scalar(Scalar::from_int(0))});
  if (s.need(1))
    gsrc = call_tensor("aten::masked_scatter_backward", {V(g[0]), V(s.tensor(1)),
                                                         Value::of_ints(s.meta(1).sizes)});
  return {gs, gsrc};
}
// masked_scatter_backward(grad_output, mask, sizes): zeros_like(grad_output) with grad scattered
// under the mask.
Grads masked_scatter_backward_grad(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  Tensor z = d::zeros(m.sizes, m.dtype, m.device);
  return {call_tensor("aten::masked_scatter", {V(z), V(s.tensor(1)), V(g[0])})};
}

// grad.index_fill(dim, index, 0): self's gradient of index_copy and index_fill.
Tensor zero_at_index(const Tensor& g, const Saved& s) {
  return call_tensor("aten::index_fill.int_Scalar", {V(g), dim_of(s), V(s.tensor(2)),
                                                     S(Scalar::from_int(0))});
}
// index_copy(self, dim, index, source): self: grad.index_fill(dim, index, 0); source:
// grad.index_select(dim, index) expanded to source (index.squeeze(0) for a 0-dim source).
Grads index_copy_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zero_at_index(g[0], s);
  if (s.need(1)) {
    const ArgMeta& src = s.meta(1);
    if (!src.sizes.empty()) {
      out[1] = expand(call_tensor("aten::index_select", {V(g[0]), dim_of(s), V(s.tensor(2))}),
                      src.sizes);
    } else {
      Tensor index = call_tensor("aten::squeeze.dim", {V(s.tensor(2)), Value::of_int(0)});
      out[1] = call_tensor("aten::index_select", {V(g[0]), dim_of(s), V(index)});
    }
  }
  return out;
}
// index_fill.int_Scalar(self, dim, index, value): self: grad.index_fill(dim, index, 0).
Grads index_fill_backward(const Saved& s, const Grads& g) { return {zero_at_index(g[0], s)}; }
// index_fill.int_Tensor(self, dim, index, value): value: the sum of grad over the distinct
// indexed slices (grad.index_select(dim, _unique(index, sorted=false)[0]).sum()).
Grads index_fill_tensor_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  if (s.need(0)) out[0] = zero_at_index(g[0], s);
  if (s.need(1)) {
    Tensor distinct = call("aten::_unique", {V(s.tensor(2)), Value::of_bool(false),
                                             Value::of_bool(false)})[0].tensor;
    out[1] = call_tensor("aten::sum", {V(call_tensor("aten::index_select",
                                                     {V(g[0]), dim_of(s), V(distinct)})),
                                       Value{}});
  }
  return out;
}

}  // namespace

// take(self, index): upstream's take_backward, zeros of self's shape with grad added at index.
Grads take_backward(const Saved& s, const Grads& g) {
  Tensor z = zeros(s.meta(0).sizes, g[0]->dtype(), g[0]->device());
  return {call_tensor("aten::put_", {V(z), V(s.tensor(1)), V(g[0]), Value::of_bool(true)})};
}
// put(self, index, source, accumulate) (and put_): self gets grad (accumulate) or grad with the
// put positions zeroed; source gets grad taken at index, in source's shape.
Grads put_backward(const Saved& s, const Grads& g) {
  Grads out(2);
  const Tensor& index = s.tensor(1);
  if (s.need(0)) {
    if (s.to_bool(3)) {
      out[0] = g[0];
    } else {
      const ArgMeta& src = s.meta(1);
      Tensor z = zeros(src.sizes, g[0]->dtype(), g[0]->device());
      out[0] = call_tensor("aten::put", {V(g[0]), V(index), V(z), Value::of_bool(false)});
    }
  }
  if (s.need(1))
    out[1] = reshape(call_tensor("aten::take", {V(g[0]), V(index)}), s.meta(1).sizes);
  return out;
}

TN_REGISTER_DERIVATIVE("aten::take", {"TakeBackward0", {0}, {{1}}, 0, take_backward});
TN_REGISTER_DERIVATIVE("aten::put", {"PutBackward0", {0, 2}, {{1}}, 0, put_backward});
TN_REGISTER_DERIVATIVE("aten::index_copy",
                       {"IndexCopyBackward0", {0, 3}, {{2}}, 0, index_copy_backward});
TN_REGISTER_DERIVATIVE("aten::index_fill.int_Scalar",
                       {"IndexFillBackward0", {0}, {{2}}, 0, index_fill_backward});
TN_REGISTER_DERIVATIVE("aten::index_fill.int_Tensor",
                       {"IndexFillBackward1", {0, 3}, {{2}}, 0, index_fill_tensor_backward});
TN_COMPLEX_READY("aten::take", "aten::put", "aten::index_copy", "aten::index_fill.int_Scalar",
                 "aten::index_fill.int_Tensor");
TN_REGISTER_DERIVATIVE("aten::gather", {"GatherBackward0", {0}, {{2}}, 0, gather_backward});
TN_REGISTER_DERIVATIVE("aten::scatter.src",
                       {"ScatterBackward0", {0, 3}, {{2}}, 0, scatter_src_backward});
TN_REGISTER_DERIVATIVE("aten::scatter.value",
                       {"ScatterBackward1", {0}, {{2}}, 0, scatter_value_backward});
TN_REGISTER_DERIVATIVE("aten::scatter_add",
                       {"ScatterAddBackward0", {0, 3}, {{2}}, 0, scatter_add_backward});
TN_REGISTER_DERIVATIVE("aten::scatter_reduce.two",
                       {"ScatterReduceBackward0", {0, 3}, {{0}, {2}, {3}}, 0b1,
                        scatter_reduce_backward});
TN_REGISTER_DERIVATIVE("aten::index_add",
                       {"IndexAddBackward0", {0, 3}, {{2}}, 0, index_add_backward});

TN_REGISTER_DERIVATIVE("aten::masked_scatter",
                       {"MaskedScatterBackward0", {0, 2}, {{1}}, 0, masked_scatter_grad});
TN_REGISTER_DERIVATIVE("aten::masked_scatter_backward",
                       {"MaskedScatterBackwardBackward0", {0}, {{1}}, 0,
                        masked_scatter_backward_grad});

}  // namespace tn::autograd
