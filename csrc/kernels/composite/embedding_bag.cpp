// The composites of embedding_bag (upstream's CompositeImplicitAutograd ops in EmbeddingBag.cpp):
// embedding_bag and embedding_bag.padding_idx (padding_idx checked and wrapped, then
// _embedding_bag_forward_only, or _embedding_bag where the weight wants a gradient), and
// _embedding_bag_backward (offset2bag rebuilt when the forward skipped it, then the dense
// backward; the sparse one refuses by name); with the out= spellings upstream generates for
// the four kernels of kernels/cpu/embedding_bag.cpp (each result resized into and copied); and
// embedding_renorm_ (max_norm of embedding_bag and embedding), written as upstream's CPU kernel
// is, in tensor ops row by row. (Its generated functional and out= forms are not here: our
// autograd would not give the functional form upstream's EmbeddingRenormBackward0 node.)
#include <algorithm>

#include "autograd/forward_grad.h"
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/embedding_bag.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

// embedding_bag.padding_idx(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
// per_sample_weights, include_last_offset, padding_idx?): indices and offsets made contiguous,
// as upstream's wrapper does for the kernels, which assume it.
void embedding_bag_padding_idx(Call& c) {
  const Tensor& weight = c.tensor(0);
  int64_t pad = -1;
  if (!c.arg(8).is_none()) {
    const int64_t rows = weight->size(0);
    pad = c.to_int(8);
    TN_CHECK(pad >= -rows && pad < rows, "padding_idx must be within the number of embeddings, -",
             rows, " through ", rows - 1, ", but got ", pad);
    if (pad < 0) pad += rows;
  }
  const bool grad = weight->requires_grad() || autograd::has_fw_grad(weight);
  const char* op = grad ? "aten::_embedding_bag" : "aten::_embedding_bag_forward_only";
  Tensor indices = call_tensor("aten::contiguous", {c.arg(1)});
  Tensor offsets = call_tensor("aten::contiguous", {c.arg(2)});
  for (Value& v : call(op, {c.arg(0), t(indices), t(offsets), c.arg(3), c.arg(4), c.arg(5),
                            c.arg(6), c.arg(7), i64(pad)}))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::embedding_bag.padding_idx", embedding_bag_padding_idx);

// embedding_bag(... include_last_offset=False): the above without padding_idx.
void embedding_bag(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.end());
  args.emplace_back();
  for (Value& v : call("aten::embedding_bag.padding_idx", std::move(args))) c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::embedding_bag", embedding_bag);

using embedding_bag::check_contiguous_arg;
using embedding_bag::check_index_arg;

// _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
// num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1).
void embedding_bag_backward(Call& c) {
  ScalarType common = promote_types(c.tensor(2)->dtype(), c.tensor(1)->dtype());
  auto promoted = [&](size_t i) {
    const Tensor& x = c.tensor(i);
    return x->dtype() == common ? x
                                : call_tensor("aten::_to_copy", {t(x), Value::of_dtype(common)});
  };
  Tensor indices = promoted(1), offsets = promoted(2);
  check_index_arg(indices, "indices");
  check_contiguous_arg(indices, "indices");
  check_index_arg(offsets, "offsets");
  check_contiguous_arg(offsets, "offsets");
  Tensor o2b = c.tensor(3);
  const int64_t n = indices->dim() > 0 ? indices->size(0) : 1;
  if (indices->numel() != 0 && o2b->numel() == 0) {
    // upstream's make_offset2bag: ones at each offset, one less at 0, summed along.
    Tensor counts = call_tensor("aten::zeros", {ints({n + 1}), Value::of_dtype(common), Value{},
                                                Value::of_device(offsets->device())});
    Tensor ones = call_tensor("aten::ones_like", {t(offsets)});
    call("aten::index_add_", {t(counts), i64(0), t(offsets), t(ones)});
    Tensor first = call_tensor("aten::select.int", {t(counts), i64(0), i64(0)});
    call("aten::sub_.Scalar", {t(first), Value::of_scalar(Scalar::from_int(1))});
    counts = call_tensor("aten::cumsum", {t(counts), i64(0), Value::of_dtype(common)});
    o2b = narrow(counts, 0, 0, n);
  } else {
    check_index_arg(o2b, "offset2bag");
    check_contiguous_arg(o2b, "offset2bag");
  }
  TN_CHECK_KIND(!c.to_bool(9), NotImplemented, "aten::_embedding_bag_sparse_backward (a "
                "gradient in the torch.sparse_coo layout, embedding_bag's sparse=True) is not "
                "implemented in torchnative");
  c.ret(call_tensor("aten::_embedding_bag_dense_backward",
                    {c.arg(0), t(indices), t(o2b), c.arg(4), c.arg(5), c.arg(6), c.arg(7),
                     c.arg(8), c.arg(10), c.arg(11)}));
}
TN_REGISTER_COMPOSITE("aten::_embedding_bag_backward", embedding_bag_backward);

constexpr char kBag[] = "aten::_embedding_bag";
constexpr char kBagForward[] = "aten::_embedding_bag_forward_only";
constexpr char kDense[] = "aten::_embedding_bag_dense_backward";
constexpr char kPsw[] = "aten::_embedding_bag_per_sample_weights_backward";
TN_REGISTER_COMPOSITE("aten::_embedding_bag.out", (ops::generated_out<kBag, 4>));
TN_REGISTER_COMPOSITE("aten::_embedding_bag_forward_only.out",
                      (ops::generated_out<kBagForward, 4>));
TN_REGISTER_COMPOSITE("aten::_embedding_bag_dense_backward.out",
                      (ops::generated_out<kDense, 1>));
TN_REGISTER_COMPOSITE("aten::_embedding_bag_per_sample_weights_backward.out",
                      (ops::generated_out<kPsw, 1>));

// embedding_renorm_(self, indices, max_norm, norm_type): each distinct index's row (in
// increasing order; a negative index counts from the end, as self[i]) whose norm (norm.Scalar's,
// read as a double) exceeds max_norm multiplied in place by max_norm / (norm + 1e-7).
// (Upstream's CPU kernel; a composite here, so meta and the other back ends run it too.)
void embedding_renorm_(Call& c) {
  const Tensor &self = c.tensor(0), &indices = c.tensor(1);
  const char* kWhile = " (while checking arguments for embedding_renorm_)";
  TN_CHECK(self->dim() == 2, "Expected 2-dimensional tensor, but got ", self->dim(),
           "-dimensional tensor for argument #1 'self'", kWhile);
  ScalarType it = indices->dtype();
  TN_CHECK(it == ScalarType::Long || it == ScalarType::Int, "Expected tensor for argument #2 "
           "'indices' to have one of the following scalar types: Long, Int; but got torch.",
           info(it).legacy_name, " instead", kWhile);
  Tensor flat = call_tensor("aten::reshape", {c.arg(1), ints({-1})});
  Tensor as_long = call_tensor("aten::_to_copy", {t(flat), Value::of_dtype(ScalarType::Long)});
  std::vector<int64_t> sorted(static_cast<size_t>(as_long->numel()));
  for (size_t k = 0; k < sorted.size(); ++k) {
    Tensor one = call_tensor("aten::select.int", {t(as_long), i64(0), i64(int64_t(k))});
    sorted[k] = call("aten::item", {t(one)})[0].scalar.to_int();
  }
  std::sort(sorted.begin(), sorted.end());
  const double max_norm = c.to_double(2);
  for (size_t k = 0; k < sorted.size(); ++k) {
    if (k > 0 && sorted[k] == sorted[k - 1]) continue;
    Tensor row = call_tensor("aten::select.int", {c.arg(0), i64(0), i64(sorted[k])});
    Tensor norm = call_tensor("aten::norm.ScalarOpt_dim",
                              {t(row), c.arg(3), ints({}), Value::of_bool(false)});
    const double n = call("aten::item", {t(norm)})[0].scalar.to_double();
    if (n > max_norm) {
      // upstream's row *= scale rounds the scale to the row's dtype first (its C++ Scalar
      // becomes a tensor of self's type), then multiplies in the computing type.
      Tensor scale = call_tensor("aten::scalar_tensor",
                                 {f64(max_norm / (n + 1e-7)), Value::of_dtype(self->dtype()),
                                  Value{}, Value::of_device(self->device())});
      call("aten::mul_.Tensor", {t(row), t(scale)});
    }
  }
  c.ret(c.arg(0));
}
TN_REGISTER_COMPOSITE("aten::embedding_renorm_", embedding_renorm_);

}  // namespace
}  // namespace tn
