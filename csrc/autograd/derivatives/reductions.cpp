// Derivatives of the reductions beyond sum and mean (prod, amax/amin, max/min with and without
// a dim, var/std, linalg_vector_norm, cumsum, cumprod): upstream's derivatives.yaml formulas and
// their FunctionsManual helpers (prod_backward, scale_grad_by_count, var_backward,
// norm_backward, cumprod_backward...), written again with door ops. Where upstream scatters into
// zeros (max.dim's value_selecting_reduction_backward) or takes cumulative products (prod with
// zeros), the same values are built from comparisons and where, ops this core has.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/derivatives/helpers.h"
#include "autograd/grad_mode.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
Tensor op2(const char* op, const Tensor& a, const Tensor& b) {
  return call_tensor(op, {V(a), V(b)});
}
Tensor eq_scalar(const Tensor& a, double x) {
  return call_tensor("aten::eq.Scalar", {V(a), S(Scalar::from_double(x))});
}
Tensor where3(const Tensor& c, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {V(c), V(a), V(b)});
}
Tensor where_scalar_other(const Tensor& c, const Tensor& a, double x) {
  return call_tensor("aten::where.ScalarOther", {V(c), V(a), S(Scalar::from_double(x))});
}
Tensor masked_fill(const Tensor& a, const Tensor& mask, double x) {
  return call_tensor("aten::masked_fill.Scalar", {V(a), V(mask), S(Scalar::from_double(x))});
}
// sum over dims keeping them (an empty list sums every dim, as upstream's sum does).
Tensor sum_dims_keep(const Tensor& a, const Dims& dims) {
  return call_tensor("aten::sum.dim_IntList", {V(a), Value::of_ints(dims), Value::of_bool(true)});
}
Tensor sum_all(const Tensor& a) { return call_tensor("aten::sum", {V(a)}); }

// The reduced dims wrapped into [0, n) and sorted (upstream's unsqueeze_multiple order).
Dims wrapped_dims(const Dims& dims, int64_t n) {
  Dims out;
  for (int64_t d0 : dims) out.push_back(wrap(d0, n));
  std::sort(out.begin(), out.end());
  return out;
}
// Upstream's unsqueeze_multiple / restore_reduced_dims: a keepdim=False result given its
// reduced dims back as size 1.
Tensor unsqueeze_dims(Tensor t, const Dims& dims, int64_t n) {
  for (int64_t d0 : wrapped_dims(dims, n)) t = unsqueeze(t, d0);
  return t;
}
// The dims of an int[1]? argument: None (or an empty list) means every dim.
Dims dims_of(const Value& v, int64_t n, bool* given) {
  *given = v.tag == Value::Tag::IntList && !v.ints.empty();
  if (v.tag == Value::Tag::Int) {
    *given = true;
    return Dims{v.i};
  }
  if (*given) return v.ints;
  Dims all;
  for (int64_t i = 0; i < n; ++i) all.push_back(i);
  return all;
}

// prod's gradient along dims whose slices multiply to result (keepdim form): upstream's
// grad * result / input when no element is 0; where one is, the product of the others, which
// is the nonzero elements' product at a slice's only zero and 0 everywhere else.
Tensor prod_grad(const Tensor& grad, const Tensor& input, const Tensor& result, const Dims& dims) {
  Tensor zero = eq_scalar(input, 0.0);
  Tensor ones_where_zero = where3(zero, call_tensor("aten::ones_like", {V(input)}), input);
  Tensor nonzero_prod = ones_where_zero;
  for (int64_t d0 : dims)
    nonzero_prod = call_tensor("aten::prod.dim_int",
                               {V(nonzero_prod), Value::of_int(d0), Value::of_bool(true)});
  Tensor zeros_in_slice = sum_dims_keep(zero, dims);
  Tensor at_zero = where_scalar_other(eq_scalar(zeros_in_slice, 1.0), nonzero_prod, 0.0);
  // result / input with the zeros divided by 1 (unused there): a 0/0 in the branch where does
  // not take would still give NaN second derivatives.
  return mul(grad, where3(zero, at_zero, div(result, ones_where_zero)));
}
// prod(self, dtype): the whole tensor; prod.dim_int(self, dim, keepdim, dtype): along dim.
Grads prod_backward(const Saved& s, const Grads& g) {
  Tensor input = to_dtype(s.tensor(0), g[0]->dtype());
  int64_t n = static_cast<int64_t>(input->sizes().size());
  if (n == 0) return {g[0]};
  Dims all;
  for (int64_t i = 0; i < n; ++i) all.push_back(i);
  Dims ones(static_cast<size_t>(n), 1);
  return {prod_grad(reshape(g[0], ones), input, reshape(s.result(0), ones), all)};
}
Grads prod_dim_backward(const Saved& s, const Grads& g) {
  Tensor input = to_dtype(s.tensor(0), g[0]->dtype());
  int64_t n = static_cast<int64_t>(input->sizes().size());
  if (n == 0) return {g[0]};
  int64_t dim = wrap(s.to_int(1), n);
  Tensor grad = g[0], result = s.result(0);
  if (!s.to_bool(2)) {
    grad = unsqueeze(grad, dim);
    result = unsqueeze(result, dim);
  }
  return {prod_grad(grad, input, result, Dims{dim})};
}

// amax / amin(self, dim, keepdim): upstream's scale_grad_by_count: the gradient shared evenly
// by the elements equal to the result, (grad / count) * mask.
Grads amax_amin_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  int64_t n = static_cast<int64_t>(self->sizes().size());
  const Dims& dims = s.ints(1);
  Tensor grad = g[0], result = s.result(0);
  if (!s.to_bool(2)) {
    grad = unsqueeze_dims(grad, dims, n);
    result = unsqueeze_dims(result, dims, n);
  }
  Tensor mask = op2("aten::eq.Tensor", result, self);
  return {mul(div(grad, sum_dims_keep(mask, dims)), mask)};
}

// max.dim / min.dim(self, dim, keepdim) -> (values, indices): upstream's
// value_selecting_reduction_backward, zeros with grad scattered at indices along dim; built
// here as where(arange(size) == indices, grad, 0).
Grads select_dim_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  if (n == 0) return {g[0]};
  int64_t dim = wrap(s.to_int(1), n);
  Tensor grad = g[0], idx = s.result(1);
  if (!s.to_bool(2)) {
    grad = unsqueeze(grad, dim);
    idx = unsqueeze(idx, dim);
  }
  Dims shape(static_cast<size_t>(n), 1);
  shape[static_cast<size_t>(dim)] = m.sizes[static_cast<size_t>(dim)];
  Tensor positions = call_tensor("aten::arange", {S(Scalar::from_int(m.sizes[dim])),
                                                  Value::of_dtype(ScalarType::Long), Value{},
                                                  Value::of_device(m.device)});
  Tensor hit = op2("aten::eq.Tensor", reshape(positions, shape), idx);
  Tensor zero = zeros(m.sizes, grad->dtype(), m.device);
  return {where3(hit, expand(grad, m.sizes), zero)};
}

// sort / sort.stable / topk / kthvalue: upstream's value_selecting_reduction_backward, grad
// scattered into zeros of self's shape at indices along dim (indices kept with a size-1 dim
// when keepdim is false). dim_at and keepdim_at are schema positions; keepdim_at < 0 is true.
Grads scatter_selected(const Saved& s, const Grads& g, size_t dim_at, int keepdim_at) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  if (n == 0) return {g[0]};
  int64_t dim = wrap(s.to_int(dim_at), n);
  Tensor grad = g[0], idx = s.result(1);
  if (keepdim_at >= 0 && !s.to_bool(static_cast<size_t>(keepdim_at))) {
    grad = unsqueeze(grad, dim);
    idx = unsqueeze(idx, dim);
  }
  Tensor zero = zeros(m.sizes, grad->dtype(), m.device);
  return {call_tensor("aten::scatter.src", {V(zero), Value::of_int(dim), V(idx), V(grad)})};
}
Grads sort_backward(const Saved& s, const Grads& g) { return scatter_selected(s, g, 1, -1); }
Grads sort_stable_backward(const Saved& s, const Grads& g) {
  return scatter_selected(s, g, 2, -1);
}
Grads topk_backward(const Saved& s, const Grads& g) { return scatter_selected(s, g, 2, -1); }
Grads kthvalue_backward(const Saved& s, const Grads& g) { return scatter_selected(s, g, 2, 3); }
// median.dim / nanmedian.dim(self, dim, keepdim): the same, dim at 1 and keepdim at 2.
Grads median_dim_backward(const Saved& s, const Grads& g) { return scatter_selected(s, g, 1, 2); }

// logsumexp(self, dim, keepdim): upstream's logsumexp_backward, grad * exp(self - result), the
// reduced dims put back first unless kept.
Grads logsumexp_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  Tensor grad = g[0], result = s.result(0);
  const int64_t n = self->dim();
  if (!s.to_bool(2) && n != 0) {
    Dims dims = wrapped_dims(s.ints(1), n);
    grad = unsqueeze_dims(grad, dims, n);
    result = unsqueeze_dims(result, dims, n);
  }
  return {mul(grad, op1("aten::exp", op2("aten::sub.Tensor", self, result)))};
}

// max() / min(), the whole tensor: upstream's evenly_distribute_backward, grad / count at
// every element equal to the result (NaN counting as equal to a NaN result), 0 elsewhere.
Grads evenly_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const Tensor& value = s.result(0);
  Tensor nan_both = op2("aten::logical_and", op1("aten::isnan", self), op1("aten::isnan", value));
  Tensor mask = op2("aten::logical_or", op2("aten::eq.Tensor", self, value), nan_both);
  Tensor share = div(g[0], sum_all(mask));
  Tensor zero = zeros(self->sizes(), g[0]->dtype(), self->device());
  return {call_tensor("aten::masked_fill.Tensor", {V(zero), V(mask), V(share)})};
}

// var.correction(self, dim, correction, keepdim): upstream's var_backward,
// (2 / (N - correction)) * grad * (self - mean), N the reduced elements; with no dim and no
// degrees of freedom left, grad * (NaN where self == mean, else inf).
Tensor var_grad(Tensor grad, const Tensor& self, const Value& dim_arg, const Value& corr_arg,
                bool keepdim) {
  double correction = corr_arg.is_none() ? 1.0 : corr_arg.scalar.to_double();
  int64_t n = static_cast<int64_t>(self->sizes().size());
  bool has_dim = dim_arg.tag == Value::Tag::IntList;
  if (n == 0 || !has_dim) {
    double dof = static_cast<double>(self->numel()) - correction;
    Tensor mean = call_tensor("aten::mean", {V(self)});
    if (dof <= 0) {
      Tensor nan_or_inf = call_tensor(
          "aten::where.Scalar", {V(op2("aten::eq.Tensor", self, mean)),
                                 S(Scalar::from_double(std::nan(""))),
                                 S(Scalar::from_double(INFINITY))});
      return mul(grad, nan_or_inf);
    }
    return mul(mul(grad, Scalar::from_double(2.0 / dof)), sub(self, mean));
  }
  const Dims& dims = dim_arg.ints;
  if (!keepdim && n > 1) grad = unsqueeze_dims(grad, dims, n);
  double rnumel = 1;
  for (int64_t d0 : dims) rnumel *= static_cast<double>(self->sizes()[wrap(d0, n)]);
  Tensor mean =
      call_tensor("aten::mean.dim", {V(self), Value::of_ints(dims), Value::of_bool(true)});
  return mul(mul(grad, Scalar::from_double(2.0 / (rnumel - correction))), sub(self, mean));
}
Grads var_backward(const Saved& s, const Grads& g) {
  return {var_grad(g[0], s.tensor(0), s.arg(1), s.arg(2), s.to_bool(3))};
}
// std.correction: upstream's std_backward, var_backward of (grad / (2 result)) with 0 where
// the result is 0.
Grads std_backward(const Saved& s, const Grads& g) {
  const Tensor& result = s.result(0);
  Tensor gv = masked_fill(div(g[0], mul(result, Scalar::from_int(2))), eq_scalar(result, 0.0),
                          0.0);
  return {var_grad(gv, s.tensor(0), s.arg(1), s.arg(2), s.to_bool(3))};
}

// mean's gradient inside var_mean/std_mean (upstream's mean_backward): grad spread over the
// reduced elements, divided by their count (every element when dim is None, [] or all dims).
Tensor mean_grad(Tensor grad, const Tensor& self, const Value& dim_arg, bool keepdim) {
  const Dims& sizes = self->sizes();
  int64_t n = static_cast<int64_t>(sizes.size());
  Dims dims = dim_arg.tag == Value::Tag::IntList ? dim_arg.ints : Dims{};
  if (!keepdim && n > 0 && !dims.empty()) grad = unsqueeze_dims(grad, dims, n);
  int64_t count = self->numel();
  if (!dims.empty() && static_cast<int64_t>(dims.size()) != n) {
    count = 1;
    for (int64_t d0 : dims) count *= sizes[wrap(d0, n)];
  }
  return div(expand(grad, sizes), Scalar::from_int(count));
}
// var_mean.correction / std_mean.correction: var's (std's) gradient of the first result's plus
// mean's of the second's, each only where upstream's engine would hand a gradient (a var of
// no degrees of freedom would make NaN of an unused zero).
template <bool kStd>
Grads var_mean_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  Tensor gv = handed_or_null(g, 0), gm = handed_or_null(g, 1), out;
  if (gv && kStd) {
    const Tensor& result = s.result(0);
    gv = masked_fill(div(gv, mul(result, Scalar::from_int(2))), eq_scalar(result, 0.0), 0.0);
  }
  if (gv) out = var_grad(gv, self, s.arg(1), s.arg(2), s.to_bool(3));
  if (gm) {
    Tensor m = mean_grad(gm, self, s.arg(1), s.to_bool(3));
    out = out ? add(out, m) : m;
  }
  if (!out) out = zeros(self->sizes(), g[0]->dtype(), self->device());
  return {out};
}

// linalg_vector_norm(self, ord, dim, keepdim, dtype): upstream's norm_backward by ord.
Grads vector_norm_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  // (norm.ScalarOpt_dim's p may be None: 2)
  double p = s.arg(1).is_none() ? 2.0 : s.scalar(1).to_double();
  int64_t n = static_cast<int64_t>(self->sizes().size());
  bool given = false;
  Dims dims = dims_of(s.arg(2), n, &given);
  Tensor grad = g[0], norm = s.result(0);
  if (!s.to_bool(3) && n != 0) {
    grad = unsqueeze_dims(grad, dims, n);
    norm = unsqueeze_dims(norm, dims, n);
  }
  Tensor sgn = op1(cx(self) ? "aten::sgn" : "aten::sign", self);  // z / |z| for complex
  if (p == 0.0) return {Tensor()};  // upstream returns an undefined gradient: None
  if (p == 1.0) return {mul(sgn, grad)};
  if (p == 2.0) return {mul(grad, masked_fill(div(self, norm), eq_scalar(norm, 0.0), 0.0))};
  Tensor self_abs = op1("aten::abs", self);
  if (std::isinf(p)) {
    Tensor mask = op2("aten::logical_or", op2("aten::eq.Tensor", self_abs, norm),
                      op1("aten::isnan", self_abs));
    return {mul(sgn, mul(div(grad, sum_dims_keep(mask, given ? dims : Dims{})), mask))};
  }
  if (p < 1.0) {
    Tensor scaled = mul(sgn, masked_fill(pow(self_abs, Scalar::from_double(p - 1)),
                                         eq_scalar(self, 0.0), 0.0));
    return {mul(mul(scaled, grad), pow(norm, Scalar::from_double(1 - p)))};
  }
  Tensor scaled = p < 2.0 ? mul(sgn, pow(self_abs, Scalar::from_double(p - 1)))
                          : mul(self, pow(self_abs, Scalar::from_double(p - 2)));
  Tensor scale = masked_fill(div(grad, pow(norm, Scalar::from_double(p - 1))),
                             eq_scalar(norm, 0.0), 0.0);
  return {mul(scaled, scale)};
}

// flip(cumsum(flip(w, dim), dim), dim): upstream's reversed_cumsum.
Tensor reversed_cumsum(const Tensor& w, int64_t dim) {
  Value dims = Value::of_ints(Dims{dim});
  Tensor flipped = call_tensor("aten::flip", {V(w), dims});
  Tensor acc = call_tensor("aten::cumsum", {V(flipped), Value::of_int(dim)});
  return call_tensor("aten::flip", {V(acc), dims});
}

// cumsum(self, dim, dtype): upstream's cumsum_backward, the reversed cumulative sum of grad
// (in self's dtype), grad itself when there is nothing to accumulate.
Grads cumsum_backward(const Saved& s, const Grads& g) {
  Tensor grad = to_dtype(g[0], s.meta(0).dtype);
  int64_t n = static_cast<int64_t>(grad->sizes().size());
  if (grad->numel() <= 1 || n == 0) return {grad};
  int64_t dim = wrap(s.to_int(1), n);
  if (grad->sizes()[dim] == 1) return {grad};
  return {reversed_cumsum(grad, dim)};
}

Tensor op(const char* name, std::vector<Value> args) { return call_tensor(name, std::move(args)); }
Tensor bnot(const Tensor& m) { return op("aten::bitwise_not", {V(m)}); }
Tensor fill_where(const Tensor& t, const Tensor& mask, double v) {
  return op("aten::masked_fill.Scalar", {V(t), V(mask), S(v)});
}
Tensor eq_int(const Tensor& t, int64_t v) {
  return op("aten::eq.Scalar", {V(t), S(Scalar::from_int(v))});
}

// cumprod's gradient where the input has zeros, without recording (upstream's O(n) path):
// before the first zero the reversed cumsum of output * grad over the input; at the first zero
// the sum of grad times the products that skip it; nothing after it.
Tensor cumprod_backward_with_zeros(const Tensor& grad, const Tensor& input_conj,
                                   const Tensor& output_conj, const Tensor& w,
                                   const Tensor& is_zero, int64_t dim) {
  Tensor grad_input = zeros(input_conj->sizes(), grad->dtype(), grad->device());
  Tensor cumsum = op("aten::cumsum", {V(is_zero), Value::of_int(dim)});
  Tensor mask = eq_int(cumsum, 0);
  Tensor before = op("aten::div_.Tensor", {V(reversed_cumsum(fill_where(w, bnot(mask), 0.0), dim)),
                                           V(input_conj)});
  call("aten::masked_scatter_", {V(grad_input), V(mask),
                                 V(op("aten::masked_select", {V(before), V(mask)}))});
  mask = eq_int(cumsum, 1);
  Tensor first_zero_index =
      call("aten::max.dim", {V(mask), Value::of_int(dim), Value::of_bool(true)})[1].tensor;
  Tensor first_zero_mask = op("aten::bitwise_and.Tensor", {
      V(op("aten::scatter_.value", {V(op("aten::zeros_like", {V(mask)})), Value::of_int(dim),
                                    V(first_zero_index), S(Scalar::from_int(1))})),
      V(mask)});
  call("aten::bitwise_and_.Tensor", {V(mask), V(bnot(first_zero_mask))});
  Tensor skipped = op("aten::cumprod", {V(fill_where(input_conj, bnot(mask), 1.0)),
                                        Value::of_int(dim)});
  call("aten::mul_.Tensor", {V(skipped), V(fill_where(grad, op("aten::ne.Scalar",
                                                              {V(cumsum), S(Scalar::from_int(1))}),
                                                       0.0))});
  Tensor summed = op("aten::sum.dim_IntList", {V(skipped), Value::of_ints(Dims{dim}),
                                               Value::of_bool(true), Value{}});
  Tensor before_index = op("aten::relu_", {V(op("aten::sub.Scalar", {V(first_zero_index),
                                                                     S(Scalar::from_int(1))}))});
  Tensor prefix = op("aten::gather", {V(output_conj), Value::of_int(dim), V(before_index)});
  call("aten::masked_fill_.Scalar", {V(prefix), V(eq_int(first_zero_index, 0)), S(1.0)});
  call("aten::mul_.Tensor", {V(summed), V(prefix)});
  call("aten::masked_scatter_", {V(grad_input), V(first_zero_mask),
                                 V(op("aten::masked_select", {V(summed), V(first_zero_mask)}))});
  return grad_input;
}

// Recording (create_graph) with zeros in the input: upstream's O(n^2) path, each position's
// gradient from the products of the others, itself differentiable.
Tensor cumprod_backward_recorded(const Tensor& grad, const Tensor& input_conj, int64_t dim) {
  const int64_t n = input_conj->size(dim);
  Dims ones_size = input_conj->sizes();
  ones_size[dim] = 1;
  Tensor ones = expand(op("aten::ones", {Value::of_ints(Dims{1}), Value::of_dtype(grad->dtype()),
                                         Value{}, Value::of_device(grad->device())}),
                       ones_size);
  auto slice = [&](const Tensor& t, int64_t start, int64_t end) {
    return op("aten::slice.Tensor", {V(t), Value::of_int(dim), Value::of_int(start),
                                     Value::of_int(end), Value::of_int(1)});
  };
  auto cat2 = [&](const Tensor& a, const Tensor& b) {
    return op("aten::cat", {Value::of_tensors({a, b}), Value::of_int(dim)});
  };
  auto cumprod = [&](const Tensor& t) { return op("aten::cumprod", {V(t), Value::of_int(dim)}); };
  auto prod_until = [&](int64_t k) {
    return op("aten::prod.dim_int", {V(slice(input_conj, 0, k)), Value::of_int(dim),
                                     Value::of_bool(true), Value{}});
  };
  const int64_t end = std::numeric_limits<int64_t>::max();
  Tensor grad_input;
  for (int64_t k = 0; k < n; ++k) {
    Tensor omitted;
    if (k == 0) {
      omitted = cat2(ones, cumprod(slice(input_conj, k + 1, end)));
    } else if (k == n - 1) {
      omitted = prod_until(k);
    } else {
      Tensor until = prod_until(k);
      Tensor from = cumprod(slice(input_conj, k + 1, end));
      omitted = cat2(until, mul(expand(until, from->sizes()), from));
    }
    Tensor slice_sum = op("aten::sum.dim_IntList", {V(mul(slice(grad, k, end), omitted)),
                                                    Value::of_ints(Dims{dim}),
                                                    Value::of_bool(false), Value{}});
    Tensor column = unsqueeze(slice_sum, dim);
    grad_input = k == 0 ? column : cat2(grad_input, column);
  }
  return grad_input;
}

// cumprod(self, dim, dtype): upstream's cumprod_backward(grad.to(self's dtype), self, dim,
// result): without zeros, reversed_cumsum(result * grad) / self (conjugated for complex).
Grads cumprod_backward(const Saved& s, const Grads& g) {
  const Tensor& input = s.tensor(0);
  Tensor grad = to_dtype(g[0], input->dtype());
  if (input->numel() <= 1) return {grad};
  const int64_t dim = wrap(s.to_int(1), input->dim());
  if (input->size(dim) == 1) return {grad};
  Tensor input_conj = conj(input), output_conj = conj(s.result(0));
  Tensor w = mul(output_conj, grad);
  Tensor is_zero = eq_int(input, 0);
  const bool any_zero =
      call("aten::_local_scalar_dense", {V(op("aten::any", {V(is_zero)}))})[0].scalar.to_int();
  if (!any_zero) return {div(reversed_cumsum(w, dim), input_conj)};
  if (!grad_mode_enabled())
    return {cumprod_backward_with_zeros(grad, input_conj, output_conj, w, is_zero, dim)};
  return {cumprod_backward_recorded(grad, input_conj, dim)};
}

constexpr char kUnique2[] = "_unique2", kUnique[] = "_unique", kUniqueDim[] = "unique_dim",
               kUniqueConsecutive[] = "unique_consecutive",
               kUniqueDimConsecutive[] = "unique_dim_consecutive";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::prod", {"ProdBackward0", {0}, {{0}}, 1, prod_backward});
TN_REGISTER_DERIVATIVE("aten::prod.dim_int",
                       {"ProdBackward1", {0}, {{0}}, 1, prod_dim_backward});
TN_REGISTER_DERIVATIVE("aten::amax", {"AmaxBackward0", {0}, {{0}}, 1, amax_amin_backward});
TN_REGISTER_DERIVATIVE("aten::amin", {"AminBackward0", {0}, {{0}}, 1, amax_amin_backward});
TN_REGISTER_DERIVATIVE("aten::max.dim",
                       {"MaxBackward0", {0}, {}, 2, select_dim_backward, 2});
TN_REGISTER_DERIVATIVE("aten::min.dim",
                       {"MinBackward0", {0}, {}, 2, select_dim_backward, 2});
TN_REGISTER_DERIVATIVE("aten::sort", {"SortBackward0", {0}, {}, 2, sort_backward, 2});
TN_REGISTER_DERIVATIVE("aten::sort.stable",
                       {"SortBackward1", {0}, {}, 2, sort_stable_backward, 2});
TN_REGISTER_DERIVATIVE("aten::topk", {"TopkBackward0", {0}, {}, 2, topk_backward, 2});
TN_REGISTER_DERIVATIVE("aten::kthvalue",
                       {"KthvalueBackward0", {0}, {}, 2, kthvalue_backward, 2});
TN_REGISTER_DERIVATIVE("aten::logsumexp",
                       {"LogsumexpBackward0", {0}, {{0}}, 1, logsumexp_backward});
TN_REGISTER_DERIVATIVE("aten::max", {"MaxBackward1", {0}, {{0}}, 1, evenly_backward});
TN_REGISTER_DERIVATIVE("aten::median", {"MedianBackward0", {0}, {{0}}, 1, evenly_backward});
TN_REGISTER_DERIVATIVE("aten::nanmedian",
                       {"NanmedianBackward0", {0}, {{0}}, 1, evenly_backward});
TN_REGISTER_DERIVATIVE("aten::median.dim",
                       {"MedianBackward1", {0}, {}, 2, median_dim_backward, 2});
TN_REGISTER_DERIVATIVE("aten::nanmedian.dim",
                       {"NanmedianBackward1", {0}, {}, 2, median_dim_backward, 2});
TN_REGISTER_DERIVATIVE("aten::min", {"MinBackward1", {0}, {{0}}, 1, evenly_backward});
TN_REGISTER_DERIVATIVE("aten::var.correction",
                       {"VarBackward0", {0}, {{0}}, 0, var_backward});
TN_REGISTER_DERIVATIVE("aten::std.correction",
                       {"StdBackward0", {0}, {{0}}, 1, std_backward});
TN_REGISTER_DERIVATIVE("aten::var_mean.correction",
                       {"VarMeanBackward0", {0}, {{0}}, 0, var_mean_backward<false>});
TN_REGISTER_DERIVATIVE("aten::std_mean.correction",
                       {"StdMeanBackward0", {0}, {{0}}, 1, var_mean_backward<true>});
TN_REGISTER_DERIVATIVE("aten::linalg_vector_norm",
                       {"LinalgVectorNormBackward0", {0}, {{0}}, 1, vector_norm_backward});
// var/std (grad real, self - mean complex) and the norms (sgn for sign) hold for complex
// tensors as written.
TN_REGISTER_DERIVATIVE("aten::norm.ScalarOpt_dim",
                       {"NormBackward1", {0}, {{0}}, 1, vector_norm_backward});
TN_COMPLEX_READY("aten::var.correction", "aten::std.correction", "aten::var_mean.correction",
                 "aten::std_mean.correction", "aten::linalg_vector_norm",
                 "aten::norm.ScalarOpt_dim");
TN_REGISTER_DERIVATIVE("aten::cumsum", {"CumsumBackward0", {0}, {}, 0, cumsum_backward});
TN_REGISTER_DERIVATIVE("aten::cumprod", {"CumprodBackward0", {0}, {{0}}, 1, cumprod_backward});
TN_COMPLEX_READY("aten::cumprod");
// The unique family: upstream's not_implemented nodes on the values; inverse and counts carry
// no history.
TN_REGISTER_DERIVATIVE("aten::_unique2",
                       {"Unique2Backward0", {0}, {}, 0, not_implemented<kUnique2>, 6});
TN_REGISTER_DERIVATIVE("aten::_unique",
                       {"UniqueBackward0", {0}, {}, 0, not_implemented<kUnique>, 2});
TN_REGISTER_DERIVATIVE("aten::unique_dim",
                       {"UniqueDimBackward0", {0}, {}, 0, not_implemented<kUniqueDim>, 6});
TN_REGISTER_DERIVATIVE("aten::unique_consecutive",
                       {"UniqueConsecutiveBackward0", {0}, {}, 0,
                        not_implemented<kUniqueConsecutive>, 6});
TN_REGISTER_DERIVATIVE("aten::unique_dim_consecutive",
                       {"UniqueDimConsecutiveBackward0", {0}, {}, 0,
                        not_implemented<kUniqueDimConsecutive>, 6});

}  // namespace tn::autograd
