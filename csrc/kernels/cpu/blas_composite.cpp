// Composites of the matmul family: matmul (upstream's 1-D/2-D/batched broadcasting rules),
// linear, and the out=/in-place spellings of mm, bmm, addmm, baddbmm, mv, dot, outer. Written
// in door ops only (tn::call), so they serve every back end and every layer sees their pieces.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

Tensor op1(const char* key, const Tensor& a, std::vector<Value> rest = {}) {
  rest.insert(rest.begin(), V(a));
  return call_tensor(key, std::move(rest));
}
Tensor t2d(const Tensor& w) { return op1("aten::t", w); }
Tensor reshape(const Tensor& x, const Dims& shape) {
  return op1("aten::reshape", x, {Value::of_ints(shape)});
}
Tensor unsafe_view(const Tensor& x, const Dims& shape) {
  return op1("aten::_unsafe_view", x, {Value::of_ints(shape)});
}

// Upstream's should_fold: a >= 3-D operand against a 1-D or 2-D one is folded into one mm/mv
// when that costs no copy, or always when a gradient is wanted (it saves backward memory).
bool should_fold(const Tensor& a, const Tensor& b) {
  int64_t da = a->dim(), db = b->dim();
  const Tensor* big = nullptr;
  if (da >= 3 && (db == 1 || db == 2)) big = &a;
  else if (db >= 3 && (da == 1 || da == 2)) big = &b;
  else return false;
  if (a->requires_grad() || b->requires_grad()) return true;
  if (da == 2) return false;  // folding would need mm on a transpose, then a copy back
  const Tensor& t = *big;
  if (t->numel() == 0) return true;
  for (int64_t i = 0; i + 2 < t->dim(); ++i)
    if (t->stride(i) != t->stride(i + 1) * t->size(i + 1)) return false;
  return true;
}

// matmul as upstream decomposes it (CompositeImplicit): dot, mv, mm, a folded mm/mv, or an
// expanded bmm, through door ops only, so every layer below Autograd sees those pieces.
Tensor matmul(const Tensor& a, const Tensor& b) {
  int64_t da = a->dim(), db = b->dim();
  TN_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ",
           da, "D and ", db, "D");
  if (da == 1 && db == 1) return call_tensor("aten::dot", {V(a), V(b)});
  if (da == 2 && db == 1) return call_tensor("aten::mv", {V(a), V(b)});
  if (da == 1 && db == 2) {
    Tensor r = call_tensor("aten::mm", {V(op1("aten::unsqueeze", a, {Value::of_int(0)})), V(b)});
    return op1("aten::squeeze_.dim", r, {Value::of_int(0)});
  }
  if (da == 2 && db == 2) return call_tensor("aten::mm", {V(a), V(b)});
  if (should_fold(a, b)) {
    bool transpose = db > da;
    Tensor t1 = transpose ? op1("aten::transpose.int", b, {Value::of_int(-2), Value::of_int(-1)})
                          : a;
    Tensor t2 = !transpose ? b : da == 2 ? t2d(a) : a;
    Dims shape(t1->sizes().begin(), t1->sizes().end() - 1);
    int64_t folded = numel_of(shape);
    Tensor t1f = reshape(t1, {folded, t1->size(t1->dim() - 1)});
    if (t2->dim() == 1) return unsafe_view(call_tensor("aten::mv", {V(t1f), V(t2)}), shape);
    shape.push_back(t2->size(1));
    Tensor out = unsafe_view(call_tensor("aten::mm", {V(t1f), V(t2)}), shape);
    if (!transpose) return out;
    Tensor back = op1("aten::transpose.int", out, {Value::of_int(-2), Value::of_int(-1)});
    return op1("aten::contiguous", back);
  }
  // Batched: broadcast the batch dims, fold them into one, bmm, and view the result.
  int64_t n = da > 1 ? a->size(da - 2) : 1, m1 = a->size(da - 1);
  int64_t m2 = db > 1 ? b->size(db - 2) : b->size(0), p = db > 1 ? b->size(db - 1) : 1;
  Dims batch_a(a->sizes().begin(), a->sizes().begin() + (da > 2 ? da - 2 : 0));
  Dims batch_b(b->sizes().begin(), b->sizes().begin() + (db > 2 ? db - 2 : 0));
  Dims batch = broadcast_shapes(batch_a, batch_b);
  int64_t nb = numel_of(batch);
  Dims ea = batch;
  ea.insert(ea.end(), {n, m1});
  Tensor a3 = reshape(op1("aten::expand", a, {Value::of_ints(ea)}), {nb, n, m1});
  Tensor b3;
  if (db == 1) {
    Dims eb = batch;
    eb.push_back(m2);
    b3 = op1("aten::unsqueeze", reshape(op1("aten::expand", b, {Value::of_ints(eb)}), {nb, m2}),
             {Value::of_int(2)});
  } else {
    Dims eb = batch;
    eb.insert(eb.end(), {m2, p});
    b3 = reshape(op1("aten::expand", b, {Value::of_ints(eb)}), {nb, m2, p});
  }
  Dims shape = batch;
  if (da > 1) shape.push_back(n);
  if (db > 1) shape.push_back(p);
  return unsafe_view(call_tensor("aten::bmm", {V(a3), V(b3)}), shape);
}

// matmul(Tensor self, Tensor other)
void matmul_kernel(Call& c) { c.ret(matmul(c.tensor(0), c.tensor(1))); }
TN_REGISTER_COMPOSITE("aten::matmul", matmul_kernel);

// Upstream's out= dtype checks of the family: out must have the result's dtype exactly, refused
// in the words of the kernel that writes it (outer's, a composite of mul, casts).
enum class OutRule : uint8_t { Cast, Structured, Addmv, Dot };
void check_out_dtype(OutRule rule, const Tensor& out, const Tensor& r) {
  ScalarType od = out->dtype(), rd = r->dtype();
  if (rule == OutRule::Cast || od == rd) return;
  if (rule == OutRule::Dot)
    TN_FAIL(Runtime, "result dtype ", enum_name(od), " does not match input dtype ", enum_name(rd));
  if (rule == OutRule::Addmv)
    TN_FAIL(Runtime, "addmv input tensors must have the same dtype, but got ", enum_name(od), ", ",
            enum_name(rd), ", and ", enum_name(rd));
  TN_FAIL(Runtime, "Expected out tensor to have dtype ", cpp_type_name(rd), ", but got ",
          cpp_type_name(od), " instead");
}

// matmul.out(self, other, *, out): as upstream's, the 1-D/2-D products write out themselves
// (dot.out, mv.out, mm.out, which a dispatch mode sees): a 1-D self as a row, then out
// squeezed back; a folded >= 3-D self as rows into out viewed as rows. The batched products
// compute, then copy into out.
void matmul_out(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1), &out = c.tensor(2);
  int64_t da = a->dim(), db = b->dim();
  const char* direct = da == 1 && db == 1   ? "aten::dot.out"
                       : da == 2 && db == 1 ? "aten::mv.out"
                       : da == 2 && db == 2 ? "aten::mm.out"
                                            : nullptr;
  if (direct) return c.ret(call_tensor(direct, {c.arg(0), c.arg(1), c.arg(2)}));
  if (da == 1 && db == 2) {
    Tensor row = op1("aten::unsqueeze", a, {Value::of_int(0)});
    call("aten::mm.out", {V(row), V(b), V(out)});
    return c.ret(op1("aten::squeeze_.dim", out, {Value::of_int(0)}));
  }
  if (da >= 3 && (db == 1 || db == 2) && should_fold(a, b)) {
    Dims shape(a->sizes().begin(), a->sizes().end() - 1);
    int64_t folded = numel_of(shape);
    if (db == 2) shape.push_back(b->size(1));
    TN_CHECK(out->sizes() == shape, c.key(), ": an out= tensor of another shape (",
             dims_str(out->sizes()), ", expected ", dims_str(shape),
             ") is not resized by torchnative here");
    Tensor rows = reshape(a, {folded, a->size(da - 1)});
    Dims out_rows{folded};
    if (db == 2) out_rows.push_back(b->size(1));
    Tensor out_view = op1("aten::view", out, {Value::of_ints(out_rows)});
    call(db == 1 ? "aten::mv.out" : "aten::mm.out", {V(rows), V(b), V(out_view)});
    return c.ret(out);
  }
  Tensor r = matmul(a, b);
  check_out_dtype(OutRule::Structured, out, r);
  c.ret(ops::write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::matmul.out", matmul_out);

// linear(Tensor input, Tensor weight, Tensor? bias=None), as upstream decomposes it
// (CompositeImplicit): with a bias, a 2-D input is one addmm (the bias inside the GEMM), and a
// contiguous input of other rank with a 1-D bias is reshaped to rows for that addmm and the
// result viewed back; anything else is matmul(input, weight.t()) with the bias added in place.
void linear(Call& c) {
  const Tensor &x = c.tensor(0), &w = c.tensor(1);
  const Tensor* bias = c.optional_tensor(2);
  TN_CHECK(x->dim() != 0 && w->dim() != 0, "both arguments to linear need to be at least 1D, "
           "but they are ", x->dim(), "D and ", w->dim(), "D");
  if (x->dim() == 2 && bias) return c.ret(call_tensor("aten::addmm", {V(*bias), V(x), V(t2d(w))}));
  if (bias && x->is_contiguous() && (x->dim() == 3 || (*bias)->dim() == 1)) {
    Dims lead(x->sizes().begin(), x->sizes().end() - 1);
    Tensor rows = reshape(x, {numel_of(lead), x->size(x->dim() - 1)});
    Tensor r = call_tensor("aten::addmm", {V(*bias), V(rows), V(t2d(w))});
    lead.push_back(r->size(1));
    return c.ret(op1("aten::view", r, {Value::of_ints(lead)}));
  }
  Tensor out = matmul(x, t2d(w));
  if (bias) out = call_tensor("aten::add_.Tensor", {V(out), V(*bias)});
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::linear", linear);

// out= spellings: run the functional op on the leading `n` arguments, write into arg n.
template <const char* Functional, int N, OutRule Rule>
void functional_out(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.begin() + N);
  Tensor r = call_tensor(Functional, std::move(args));
  check_out_dtype(Rule, c.tensor(N), r);
  c.ret(ops::write_out(c.tensor(N), r, c.key()));
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
  c.ret(ops::write_out(self, r, c.key()));
}
constexpr char kMm[] = "aten::mm";
constexpr char kBmm[] = "aten::bmm";
constexpr char kAddmm[] = "aten::addmm";
constexpr char kBaddbmm[] = "aten::baddbmm";
constexpr char kMv[] = "aten::mv";
constexpr char kDot[] = "aten::dot";
constexpr OutRule kStructured = OutRule::Structured;
TN_REGISTER_COMPOSITE("aten::mm.out", (functional_out<kMm, 2, kStructured>));
TN_REGISTER_COMPOSITE("aten::bmm.out", (functional_out<kBmm, 2, kStructured>));
TN_REGISTER_COMPOSITE("aten::addmm.out", (functional_out<kAddmm, 5, kStructured>));
TN_REGISTER_COMPOSITE("aten::baddbmm.out", (functional_out<kBaddbmm, 5, kStructured>));
TN_REGISTER_COMPOSITE("aten::mv.out", (functional_out<kMv, 2, OutRule::Addmv>));
TN_REGISTER_COMPOSITE("aten::dot.out", (functional_out<kDot, 2, OutRule::Dot>));
// outer.out(self, vec2, *, out): upstream's is self as a column times vec2 into out (mul.out).
void outer_out(Call& c) {
  const Tensor& a = c.tensor(0);
  TN_CHECK(a->dim() == 1, "outer: Expected 1-D argument self, but got ", a->dim(), "-D");
  TN_CHECK(c.tensor(1)->dim() == 1, "outer: Expected 1-D argument vec2, but got ",
           c.tensor(1)->dim(), "-D");
  Tensor column = call_tensor("aten::view", {V(a), Value::of_ints({a->size(0), 1})});
  c.ret(call_tensor("aten::mul.out", {V(column), c.arg(1), c.arg(2)}));
}
TN_REGISTER_COMPOSITE("aten::outer.out", outer_out);
TN_REGISTER_COMPOSITE("aten::addmm_", functional_inplace<kAddmm>);
TN_REGISTER_COMPOSITE("aten::baddbmm_", functional_inplace<kBaddbmm>);

}  // namespace
}  // namespace tn
