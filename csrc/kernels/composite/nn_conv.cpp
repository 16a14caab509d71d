// The convolution composites upstream's Convolution.cpp decomposes into aten::convolution:
// conv1d/2d/3d (and their padding='same'/'valid' spellings through _convolution_mode),
// conv_transpose1d/2d/3d, and _convolution (which convolution's own kernel computes here). An
// unbatched input gains a batch dim and loses it again, as upstream's batchify. Door ops only.
#include <atomic>
#include <string>

#include "core/warning.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

// Upstream's batchify: (input with a batch dim, whether it had one), or its RuntimeError.
std::pair<Tensor, bool> batchify(const Tensor& x, int64_t spatial, const char* fn) {
  int64_t plain = spatial + 1;
  bool batched = x->dim() == plain + 1;
  TN_CHECK(x->dim() == plain || batched, "Expected ", plain, "D (unbatched) or ", plain + 1,
           "D (batched) input to ", fn, ", but got input of size: ", dims_str(x->sizes()));
  if (batched) return {x, true};
  return {call_tensor("aten::unsqueeze", {t(x), i64(0)}), false};
}
Tensor unbatchify(const Tensor& y, bool batched) {
  return batched ? y : call_tensor("aten::squeeze.dim", {t(y), i64(0)});
}

// conv{1,2,3}d's check that bias has input's dtype (its torch names: "float", "double").
void check_bias_dtype(const Call& c) {
  const Tensor* b = c.optional_tensor(2);
  const Tensor& x = c.tensor(0);
  TN_CHECK(!b || (*b)->dtype() == x->dtype(), "Input type (", cpp_type_name(x->dtype()),
           ") and bias type (", cpp_type_name((*b)->dtype()), ") should be the same");
}

// convNd(input, weight, bias, stride, padding, dilation, groups)
template <int kDim>
void conv_nd(Call& c) {
  static const char* kNames[] = {"", "conv1d", "conv2d", "conv3d"};
  check_bias_dtype(c);
  auto [x, batched] = batchify(c.tensor(0), kDim, kNames[kDim]);
  Tensor y = call_tensor("aten::convolution",
                         {t(x), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                          Value::of_bool(false), ints(Dims(kDim, 0)), c.arg(6)});
  c.ret(unbatchify(y, batched));
}
TN_REGISTER_COMPOSITE("aten::conv1d", conv_nd<1>);
TN_REGISTER_COMPOSITE("aten::conv2d", conv_nd<2>);
TN_REGISTER_COMPOSITE("aten::conv3d", conv_nd<3>);

// convNd.padding(input, weight, bias, stride, str padding, dilation, groups)
template <int kDim>
void conv_nd_padding(Call& c) {
  static const char* kNames[] = {"", "conv1d", "conv2d", "conv3d"};
  auto [x, batched] = batchify(c.tensor(0), kDim, kNames[kDim]);
  Tensor y = call_tensor("aten::_convolution_mode",
                         {t(x), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6)});
  c.ret(unbatchify(y, batched));
}
TN_REGISTER_COMPOSITE("aten::conv1d.padding", conv_nd_padding<1>);
TN_REGISTER_COMPOSITE("aten::conv2d.padding", conv_nd_padding<2>);
TN_REGISTER_COMPOSITE("aten::conv3d.padding", conv_nd_padding<3>);

// Upstream's _pooling_same_mode_padding_lr: (left, right) padding that keeps the size.
std::pair<int64_t, int64_t> same_padding(int64_t in, int64_t k, int64_t s, int64_t d) {
  int64_t total = d * (k - 1);
  if (s > 2 && total % 2 == 1 && in % s - 1 > 0) total -= 1;
  return {total / 2, total - total / 2};
}

// upstream's convolution_same: the symmetric padding that keeps every spatial size.
Tensor convolution_same(const Call& c) {
  const Tensor &x = c.tensor(0), &w = c.tensor(1);
  int64_t k = w->dim();
  TN_CHECK(k > 2, "weight should have at least three dimensions");
  int64_t groups = c.to_int(6);
  TN_CHECK(groups > 0, "non-positive groups is not supported");
  size_t dim = static_cast<size_t>(k - 2);
  TN_CHECK(k == x->dim(), "Expected ", k, "-dimensional input for ", k, "-dimensional weight",
           dims_str(w->sizes()), ", but got ", x->dim(), "-dimensional input of size ",
           dims_str(x->sizes()), " instead");
  const Dims &stride = c.int_list(3), &dilation = c.int_list(5);
  TN_CHECK(stride.size() == dim || stride.size() == 1, "stride cannot broadcast to ", dim,
           " dimensions");
  TN_CHECK(dilation.size() == dim || dilation.size() == 1, "dilation cannot broadcast to ", dim,
           " dimensions");
  for (int64_t s : stride)
    TN_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
  Dims pad_l, extra(2 * dim, 0);
  bool symmetric = true;
  for (size_t i = 0; i < dim; ++i) {
    int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
    auto [l, r] = same_padding(x->size(static_cast<int64_t>(i) + 2),
                               w->size(static_cast<int64_t>(i) + 2), 1, d);
    pad_l.push_back(l);
    // What the right side needs beyond the left's, padded first (F.pad order: last dim first);
    // stride 1 makes r >= l.
    extra[2 * (dim - 1 - i) + 1] = r - l;
    symmetric = symmetric && l == r;
  }
  Value input = c.arg(0);
  if (!symmetric) {
    static std::atomic<bool> warned{false};  // upstream's TORCH_WARN_ONCE
    if (!warned.exchange(true))
      warn("Using padding='same' with even kernel lengths and odd dilation may require a "
           "zero-padded copy of the input be created");
    input = t(call_tensor("aten::constant_pad_nd",
                          {c.arg(0), ints(extra), Value::of_scalar(Scalar::from_int(0))}));
  }
  return call_tensor("aten::convolution",
                     {input, c.arg(1), c.arg(2), c.arg(3), ints(pad_l), c.arg(5),
                      Value::of_bool(false), ints(Dims(dim, 0)), c.arg(6)});
}

// _convolution_mode(input, weight, bias, stride, str padding, dilation, groups)
void convolution_mode(Call& c) {
  const std::string& mode = c.arg(4).str;
  if (mode == "same") return c.ret(convolution_same(c));
  TN_CHECK(mode == "valid", "Invalid padding string: '", mode, "'");
  c.ret(call_tensor("aten::convolution", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), ints({0}),
                                          c.arg(5), Value::of_bool(false), ints({0}),
                                          c.arg(6)}));
}
TN_REGISTER_COMPOSITE("aten::_convolution_mode", convolution_mode);

// conv_transposeNd(input, weight, bias, stride, padding, output_padding, groups, dilation)
template <int kDim>
void conv_transpose_nd(Call& c) {
  static const char* kNames[] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  auto [x, batched] = batchify(c.tensor(0), kDim, kNames[kDim]);
  Tensor y = call_tensor("aten::convolution",
                         {t(x), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(7),
                          Value::of_bool(true), c.arg(5), c.arg(6)});
  c.ret(unbatchify(y, batched));
}
TN_REGISTER_COMPOSITE("aten::conv_transpose1d", conv_transpose_nd<1>);
TN_REGISTER_COMPOSITE("aten::conv_transpose2d.input", conv_transpose_nd<2>);
TN_REGISTER_COMPOSITE("aten::conv_transpose3d.input", conv_transpose_nd<3>);

// _convolution(..., groups, bool benchmark, bool deterministic, bool cudnn_enabled,
// bool allow_tf32): the CPU has no algorithm choice, so convolution's kernel computes it.
void underscore_convolution(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + 9);
  c.ret(call_tensor("aten::convolution", std::move(args)));
}
TN_REGISTER_COMPOSITE("aten::_convolution", underscore_convolution);

}  // namespace
}  // namespace tn
