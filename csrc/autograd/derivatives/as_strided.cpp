// The derivative of as_strided (and as_strided_, which reads it): upstream's
// as_strided_backward, layout-agnostic. The gradient is scattered into a flat storage through
// the output's geometry (index_add where the output's elements overlap), divided where the
// input's own elements overlap by how many share each place, and read back through the
// input's geometry. Upstream's NOTE [ as_strided Backward and layout-aware/agnostic autograd ]
// and NOTE [ Detecting Memory Overlap Within A Strided Tensor ] give the reasoning.
//
// Not done: as_strided with an explicit storage_offset. The geometry needs the input's
// storage offset beside its sizes and strides, which the node does not keep (ArgMeta has
// none), so that case refuses by name; without storage_offset the output starts where the
// input does and only their common offset matters.
#include <algorithm>
#include <numeric>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// Sizes and strides with the size-1 dims dropped (and, for the output, its stride-0 dims
// summed out of the gradient), as upstream's step (0).
struct Geometry {
  Dims sizes;
  Dims strides;
};

// Upstream's _maybe_overlapping_memory: dims sorted by stride, each stride must exceed the
// furthest offset the smaller-stride dims reach.
bool maybe_overlapping(const Geometry& g) {
  std::vector<size_t> order(g.sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return g.strides[a] < g.strides[b]; });
  int64_t reach = 0;
  for (size_t d : order) {
    if (g.strides[d] <= reach) return true;
    reach += g.strides[d] * (g.sizes[d] - 1);
  }
  return false;
}

// Upstream's _min_storage_size: the elements a geometry starting at offset needs.
int64_t min_storage_size(const Geometry& g, int64_t offset) {
  int64_t size = offset + 1;
  for (size_t i = 0; i < g.sizes.size(); ++i) {
    if (g.sizes[i] == 0) return offset;
    size += (g.sizes[i] - 1) * g.strides[i];
  }
  return size;
}

Tensor strided(const Tensor& t, const Geometry& g, int64_t offset) {
  return call_tensor("aten::as_strided", {V(t), Value::of_ints(g.sizes),
                                          Value::of_ints(g.strides), Value::of_int(offset)});
}

}  // namespace

// Upstream's as_strided_backward: the gradient of an input laid out (in_sizes, in_strides,
// in_offset) from that of its as_strided view (size, stride, out_offset). Also the gradient of
// a view regenerated from its base (view_history.cpp's ViewOfBase, for overlapping views).
Tensor as_strided_backward(Tensor grad, const Dims& in_sizes, const Dims& in_strides,
                           int64_t in_offset, const Dims& size, const Dims& stride,
                           int64_t out_offset) {
  using namespace d;
  Geometry out;
  for (int64_t i = static_cast<int64_t>(size.size()) - 1; i >= 0; --i) {
    size_t k = static_cast<size_t>(i);
    if (size[k] == 0) return zeros(in_sizes, grad->dtype(), grad->device());
    if (size[k] == 1) {
      grad = squeeze(grad, i);
    } else if (stride[k] == 0) {
      grad = call_tensor("aten::sum.dim_IntList",
                         {V(grad), Value::of_ints(Dims{i}), Value::of_bool(false)});
    } else {
      out.sizes.insert(out.sizes.begin(), size[k]);
      out.strides.insert(out.strides.begin(), stride[k]);
    }
  }
  Geometry inp;
  for (int64_t i = static_cast<int64_t>(in_sizes.size()) - 1; i >= 0; --i) {
    size_t k = static_cast<size_t>(i);
    if (in_sizes[k] == 0) return zeros(in_sizes, grad->dtype(), grad->device());
    if (in_sizes[k] != 1) {
      inp.sizes.insert(inp.sizes.begin(), in_sizes[k]);
      inp.strides.insert(inp.strides.begin(), in_strides[k]);
    }
  }
  bool out_overlap = maybe_overlapping(out), inp_overlap = maybe_overlapping(inp);
  int64_t shared = std::min(in_offset, out_offset);
  int64_t inp_eff = in_offset - shared, out_eff = out_offset - shared;
  int64_t base_size = std::max(min_storage_size(inp, inp_eff), min_storage_size(out, out_eff));
  Tensor storage = zeros(Dims{base_size}, grad->dtype(), grad->device());
  Tensor flat_indices;
  if (inp_overlap || out_overlap)
    flat_indices = call_tensor("aten::arange", {S(Scalar::from_int(base_size)),
                                                Value::of_dtype(ScalarType::Long), Value{},
                                                Value::of_device(grad->device())});
  if (out_overlap) {
    Tensor idx = reshape(strided(flat_indices, out, out_eff), Dims{-1});
    storage = call_tensor("aten::index_add", {V(storage), Value::of_int(0), V(idx),
                                              V(reshape(grad, Dims{-1}))});
  } else {
    ops::copy_(strided(storage, out, out_eff), grad);
  }
  if (inp_overlap) {
    Tensor idx = reshape(strided(flat_indices, inp, inp_eff), Dims{-1});
    Tensor one = call_tensor("aten::ones", {Value::of_ints(Dims{1}), Value::of_dtype(grad->dtype()),
                                            Value{}, Value::of_device(grad->device())});
    Tensor count = call_tensor(
        "aten::index_add", {V(zeros(Dims{base_size}, grad->dtype(), grad->device())),
                            Value::of_int(0), V(idx), V(expand(one, idx->sizes()))});
    storage = div(storage, count);  // NaN outside what the input reaches, as upstream's
  }
  return strided(storage, Geometry{in_sizes, in_strides}, inp_eff);
}

namespace {

// as_strided(self, size, stride, storage_offset?): self gets as_strided_backward of grad, the
// input's geometry (its metas) and the output's. Without storage_offset the output starts
// where the input does, so both offsets count as 0.
Grads as_strided_formula(const Saved& s, const Grads& g) {
  TN_CHECK_KIND(s.arg(3).tag != Value::Tag::Int, NotImplemented,
                "torchnative: the derivative for 'aten::as_strided' with an explicit "
                "storage_offset is not implemented (it needs the input's storage offset, which "
                "the recording does not keep; autograd, issue 8)");
  const ArgMeta& in = s.meta(0);
  return {as_strided_backward(g[0], in.sizes, in.strides, 0, s.ints(1), s.ints(2), 0)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::as_strided",
                       {"AsStridedBackward0", {0}, {}, 0, as_strided_formula});
TN_REGISTER_DERIVATIVE("aten::as_strided_",
                       {"AsStridedBackward1", {0}, {}, 0, as_strided_formula});

}  // namespace tn::autograd
