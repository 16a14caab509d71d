// diag, diag_embed and diagonal_copy, as upstream composes them: diag_embed writes its input
// into the diagonal of zeros (explicit: its derivative reads the diagonal back), diagonal_copy
// is diagonal's values in a new tensor, and diag picks one of the two by rank; fill_diagonal_
// fills a strided view of the diagonal.
#include <algorithm>
#include <cstdlib>

#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using ops::i64;
using ops::t;

// diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor
Tensor diag_embed_of(const Tensor& self, int64_t offset, int64_t d1, int64_t d2) {
  int64_t nd = self->dim() + 1;
  int64_t dim1 = wrap_dim(d1, nd), dim2 = wrap_dim(d2, nd);
  TN_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", d1, ", ", d2);
  int64_t len = std::abs(offset) + (self->dim() > 0 ? self->size(self->dim() - 1) : 1);
  Dims sizes = self->sizes();
  if (!sizes.empty()) sizes.pop_back();
  sizes.insert(sizes.begin() + std::min(dim1, dim2), len);
  sizes.insert(sizes.begin() + std::max(dim1, dim2), len);
  Tensor out = ops::empty(sizes, self->dtype(), self->device());
  call("aten::zero_", {t(out)});
  ops::copy_(call_tensor("aten::diagonal", {t(out), i64(offset), i64(dim1), i64(dim2)}), self);
  return out;
}
void diag_embed(Call& c) {
  c.ret(diag_embed_of(c.tensor(0), c.to_int(1), c.to_int(2), c.to_int(3)));
}
void diag_embed_out(Call& c) {
  ops::check_out_dtype(c.tensor(4), c.tensor(0)->dtype());
  c.ret(ops::write_out(c.tensor(4), diag_embed_of(c.tensor(0), c.to_int(1), c.to_int(2),
                                                  c.to_int(3)), c.key()));
}
TN_REGISTER_COMPOSITE("aten::diag_embed", diag_embed);
TN_REGISTER_COMPOSITE("aten::diag_embed.out", diag_embed_out);

// diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor
Tensor diagonal_copy_of(const Call& c) {
  return ops::clone_contiguous(call_tensor("aten::diagonal", {c.arg(0), c.arg(1), c.arg(2),
                                                              c.arg(3)}));
}
void diagonal_copy(Call& c) { c.ret(diagonal_copy_of(c)); }
void diagonal_copy_out(Call& c) {
  ops::check_out_dtype(c.tensor(4), c.tensor(0)->dtype());
  c.ret(ops::write_out(c.tensor(4), diagonal_copy_of(c), c.key()));
}
TN_REGISTER_COMPOSITE("aten::diagonal_copy", diagonal_copy);
TN_REGISTER_COMPOSITE("aten::diagonal_copy.out", diagonal_copy_out);

// diag(Tensor self, int diagonal=0): a 1-d input embedded as a matrix's diagonal, a 2-d one's
// diagonal copied out.
Tensor diag_of(const Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(self->dim() == 1 || self->dim() == 2, "diag(): Supports 1D or 2D tensors. Got ",
           self->dim(), "D");
  if (self->dim() == 1)
    return call_tensor("aten::diag_embed", {c.arg(0), c.arg(1), i64(0), i64(1)});
  return call_tensor("aten::diagonal_copy", {c.arg(0), c.arg(1), i64(0), i64(1)});
}
void diag(Call& c) { c.ret(diag_of(c)); }
void diag_out(Call& c) {
  ops::check_out_dtype(c.tensor(2), c.tensor(0)->dtype());
  c.ret(ops::write_out(c.tensor(2), diag_of(c), c.key()));
}
TN_REGISTER_COMPOSITE("aten::diag", diag);
TN_REGISTER_COMPOSITE("aten::diag.out", diag_out);


// fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False): upstream's composite,
// fill_ through an as_strided view of the main diagonal (stride: the sum of self's strides; a
// 2-d self taller than wide, with wrap, also fills the diagonals below, every width + 1 rows).
void fill_diagonal_(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t nd = self->dim();
  TN_CHECK(nd >= 2, "dimensions must larger than 1");
  int64_t height = self->size(0), width = self->size(1);
  if (nd > 2)
    for (int64_t i = 1; i < nd; ++i)
      TN_CHECK(self->size(i) == height, "all dimensions of input must be of equal length");
  int64_t size = std::min(height, width), stride = 0;
  for (int64_t i = 0; i < nd; ++i) stride += self->stride(i);
  int64_t offset = self->storage_offset();
  auto fill_view = [&](int64_t n, int64_t at) {
    Tensor view = call_tensor("aten::as_strided", {t(self), ops::ints({n}), ops::ints({stride}),
                                                   i64(at)});
    call("aten::fill_.Scalar", {t(view), c.arg(1)});
  };
  fill_view(size, offset);
  if (c.to_bool(2) && nd == 2 && height > width + 1) {
    int64_t step = width + 1;
    int64_t wrap_size = (self->numel() + step - 1) / step - size;
    fill_view(wrap_size, offset + self->stride(0) * (width + 1));
  }
  c.ret(self);
}
TN_REGISTER_COMPOSITE("aten::fill_diagonal_", fill_diagonal_);

}  // namespace
}  // namespace tn
