// Distances and the embedding losses upstream composes from elementwise ops and norms
// (Distance.cpp, Loss.cpp; each CompositeImplicitAutograd, so autograd records the pieces):
// cosine_similarity, pairwise_distance, margin_ranking_loss, hinge_embedding_loss,
// cosine_embedding_loss, triplet_margin_loss; and norm.ScalarOpt_dim (upstream's at::norm with
// a dim, which pairwise_distance calls; CompositeExplicit, NormBackward1), linalg_vector_norm
// under another name.
#include "autograd/grad_mode.h"
#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::i64;
using ops::ints;
using ops::t;

Tensor op2(const char* name, const Tensor& a, const Tensor& b) {
  return call_tensor(name, {t(a), t(b)});
}
Tensor clamp_min0(const Tensor& x) {
  return call_tensor("aten::clamp_min", {t(x), Value::of_scalar(Scalar::from_int(0))});
}

// `s - x` as upstream's C++ operator spells a number minus a tensor: empty_like(x) filled with
// s, then x subtracted in place (x's dtype, not a promoted one).
Tensor scalar_minus(double s, const Tensor& x) {
  Tensor r = call_tensor("aten::empty_like", {t(x)});
  call("aten::fill_.Scalar", {t(r), ops::f64(s)});
  call("aten::sub_.Tensor", {t(r), t(x)});
  return r;
}

// upstream's apply_loss_reduction: 0 none, 1 mean, 2 sum.
Tensor reduce_loss(const Tensor& x, int64_t reduction) {
  if (reduction == 1) return call_tensor("aten::mean", {t(x), Value{}});
  if (reduction == 2) return call_tensor("aten::sum", {t(x), Value{}});
  return x;
}

// norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False): the vector norm
// of order p (2 when None) over dim.
void norm_scalaropt_dim(Call& c) {
  Value p = c.arg(1).is_none() ? ops::f64(2.0) : c.arg(1);
  c.ret(call_tensor("aten::linalg_vector_norm", {c.arg(0), p, c.arg(2), c.arg(3), Value{}}));
}
TN_REGISTER_COMPOSITE("aten::norm.ScalarOpt_dim", norm_scalaropt_dim);

// pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False):
// norm(x1 - x2 + eps, p, last dim of the broadcast).
Tensor pairwise_distance_of(const Tensor& x1, const Tensor& x2, double p, double eps,
                            bool keepdim) {
  const int64_t out_dim = std::max(x1->dim(), x2->dim());
  Tensor diff =
      call_tensor("aten::add.Scalar", {t(op2("aten::sub.Tensor", x1, x2)), ops::f64(eps)});
  return call_tensor("aten::norm.ScalarOpt_dim", {t(diff), ops::f64(p), ints({out_dim - 1}),
                                                  Value::of_bool(keepdim)});
}
void pairwise_distance(Call& c) {
  c.ret(pairwise_distance_of(c.tensor(0), c.tensor(1), c.to_double(2), c.to_double(3),
                             c.to_bool(4)));
}
TN_REGISTER_COMPOSITE("aten::pairwise_distance", pairwise_distance);

// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08): each operand divided by
// its norm (clamped to eps without recording), then the sum of the products over dim.
void cosine_similarity(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  const int64_t dim = c.to_int(2);
  const double eps = c.to_double(3);
  ResultType rt;
  rt.add_tensor(a->dtype(), a->dim() == 0);
  rt.add_tensor(b->dtype(), b->dim() == 0);
  const ScalarType common = rt.result();
  TN_CHECK(is_floating(common), "expected common dtype to be floating point, yet common dtype is ",
           c10_dtype_name(common));
  TN_CHECK(eps >= 0, "eps must be non-negative, got: ", eps);
  auto to_common = [&](const Tensor& x) {
    return is_integral(x->dtype(), /*include_bool=*/true)
               ? call_tensor("aten::to.dtype", {t(x), Value::of_dtype(common),
                                                Value::of_bool(false), Value::of_bool(false),
                                                Value{}})
               : x;
  };
  Tensor x1 = to_common(a), x2 = to_common(b);
  if (x1->sizes() != x2->sizes()) {  // upstream's expand_outplace: both expanded
    Dims shape = broadcast_shapes(x1->sizes(), x2->sizes());
    x1 = call_tensor("aten::expand", {t(x1), ints(shape)});
    x2 = call_tensor("aten::expand", {t(x2), ints(shape)});
  }
  auto clamped_norm = [&](const Tensor& x) {
    Tensor n = call_tensor("aten::clone", {t(call_tensor("aten::linalg_vector_norm",
                                                         {t(x), ops::f64(2.0), ints({dim}),
                                                          Value::of_bool(true), Value{}})),
                                           Value{}});
    GradModeGuard no_grad(false);
    call("aten::clamp_min_", {t(n), ops::f64(eps)});
    return n;
  };
  Tensor n1 = clamped_norm(x1), n2 = clamped_norm(x2);
  Tensor prod = op2("aten::mul.Tensor", op2("aten::div.Tensor", x1, n1),
                    op2("aten::div.Tensor", x2, n2));
  c.ret(call_tensor("aten::sum.dim_IntList", {t(prod), ints({dim}), Value::of_bool(false),
                                              Value{}}));
}
TN_REGISTER_COMPOSITE("aten::cosine_similarity", cosine_similarity);

// margin_ranking_loss(input1, input2, target, float margin=0, int reduction=Mean):
// max(0, -target * (input1 - input2) + margin).
void margin_ranking_loss(Call& c) {
  Tensor neg_target = call_tensor("aten::neg", {c.arg(2)});
  Tensor scaled = op2("aten::mul.Tensor", neg_target,
                      op2("aten::sub.Tensor", c.tensor(0), c.tensor(1)));
  Tensor out = call_tensor("aten::add.Scalar", {t(scaled), ops::f64(c.to_double(3))});
  call("aten::clamp_min_", {t(out), Value::of_scalar(Scalar::from_int(0))});
  c.ret(reduce_loss(out, c.to_int(4)));
}
TN_REGISTER_COMPOSITE("aten::margin_ranking_loss", margin_ranking_loss);

// hinge_embedding_loss(self, target, float margin=1.0, int reduction=Mean): where target != 1,
// max(0, margin - self); plus, where target != -1, self.
void hinge_embedding_loss(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& target = c.tensor(1);
  Tensor zeros = call_tensor("aten::zeros_like", {t(self)});
  Tensor margin_clamp = scalar_minus(c.to_double(2), self);
  call("aten::clamp_min_", {t(margin_clamp), Value::of_scalar(Scalar::from_int(0))});
  auto ne = [&](int64_t v) {
    return call_tensor("aten::ne.Scalar", {t(target), Value::of_scalar(Scalar::from_int(v))});
  };
  Tensor out_margin = call_tensor("aten::where.self", {t(ne(1)), t(margin_clamp), t(zeros)});
  Tensor out_self = call_tensor("aten::where.self", {t(ne(-1)), t(self), t(zeros)});
  c.ret(reduce_loss(op2("aten::add.Tensor", out_margin, out_self), c.to_int(3)));
}
TN_REGISTER_COMPOSITE("aten::hinge_embedding_loss", hinge_embedding_loss);

// cosine_embedding_loss(input1, input2, target, float margin=0, int reduction=Mean): the cosine
// of each pair (sums over the last dim, each squared norm plus 1e-12), 1 - cos where target is
// 1, max(0, cos - margin) where it is -1.
void cosine_embedding_loss(Call& c) {
  const Tensor &x1 = c.tensor(0), &x2 = c.tensor(1), &target = c.tensor(2);
  const int64_t td = target->dim();
  TN_CHECK(td == 1 || td == 0, "0D or 1D target tensor expected, multi-target not supported");
  if (td == 1)
    TN_CHECK(x1->dim() == 2 && x2->dim() == 2, "1D target tensor expects 2D input tensors, but "
             "found inputs with sizes ", dims_str(x1->sizes()), " and ", dims_str(x2->sizes()),
             ".");
  else
    TN_CHECK(x1->dim() == 1 && x2->dim() == 1, "0D target tensor expects 1D input tensors, but "
             "found inputs with sizes ", dims_str(x1->sizes()), " and ", dims_str(x2->sizes()),
             ".");
  auto sum_td = [&](const Tensor& x) {
    return call_tensor("aten::sum.dim_IntList", {t(x), ints({td}), Value::of_bool(false),
                                                 Value{}});
  };
  constexpr double kEpsilon = 1e-12;
  Tensor prod_sum = sum_td(op2("aten::mul.Tensor", x1, x2));
  Tensor mag1 = call_tensor("aten::add.Scalar", {t(sum_td(op2("aten::mul.Tensor", x1, x1))),
                                                 ops::f64(kEpsilon)});
  Tensor mag2 = call_tensor("aten::add.Scalar", {t(sum_td(op2("aten::mul.Tensor", x2, x2))),
                                                 ops::f64(kEpsilon)});
  Tensor denom = op2("aten::mul.Tensor", mag1, mag2);
  call("aten::sqrt_", {t(denom)});
  Tensor cos = op2("aten::div.Tensor", prod_sum, denom);
  Tensor zeros = call_tensor("aten::zeros_like", {t(cos)});
  Tensor pos = scalar_minus(1.0, cos);
  Tensor neg = call_tensor("aten::sub.Scalar", {t(cos), ops::f64(c.to_double(3))});
  call("aten::clamp_min_", {t(neg), Value::of_scalar(Scalar::from_int(0))});
  auto eq = [&](int64_t v) {
    return call_tensor("aten::eq.Scalar", {t(target), Value::of_scalar(Scalar::from_int(v))});
  };
  Tensor out_pos = call_tensor("aten::where.self", {t(eq(1)), t(pos), t(zeros)});
  Tensor out_neg = call_tensor("aten::where.self", {t(eq(-1)), t(neg), t(zeros)});
  c.ret(reduce_loss(op2("aten::add.Tensor", out_pos, out_neg), c.to_int(4)));
}
TN_REGISTER_COMPOSITE("aten::cosine_embedding_loss", cosine_embedding_loss);

// triplet_margin_loss(anchor, positive, negative, float margin=1.0, float p=2, float eps=1e-06,
//   bool swap=False, int reduction=Mean): max(0, margin + d(a, p) - d(a, n)), d the pairwise
// distance (d(a, n) replaced by min(d(a, n), d(p, n)) under swap).
void triplet_margin_loss(Call& c) {
  const Tensor &a = c.tensor(0), &p = c.tensor(1), &n = c.tensor(2);
  TN_CHECK(a->dim() == p->dim() && p->dim() == n->dim(), "The anchor, positive, and negative "
           "tensors are expected to have the same number of dimensions, but got: anchor ",
           a->dim(), "D, positive ", p->dim(), "D, and negative ", n->dim(), "D inputs");
  const double norm_p = c.to_double(4), eps = c.to_double(5);
  Tensor dist_pos = pairwise_distance_of(a, p, norm_p, eps, false);
  Tensor dist_neg = pairwise_distance_of(a, n, norm_p, eps, false);
  if (c.to_bool(6))
    dist_neg = op2("aten::min.other", dist_neg, pairwise_distance_of(p, n, norm_p, eps, false));
  Tensor diff = op2("aten::sub.Tensor",
                    call_tensor("aten::add.Scalar", {t(dist_pos), ops::f64(c.to_double(3))}),
                    dist_neg);
  c.ret(reduce_loss(clamp_min0(diff), c.to_int(7)));
}
TN_REGISTER_COMPOSITE("aten::triplet_margin_loss", triplet_margin_loss);

}  // namespace
}  // namespace tn
