// Composites of the matmul family: matmul (upstream's 1-D/2-D/batched broadcasting rules),
// linear, and the out=/in-place spellings of mm, bmm, addmm, baddbmm, mv, dot, outer. Written
// over tn::call and metadata-only views, so they serve every representation.
#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// A view of t with its leading dims (all but the last `keep`) merged into one; copies to
// contiguous first when the strides do not allow it (as upstream's reshape).
Tensor merge_leading(const Tensor& t, int64_t keep) {
  int64_t lead = t->dim() - keep;
  Dims sizes{1}, strides{1};
  bool viewable = true;
  int64_t expect = -1;  // the stride the next (outer) dim must have to merge
  for (int64_t d = lead - 1; d >= 0; --d) {
    if (t->size(d) == 1) continue;
    if (expect >= 0 && t->stride(d) != expect) viewable = false;
    if (expect < 0) strides[0] = t->stride(d);
    expect = t->stride(d) * t->size(d);
    sizes[0] *= t->size(d);
  }
  Tensor src = viewable ? t : contiguous(t, "aten::matmul");
  if (!viewable) strides[0] = numel_of(Dims(t->sizes().begin() + lead, t->sizes().end()));
  for (int64_t d = lead; d < t->dim(); ++d) {
    sizes.push_back(src->size(d));
    strides.push_back(src->stride(d));
  }
  return make_view(src, sizes, strides, src->storage_offset());
}

// A contiguous result r viewed with new sizes.
Tensor view_as_sizes(const Tensor& r, const Dims& sizes) {
  return make_view(r, sizes, contiguous_strides(sizes), r->storage_offset());
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  int64_t da = a->dim(), db = b->dim();
  TN_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ",
           da, "D and ", db, "D");
  if (da == 1 && db == 1) return call_tensor("aten::dot", {V(a), V(b)});
  if (da == 2 && db == 1) return call_tensor("aten::mv", {V(a), V(b)});
  if (da == 2 && db == 2) return call_tensor("aten::mm", {V(a), V(b)});
  if (da == 1 && db == 2) {
    Tensor row = make_view(a, {1, a->size(0)}, {0, a->stride(0)}, a->storage_offset());
    Tensor r = call_tensor("aten::mm", {V(row), V(b)});
    return view_as_sizes(r, {b->size(1)});
  }
  Dims a_batch(a->sizes().begin(), a->sizes().end() - (da > 1 ? 2 : 1));
  if (da >= 3 && db <= 2) {  // upstream folds the batch into mm's rows
    Tensor rows = merge_leading(a, 1);
    Tensor r = db == 1 ? call_tensor("aten::mv", {V(rows), V(b)})
                       : call_tensor("aten::mm", {V(rows), V(b)});
    Dims sizes = a_batch;
    sizes.push_back(a->size(-2 + da));
    if (db == 2) sizes.push_back(b->size(1));
    return view_as_sizes(r, sizes);
  }
  Tensor a2 = da == 1 ? make_view(a, {1, a->size(0)}, {0, a->stride(0)}, a->storage_offset()) : a;
  Tensor b2 = db == 1 ? make_view(b, {b->size(0), 1}, {b->stride(0), 0}, b->storage_offset()) : b;
  Dims batch = broadcast_shapes(Dims(a2->sizes().begin(), a2->sizes().end() - 2),
                                Dims(b2->sizes().begin(), b2->sizes().end() - 2));
  int64_t m = a2->size(a2->dim() - 2), k = a2->size(a2->dim() - 1);
  int64_t k2 = b2->size(b2->dim() - 2), n = b2->size(b2->dim() - 1);
  Dims ea = batch, eb = batch;
  ea.insert(ea.end(), {m, k});
  eb.insert(eb.end(), {k2, n});
  Tensor r = call_tensor("aten::bmm", {V(merge_leading(expand_view(a2, ea), 2)),
                                       V(merge_leading(expand_view(b2, eb), 2))});
  Dims sizes = batch;
  if (da > 1) sizes.push_back(m);
  if (db > 1) sizes.push_back(n);
  return view_as_sizes(r, sizes);
}

// matmul(Tensor self, Tensor other)
void matmul_kernel(Call& c) { c.ret(matmul(c.tensor(0), c.tensor(1))); }
TN_REGISTER_COMPOSITE("aten::matmul", matmul_kernel);

void matmul_out(Call& c) {
  c.ret(write_out(c.tensor(2), matmul(c.tensor(0), c.tensor(1)), c.key()));
}
TN_REGISTER_COMPOSITE("aten::matmul.out", matmul_out);

Tensor transpose2(const Tensor& w) {
  if (w->dim() < 2) return w;
  return make_view(w, {w->size(1), w->size(0)}, {w->stride(1), w->stride(0)}, w->storage_offset());
}

// linear(Tensor input, Tensor weight, Tensor? bias=None): with a bias, input's leading dims are
// folded into rows of one addmm (bias added inside the GEMM, as upstream does for 2-D and
// contiguous 3-D inputs); without, matmul(input, weight.t()).
void linear(Call& c) {
  const Tensor &x = c.tensor(0), &w = c.tensor(1);
  const Tensor* bias = c.optional_tensor(2);
  Tensor wt = transpose2(w);
  if (!bias) return c.ret(matmul(x, wt));
  TN_CHECK_KIND(w->dim() == 2 && x->dim() >= 1, NotImplemented, c.key(),
                ": torchnative needs a 2-D weight and at least 1-D input when bias is given");
  Tensor rows = x->dim() == 1
                    ? make_view(x, {1, x->size(0)}, {0, x->stride(0)}, x->storage_offset())
                    : merge_leading(x, 1);
  Tensor r = call_tensor("aten::addmm", {V(*bias), V(rows), V(wt)});
  Dims sizes(x->sizes().begin(), x->sizes().end() - 1);
  sizes.push_back(w->size(0));
  c.ret(view_as_sizes(r, sizes));
}
TN_REGISTER_COMPOSITE("aten::linear", linear);

// out= spellings: run the functional op on the leading `n` arguments, write into arg n.
template <const char* Functional, int N>
void functional_out(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + N);
  c.ret(write_out(c.tensor(N), call_tensor(Functional, std::move(args)), c.key()));
}
// In-place spellings (self is the accumulator): the functional result written back into self.
// Upstream's in-place checks: self must already have the result's shape (it is never resized)
// and no two of its elements may share memory (an expanded self).
template <const char* Functional>
void functional_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor r = call_tensor(Functional, c.args);
  TN_CHECK(self->sizes() == r->sizes(), "Bad in-place call: input tensor size ",
           dims_str(self->sizes()), " and output tensor size ", dims_str(r->sizes()),
           " should match");
  check_no_internal_overlap(*self);
  c.ret(write_out(self, r, c.key()));
}
constexpr char kMm[] = "aten::mm";
constexpr char kBmm[] = "aten::bmm";
constexpr char kAddmm[] = "aten::addmm";
constexpr char kBaddbmm[] = "aten::baddbmm";
constexpr char kMv[] = "aten::mv";
constexpr char kDot[] = "aten::dot";
constexpr char kOuter[] = "aten::outer";
TN_REGISTER_COMPOSITE("aten::mm.out", (functional_out<kMm, 2>));
TN_REGISTER_COMPOSITE("aten::bmm.out", (functional_out<kBmm, 2>));
TN_REGISTER_COMPOSITE("aten::addmm.out", (functional_out<kAddmm, 5>));
TN_REGISTER_COMPOSITE("aten::baddbmm.out", (functional_out<kBaddbmm, 5>));
TN_REGISTER_COMPOSITE("aten::mv.out", (functional_out<kMv, 2>));
TN_REGISTER_COMPOSITE("aten::dot.out", (functional_out<kDot, 2>));
TN_REGISTER_COMPOSITE("aten::outer.out", (functional_out<kOuter, 2>));
TN_REGISTER_COMPOSITE("aten::addmm_", functional_inplace<kAddmm>);
TN_REGISTER_COMPOSITE("aten::baddbmm_", functional_inplace<kBaddbmm>);

}  // namespace
}  // namespace tn
