// Derivatives of more shape and indexing ops (repeat, flip, roll, diagonal, tril/triu, unfold,
// index_select, index.Tensor, index_put and _index_put_impl_, _reshape_alias, masked_select,
// stack, unbind, squeeze, split_with_sizes, baddbmm, native_dropout, pixel_shuffle and
// pixel_unshuffle): upstream's derivatives.yaml formulas and FunctionsManual helpers, written
// again with door ops. Where upstream adds into zeros with index_add or masked_scatter,
// index_put with accumulate gives the same values here.
#include <algorithm>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Value opt_tensors(std::vector<Tensor> ts) {
  Value v;
  v.tag = Value::Tag::OptTensorList;
  v.tensors = std::move(ts);
  return v;
}
Tensor zeros_of(const ArgMeta& m, const Tensor& like) {
  return zeros(m.sizes, like->dtype(), m.device);
}
// index_put(base, indices, values, accumulate), out of place.
Tensor index_put(const Tensor& base, const Value& indices, const Tensor& values, bool acc) {
  return call_tensor("aten::index_put", {V(base), indices, V(values), Value::of_bool(acc)});
}

// repeat(self, repeats): upstream's repeat_backward: the leading new dims summed away, then
// each repeated dim split into (repeat, size) and the repeat summed; zeros if a repeat is 0.
Grads repeat_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  const Dims& repeats = s.ints(1);
  if (std::find(repeats.begin(), repeats.end(), 0) != repeats.end()) return {zeros_of(m, g[0])};
  Tensor grad = g[0];
  size_t lead = repeats.size() - m.sizes.size();
  for (size_t i = 0; i < lead; ++i)
    grad = call_tensor("aten::sum.dim_IntList",
                       {V(grad), Value::of_ints(Dims{0}), Value::of_bool(false)});
  Dims split, sum_dims;
  for (size_t k = 0; k < m.sizes.size(); ++k) {
    int64_t r = repeats[k + lead];
    if (r != 1) {
      split.push_back(r);
      sum_dims.push_back(static_cast<int64_t>(split.size()) - 1);
    }
    split.push_back(m.sizes[k]);
  }
  if (sum_dims.empty()) return {reshape(grad, m.sizes)};
  grad = reshape(grad, split);
  return {call_tensor("aten::sum.dim_IntList",
                      {V(grad), Value::of_ints(sum_dims), Value::of_bool(false)})};
}
// flip(self, dims): the gradient flipped back.
Grads flip_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::flip", {V(g[0]), s.arg(1)})};
}
// roll(self, shifts, dims): rolled back, by the negated shifts over the reversed dims.
Grads roll_backward(const Saved& s, const Grads& g) {
  Dims shifts(s.ints(1).rbegin(), s.ints(1).rend());
  for (int64_t& x : shifts) x = -x;
  Dims dims(s.ints(2).rbegin(), s.ints(2).rend());
  return {call_tensor("aten::roll", {V(g[0]), Value::of_ints(shifts), Value::of_ints(dims)})};
}
// tril / triu(self, diagonal): the gradient masked the same way.
Grads tril_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::tril", {V(g[0]), s.arg(1)})};
}
Grads triu_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::triu", {V(g[0]), s.arg(1)})};
}
// diagonal(self, offset, dim1, dim2): upstream's diagonal_backward, the gradient written into
// the diagonal of zeros of self's shape.
Grads diagonal_backward(const Saved& s, const Grads& g) {
  Tensor z = zeros_of(s.meta(0), g[0]);
  ops::copy_(call_tensor("aten::diagonal", {V(z), s.arg(1), s.arg(2), s.arg(3)}), g[0]);
  return {z};
}
// diag_embed(self, offset, dim1, dim2): the gradient's diagonal, read back.
Grads diag_embed_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::diagonal", {V(g[0]), s.arg(1), s.arg(2), s.arg(3)})};
}
// unfold(self, dimension, size, step): upstream's unfold_backward, each window's gradient
// (the last dim of the gradient, moved back to `dimension`) added into its span of zeros.
Grads unfold_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  int64_t dim = n == 0 ? 0 : wrap(s.to_int(1), n);
  int64_t size = s.to_int(2), step = s.to_int(3);
  Tensor z = zeros_of(m, g[0]);
  if (n == 0) {
    ops::copy_(z, reshape(g[0], Dims{}));
    return {z};
  }
  int64_t windows = g[0]->sizes()[static_cast<size_t>(dim)];
  for (int64_t k = 0; k < windows; ++k) {
    Tensor piece = call_tensor("aten::select.int", {V(g[0]), Value::of_int(dim), Value::of_int(k)});
    piece = call_tensor("aten::movedim.int", {V(piece), Value::of_int(-1), Value::of_int(dim)});
    Tensor span = narrow(z, dim, k * step, size);
    ops::copy_(span, add(span, piece));
  }
  return {z};
}

// index_select(self, dim, index): upstream's index_select_backward, zeros with the gradient
// added at index along dim (index_add; here index_put with accumulate over dim).
Grads index_select_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  int64_t n = static_cast<int64_t>(m.sizes.size());
  if (n == 0) return {reshape(g[0], Dims{})};
  int64_t dim = wrap(s.to_int(1), n);
  std::vector<Tensor> idx(static_cast<size_t>(dim));
  idx.push_back(reshape(s.tensor(2), Dims{-1}));
  return {index_put(zeros_of(m, g[0]), opt_tensors(std::move(idx)), g[0], true)};
}
// index.Tensor(self, indices): upstream's index_backward, the gradient accumulated into
// zeros of self's shape at the indices.
Grads index_backward(const Saved& s, const Grads& g) {
  return {index_put(zeros_of(s.meta(0), g[0]), s.arg(1), g[0], true)};
}
// index_put(self, indices, values, accumulate): self: grad (accumulate) or grad with zeros
// put at the indices; values: grad.index(indices) (the engine sums a broadcast back).
Grads index_put_backward(const Saved& s, const Grads& g) {
  bool acc = s.to_bool(3);
  Grads out{Tensor(), Tensor()};
  if (s.need(0)) {
    const ArgMeta& vm = s.meta(1);
    out[0] = acc ? g[0] : index_put(g[0], s.arg(1), zeros(vm.sizes, g[0]->dtype(), vm.device),
                                    false);
  }
  if (s.need(1)) out[1] = call_tensor("aten::index.Tensor", {V(g[0]), s.arg(1)});
  return out;
}
// _reshape_alias(self, size, stride): self: grad.reshape(self.sizes()).
Grads reshape_alias_backward(const Saved& s, const Grads& g) {
  return {reshape(g[0], s.meta(0).sizes)};
}
// masked_select(self, mask): upstream's masked_select_backward, zeros of the broadcast shape
// with the gradient scattered where mask holds (masked_scatter; here index_put by the mask).
Grads masked_select_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  const Tensor& mask = s.tensor(1);
  Tensor z = zeros_of(m, g[0]);
  std::vector<Tensor> both =
      call("aten::broadcast_tensors", {Value::of_tensors({z, mask})})[0].tensors;
  Tensor base = call_tensor("aten::clone", {V(both[0])});
  if (base->dim() == 0)  // one element: indexed as a 1-element row (index takes no 0-dim mask)
    return {reshape(index_put(reshape(base, {1}), opt_tensors({reshape(both[1], {1})}), g[0],
                              false), {})};
  return {index_put(base, opt_tensors({both[1]}), g[0], false)};
}

// stack(tensors, dim): each input's slice of the gradient.
Grads stack_backward(const Saved& s, const Grads& g) {
  Grads out(s.metas.size());
  int64_t dim = wrap(s.to_int(1), g[0]->dim());
  for (size_t k = 0; k < out.size(); ++k)
    if (s.need(k))
      out[k] = call_tensor("aten::select.int",
                           {V(g[0]), Value::of_int(dim), Value::of_int(static_cast<int64_t>(k))});
  return out;
}
// unbind.int(self, dim): the pieces' gradients stacked again (zeros for a piece with none,
// filled in by the node).
Grads unbind_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::stack", {Value::of_tensors(g), Value::of_int(s.to_int(1))})};
}
// split_with_sizes(self, split_sizes, dim): the pieces' gradients joined again.
Grads split_with_sizes_backward(const Saved& s, const Grads& g) {
  return {call_tensor("aten::cat", {Value::of_tensors(g), Value::of_int(s.to_int(2))})};
}
// squeeze(self), squeeze.dims(self, dims): reshaped back to self's sizes (upstream's
// unsqueeze_to).
Grads squeeze_backward(const Saved& s, const Grads& g) { return {reshape(g[0], s.meta(0).sizes)}; }

// baddbmm(self, batch1, batch2, beta, alpha): self: grad * conj(beta); batch1:
// grad . conj(batch2)^T * conj(alpha); batch2: conj(batch1)^T . grad * conj(alpha).
Grads baddbmm_backward(const Saved& s, const Grads& g) {
  Scalar beta = conj(s.scalar(3)), alpha = conj(s.scalar(4));
  return {s.need(0) ? maybe_multiply(g[0], beta) : Tensor(),
          s.need(1) ? maybe_multiply(bmm(g[0], transpose(conj(s.tensor(2)), 1, 2)), alpha)
                    : Tensor(),
          s.need(2) ? maybe_multiply(bmm(transpose(conj(s.tensor(1)), 1, 2), g[0]), alpha)
                    : Tensor()};
}
// native_dropout(input, p, train) -> (output, mask): grad * mask * scale, scale 1 / (1 - p)
// in training (0 for p == 1), 1 otherwise.
Grads native_dropout_backward(const Saved& s, const Grads& g) {
  const Value& train = s.arg(2);
  double p = s.arg(1).tag == Value::Tag::Double ? s.arg(1).d : s.scalar(1).to_double();
  bool training = !train.is_none() && train.b;
  double scale = !training ? 1.0 : (p == 1.0 ? 0.0 : 1.0 / (1.0 - p));
  return {mul(g[0], mul(to_dtype(s.result(1), g[0]->dtype()), Scalar::from_double(scale)))};
}

// pixel_shuffle(self, r): pixel_unshuffle(grad, r); pixel_unshuffle(self, r): pixel_shuffle.
template <const char* kInverse>
Grads pixel_rearrange_backward(const Saved& s, const Grads& g) {
  return {call_tensor(kInverse, {V(g[0]), Value::of_int(s.to_int(1))})};
}
constexpr char kPixelShuffle[] = "aten::pixel_shuffle", kPixelUnshuffle[] = "aten::pixel_unshuffle";

}  // namespace

TN_REGISTER_DERIVATIVE("aten::repeat", {"RepeatBackward0", {0}, {}, 0, repeat_backward});
TN_REGISTER_DERIVATIVE("aten::flip", {"FlipBackward0", {0}, {}, 0, flip_backward});
TN_REGISTER_DERIVATIVE("aten::roll", {"RollBackward0", {0}, {}, 0, roll_backward});
TN_REGISTER_DERIVATIVE("aten::tril", {"TrilBackward0", {0}, {}, 0, tril_backward});
TN_REGISTER_DERIVATIVE("aten::triu", {"TriuBackward0", {0}, {}, 0, triu_backward});
TN_REGISTER_DERIVATIVE("aten::diagonal", {"DiagonalBackward0", {0}, {}, 0, diagonal_backward});
TN_REGISTER_DERIVATIVE("aten::diagonal_copy",
                       {"DiagonalBackward0_copy", {0}, {}, 0, diagonal_backward});
TN_REGISTER_DERIVATIVE("aten::diag_embed",
                       {"DiagEmbedBackward0", {0}, {}, 0, diag_embed_backward});
TN_REGISTER_DERIVATIVE("aten::unfold", {"UnfoldBackward0", {0}, {}, 0, unfold_backward});
TN_REGISTER_DERIVATIVE("aten::index_select",
                       {"IndexSelectBackward0", {0}, {{2}}, 0, index_select_backward});
TN_REGISTER_DERIVATIVE("aten::index.Tensor", {"IndexBackward0", {0}, {{1}}, 0, index_backward});
TN_REGISTER_DERIVATIVE("aten::index_put",
                       {"IndexPutBackward0", {0, 2}, {{1}}, 0, index_put_backward});
// _index_put_impl_(self, indices, values, accumulate, unsafe): index_put's formula.
TN_REGISTER_DERIVATIVE("aten::_index_put_impl_",
                       {"IndexPutImplBackward0", {0, 2}, {{1}}, 0, index_put_backward});
TN_REGISTER_DERIVATIVE("aten::_reshape_alias",
                       {"ReshapeAliasBackward0", {0}, {}, 0, reshape_alias_backward});
TN_REGISTER_DERIVATIVE("aten::masked_select",
                       {"MaskedSelectBackward0", {0}, {{1}}, 0, masked_select_backward});
TN_REGISTER_DERIVATIVE("aten::stack", {"StackBackward0", {0}, {}, 0, stack_backward});
TN_REGISTER_DERIVATIVE("aten::unbind.int", {"UnbindBackward0", {0}, {}, 0, unbind_backward});
TN_REGISTER_DERIVATIVE("aten::split_with_sizes",
                       {"SplitWithSizesBackward0", {0}, {}, 0, split_with_sizes_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze", {"SqueezeBackward0", {0}, {}, 0, squeeze_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze.dims", {"SqueezeBackward2", {0}, {}, 0, squeeze_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze_", {"SqueezeBackward3", {0}, {}, 0, squeeze_backward});
TN_REGISTER_DERIVATIVE("aten::squeeze_.dims", {"SqueezeBackward5", {0}, {}, 0, squeeze_backward});
TN_REGISTER_DERIVATIVE("aten::native_dropout",
                       {"NativeDropoutBackward0", {0}, {}, 2, native_dropout_backward, 2});
TN_REGISTER_DERIVATIVE("aten::pixel_shuffle",
                       {"PixelShuffleBackward0", {0}, {}, 0,
                        pixel_rearrange_backward<kPixelUnshuffle>});
TN_REGISTER_DERIVATIVE("aten::pixel_unshuffle",
                       {"PixelUnshuffleBackward0", {0}, {}, 0,
                        pixel_rearrange_backward<kPixelShuffle>});
TN_COMPLEX_READY("aten::pixel_shuffle", "aten::pixel_unshuffle");
TN_REGISTER_DERIVATIVE("aten::baddbmm",
                       {"BaddbmmBackward0", {0, 1, 2}, {{2, 1}, {1, 2}}, 0, baddbmm_backward});

}  // namespace tn::autograd
