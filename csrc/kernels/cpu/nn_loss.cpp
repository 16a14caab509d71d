// The negative log-likelihood loss: nll_loss_forward and nll_loss_backward (inputs of 1 or 2
// dims, upstream's LossNLL.cpp: its checks and messages, and the reduced sum in its own order,
// a cascade of 8 levels of 2^p rows, so a reduced loss carries upstream's bits). Not here: the
// composites above them (nll_loss, nll_loss_nd, cross_entropy_loss, in composite/loss.cpp).
#include <algorithm>
#include <cstring>
#include <limits>

#include "dispatch/kernel.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/reduce_cascade.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// The checks upstream's nll_loss_forward and nll_loss_backward meta functions share; only the
// forward takes a 1-D input with a 1-D target of one class (upstream's backward refuses it).
void check_nll_shapes(const Tensor& self, const Tensor& target, bool forward) {
  TN_CHECK(self->dim() > 0 && self->dim() <= 2, "input tensor should be 1D or 2D");
  TN_CHECK(target->dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  TN_CHECK_KIND(!forward || !(self->dim() == 1 && target->dim() == 1 && target->size(0) != 1),
                Value, "For 1D input, 1D target must have size 1, but got target size: ",
                target->size(0));
  bool no_batch_dim =
      self->dim() == 1 && (target->dim() == 0 || (forward && target->size(0) == 1));
  TN_CHECK(no_batch_dim || self->size(0) == target->size(0), "size mismatch (got input: ",
           dims_str(self->sizes()), ", target: ", dims_str(target->sizes()), ")");
  TN_CHECK(target->dtype() == ScalarType::Long || target->dtype() == ScalarType::Byte,
           "expected target dtype to be Long or Byte, but got ", c10_dtype_name(target->dtype()));
}

// Upstream dispatches on floating dtypes only.
void check_nll_dtypes(const Tensor& self, const char* frame) {
  TN_CHECK_KIND(info(self->dtype()).is_floating, NotImplemented, "\"", frame,
                "\" not implemented for '", c10_dtype_name(self->dtype()), "'");
}

// nll_loss_forward(self, target, weight?, reduction, ignore_index) -> (output, total_weight)
void nll_forward_rule(Call& c) {
  const Tensor &self = c.tensor(0), &target = c.tensor(1);
  const Tensor* weight = c.optional_tensor(2);
  check_nll_shapes(self, target, true);
  int64_t n_classes = self->size(self->dim() - 1);
  TN_CHECK(!weight || ((*weight)->dim() == 1 && (*weight)->numel() == n_classes),
           "weight tensor should be defined either for all ", n_classes,
           " classes or no classes but got weight tensor of shape: ",
           dims_str(weight ? (*weight)->sizes() : Dims{}));
  bool per_row = c.to_int(3) == kNone && self->dim() == 2;
  c.ret(new_on(self, per_row ? Dims{self->size(0)} : Dims{}, self->dtype()));
  c.ret(new_on(self, {}, self->dtype()));
}

// One row's class index (checked against n_classes unless it is ignore_index).
template <typename I>
int64_t class_of(const I* pt, int64_t i) { return static_cast<int64_t>(pt[i]); }
void check_class(int64_t t, int64_t n_classes) {
  TN_CHECK_KIND(t >= 0 && t < n_classes, Index, "Target ", t, " is out of bounds.");
}

// Upstream's nll_loss_out_frame for one dtype T and target type I.
template <typename T, typename I>
void nll_forward_frame(Call& c, const Tensor& self, const Tensor& target, const Tensor* weight) {
  using A = acc_t<T>;
  const std::string& key = c.key();
  const Tensor &out = c.results[0].tensor, &total = c.results[1].tensor;
  int64_t reduction = c.to_int(3), ignore = c.to_int(4);
  int64_t n_classes = self->size(self->dim() - 1);
  Tensor x = contiguous(self, key), t = contiguous(target, key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  const T* px = data_of<T>(x, key);
  const I* pt = data_of<I>(t, key);
  const T* pw = weight ? data_of<T>(w, key) : nullptr;
  T* po = data_of<T>(out, key);
  T* ptot = data_of<T>(total, key);
  *ptot = T(0);
  if (reduction == kNone && self->dim() == 2) {
    for (int64_t i = 0; i < self->size(0); ++i) {
      int64_t cls = class_of(pt, i);
      if (cls == ignore) {
        po[i] = T(0);
        continue;
      }
      check_class(cls, n_classes);
      T cw = pw ? pw[cls] : T(1);
      po[i] = T(-static_cast<A>(px[i * n_classes + cls]) * static_cast<A>(cw));
    }
    return;
  }
  if (target->numel() == 0) {
    *po = reduction == kMean ? T(std::numeric_limits<A>::quiet_NaN()) : T(0);
    return;
  }
  // Upstream's cascade: level 0 takes every row; after row b, each level j whose 2^p-row block
  // b completes is added into level j + 1 (p = max(4, ceil_log2(batch) / 8)).
  constexpr int kLevels = 8;
  int64_t batch = self->dim() == 1 ? 1 : self->size(0);
  int64_t power = std::max<int64_t>(4, ceil_log2(batch) / kLevels);
  int64_t mask0 = (int64_t(1) << power) - 1;
  T wsum[kLevels], lsum[kLevels];
  std::fill(wsum, wsum + kLevels, T(0));
  std::fill(lsum, lsum + kLevels, T(0));
  int64_t ignored = 0;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t cls = class_of(pt, b);
    if (cls == ignore) {
      ++ignored;
      continue;
    }
    check_class(cls, n_classes);
    A v = static_cast<A>(px[b * n_classes + cls]);
    if (pw) {
      A wv = static_cast<A>(pw[cls]);
      lsum[0] = T(static_cast<A>(lsum[0]) - v * wv);
      wsum[0] = T(static_cast<A>(wsum[0]) + wv);
    } else {
      lsum[0] = T(static_cast<A>(lsum[0]) - v);
    }
    for (int j = 0; j + 1 < kLevels; ++j) {
      if ((b & (mask0 << (j * power))) != 0) break;
      wsum[j + 1] = T(static_cast<A>(wsum[j + 1]) + static_cast<A>(wsum[j]));
      lsum[j + 1] = T(static_cast<A>(lsum[j + 1]) + static_cast<A>(lsum[j]));
      wsum[j] = T(0);
      lsum[j] = T(0);
    }
  }
  auto total_of = [](const T* s) {
    T acc(0);
    for (int j = 0; j < kLevels; ++j) acc = T(static_cast<A>(acc) + static_cast<A>(s[j]));
    return acc;
  };
  T tw = pw ? total_of(wsum) : T(static_cast<A>(batch - ignored));
  T loss = total_of(lsum);
  if (reduction == kMean) loss = T(static_cast<A>(loss) / static_cast<A>(tw));
  *po = loss;
  *ptot = tw;
}

void nll_forward_cpu(Call& c) {
  const Tensor &self = c.tensor(0), &target = c.tensor(1);
  const Tensor* weight = c.optional_tensor(2);
  check_nll_dtypes(self, "nll_loss_out_frame");
  Tensor w = weight ? cast_to(*weight, self->dtype(), c.key()) : Tensor();
  dispatch_dtype(self->dtype(), c.key(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>) {
      if (target->dtype() == ScalarType::Byte)
        nll_forward_frame<T, uint8_t>(c, self, target, weight ? &w : nullptr);
      else
        nll_forward_frame<T, int64_t>(c, self, target, weight ? &w : nullptr);
    }
  });
}
TN_REGISTER_STRUCTURED("aten::nll_loss_forward", nll_forward_rule, nll_forward_cpu);

// nll_loss_backward(grad_output, self, target, weight?, reduction, ignore_index, total_weight)
void nll_backward_rule(Call& c) {
  const Tensor &grad = c.tensor(0), &self = c.tensor(1), &target = c.tensor(2);
  const Tensor* weight = c.optional_tensor(3);
  const Tensor& total = c.tensor(6);
  check_nll_shapes(self, target, false);
  TN_CHECK(total->numel() == 1, "expected total_weight to be a  single element tensor, got: ",
           dims_str(total->sizes()), " (", total->numel(), " elements)");
  TN_CHECK(!weight || (*weight)->numel() == self->size(self->dim() - 1),
           "weight tensor should be defined either for all or no classes");
  if (c.to_int(4) == kNone && self->dim() == 2) {
    TN_CHECK(grad->dim() == 1 && grad->size(0) == self->size(0),
             "Expected tensor to have size ", self->size(0), " at dimension 0, but got size ",
             grad->dim() >= 1 ? grad->size(0) : 0, " for argument #1 'self' (while checking "
             "arguments for nll_loss_backward)");
  } else {
    TN_CHECK(grad->dim() <= 1 && grad->numel() == 1,
             "Expected a single element grad_output tensor, but got: ", dims_str(grad->sizes()));
  }
  c.ret(new_on(self, self->sizes(), self->dtype()));
}

// Upstream's nll_loss_backward_out_frame: zeros, and at each kept row's class -w * grad
// (reduction none) or w * -(grad / total_weight) (mean) or w * -grad (sum).
template <typename T, typename I>
void nll_backward_frame(Call& c, const Tensor& target, const Tensor* weight) {
  using A = acc_t<T>;
  const std::string& key = c.key();
  const Tensor &self = c.tensor(1), &out = c.results[0].tensor;
  int64_t reduction = c.to_int(4), ignore = c.to_int(5);
  int64_t n_classes = self->size(self->dim() - 1);
  int64_t rows = self->dim() == 2 ? self->size(0) : 1;
  Tensor t = contiguous(target, key), g = contiguous(c.tensor(0), key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  Tensor tot = contiguous(cast_to(c.tensor(6), self->dtype(), key), key);
  const I* pt = data_of<I>(t, key);
  const T* pg = data_of<T>(g, key);
  const T* pw = weight ? data_of<T>(w, key) : nullptr;
  T* po = data_of<T>(out, key);
  std::memset(static_cast<void*>(po), 0, sizeof(T) * out->numel());
  if (reduction == kNone && self->dim() == 2) {
    for (int64_t i = 0; i < rows; ++i) {
      int64_t cls = class_of(pt, i);
      if (cls == ignore) continue;
      A wv = pw ? static_cast<A>(pw[cls]) : A(1);
      po[i * n_classes + cls] = T(-wv * static_cast<A>(pg[i]));
    }
    return;
  }
  A go = static_cast<A>(pg[0]);
  A tw = static_cast<A>(*data_of<T>(tot, key));
  T grad = T(-(reduction == kMean ? static_cast<A>(T(go / tw)) : go));
  for (int64_t i = 0; i < rows; ++i) {
    int64_t cls = class_of(pt, i);
    if (cls == ignore) continue;
    check_class(cls, n_classes);
    po[i * n_classes + cls] = pw ? T(static_cast<A>(pw[cls]) * static_cast<A>(grad)) : grad;
  }
}

void nll_backward_cpu(Call& c) {
  const Tensor &self = c.tensor(1), &target = c.tensor(2);
  const Tensor* weight = c.optional_tensor(3);
  check_nll_dtypes(self, "nll_loss_backward_out_frame");
  Tensor w = weight ? cast_to(*weight, self->dtype(), c.key()) : Tensor();
  TN_CHECK(c.tensor(0)->dtype() == self->dtype(), "expected scalar type ",
           c10_dtype_name(self->dtype()), " but found ", c10_dtype_name(c.tensor(0)->dtype()));
  dispatch_dtype(self->dtype(), c.key(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>) {
      if (target->dtype() == ScalarType::Byte)
        nll_backward_frame<T, uint8_t>(c, target, weight ? &w : nullptr);
      else
        nll_backward_frame<T, int64_t>(c, target, weight ? &w : nullptr);
    }
  });
}
TN_REGISTER_STRUCTURED("aten::nll_loss_backward", nll_backward_rule, nll_backward_cpu);

}  // namespace
}  // namespace tn
