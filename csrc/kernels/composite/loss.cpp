// Losses written in door ops as upstream writes them (LossNLL.cpp, Loss.cpp): nll_loss,
// nll_loss_nd, cross_entropy_loss (class indices, label smoothing, class probabilities),
// mse_loss and mse_loss_backward (upstream's arithmetic order: (x - t)^2 reduced by mean/sum;
// 2/n * (x - t) * grad). The nll kernels themselves are in cpu/nn_loss.cpp.
#include <limits>

#include "core/promotion.h"
#include "kernels/composite/ops.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using namespace ops;

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

Value opt(const Tensor* w) { return w ? Value::of(*w) : Value{}; }
Value sc(double x) { return Value::of_scalar(Scalar::from_double(x)); }
Tensor mul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::mul.Tensor", {t(a), t(b)});
}
Tensor mul(const Tensor& a, double s) { return call_tensor("aten::mul.Scalar", {t(a), sc(s)}); }
Tensor neg(const Tensor& a) { return call_tensor("aten::neg", {t(a)}); }
Tensor sum_all(const Tensor& a) { return call_tensor("aten::sum", {t(a)}); }
Tensor sum_dim(const Tensor& a, int64_t dim) {
  return call_tensor("aten::sum.dim_IntList", {t(a), ints({dim}), Value::of_bool(false)});
}
Tensor div(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::div.Tensor", {t(a), t(b)});
}

// nll_loss(self, target, weight?, reduction=Mean, ignore_index=-100): nll_loss_forward's output.
void nll_loss(Call& c) {
  c.ret(call("aten::nll_loss_forward", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)})[0]
            .tensor);
}
TN_REGISTER_COMPOSITE("aten::nll_loss", nll_loss);

// nll_loss_nd: 1 or 2 dims go to nll_loss, 4 to nll_loss2d; 3 or more than 4 are viewed as
// (N, C, 1, -1) for nll_loss2d, as upstream does.
Tensor nll_loss_nd_of(const Tensor& self, const Tensor& target, const Tensor* weight,
                      int64_t reduction, int64_t ignore) {
  Value args[] = {opt(weight), Value::of_int(reduction), Value::of_int(ignore)};
  TN_CHECK_KIND(self->dim() >= 1, Value, "Expected 1 or more dimensions (got ", self->dim(), ")");
  TN_CHECK_KIND(self->dim() == 1 || self->size(0) == target->size(0), Value,
                "Expected input batch_size (", self->size(0), ") to match target batch_size (",
                target->size(0), ").");
  if (self->dim() <= 2)
    return call_tensor("aten::nll_loss", {t(self), t(target), args[0], args[1], args[2]});
  if (self->dim() == 4)
    return call_tensor("aten::nll_loss2d", {t(self), t(target), args[0], args[1], args[2]});
  int64_t n = self->size(0), classes = self->size(1);
  Dims out_size{n};
  for (int64_t i = 2; i < self->dim(); ++i) out_size.push_back(self->size(i));
  Dims tail(target->sizes().begin() + 1, target->sizes().end());
  Dims want(self->sizes().begin() + 2, self->sizes().end());
  TN_CHECK(tail == want, "Expected target size ", dims_str(out_size), ", got ",
           dims_str(target->sizes()));
  Tensor x = call_tensor("aten::contiguous", {t(self)});
  Tensor tg = call_tensor("aten::contiguous", {t(target)});
  x = view(x, x->numel() > 0 ? Dims{n, classes, 1, -1} : Dims{n, classes, 0, 0});
  tg = view(tg, tg->numel() > 0 ? Dims{n, 1, -1} : Dims{n, 0, 0});
  Tensor out = call_tensor("aten::nll_loss2d", {t(x), t(tg), args[0], args[1], args[2]});
  return reduction == kNone ? view(out, out_size) : out;
}
void nll_loss_nd(Call& c) {
  c.ret(nll_loss_nd_of(c.tensor(0), c.tensor(1), c.optional_tensor(2), c.to_int(3), c.to_int(4)));
}
TN_REGISTER_COMPOSITE("aten::nll_loss_nd", nll_loss_nd);

// weight viewed as (1, C, 1, ...) against an input of dim dims (itself for one dim).
Tensor weight_along_classes(const Tensor& w, int64_t dims, int64_t class_dim) {
  if (dims <= 1) return w;
  Dims shape(dims, 1);
  shape[class_dim] = w->size(0);
  return view(w, shape);
}

// Upstream's cross_entropy_loss_prob_target: -(log_softmax(x) * target [* weight]) reduced.
Tensor ce_prob_target(const Tensor& logp, const Tensor& target_, const Tensor* weight,
                      int64_t reduction, double smoothing, int64_t class_dim) {
  int64_t n_classes = logp->size(class_dim);
  Tensor target = target_;
  if (smoothing > 0.0) {
    TN_CHECK(smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", smoothing);
    target = call_tensor("aten::add.Scalar",
                         {t(mul(target_, 1 - smoothing)), sc(smoothing / n_classes)});
  }
  Tensor prod = mul(logp, target);
  if (weight) prod = mul(prod, weight_along_classes(*weight, logp->dim(), class_dim));
  switch (reduction) {
    case kMean: {
      Tensor s = neg(sum_all(prod));
      double nan = std::numeric_limits<double>::quiet_NaN();
      if (logp->numel() == 0) return call_tensor("aten::fill_.Scalar", {t(s), sc(nan)});
      return call_tensor("aten::div.Scalar",
                         {t(s), Value::of_scalar(Scalar::from_int(logp->numel() / n_classes))});
    }
    case kSum: return neg(sum_all(prod));
    case kNone: return neg(sum_dim(prod, class_dim));
    default:
      TN_FAIL(Runtime, "Invalid reduction type encountered in cross_entropy: ", reduction);
  }
}

// Upstream's cross_entropy_loss_label_smoothing for class-index targets.
Tensor ce_label_smoothing(const Tensor& logp, const Tensor& target, const Tensor* weight,
                          int64_t reduction, int64_t ignore, double smoothing,
                          int64_t class_dim) {
  Tensor nll = nll_loss_nd_of(logp, target, weight, reduction, ignore);
  int64_t n_classes = logp->size(class_dim);
  Tensor smooth = weight ? neg(sum_dim(mul(logp, weight_along_classes(*weight, logp->dim(),
                                                                      class_dim)), class_dim))
                         : neg(sum_dim(logp, class_dim));
  Tensor ignore_mask = call_tensor("aten::eq.Scalar",
                                   {t(target), Value::of_scalar(Scalar::from_int(ignore))});
  call("aten::masked_fill_.Scalar", {t(smooth), t(ignore_mask), sc(0.0)});
  Tensor ret;
  switch (reduction) {
    case kMean: {
      Tensor keep = call_tensor("aten::bitwise_not", {t(ignore_mask)});
      if (weight) {
        Tensor kept = call_tensor("aten::masked_select", {t(target), t(keep)});
        Tensor flat = call_tensor("aten::reshape", {t(kept), ints({-1})});
        Tensor tw = call_tensor("aten::gather", {t(*weight), Value::of_int(0), t(flat),
                                                 Value::of_bool(false)});
        ret = div(sum_all(smooth), sum_all(tw));
      } else {
        ret = div(sum_all(smooth), sum_all(keep));
      }
      break;
    }
    case kSum: ret = sum_all(smooth); break;
    case kNone: ret = smooth; break;
    default:
      TN_FAIL(Runtime, "Invalid reduction type encountered in cross_entropy: ", reduction);
  }
  return call_tensor("aten::add.Tensor",
                     {t(mul(nll, 1 - smoothing)), t(mul(ret, smoothing / n_classes))});
}

// cross_entropy_loss(self, target, weight?, reduction=Mean, ignore_index=-100,
//                    label_smoothing=0.0)
void cross_entropy_loss(Call& c) {
  const Tensor &self = c.tensor(0), &target = c.tensor(1);
  const Tensor* weight = c.optional_tensor(2);
  int64_t reduction = c.to_int(3), ignore = c.to_int(4);
  double smoothing = c.to_double(5);
  int64_t class_dim = self->dim() == 1 ? 0 : 1;
  auto log_softmax = [&] {
    return call_tensor("aten::log_softmax.int",
                       {t(self), Value::of_int(class_dim), Value::of_dtype(self->dtype())});
  };
  if (self->sizes() == target->sizes()) {
    TN_CHECK(info(target->dtype()).is_floating,
             "Expected floating point type for target with class probabilities, got ",
             c10_dtype_name(target->dtype()));
    TN_CHECK(ignore < 0, "ignore_index is not supported for floating point target");
    int64_t n_classes = self->size(class_dim);
    TN_CHECK(!weight || ((*weight)->dim() == 1 && (*weight)->numel() == n_classes),
             "cross_entropy: weight tensor should be defined either for all ", n_classes,
             " classes or no classes but got weight tensor of shape: ",
             dims_str(weight ? (*weight)->sizes() : Dims{}));
    return c.ret(ce_prob_target(log_softmax(), target, weight, reduction, smoothing, class_dim));
  }
  if (smoothing > 0.0) {
    TN_CHECK(smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", smoothing);
    return c.ret(ce_label_smoothing(log_softmax(), target, weight, reduction, ignore, smoothing,
                                    class_dim));
  }
  c.ret(nll_loss_nd_of(log_softmax(), target, weight, reduction, ignore));
}
TN_REGISTER_COMPOSITE("aten::cross_entropy_loss", cross_entropy_loss);

// mse_loss(self, target, reduction=Mean): (self - target)^2 (upstream's mse kernel squares the
// difference by a multiply), then mean or sum over everything.
void mse_loss(Call& c) {
  Tensor d = call_tensor("aten::sub.Tensor", {c.arg(0), c.arg(1)});
  Tensor sq = mul(d, d);
  int64_t reduction = c.to_int(2);
  if (reduction == kMean) return c.ret(call_tensor("aten::mean", {t(sq)}));
  if (reduction == kSum) return c.ret(sum_all(sq));
  c.ret(sq);
}
TN_REGISTER_COMPOSITE("aten::mse_loss", mse_loss);

// mse_loss_backward(grad_output, self, target, reduction): norm * (self - target) * grad, norm
// = 2/numel (mean) or 2, in upstream's order. Upstream's kernel converts norm to the element
// type: integer inputs scale by the truncated norm (0 for a mean over more than two elements)
// and stay integers.
void mse_loss_backward(Call& c) {
  const Tensor& self = c.tensor(1);
  // Upstream's iterator: the inputs' common dtype, safely castable to self's (the output's),
  // then a kernel for the real dtypes but bool.
  ResultType rt;
  for (int i : {1, 2, 0}) rt.add_tensor(c.tensor(i)->dtype(), c.tensor(i)->dim() == 0);
  const ScalarType common = rt.result();
  TN_CHECK(can_cast(common, self->dtype()), "result type ", enum_name(common),
           " can't be cast to the desired output type ", enum_name(self->dtype()));
  TN_CHECK_KIND(!is_complex(common) && common != ScalarType::Bool, NotImplemented,
                "\"mse_backward_cpu_out\" not implemented for '", enum_name(common), "'");
  double norm = c.to_int(3) == kMean ? 2.0 / static_cast<double>(self->numel()) : 2.0;
  Tensor d = call_tensor("aten::sub.Tensor", {c.arg(1), c.arg(2)});
  Tensor r;
  if (is_floating(d->dtype()) || is_complex(d->dtype())) {
    r = mul(mul(d, norm), c.tensor(0));
  } else {
    Value inorm = Value::of_scalar(Scalar::from_int(static_cast<int64_t>(norm)));
    r = mul(call_tensor("aten::mul.Scalar", {t(d), inorm}), c.tensor(0));
  }
  // Computed in the common dtype, written in self's (upstream's output is zeros_like(self)).
  if (r->dtype() == self->dtype()) return c.ret(r);
  c.ret(call_tensor("aten::_to_copy", {t(r), Value::of_dtype(self->dtype())}));
}
TN_REGISTER_COMPOSITE("aten::mse_loss_backward", mse_loss_backward);

}  // namespace
}  // namespace tn
