// _chunk_cat(Tensor[] tensors, int dim, int num_chunks) and its out= form, as upstream's
// composite: its checks in its words, each tensor padded with zeros along dim to a multiple of
// num_chunks, reshaped to (sizes before dim, num_chunks, -1), and those concatenated along
// dim + 1. Upstream records no derivative for it (its autograd node refuses in backward).
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

Tensor chunk_cat(const std::vector<Tensor>& ts, int64_t dim, int64_t chunks) {
  TN_CHECK(!ts.empty(), "_chunk_cat expects a non-empty input tensor list");
  for (const Tensor& t : ts) {
    TN_CHECK(t->numel() > 0, "_chunk_cat expects non-empty tensor");
    TN_CHECK(t->dtype() == ts[0]->dtype(),
             "_chunk_cat expects all input tensors with the same dtype");
    TN_CHECK(t->device() == ts[0]->device(),
             "_chunk_cat expects all inputs tensors on the same device");
  }
  TN_CHECK(chunks >= 1, "_chunk_cat expects positive num_chunks");
  int64_t n = ts[0]->dim();
  TN_CHECK_KIND(n > 0, NotImplemented, "aten::_chunk_cat: 0-dim inputs are not implemented by "
                "torchnative (upstream's kernel reads past them)");
  if (dim < 0)
    for (const Tensor& t : ts)
      TN_CHECK(t->dim() == n,
               "_chunk_cat expects non-negative dim when input tensors have different ndims");
  TN_CHECK_KIND(dim >= -n && dim < n, Index, "Dimension out of range (expected to be in range "
                "of [", -n, ", ", n - 1, "], but got ", dim, ")");
  if (dim < 0) dim += n;
  for (const Tensor& t : ts) {
    bool same = t->dim() > dim;
    for (int64_t d = 0; same && d < dim; ++d) same = t->size(d) == ts[0]->size(d);
    TN_CHECK(same, "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors");
  }
  std::vector<Tensor> views;
  for (const Tensor& t : ts) {
    Dims padded = t->sizes();
    padded[dim] = (padded[dim] + chunks - 1) / chunks * chunks;
    Tensor p = t;
    if (padded != t->sizes()) {
      p = call_tensor("aten::zero_", {V(ops::empty(padded, t->dtype(), t->device()))});
      ops::copy_(ops::narrow(p, dim, 0, t->size(dim)), t);
    }
    Dims shape(t->sizes().begin(), t->sizes().begin() + dim);
    shape.insert(shape.end(), {chunks, -1});
    views.push_back(call_tensor("aten::reshape", {V(p), ops::ints(shape)}));
  }
  return call_tensor("aten::cat", {Value::of_tensors(views), ops::i64(dim + 1)});
}
void chunk_cat_kernel(Call& c) { c.ret(chunk_cat(c.tensor_list(0), c.to_int(1), c.to_int(2))); }
// out=: upstream's writes the concatenation into out (cat.out: resized, cast on the copy).
void chunk_cat_out(Call& c) {
  Tensor r = chunk_cat(c.tensor_list(0), c.to_int(1), c.to_int(2));
  c.ret(ops::write_out(c.tensor(3), r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::_chunk_cat", chunk_cat_kernel);
TN_REGISTER_COMPOSITE("aten::_chunk_cat.out", chunk_cat_out);

}  // namespace
}  // namespace tn
