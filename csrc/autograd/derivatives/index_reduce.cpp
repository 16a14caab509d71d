// The derivative of index_reduce (kernels/cpu/index_reduce.cpp): upstream's derivatives.yaml
// formula, its FunctionsManual index_reduce_backward, written again with door ops.
#include <string>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* name, const Tensor& a) { return call_tensor(name, {V(a)}); }
Tensor index_add(const Tensor& into, int64_t dim, const Tensor& index, const Tensor& src) {
  return call_tensor("aten::index_add", {V(into), Value::of_int(dim), V(index), V(src)});
}
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  return call_tensor("aten::index_select", {V(a), Value::of_int(dim), V(index)});
}
Tensor eq(const Tensor& a, const Tensor& b) { return call_tensor("aten::eq.Tensor", {V(a), V(b)}); }
Tensor eq0(const Tensor& a, double x) { return call_tensor("aten::eq.Scalar", {V(a), S(x)}); }
Tensor fill_where(const Tensor& a, const Tensor& mask, double x) {
  return call_tensor("aten::masked_fill.Scalar", {V(a), V(mask), S(x)});
}

// index_reduce(self, dim, index, source, reduce, include_self) -> result: per reduction,
// upstream's gradients of self and source; self's indexed slices get none without
// include_self.
Grads index_reduce_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const int64_t dim = wrap(s.to_int(1), self->dim());
  const Tensor& index = s.tensor(2);
  const Tensor& source = s.tensor(3);
  const std::string& reduce = s.arg(4).str;
  const bool include_self = s.to_bool(5);
  const Tensor& result = s.result(0);
  const Tensor& grad = g[0];
  Tensor gself, gsrc;
  if (reduce == "prod") {
    Tensor masked_self = fill_where(self, eq0(self, 0.0), 1.0);
    Tensor updated = call_tensor("aten::index_reduce", {V(masked_self), Value::of_int(dim),
                                                        V(index), V(source), s.arg(4), s.arg(5)});
    gself = div(mul(grad, updated), masked_self);
    Tensor src_zero = eq0(source, 0.0);
    Tensor zeros_at = index_select(index_add(op1("aten::zeros_like", self), dim, index,
                                             to_dtype(src_zero, self->dtype())), dim, index);
    Tensor single = call_tensor("aten::bitwise_and.Tensor", {V(src_zero), V(eq0(zeros_at,
                                                                                  1.0))});
    Tensor masked_src = fill_where(source, single, 1.0);
    Tensor masked_result = call_tensor("aten::index_reduce", {V(self), Value::of_int(dim),
                                                              V(index), V(masked_src), s.arg(4),
                                                              s.arg(5)});
    gsrc = call_tensor("aten::where.self", {
        V(single), V(index_select(mul(grad, masked_result), dim, index)),
        V(div(index_select(mul(grad, result), dim, index), fill_where(source, src_zero, 1.0)))});
  } else if (reduce == "mean") {
    Tensor n = op1(include_self ? "aten::ones_like" : "aten::zeros_like", grad);
    n = index_add(n, dim, index, op1("aten::ones_like", source));
    n = fill_where(n, eq0(n, 0.0), 1.0);
    gself = div(grad, n);
    gsrc = div(index_select(grad, dim, index), index_select(n, dim, index));
  } else {
    Tensor value = index_select(result, dim, index);
    Tensor self_is = to_dtype(eq(self, result), self->dtype());
    Tensor source_is = to_dtype(eq(source, value), self->dtype());
    Tensor count = index_add(self_is, dim, index, source_is);
    Tensor spread = div(grad, count);
    gself = mul(self_is, spread);
    gsrc = mul(source_is, index_select(spread, dim, index));
  }
  if (!include_self)
    gself = call_tensor("aten::index_fill.int_Scalar", {V(gself), Value::of_int(dim), V(index),
                                                        S(0.0)});
  return {s.need(0) ? gself : Tensor(), s.need(1) ? gsrc : Tensor()};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::index_reduce", {"IndexReduceBackward0", {0, 3}, {{0}, {2}, {3}},
                                              1, index_reduce_backward});

}  // namespace tn::autograd
