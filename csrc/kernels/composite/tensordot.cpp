// The contractions upstream composes from sum, permute, reshape, mm and mul (each
// CompositeImplicitAutograd, so autograd and a dispatch mode see the pieces): tensordot (+ out=),
// inner (+ out=), kron (+ out=), with upstream's messages (LinearAlgebra.cpp).
//   tensordot: size-1 contracted dims are summed away first (keepdim), the rest permuted to the
//     end of the first operand and the front of the second, one mm between them, reshaped; a
//     full contraction (nothing left uncontracted) is a dot of the permuted operands when both
//     are contiguous, else their squeezed product summed.
//   inner: a product when either is 0-dim, else tensordot over both last dims.
//   kron: each operand viewed with size-1 dims interleaved (_unsafe_view), one broadcast mul,
//     viewed back to the Kronecker shape.
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

// Upstream's dim_list_to_bitset: each dim wrapped, none twice.
std::vector<bool> dim_set(const Dims& dims, int64_t ndim) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    TN_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
  }
  return seen;
}

Tensor tensordot_of(const Tensor& a, const Tensor& b, const Dims& dims1, const Dims& dims2) {
  TN_CHECK(dims1.size() == dims2.size(), "both dimension lists should have same length");
  TN_CHECK(a->dtype() == b->dtype(), "both inputs should have same dtype");
  int64_t csize = 1;
  Tensor t1 = a, t2 = b;
  for (size_t i = 0; i < dims1.size(); ++i) {
    const int64_t s1 = a->size(wrap_dim(dims1[i], a->dim()));
    const int64_t s2 = b->size(wrap_dim(dims2[i], b->dim()));
    if (s2 == 1) {  // a broadcast dim is summed right away
      t1 = call_tensor("aten::sum.dim_IntList", {t(t1), ints({dims1[i]}), Value::of_bool(true),
                                                 Value::of_dtype(t1->dtype())});
    } else if (s1 == 1) {
      t2 = call_tensor("aten::sum.dim_IntList", {t(t2), ints({dims2[i]}), Value::of_bool(true),
                                                 Value::of_dtype(t2->dtype())});
    } else {
      TN_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1,
               " in dim ", dims1[i], " and second has size ", s2, " in dim ", dims2[i]);
      csize *= s1;
    }
  }
  const std::vector<bool> c1 = dim_set(dims1, a->dim()), c2 = dim_set(dims2, b->dim());
  Dims p1, p2, rsizes;
  int64_t size1 = 1, size2 = 1;
  for (int64_t i = 0; i < a->dim(); ++i) {
    if (c1[i]) continue;
    p1.push_back(i);
    size1 *= t1->size(i);
    rsizes.push_back(t1->size(i));
  }
  for (int64_t d : dims1) p1.push_back(d);
  for (int64_t d : dims2) p2.push_back(d);
  for (int64_t i = 0; i < b->dim(); ++i) {
    if (c2[i]) continue;
    p2.push_back(i);
    size2 *= t2->size(i);
    rsizes.push_back(t2->size(i));
  }
  if (size1 == 1 && size2 == 1) {  // a full contraction: upstream's dot, or mul and sum
    Tensor q1 = call_tensor("aten::permute", {t(t1), ints(p1)});
    Tensor q2 = call_tensor("aten::permute", {t(t2), ints(p2)});
    Tensor r;
    if (q1->is_contiguous() && q2->is_contiguous()) {
      auto flat = [](const Tensor& x) {
        return call_tensor("aten::flatten.using_ints", {t(x), Value::of_int(0),
                                                        Value::of_int(-1)});
      };
      r = call_tensor("aten::dot", {t(flat(q1)), t(flat(q2))});
    } else {
      Tensor prod = call_tensor("aten::mul.Tensor", {t(call_tensor("aten::squeeze", {t(q1)})),
                                                     t(call_tensor("aten::squeeze", {t(q2)}))});
      r = call_tensor("aten::sum", {t(prod), Value::of_dtype(q1->dtype())});
    }
    return call_tensor("aten::reshape", {t(r), ints(rsizes)});
  }
  auto permuted = [](const Tensor& x, const Dims& p, const Dims& shape) {
    return call_tensor("aten::reshape", {t(call_tensor("aten::permute", {t(x), ints(p)})),
                                         ints(shape)});
  };
  t1 = permuted(t1, p1, {size1, csize});
  t2 = permuted(t2, p2, {csize, size2});
  return call_tensor("aten::reshape", {t(call_tensor("aten::mm", {t(t1), t(t2)})),
                                       ints(rsizes)});
}

// tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other)
void tensordot(Call& c) {
  c.ret(tensordot_of(c.tensor(0), c.tensor(1), c.int_list(2), c.int_list(3)));
}
// tensordot.out(..., *, Tensor(a!) out): the result's device and dtype must be out's.
void tensordot_out(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1), &out = c.tensor(4);
  Tensor r = tensordot_of(a, b, c.int_list(2), c.int_list(3));
  TN_CHECK(out->device() == a->device() && a->device() == b->device(), "tensordot: Expected the "
           "output and input tensors to be on the same device, but got the output tensor on ",
           out->device().str(), ", input tensor a on ", a->device().str(), ", and input tensor b "
           "on ", b->device().str());
  TN_CHECK(r->dtype() == out->dtype(), "tensordot: Expected the output tensor to have dtype ",
           enum_name(r->dtype()), ", but got an output tensor with dtype ",
           enum_name(out->dtype()));
  c.ret(ops::write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::tensordot", tensordot);
TN_REGISTER_COMPOSITE("aten::tensordot.out", tensordot_out);

// inner(Tensor self, Tensor other) and inner.out: every tensor on self's device type first
// (upstream's checkDeviceType), then the last dims.
void check_device_types(std::initializer_list<const Tensor*> ts, DeviceType want) {
  for (const Tensor* x : ts)
    TN_CHECK((*x)->device().type == want, "Expected tensor to have ", device_type_name(want),
             " DeviceType, but got tensor with ", device_type_name((*x)->device().type),
             " DeviceType (while checking arguments for inner())");
}
void check_inner(const Tensor& a, const Tensor& b) {
  TN_CHECK(a->size(-1 + a->dim()) == b->size(-1 + b->dim()), "inner() the last dimension must "
           "match on both input tensors but got shapes ", dims_str(a->sizes()), " and ",
           dims_str(b->sizes()));
}
void inner(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  check_device_types({&a, &b}, a->device().type);
  if (a->dim() == 0 || b->dim() == 0) return c.ret(call_tensor("aten::mul.Tensor", {t(a), t(b)}));
  check_inner(a, b);
  c.ret(tensordot_of(a, b, {-1}, {-1}));
}
void inner_out(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  check_device_types({&c.tensor(2), &a, &b}, a->device().type);
  if (a->dim() == 0 || b->dim() == 0)
    return c.ret(call_tensor("aten::mul.out", {t(a), t(b), c.arg(2)}));
  check_inner(a, b);
  c.ret(call_tensor("aten::tensordot.out", {t(a), t(b), ints({-1}), ints({-1}), c.arg(2)}));
}
TN_REGISTER_COMPOSITE("aten::inner", inner);
TN_REGISTER_COMPOSITE("aten::inner.out", inner_out);

// kron's shapes: each operand with size-1 dims interleaved (2 * maxdim), and the result.
struct KronShapes {
  Dims a, b, result, mul;
};
KronShapes kron_shapes(const Tensor& self, const Tensor& other) {
  const int64_t maxdim = std::max(self->dim(), other->dim());
  const int64_t pad_a = maxdim - self->dim(), pad_b = maxdim - other->dim();
  KronShapes k;
  k.a.assign(2 * maxdim, 1);
  k.b.assign(2 * maxdim, 1);
  k.mul.assign(2 * maxdim, 1);
  k.result.assign(maxdim, 1);
  for (int64_t i = 0; i < maxdim; ++i) {
    k.a[2 * i] = i >= pad_a ? self->size(i - pad_a) : 1;
    k.b[2 * i + 1] = i >= pad_b ? other->size(i - pad_b) : 1;
    k.mul[2 * i] = k.a[2 * i];
    k.mul[2 * i + 1] = k.b[2 * i + 1];
    k.result[i] = k.a[2 * i] * k.b[2 * i + 1];
  }
  return k;
}
Tensor unsafe_view(const Tensor& x, const Dims& shape) {
  return call_tensor("aten::_unsafe_view", {t(x), ints(shape)});
}
// kron(Tensor self, Tensor other)
void kron(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  KronShapes k = kron_shapes(a, b);
  Tensor prod = call_tensor("aten::mul.Tensor", {t(unsafe_view(a, k.a)), t(unsafe_view(b, k.b))});
  c.ret(unsafe_view(prod, k.result));
}
// kron.out(Tensor self, Tensor other, *, Tensor(a!) out): out resized to the result, the
// product written into its interleaved view.
void kron_out(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1), &out = c.tensor(2);
  KronShapes k = kron_shapes(a, b);
  tn::resize_out(out, k.result);  // upstream's resize_output, with its warning
  call("aten::mul.out", {t(unsafe_view(a, k.a)), t(unsafe_view(b, k.b)),
                         t(unsafe_view(out, k.mul))});
  c.ret(out);
}
TN_REGISTER_COMPOSITE("aten::kron", kron);
TN_REGISTER_COMPOSITE("aten::kron.out", kron_out);

}  // namespace
}  // namespace tn
