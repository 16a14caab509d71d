// multi_margin_loss and multilabel_margin_loss_forward, with their backward kernels, on dense CPU
// tensors (upstream's LossMultiMargin.cpp, LossMultiLabelMargin.cpp, LossMulti.h): checks and
// messages in its order, sums in its order and types (a reduced loss accumulates in double for
// float32, as its acc_type), and the composite multilabel_margin_loss. Meta runs the checks
// that need no data (and those of upstream's meta decompositions) and allocates; the backward
// kernels have no Meta kernel, as upstream's.
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// The float32/float64 body of a kernel; other dtypes refused with upstream's dispatch name.
template <typename F>
void dispatch_float_double(ScalarType t, const char* name, F&& f) {
  if (t == ScalarType::Float) return f(float{});
  if (t == ScalarType::Double) return f(double{});
  TN_FAIL(NotImplemented, "\"", name, "\" not implemented for '", enum_name(t), "'");
}
// CPU acc_type: double for float32 and float64.
using Acc = double;

// Frames and classes of a margin loss's input (a scalar is one frame of one class).
struct Frames {
  int64_t nframe, dim;
};
Frames frames_of(const Tensor& input) {
  int64_t nd = input->dim();
  TN_CHECK((nd == 2 && input->size(1) != 0) || (nd == 1 && input->size(0) != 0) || nd == 0,
           "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
           dims_str(input->sizes()));
  if (nd <= 1) return {1, nd == 0 ? 1 : input->size(0)};
  return {input->size(0), input->size(1)};
}

// upstream's data_ptr<T>() of a tensor of another dtype: "expected scalar type Long but found
// Int".
void expect_dtype(const Tensor& t, ScalarType want) {
  TN_CHECK(t->dtype() == want, "expected scalar type ", enum_name(want), " but found ",
           enum_name(t->dtype()));
}

int64_t target_checked(const int64_t* target, int64_t i, int64_t dim) {
  int64_t idx = target[i];
  TN_CHECK(idx >= 0 && idx < dim, "target out of range");
  return idx;
}

// --- multi_margin_loss -----------------------------------------------------------------------

// multi_margin_loss(self, target, Scalar p=1, Scalar margin=1, Tensor? weight=None,
//                   int reduction=Mean) and its backward (grad_output first): upstream's
// checks, the frames.
Frames multi_margin_checks(const Tensor& input, const Tensor& target, const Scalar& p,
                           const Tensor* weight) {
  TN_CHECK(p.to_double() == 1 || p.to_double() == 2, "only p == 1 and p == 2 supported");
  Frames f = frames_of(input);
  bool target_ok = input->dim() <= 1 ? target->dim() <= 1 && target->numel() == f.nframe
                                      : target->dim() == 1 && target->numel() == f.nframe;
  TN_CHECK(target_ok, "multi_margin_loss: target tensor should be 1-D with size equal to the "
           "number of input samples (batch size). Expected target size [", f.nframe,
           "], but got ", dims_str(target->sizes()), ". Input has shape ",
           dims_str(input->sizes()), ".");
  if (weight)
    TN_CHECK(weight->get()->dim() <= 1 && (*weight)->numel() == f.dim, "inconsistent weight "
             "size, expected ", f.dim, " but got ", dims_str((*weight)->sizes()));
  return f;
}

// The frame's loss: the (squared, p = 2) margin violations against every other class, times the
// target class's weight, summed in T and divided by the classes.
template <typename T>
T multi_margin_frame(const T* x, const T* w, int p, T margin, int64_t dim, int64_t target) {
  const T xt = x[target];
  T sum = 0;
  for (int64_t d = 0; d < dim; ++d) {
    if (d == target) continue;
    const T z = margin - xt + x[d];
    if (z > 0) {
      T h = p == 1 ? z : z * z;
      if (w) h *= w[target];
      sum += h;
    }
  }
  sum /= static_cast<T>(dim);
  return sum;
}

template <bool kCpu>
void multi_margin_loss(Call& c) {
  const Tensor &input = c.tensor(0), &target = c.tensor(1);
  const Tensor* weight = c.optional_tensor(4);
  const int64_t reduction = c.to_int(5);
  Frames f = multi_margin_checks(input, target, c.scalar(2), weight);
  if (!kCpu)  // upstream's meta is its decomposition, which gathers at target
    TN_CHECK(target->dtype() == ScalarType::Long || target->dtype() == ScalarType::Int,
             "gather(): Expected dtype int32/int64 for index");
  bool per_frame = reduction == kNone && target->dim() > 0;
  Tensor out = new_on(input, per_frame ? Dims{f.nframe} : Dims{}, input->dtype());
  c.ret(out);
  if (!kCpu || input->numel() == 0) return;
  const std::string& key = c.key();
  Tensor x = contiguous(input, key), tg = contiguous(target, key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  const int p = static_cast<int>(c.scalar(2).to_double());
  dispatch_float_double(input->dtype(), "multi_margin_loss_cpu_kernel", [&](auto zero) {
    using T = decltype(zero);
    expect_dtype(tg, ScalarType::Long);
    if (w) expect_dtype(w, input->dtype());
    const T* xp = data_of<T>(x, key);
    const int64_t* tp = data_of<int64_t>(tg, key);
    const T* wp = w ? data_of<T>(w, key) : nullptr;
    const T margin = static_cast<T>(c.scalar(3).to_double());
    T* op = data_of<T>(out, key);
    Acc sum = 0;
    for (int64_t t = 0; t < f.nframe; ++t) {
      T v = multi_margin_frame(xp + t * f.dim, wp, p, margin, f.dim,
                               target_checked(tp, t, f.dim));
      if (per_frame) op[t] = v;
      else sum += v;
    }
    if (!per_frame) {
      if (reduction == kMean) sum /= static_cast<Acc>(f.nframe);
      op[0] = static_cast<T>(sum);
    }
  });
}

// multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction).
template <bool kCpu>
void multi_margin_loss_backward(Call& c) {
  const Tensor &go = c.tensor(0), &input = c.tensor(1), &target = c.tensor(2);
  const Tensor* weight = c.optional_tensor(5);
  const int64_t reduction = c.to_int(6);
  Frames f = multi_margin_checks(input, target, c.scalar(3), weight);
  Tensor gi = new_on(input, input->sizes(), input->dtype());
  c.ret(gi);
  if (!kCpu || input->numel() == 0) return;
  const std::string& key = c.key();
  Tensor x = contiguous(input, key), tg = contiguous(target, key), g_out = contiguous(go, key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  const int p = static_cast<int>(c.scalar(3).to_double());
  dispatch_float_double(input->dtype(), "multi_margin_loss_backward_cpu_kernel", [&](auto zero) {
    using T = decltype(zero);
    expect_dtype(tg, ScalarType::Long);
    if (w) expect_dtype(w, input->dtype());
    expect_dtype(g_out, input->dtype());
    const T* xp = data_of<T>(x, key);
    const int64_t* tp = data_of<int64_t>(tg, key);
    const T* wp = w ? data_of<T>(w, key) : nullptr;
    const T margin = static_cast<T>(c.scalar(4).to_double());
    const T g = static_cast<T>(reduction == kMean ? 1. / static_cast<double>(f.nframe * f.dim)
                                                  : 1. / static_cast<double>(f.dim));
    T* d = data_of<T>(gi, key);
    for (int64_t t = 0; t < f.nframe; ++t) {
      const T* row = xp + t * f.dim;
      T* grow = d + t * f.dim;
      int64_t target_idx = target_checked(tp, t, f.dim);
      const T xt = row[target_idx];
      T grad_target = 0;
      for (int64_t k = 0; k < f.dim; ++k) {
        const T z = margin - xt + row[k];
        if (k == target_idx) continue;
        if (z > 0) {
          T h = p == 1 ? g : 2 * g * z;
          if (wp) h *= wp[target_idx];
          grad_target -= h;
          grow[k] = h;
        } else {
          grow[k] = 0;
        }
      }
      grow[target_idx] = grad_target;
    }
    const T* gop = data_of<T>(g_out, key);
    if (reduction != kNone || go->dim() == 0) {
      for (int64_t k = 0; k < f.nframe * f.dim; ++k) d[k] *= gop[0];
    } else {
      for (int64_t t = 0; t < f.nframe; ++t)
        for (int64_t k = 0; k < f.dim; ++k) d[t * f.dim + k] *= gop[t];
    }
  });
}

// --- multilabel_margin_loss ------------------------------------------------------------------

// upstream's multilabel_margin_loss_shape_check: target holds dim class indices per frame.
Frames multilabel_checks(const Tensor& input, const Tensor& target) {
  Frames f = frames_of(input);
  if (input->dim() <= 1)
    TN_CHECK(target->dim() <= 1 && target->numel() == f.dim, "inconsistent target size: ",
             dims_str(target->sizes()), " for input of size: ", dims_str(input->sizes()));
  else
    TN_CHECK(target->dim() == 2 && target->size(0) == f.nframe && target->size(1) == f.dim,
             "inconsistent target size: ", dims_str(target->sizes()), " for input of size: ",
             dims_str(input->sizes()));
  return f;
}
// target's values in [-1, classes), as upstream's min/max checks.
void check_target_range(const Tensor& tg, int64_t classes, const std::string& key) {
  const int64_t* tp = data_of<int64_t>(tg, key);
  int64_t lo = tp[0], hi = tp[0];
  for (int64_t k = 1; k < tg->numel(); ++k) lo = std::min(lo, tp[k]), hi = std::max(hi, tp[k]);
  TN_CHECK(lo >= -1, "argument #2 'target' is out of range");
  TN_CHECK(hi < classes, "argument #2 'target' is out of range");
}

// One frame: is_target marks the listed classes (the list ends at the first -1); the sum over
// listed targets and unlisted classes of the violated margins 1 - x[target] + x[d], in double,
// returned in T.
template <typename T>
T multilabel_frame(const T* x, const int64_t* tg, T* is_target, int64_t dim) {
  Acc sum = 0;
  for (int64_t k = 0; k < dim && tg[k] >= 0; ++k) is_target[tg[k]] = 1;
  for (int64_t k = 0; k < dim && tg[k] >= 0; ++k) {
    const T xt = x[tg[k]];
    for (int64_t d = 0; d < dim; ++d)
      if (!is_target[d]) {
        const T z = 1 - xt + x[d];
        if (z > 0) sum += z;
      }
  }
  return static_cast<T>(sum);  // upstream's helper returns the element type
}

// multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target).
template <bool kCpu>
void multilabel_margin_loss_forward(Call& c) {
  const Tensor &input = c.tensor(0), &target = c.tensor(1);
  const int64_t reduction = c.to_int(2);
  Frames f = multilabel_checks(input, target);
  if (!kCpu) {  // upstream's meta is its decomposition: target of input's shape, gathered
    TN_CHECK(target->sizes() == input->sizes(), "inconsistent target size: torch.Size(",
             dims_str(target->sizes()), ") for input of size: torch.Size(",
             dims_str(input->sizes()), ")");
    TN_CHECK(target->device() == input->device(), "Tensor on device ", input->device().str(),
             " is not on the expected device ", target->device().str(), "!");
  }
  bool per_frame = reduction == kNone && target->dim() > 1;
  Tensor out = new_on(input, per_frame ? Dims{f.nframe} : Dims{}, input->dtype());
  Tensor is_target = new_on(input, target->sizes(), input->dtype());
  c.ret(out);
  c.ret(is_target);
  if (!kCpu) return;
  const std::string& key = c.key();
  call("aten::zero_", {ops::t(is_target)});
  if (input->numel() == 0) return;
  Tensor x = contiguous(input, key), tg = contiguous(target, key);
  expect_dtype(tg, ScalarType::Long);
  check_target_range(tg, input->dim() <= 1 ? f.dim : input->size(1), key);
  dispatch_float_double(input->dtype(), "multilabel_margin_loss_forward_out_frame",
                        [&](auto zero) {
    using T = decltype(zero);
    const T* xp = data_of<T>(x, key);
    const int64_t* tp = data_of<int64_t>(tg, key);
    T* isp = data_of<T>(is_target, key);
    T* op = data_of<T>(out, key);
    Acc sum = 0;
    for (int64_t t = 0; t < f.nframe; ++t) {
      T v = multilabel_frame(xp + t * f.dim, tp + t * f.dim, isp + t * f.dim, f.dim);
      if (per_frame) {
        v /= static_cast<T>(f.dim);
        op[t] = v;
      } else {
        sum += v;
      }
    }
    if (!per_frame) {
      sum /= static_cast<Acc>(f.dim);
      if (reduction == kMean) sum /= static_cast<Acc>(f.nframe);
      op[0] = static_cast<T>(sum);
    }
  });
}

// multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target).
template <bool kCpu>
void multilabel_margin_loss_backward(Call& c) {
  const Tensor &go = c.tensor(0), &input = c.tensor(1), &target = c.tensor(2);
  const Tensor& is_target = c.tensor(4);
  const int64_t reduction = c.to_int(3);
  Frames f = multilabel_checks(input, target);
  TN_CHECK(target->sizes() == is_target->sizes(), "Expected tensor for argument #3 'target' to "
           "have same size as tensor for argument #5 'is_target'; but ",
           dims_str(target->sizes()), " does not equal ", dims_str(is_target->sizes()),
           " (while checking arguments for multilabel_margin_loss_backward_out_cpu_template)");
  Tensor gi = new_on(input, input->sizes(), input->dtype());
  c.ret(gi);
  if (!kCpu || gi->numel() == 0) return;
  const std::string& key = c.key();
  call("aten::zero_", {ops::t(gi)});
  Tensor x = contiguous(input, key), tg = contiguous(target, key);
  Tensor ist = contiguous(is_target, key), g_out = contiguous(go, key);
  expect_dtype(tg, ScalarType::Long);
  check_target_range(tg, input->dim() <= 1 ? f.dim : input->size(1), key);
  dispatch_float_double(input->dtype(), "multilabel_margin_loss_backward_out_frame",
                        [&](auto zero) {
    using T = decltype(zero);
    expect_dtype(ist, input->dtype());
    expect_dtype(g_out, input->dtype());
    const T* isp = data_of<T>(ist, key);
    for (int64_t k = 0; k < ist->numel(); ++k)
      TN_CHECK(isp[k] >= 0 && isp[k] <= 1, "argument #5 'is_target' is out of range");
    const T* xp = data_of<T>(x, key);
    const int64_t* tp = data_of<int64_t>(tg, key);
    const T g = static_cast<T>(reduction == kMean ? 1. / static_cast<double>(f.nframe * f.dim)
                                                  : 1. / static_cast<double>(f.dim));
    T* d = data_of<T>(gi, key);
    for (int64_t t = 0; t < f.nframe; ++t) {
      const T* row = xp + t * f.dim;
      const int64_t* trow = tp + t * f.dim;
      const T* irow = isp + t * f.dim;
      T* grow = d + t * f.dim;
      for (int64_t k = 0; k < f.dim && trow[k] >= 0; ++k) {
        const T xt = row[trow[k]];
        for (int64_t j = 0; j < f.dim; ++j)
          if (!irow[j]) {
            const T z = 1 - xt + row[j];
            if (z > 0) {
              grow[trow[k]] -= g;
              grow[j] += g;
            }
          }
      }
    }
    const T* gop = data_of<T>(g_out, key);
    if (reduction != kNone || go->dim() == 0) {
      for (int64_t k = 0; k < f.nframe * f.dim; ++k) d[k] *= gop[0];
    } else {
      TN_CHECK(go->dim() == 1 && go->size(0) == f.nframe, "Expected a tensor of dimension 1 and "
               "tensor.size[0] == ", f.nframe, " but got: dimension ", go->dim(),
               " and tensor.size[0] = ", go->dim() > 0 ? go->size(0) : 0);
      for (int64_t t = 0; t < f.nframe; ++t)
        for (int64_t k = 0; k < f.dim; ++k) d[t * f.dim + k] *= gop[t];
    }
  });
}

// multilabel_margin_loss(self, target, reduction=Mean): the forward's output (upstream's
// composite).
void multilabel_margin_loss(Call& c) {
  c.ret(call("aten::multilabel_margin_loss_forward", {c.arg(0), c.arg(1), c.arg(2)})[0]);
}

}  // namespace

TN_REGISTER_KERNEL("aten::multi_margin_loss", DenseCPU, multi_margin_loss<true>);
TN_REGISTER_KERNEL("aten::multi_margin_loss", Meta, multi_margin_loss<false>);
TN_REGISTER_KERNEL("aten::multi_margin_loss_backward", DenseCPU,
                   multi_margin_loss_backward<true>);
TN_REGISTER_KERNEL("aten::multilabel_margin_loss_forward", DenseCPU,
                   multilabel_margin_loss_forward<true>);
TN_REGISTER_KERNEL("aten::multilabel_margin_loss_forward", Meta,
                   multilabel_margin_loss_forward<false>);
TN_REGISTER_KERNEL("aten::multilabel_margin_loss_backward", DenseCPU,
                   multilabel_margin_loss_backward<true>);
TN_REGISTER_COMPOSITE("aten::multilabel_margin_loss", multilabel_margin_loss);

}  // namespace tn
