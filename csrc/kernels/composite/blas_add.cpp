// addmv, addr and addbmm with their out= and in-place spellings, written in door ops as
// upstream's CPU kernels compute them: addmv as addmm of a one-column matrix (beta == 0 ignores
// self, NaN included), addr as beta * self + (alpha * vec1) * vec2 rounded step by step in the
// promoted dtype (its addr_kernel), addbmm as one addmm_ per batch into the result. Registered
// as CompositeExplicit (every back end, Meta included); their derivatives are at Autograd.
#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }
Value S(const Scalar& s) { return Value::of_scalar(s); }
Tensor op(const char* key, std::vector<Value> args) { return call_tensor(key, std::move(args)); }

bool is_zero(const Scalar& s) { return s.to_double() == 0 && s.imag() == 0; }

// A 0-dim tensor of s in dtype (upstream's kernels convert beta and alpha to scalar_t first).
Tensor scalar_of(const Scalar& s, ScalarType dtype, Device device) {
  Value strided;
  strided.tag = Value::Tag::Layout;
  return op("aten::scalar_tensor", {S(s), Value::of_dtype(dtype), strided,
                                     Value::of_device(device)});
}
Tensor zeros(const Dims& sizes, ScalarType dtype, Device device) {
  return op("aten::zero_", {V(ops::empty(sizes, dtype, device))});
}
Tensor cast(const Tensor& t, ScalarType dtype) {
  if (t->dtype() == dtype) return t;
  return op("aten::_to_copy", {V(t), Value::of_dtype(dtype)});
}
// Upstream's Tensor::size(d) on an operand: IndexError past its dims.
int64_t size_at(const Tensor& t, int64_t d) {
  TN_CHECK_KIND(t->dim() > 0, Index, "Dimension specified as ", d,
                " but tensor has no dimensions");
  TN_CHECK_KIND(d < t->dim(), Index, "Dimension out of range (expected to be in range of [",
                -t->dim(), ", ", t->dim() - 1, "], but got ", d, ")");
  return t->size(d);
}
// The in-place spellings' check of a structured op's result against self (upstream's
// check_inplace): same sizes, same dtype.
void check_inplace(const Tensor& self, const Tensor& r) {
  TN_CHECK(self->sizes() == r->sizes(), "Bad in-place call: input tensor size ",
           dims_str(self->sizes()), " and output tensor size ", dims_str(r->sizes()),
           " should match");
  TN_CHECK(self->dtype() == r->dtype(), "Bad in-place call: input tensor dtype ",
           enum_name(self->dtype()), " and output tensor dtype ", enum_name(r->dtype()),
           " should match");
}

// ---- addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) ----------
// Upstream's meta (shapes, result of vec's dtype) and addmv_out_cpu (an empty mat gives
// beta * self, or zeros for beta == 0; otherwise the product with self added when beta != 0).
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  TN_CHECK(mat->dim() == 2 && vec->dim() == 1 && self->dim() <= 1,
           "vector + matrix @ vector expected, got ", self->dim(), ", ", mat->dim(), ", ",
           vec->dim());
  int64_t n = mat->size(0);
  if (!(mat->size(1) == vec->size(0) && (n == self->numel() || self->numel() == 1)))
    TN_FAIL(Runtime, "size mismatch, got input (", size_at(self, 0), "), mat (", n, "x",
            mat->size(1), "), vec (", vec->size(0), ")");
  TN_CHECK(self->dtype() == mat->dtype() && mat->dtype() == vec->dtype(),
           "addmv input tensors must have the same dtype, but got ", enum_name(self->dtype()),
           ", ", enum_name(mat->dtype()), ", and ", enum_name(vec->dtype()));
  if (mat->numel() == 0) {
    if (is_zero(beta)) return zeros({n}, vec->dtype(), vec->device());
    Tensor b = scalar_of(beta, self->dtype(), self->device());
    return op("aten::mul.Tensor", {V(op("aten::expand", {V(self), ops::ints({n})})), V(b)});
  }
  TN_CHECK_KIND(mat->dtype() != ScalarType::Bool, NotImplemented,
                "\"addmv_impl_cpu\" not implemented for 'Bool'");
  Tensor col = op("aten::unsqueeze", {V(vec), ops::i64(1)});
  Tensor base = op("aten::unsqueeze", {V(op("aten::expand", {V(self), ops::ints({n})})),
                                       ops::i64(1)});
  Tensor r = op("aten::addmm", {V(base), V(mat), V(col), S(beta), S(alpha)});
  return op("aten::squeeze.dim", {V(r), ops::i64(1)});
}
void addmv_kernel(Call& c) {
  c.ret(addmv(c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4)));
}
void addmv_out(Call& c) {
  Tensor r = addmv(c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4));
  ops::check_out_dtype(c.tensor(5), r->dtype());
  c.ret(ops::write_out(c.tensor(5), r, c.key()));
}
void addmv_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor r = addmv(self, c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4));
  check_inplace(self, r);
  check_no_internal_overlap(*self);
  c.ret(ops::write_out(self, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::addmv", addmv_kernel);
TN_REGISTER_COMPOSITE("aten::addmv.out", addmv_out);
TN_REGISTER_COMPOSITE("aten::addmv_", addmv_inplace);

// ---- addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) ----------
void check_1d(const Tensor& t, const char* arg) {
  TN_CHECK(t->dim() == 1, "addr: Expected 1-D argument ", arg, ", but got ", t->dim(), "-D");
}
// Upstream's check_addr_scalar.
void check_addr_scalar(ScalarType dtype, const Scalar& s, const char* name) {
  TN_CHECK(!s.is_bool() || dtype == ScalarType::Bool, "Boolean ", name,
           " only supported for Boolean results.");
  TN_CHECK(is_floating(dtype) || is_complex(dtype) || !(s.is_floating() || s.is_complex()),
           "For integral input tensors, argument ", name,
           " must not be a floating point number.");
}

// The (vec1.size(0), vec2.size(0)) result in the promoted dtype of the three operands; self is
// broadcast unless `inplace` (then it must have that shape already).
Tensor addr(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta,
            const Scalar& alpha, bool inplace) {
  check_1d(v1, "vec1");
  check_1d(v2, "vec2");
  int64_t n = v1->size(0), m = v2->size(0);
  Tensor s = inplace ? self : op("aten::expand", {V(self), ops::ints({n, m})});
  TN_CHECK(s->dim() == 2, "2D tensor expected, got ", s->dim(), "D tensor for input");
  TN_CHECK(s->size(0) == n && s->size(1) == m, "size mismatch, input: ", dims_str(s->sizes()),
           ", v1: ", dims_str(v1->sizes()), ", v2: ", dims_str(v2->sizes()));
  ScalarType dt = promote_types(promote_types(s->dtype(), v1->dtype()), v2->dtype());
  check_addr_scalar(dt, beta, "beta");
  check_addr_scalar(dt, alpha, "alpha");
  Tensor a = op("aten::view", {V(cast(v1, dt)), ops::ints({n, 1})});
  Tensor b = cast(v2, dt);
  Device dev = v1->device();
  if (dt == ScalarType::Bool) {  // (beta && self) || (alpha && vec1 && vec2)
    Tensor p = alpha.to_double() != 0 ? op("aten::logical_and", {V(a), V(b)})
                                      : op("aten::logical_and", {V(a), V(zeros({m}, dt,
                                                                                    dev))});
    if (beta.to_double() == 0) return p;
    return op("aten::logical_or", {V(s), V(p)});
  }
  Tensor p = op("aten::mul.Tensor", {V(op("aten::mul.Tensor", {V(a), V(scalar_of(alpha, dt,
                                                                                  dev))})),
                                     V(b)});
  if (is_zero(beta)) return p;
  Tensor kept = op("aten::mul.Tensor", {V(cast(s, dt)), V(scalar_of(beta, dt, dev))});
  return op("aten::add.Tensor", {V(kept), V(p)});
}
void addr_kernel(Call& c) {
  c.ret(addr(c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4), false));
}
// TensorIterator's enforce_safe_casting_to_output, in its words.
void check_safe_cast(ScalarType from, const Tensor& out) {
  TN_CHECK(can_cast(from, out->dtype()), "result type ", enum_name(from),
           " can't be cast to the desired output type ", enum_name(out->dtype()));
}
void addr_out(Call& c) {
  Tensor r = addr(c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4), false);
  check_safe_cast(r->dtype(), c.tensor(5));
  c.ret(ops::write_out(c.tensor(5), r, c.key()));
}
void addr_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor r = addr(self, c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4), true);
  check_safe_cast(r->dtype(), self);
  check_no_internal_overlap(*self);
  c.ret(ops::write_out(self, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::addr", addr_kernel);
TN_REGISTER_COMPOSITE("aten::addr.out", addr_out);
TN_REGISTER_COMPOSITE("aten::addr_", addr_inplace);

// ---- addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) ----
// Upstream's addbmm_out: self expanded to (b1.size(1), b2.size(2)), the checks of its
// addbmm_impl_, result resized as self and given self's values when beta != 0, then one
// addmm_ per batch (beta for the first, 1 after); no batches: beta * self or zeros.
void addbmm_into(const Tensor& result, const Tensor& self, const Tensor& b1, const Tensor& b2,
                 const Scalar& beta, const Scalar& alpha) {
  Tensor s = op("aten::expand", {V(self), ops::ints({size_at(b1, 1), size_at(b2, 2)})});
  TN_CHECK(b1->dim() == 3, "batch1 must be a 3D tensor");
  TN_CHECK(b2->dim() == 3, "batch2 must be a 3D tensor");
  TN_CHECK(b1->size(0) == b2->size(0), "batch1 and batch2 must have same number of batches, got ",
           b1->size(0), " and ", b2->size(0));
  TN_CHECK(b1->size(2) == b2->size(1), "Incompatible matrix sizes for bmm (", b1->size(1), "x",
           b1->size(2), " and ", b2->size(1), "x", b2->size(2), ")");
  bool same = result.get() == self.get();
  if (!same) {
    ops::resize_out(result, s->sizes());
    if (!is_zero(beta)) ops::copy_(result, s);
  }
  if (b1->size(0) == 0) {
    if (is_zero(beta)) op("aten::zero_", {V(result)});
    else op("aten::mul_.Scalar", {V(result), S(beta)});
    return;
  }
  // Upstream's first addmm_ refuses bool in its words.
  TN_CHECK_KIND(result->dtype() != ScalarType::Bool, NotImplemented,
                "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  Scalar b = beta;
  for (int64_t i = 0; i < b1->size(0); ++i) {
    Tensor x = op("aten::select.int", {V(b1), ops::i64(0), ops::i64(i)});
    Tensor y = op("aten::select.int", {V(b2), ops::i64(0), ops::i64(i)});
    op("aten::addmm_", {V(result), V(x), V(y), S(b), S(alpha)});
    b = Scalar::from_int(1);
  }
}
void addbmm_kernel(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor result = ops::empty({0}, self->dtype(), self->device());
  addbmm_into(result, self, c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4));
  c.ret(result);
}
void addbmm_out(Call& c) {
  addbmm_into(c.tensor(5), c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4));
  c.ret(c.tensor(5));
}
void addbmm_inplace(Call& c) {
  addbmm_into(c.tensor(0), c.tensor(0), c.tensor(1), c.tensor(2), c.scalar(3), c.scalar(4));
  c.ret(c.tensor(0));
}
TN_REGISTER_COMPOSITE("aten::addbmm", addbmm_kernel);
TN_REGISTER_COMPOSITE("aten::addbmm.out", addbmm_out);
TN_REGISTER_COMPOSITE("aten::addbmm_", addbmm_inplace);

}  // namespace
}  // namespace tn
