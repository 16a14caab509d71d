// Derivatives of gather, scatter (.src, .value), scatter_add, scatter_reduce.two (sum and mean;
// the others refuse by name) and index_add (upstream's derivatives.yaml entries and its
// FunctionsManual's gather_backward / scatter_reduce_backward). The kernels are in
// kernels/cpu/index2.cpp; take_along_dim is a composite and differentiates through gather.
#include "autograd/derivatives/helpers.h"

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

// scatter_reduce.two(self, dim, index, src, reduce, *, include_self): upstream's
// scatter_reduce_backward for sum and mean (mean divides by each destination's count N).
Grads scatter_reduce_backward(const Saved& s, const Grads& g) {
  const std::string& reduce = s.arg(4).str;
  bool include_self = s.to_bool(5);
  TN_CHECK_KIND(reduce == "sum" || reduce == "mean", NotImplemented,
                "torchnative: the backward of scatter_reduce with reduce='", reduce,
                "' is not implemented yet (only sum and mean)");
  Tensor grad_self = g[0], grad_src;
  if (reduce == "sum") {
    grad_src = gather(g[0], s);
  } else {
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
// index (expanded to source's shape), times alpha.
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

}  // namespace

TN_REGISTER_DERIVATIVE("aten::gather", {"GatherBackward0", {0}, {{2}}, 0, gather_backward});
TN_REGISTER_DERIVATIVE("aten::scatter.src",
                       {"ScatterBackward0", {0, 3}, {{2}}, 0, scatter_src_backward});
TN_REGISTER_DERIVATIVE("aten::scatter.value",
                       {"ScatterBackward1", {0}, {{2}}, 0, scatter_value_backward});
TN_REGISTER_DERIVATIVE("aten::scatter_add",
                       {"ScatterAddBackward0", {0, 3}, {{2}}, 0, scatter_add_backward});
TN_REGISTER_DERIVATIVE("aten::scatter_reduce.two",
                       {"ScatterReduceBackward0", {0, 3}, {{2}, {3}}, 0,
                        scatter_reduce_backward});
TN_REGISTER_DERIVATIVE("aten::index_add",
                       {"IndexAddBackward0", {0, 3}, {{2}}, 0, index_add_backward});

}  // namespace tn::autograd
