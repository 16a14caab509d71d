// Derivatives of views and shape ops, reductions, softmax and the matrix products (upstream's
// derivatives.yaml entries and its FunctionsManual helpers, written again with door ops).
#include <algorithm>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// mm(self, mat2): upstream's mm_mat1_backward / mm_mat2_backward (helpers.h).
Grads mm_backward(const Saved& s, const Grads& g) {
  Scalar one = Scalar::from_int(1);
  return {s.need(0) ? mm_mat1_backward(g[0], s.tensor(1), s.meta(0), one) : Tensor(),
          s.need(1) ? mm_mat2_backward(g[0], s.tensor(0), s.meta(1), one) : Tensor()};
}
// addmm(self, mat1, mat2, beta, alpha): self: grad * beta; the operands as mm's, times alpha.
// _grouped_mm(self, mat2, offs, bias, out_dtype): upstream's _grouped_mm_mat1_backward and
// _grouped_mm_mat2_backward, grouped products of grad with the other operand transposed; an
// operand laid out column-major gets its gradient computed transposed, so that it is too.
Tensor grouped(const Tensor& a, const Tensor& b, const Value& offs) {
  return call_tensor("aten::_grouped_mm", {V(a), V(b), offs});
}
Grads grouped_mm_backward(const Saved& s, const Grads& g) {
  const Tensor& grad = g[0];
  const Value& offs = s.arg(2);
  auto col_major = [](const Dims& strides) { return strides[strides.size() - 2] == 1; };
  auto tr = [](const Tensor& x) { return transpose(x, -2, -1); };
  Grads out(2);
  if (s.need(0)) {
    const Tensor& mat2 = s.tensor(1);
    out[0] = col_major(s.meta(0).strides) ? tr(grouped(mat2, tr(grad), offs))
                                          : grouped(grad, tr(mat2), offs);
  }
  if (s.need(1)) {
    const Tensor& self = s.tensor(0);
    out[1] = col_major(s.meta(1).strides) ? tr(grouped(tr(grad), self, offs))
                                          : grouped(tr(self), grad, offs);
  }
  return out;
}
// linalg_solve_triangular(A, B, *, upper, left, unitriangular): upstream's
// linalg_solve_triangular_backward (real dtypes): gB solves A^T gB = grad (the other
// triangle), gA = -gB X^T (left) or -X^T gB, kept to A's triangle (its strict part when unit).
Grads solve_triangular_backward(const Saved& s, const Grads& g) {
  const Tensor& A = s.tensor(0);
  const Tensor& X = s.result(0);
  const bool upper = s.to_bool(2), left = s.to_bool(3), unit = s.to_bool(4);
  auto mt = [](const Tensor& x) { return transpose(x, -2, -1); };
  Tensor gB = call_tensor("aten::linalg_solve_triangular",
                          {V(mt(A)), V(g[0]), Value::of_bool(!upper), Value::of_bool(left),
                           Value::of_bool(unit)});
  Tensor gA;
  if (s.need(0)) {
    auto mm = [](const Tensor& a, const Tensor& b) {
      return call_tensor("aten::matmul", {V(a), V(b)});
    };
    Tensor prod = left ? mm(gB, mt(X)) : mm(mt(X), gB);
    prod = call_tensor("aten::neg", {V(prod)});
    gA = upper ? call_tensor("aten::triu", {V(prod), Value::of_int(unit ? 1 : 0)})
               : call_tensor("aten::tril", {V(prod), Value::of_int(unit ? -1 : 0)});
  }
  return {gA, s.need(1) ? gB : Tensor()};
}

Grads addmm_backward(const Saved& s, const Grads& g) {
  Scalar beta = s.scalar(3), alpha = s.scalar(4);
  return {s.need(0) ? maybe_multiply(g[0], conj(beta)) : Tensor(),
          s.need(1) ? mm_mat1_backward(g[0], s.tensor(2), s.meta(1), alpha) : Tensor(),
          s.need(2) ? mm_mat2_backward(g[0], s.tensor(1), s.meta(2), alpha) : Tensor()};
}
// The products' formulas conjugate the other operand (and beta, alpha), as upstream's do; for
// real tensors d::conj is the tensor itself.
// bmm(self, mat2): self: grad . conj(mat2)^T; mat2: conj(self)^T . grad (over the batch).
Grads bmm_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? bmm(g[0], transpose(conj(s.tensor(1)), 1, 2)) : Tensor(),
          s.need(1) ? bmm(transpose(conj(s.tensor(0)), 1, 2), g[0]) : Tensor()};
}

// mv(self, vec): self: the outer product grad conj(vec)^T; vec: conj(self)^T . grad.
Grads mv_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? mul(unsqueeze(g[0], 1), unsqueeze(conj(s.tensor(1)), 0)) : Tensor(),
          s.need(1) ? call_tensor("aten::mv", {V(t(conj(s.tensor(0)))), V(g[0])}) : Tensor()};
}
// dot(self, tensor): grad * conj(tensor), grad * conj(self).
Grads dot_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? mul(g[0], conj(s.tensor(1))) : Tensor(),
          s.need(1) ? mul(g[0], conj(s.tensor(0))) : Tensor()};
}

// vdot(self, other) = sum(conj(self) * other): self gets conj(grad) * other, other grad * self.
Grads vdot_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? mul(conj(g[0]), s.tensor(1)) : Tensor(),
          s.need(1) ? mul(g[0], s.tensor(0)) : Tensor()};
}

Grads t_backward(const Saved&, const Grads& g) { return {t(g[0])}; }
Grads alias_backward(const Saved&, const Grads& g) { return {g[0]}; }
Grads transpose_backward(const Saved& s, const Grads& g) {
  return {transpose(g[0], s.to_int(1), s.to_int(2))};
}
// view, _unsafe_view: the gradient reshaped to self's sizes.
Grads reshape_backward(const Saved& s, const Grads& g) { return {reshape(g[0], s.meta(0).sizes)}; }
// expand: summed back to self's sizes.
Grads expand_backward(const Saved& s, const Grads& g) { return {sum_to(g[0], s.meta(0).sizes)}; }
// permute(self, dims): permuted by the inverse permutation.
Grads permute_backward(const Saved& s, const Grads& g) {
  const Dims& fwd = s.ints(1);
  int64_t n = static_cast<int64_t>(fwd.size());
  Dims inv;
  inv.assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) inv[wrap(fwd[i], n)] = i;
  return {permute(g[0], inv)};
}
Grads unsqueeze_backward(const Saved& s, const Grads& g) { return {squeeze(g[0], s.to_int(1))}; }
// squeeze.dim(self, dim): unsqueezed back where self had size one there.
Grads squeeze_dim_backward(const Saved& s, const Grads& g) {
  const Dims& sizes = s.meta(0).sizes;
  if (sizes.empty()) return {g[0]};
  int64_t dim = wrap(s.to_int(1), static_cast<int64_t>(sizes.size()));
  return {sizes[dim] == 1 ? unsqueeze(g[0], dim) : g[0]};
}

// Upstream's sum_backward: the reduced dims put back (unless kept), then expanded.
Tensor sum_backward(const Tensor& grad, const Dims& sizes, const Dims* dims, bool keepdim) {
  Tensor r = grad;
  if (!keepdim && !sizes.empty() && dims && !dims->empty()) {
    int64_t n = static_cast<int64_t>(sizes.size());
    std::vector<bool> reduced(static_cast<size_t>(n), false);
    for (int64_t dim : *dims) reduced[wrap(dim, n)] = true;
    for (int64_t i = 0; i < n; ++i)
      if (reduced[i]) r = unsqueeze(r, i);
  }
  return expand(r, sizes);
}
const Dims* dims_arg(const Saved& s, size_t i) {
  return s.arg(i).tag == Value::Tag::IntList ? &s.ints(i) : nullptr;
}
Grads sum_backward_all(const Saved& s, const Grads& g) { return {expand(g[0], s.meta(0).sizes)}; }
Grads sum_dim_backward(const Saved& s, const Grads& g) {
  return {sum_backward(g[0], s.meta(0).sizes, dims_arg(s, 1), s.to_bool(2))};
}
// nansum(self, dim, keepdim, dtype): sum's gradient (in self's dtype) where self is not NaN.
Grads nansum_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  Tensor grad = call_tensor("aten::_to_copy", {V(g[0]), Value::of_dtype(self->dtype())});
  Tensor kept = call_tensor("aten::logical_not", {V(call_tensor("aten::isnan", {V(self)}))});
  return {mul(sum_backward(grad, s.meta(0).sizes, dims_arg(s, 1), s.to_bool(2)), kept)};
}
Grads mean_backward_all(const Saved& s, const Grads& g) {
  return {div(expand(g[0], s.meta(0).sizes), Scalar::from_int(numel_of(s.meta(0).sizes)))};
}
// mean.dim: sum's gradient divided by the count of the reduced elements.
Grads mean_dim_backward(const Saved& s, const Grads& g) {
  const Dims& sizes = s.meta(0).sizes;
  const Dims* dims = dims_arg(s, 1);
  int64_t count = 1;
  if (!dims || dims->empty()) {
    count = numel_of(sizes);
  } else if (!sizes.empty()) {
    for (int64_t dim : *dims) count *= sizes[wrap(dim, static_cast<int64_t>(sizes.size()))];
  }
  return {div(sum_backward(g[0], sizes, dims, s.to_bool(2)), Scalar::from_int(count))};
}
// _softmax(self, dim): (grad - sum(grad * y, dim)) * y (upstream's _softmax_backward_data).
Grads softmax_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  int64_t dim = wrap(s.to_int(1), y->dim());
  return {softmax_backward_data(g[0], y, dim)};
}
// _log_softmax(self, dim): grad - exp(y) * sum(grad, dim).
Grads log_softmax_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  int64_t dim = wrap(s.to_int(1), y->dim());
  // Upstream's kernel (its SLEEF exp, its sum order) where we have it: float32/float64 on the
  // CPU; elsewhere the same formula in door ops.
  ScalarType dt = y->dtype();
  if ((dt == ScalarType::Float || dt == ScalarType::Double) && g[0]->dtype() == dt &&
      y->device().type == DeviceType::CPU && g[0]->device().type == DeviceType::CPU)
    return {call_tensor("aten::_log_softmax_backward_data",
                        {V(g[0]), V(y), Value::of_int(dim), Value::of_dtype(dt)})};
  return {sub(g[0], mul(exp(y), sum_keep(g[0], dim)))};
}
// _softmax_backward_data(grad_output, output, dim, input_dtype): grad_output: the same op on
// grad; output: upstream's softmax_double_backward,
// grad_output * grad - sum(output * grad_output) * grad - grad_output * sum(output * grad).
Grads softmax_backward_data_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.tensor(1);
  int64_t dim = wrap(s.to_int(2), y->dim());
  Tensor grad = to_dtype(g[0], y->dtype());
  Grads out(2);
  if (s.need(0)) out[0] = softmax_backward_data(grad, y, dim);
  if (s.need(1)) {
    const Tensor& go = s.tensor(0);
    out[1] = sub(sub(mul(go, grad), mul(sum_keep(mul(y, go), dim), grad)),
                 mul(go, sum_keep(mul(y, grad), dim)));
  }
  return out;
}
// _log_softmax_backward_data(grad_output, output, dim, input_dtype): grad_output:
// grad - sum(grad * exp(output)); output: -sum(grad_output) * exp(output) * grad.
Grads log_softmax_backward_data_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.tensor(1);
  int64_t dim = wrap(s.to_int(2), y->dim());
  Tensor grad = to_dtype(g[0], y->dtype());
  Grads out(2);
  if (s.need(0)) out[0] = sub(grad, sum_keep(mul(grad, exp(y)), dim));
  if (s.need(1)) out[1] = mul(mul(neg(sum_keep(s.tensor(0), dim)), exp(y)), grad);
  return out;
}
// select.int / slice.Tensor: the gradient written into zeros of self's shape.
Tensor into_zeros(const Saved& s, const Tensor& grad, const char* op, std::vector<Value> rest) {
  const ArgMeta& m = s.meta(0);
  Tensor z = d::zeros(m.sizes, grad->dtype(), m.device);
  rest.insert(rest.begin(), V(z));
  ops::copy_(call_tensor(op, std::move(rest)), grad);
  return z;
}
Grads select_backward(const Saved& s, const Grads& g) {
  return {into_zeros(s, g[0], "aten::select.int", {s.arg(1), s.arg(2)})};
}
Grads slice_backward(const Saved& s, const Grads& g) {
  return {into_zeros(s, g[0], "aten::slice.Tensor", {s.arg(1), s.arg(2), s.arg(3), s.arg(4)})};
}
// cat(tensors, dim): each input's slice of the gradient (legacy empty 1-d inputs get none).
Grads cat_backward(const Saved& s, const Grads& g) {
  Grads out(s.metas.size());
  int64_t nd = g[0]->dim();
  int64_t dim = wrap(s.to_int(1), nd);
  int64_t offset = 0;
  for (size_t k = 0; k < s.metas.size(); ++k) {
    const Dims& sz = s.meta(k).sizes;
    if (sz.size() == 1 && sz[0] == 0) continue;
    int64_t len = sz[dim];
    if (s.need(k)) out[k] = narrow(g[0], dim, offset, len);
    offset += len;
  }
  return out;
}

// split.Tensor(self, split_size, dim): the pieces' gradients joined again (zeros for a piece
// with none, filled in by the node).
Grads split_backward(const Saved& s, const Grads& g) {
  Value pieces = Value::of_tensors(g);
  return {call_tensor("aten::cat", {pieces, Value::of_int(s.to_int(2))})};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::mv", {"MvBackward0", {0, 1}, {{1, 0}, {0, 1}}, 0, mv_backward});
TN_REGISTER_DERIVATIVE("aten::dot",
                       {"DotBackward0", {0, 1}, {{1, 0}, {0, 1}}, 0, dot_backward});
TN_REGISTER_DERIVATIVE("aten::vdot",
                       {"VdotBackward0", {0, 1}, {{1, 0}, {0, 1}}, 0, vdot_backward});
TN_COMPLEX_READY("aten::vdot");
TN_REGISTER_DERIVATIVE("aten::alias", {"AliasBackward0", {0}, {}, false, alias_backward});
TN_REGISTER_DERIVATIVE("aten::split.Tensor", {"SplitBackward0", {0}, {}, false, split_backward});
TN_REGISTER_DERIVATIVE("aten::mm", {"MmBackward0", {0, 1}, {{1, 0}, {0, 1}}, false, mm_backward});
TN_REGISTER_DERIVATIVE("aten::addmm",
                       {"AddmmBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, false, addmm_backward});
TN_REGISTER_DERIVATIVE("aten::_grouped_mm", {"GroupedMmBackward0", {0, 1}, {{1, 0}, {0, 1}, {2}},
                                             false, grouped_mm_backward});
TN_REGISTER_DERIVATIVE("aten::linalg_solve_triangular",
                       {"LinalgSolveTriangularBackward0", {0, 1}, {{0}}, 1,
                        solve_triangular_backward});
TN_REGISTER_DERIVATIVE("aten::bmm",
                       {"BmmBackward0", {0, 1}, {{1, 0}, {0, 1}}, false, bmm_backward});
TN_REGISTER_DERIVATIVE("aten::t", {"TBackward0", {0}, {}, false, t_backward});
TN_REGISTER_DERIVATIVE("aten::transpose.int",
                       {"TransposeBackward0", {0}, {}, false, transpose_backward});
TN_REGISTER_DERIVATIVE("aten::view", {"ViewBackward0", {0}, {}, false, reshape_backward});
TN_REGISTER_DERIVATIVE("aten::_unsafe_view",
                       {"UnsafeViewBackward0", {0}, {}, false, reshape_backward});
TN_REGISTER_DERIVATIVE("aten::expand", {"ExpandBackward0", {0}, {}, false, expand_backward});
TN_REGISTER_DERIVATIVE("aten::permute", {"PermuteBackward0", {0}, {}, false, permute_backward});
TN_REGISTER_DERIVATIVE("aten::unsqueeze",
                       {"UnsqueezeBackward0", {0}, {}, false, unsqueeze_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze.dim",
                       {"SqueezeBackward1", {0}, {}, false, squeeze_dim_backward});
// The in-place view ops: the functional formulas under upstream's names for them.
TN_REGISTER_DERIVATIVE("aten::unsqueeze_",
                       {"UnsqueezeBackward1", {0}, {}, false, unsqueeze_backward});
TN_REGISTER_DERIVATIVE("aten::t_", {"TBackward1", {0}, {}, false, t_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze_.dim",
                       {"SqueezeBackward4", {0}, {}, false, squeeze_dim_backward});
TN_REGISTER_DERIVATIVE("aten::sum", {"SumBackward0", {0}, {}, false, sum_backward_all});
TN_REGISTER_DERIVATIVE("aten::sum.dim_IntList",
                       {"SumBackward1", {0}, {}, false, sum_dim_backward});
TN_REGISTER_DERIVATIVE("aten::mean", {"MeanBackward0", {0}, {}, false, mean_backward_all});
TN_REGISTER_DERIVATIVE("aten::nansum", {"NansumBackward0", {0}, {{0}}, 0, nansum_backward});
TN_REGISTER_DERIVATIVE("aten::mean.dim", {"MeanBackward1", {0}, {}, false, mean_dim_backward});
TN_REGISTER_DERIVATIVE("aten::_softmax", {"SoftmaxBackward0", {0}, {}, true, softmax_backward});
TN_REGISTER_DERIVATIVE("aten::_log_softmax",
                       {"LogSoftmaxBackward0", {0}, {}, true, log_softmax_backward});
TN_REGISTER_DERIVATIVE("aten::_softmax_backward_data",
                       {"SoftmaxBackwardDataBackward0", {0, 1}, {{1}, {0, 1}}, 0,
                        softmax_backward_data_backward});
TN_REGISTER_DERIVATIVE("aten::_log_softmax_backward_data",
                       {"LogSoftmaxBackwardDataBackward0", {0, 1}, {{1}, {0, 1}}, 0,
                        log_softmax_backward_data_backward});
TN_REGISTER_DERIVATIVE("aten::select.int", {"SelectBackward0", {0}, {}, false, select_backward});
TN_REGISTER_DERIVATIVE("aten::slice.Tensor", {"SliceBackward0", {0}, {}, false, slice_backward});
TN_REGISTER_DERIVATIVE("aten::cat", {"CatBackward0", {0}, {}, false, cat_backward});

}  // namespace tn::autograd
