// repeat_interleave.self_Tensor: self's slices along dim (self flattened when dim is None), the
// i-th repeats[i] times, as upstream's CompositeImplicit Repeat.cpp: an index_select by the
// index list repeat_interleave.Tensor makes, so the gradient is index_select's.
#include "kernels/composite/ops.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::t;

// repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *,
//   SymInt? output_size=None) -> Tensor
void repeat_interleave_tensor(Call& c) {
  Tensor in = c.tensor(0);
  const Tensor& repeats = c.tensor(1);
  // The conjugate and negative bits come off before the select and back on after, as upstream.
  const bool conj = in->is_conj();
  if (conj) in = call_tensor("aten::conj", {t(in)});
  const bool neg = in->is_neg();
  if (neg) in = call_tensor("aten::_neg_view", {t(in)});
  int64_t dim = 0;
  if (c.arg(2).is_none())
    in = call_tensor("aten::flatten.using_ints", {t(in), i64(0), i64(-1)});
  else
    dim = c.to_int(2);
  // self's length along dim, read only on the branches upstream reads it (its size(dim)
  // refuses a 0-d self, where wrapping would not).
  auto length = [&] {
    TN_CHECK_KIND(in->dim() > 0, Index, "Dimension specified as ", dim, " but tensor has no "
                  "dimensions");
    return in->size(wrap_dim(dim, in->dim()));
  };
  Tensor reps = repeats;
  if (repeats->dim() == 0 || (repeats->dim() == 1 && repeats->size(0) == 1)) {
    reps = call_tensor("aten::reshape", {t(repeats), ops::ints({1})});
    reps = call_tensor("aten::expand", {t(reps), ops::ints({length()}), Value::of_bool(false)});
  } else {
    TN_CHECK(repeats->dim() == 1, "repeats must be 0-dim or 1-dim tensor");
    const int64_t len = length();
    TN_CHECK(repeats->size(0) == len, "repeats must have the same size as input along dim, but "
             "got repeats.size(0) = ", repeats->size(0), " and input.size(", dim, ") = ", len);
  }
  Tensor index = call_tensor("aten::repeat_interleave.Tensor", {t(reps), c.arg(3)});
  Tensor r = call_tensor("aten::index_select", {t(in), i64(dim), t(index)});
  if (conj) r = call_tensor("aten::conj", {t(r)});
  if (neg) r = call_tensor("aten::_neg_view", {t(r)});
  c.ret(r);
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::repeat_interleave.self_Tensor", repeat_interleave_tensor);

}  // namespace tn
