// aten::diff written in door ops as upstream writes it (ReduceOps.cpp): prepend and append
// concatenated along dim, then n rounds of narrow(1:) - narrow(:-1) (logical_xor for bool).
// transformers' masking utilities reach it (find_packed_sequence_indices on position ids).
// Composite, so autograd differentiates the narrows, subs and cat it calls.
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using namespace ops;

// upstream's diff_check_compatible_shape: same rank, same sizes off the differencing dim.
void check_compatible(const Tensor& self, const Tensor* other, int64_t dim) {
  if (!other) return;
  int64_t wrapped = wrap_dim(dim, self->dim());
  TN_CHECK((*other)->dim() == self->dim(),
           "diff expects prepend or append to be the same dimension as input");
  for (int64_t i = 0; i < (*other)->dim(); ++i) {
    if (i == wrapped) continue;
    TN_CHECK((*other)->sizes()[i] == self->sizes()[i],
             "diff expects the shape of tensor to prepend or append to match that of input "
             "except along the differencing dimension; input.size(", i, ") = ",
             self->sizes()[i], ", but got tensor.size(", i, ") = ", (*other)->sizes()[i]);
  }
}

// upstream's diff_helper: n is clamped to the length along dim; n == 0 returns a copy.
Tensor diff_rounds(const Tensor& self, int64_t n, int64_t dim) {
  if (n == 0) {
    Tensor result = call_tensor("aten::zeros_like", {t(self)});
    copy_(result, self);
    return result;
  }
  int64_t length = self->sizes()[wrap_dim(dim, self->dim())];
  int64_t out_len = length - 1;
  const char* op = self->dtype() == ScalarType::Bool ? "aten::logical_xor" : "aten::sub.Tensor";
  Tensor result = self;
  for (int64_t i = 0; i < std::min(n, length); ++i, --out_len) {
    result = call_tensor(op, {t(narrow(result, dim, 1, out_len)),
                              t(narrow(result, dim, 0, out_len))});
  }
  return result;
}

// diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None)
void diff(Call& c) {
  const Tensor& self = c.tensor(0);
  int64_t n = c.to_int(1), dim = c.to_int(2);
  const Tensor* prepend = c.optional_tensor(3);
  const Tensor* append = c.optional_tensor(4);
  TN_CHECK(self->dim() >= 1, "diff expects input to be at least one-dimensional");
  TN_CHECK(n >= 0, "order must be non-negative but got ", n);
  check_compatible(self, prepend, dim);
  check_compatible(self, append, dim);
  if ((!prepend && !append) || n == 0) {
    c.ret(diff_rounds(self, n, dim));
    return;
  }
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(self);
  if (append) parts.push_back(*append);
  c.ret(diff_rounds(call_tensor("aten::cat", {Value::of_tensors(parts), i64(dim)}), n, dim));
}
TN_REGISTER_COMPOSITE("aten::diff", diff);

}  // namespace
}  // namespace tn
