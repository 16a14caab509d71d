// The spatial negative log-likelihood loss: nll_loss2d_forward and nll_loss2d_backward for
// (N, C, H, W) inputs and (N, H, W) targets (upstream's LossNLL2d.cpp: its checks and messages,
// and the reduced sum in its 8-level cascade over the N * H * W positions, so a reduced loss
// carries its bits). The 1-D/2-D kernels are cpu/nn_loss.cpp's; the nll_loss2d composite that
// reaches these is upstream's (CompositeImplicitAutograd), registered in composite/loss2.cpp.
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

// Upstream's check_inputs_nll_loss2d.
void check_nll2d(const Tensor& x, const Tensor& t, const Tensor* w) {
  TN_CHECK(t->dim() == 3, "only batches of spatial targets supported (3D tensors) but got "
           "targets of dimension: ", t->dim());
  TN_CHECK(x->dim() == 4, "only batches of spatial inputs supported (4D tensors), but got input "
           "of dimension: ", x->dim());
  TN_CHECK(!w || (*w)->numel() == x->size(1),
           "weight tensor should be defined either for all or no classes");
  TN_CHECK(x->size(0) == t->size(0) && x->size(2) == t->size(1) && x->size(3) == t->size(2),
           "size mismatch (got input: ", dims_str(x->sizes()), " , target: ",
           dims_str(t->sizes()));
}
void check_dtypes(const Tensor& x, const Tensor& t, const char* frame) {
  TN_CHECK_KIND(info(x->dtype()).is_floating, NotImplemented, "\"", frame,
                "\" not implemented for '", c10_dtype_name(x->dtype()), "'");
  TN_CHECK(t->dtype() == ScalarType::Long || t->dtype() == ScalarType::Byte,
           "expected target dtype to be Long or Byte, but got ", c10_dtype_name(t->dtype()));
  // Upstream's check lets Byte through, then its 2-d kernel reads the target as Long.
  TN_CHECK(t->dtype() == ScalarType::Long, "expected scalar type Long but found Byte");
}

template <typename F>
void floating(ScalarType t, const std::string& key, F&& f) {
  dispatch_dtype(t, key, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                  std::is_same_v<T, BFloat16>)
      f(z);
  });
}

// nll_loss2d_forward(self, target, weight?, reduction, ignore_index) -> (output, total_weight)
void nll2d_forward_rule(Call& c) {
  const Tensor &x = c.tensor(0), &t = c.tensor(1);
  check_nll2d(x, t, c.optional_tensor(2));
  bool none = c.to_int(3) == kNone;
  c.ret(new_on(x, none ? t->sizes() : Dims{}, x->dtype()));
  c.ret(new_on(x, {}, x->dtype()));
}
void nll2d_forward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(0), &target = c.tensor(1);
  check_dtypes(self, target, "nll_loss2d_forward_out_frame");
  const Tensor* weight = c.optional_tensor(2);
  int64_t reduction = c.to_int(3), ignore = c.to_int(4);
  int64_t N = self->size(0), C = self->size(1), HW = self->size(2) * self->size(3);
  Tensor x = contiguous(self, key);
  Tensor t = contiguous(target, key);
  Tensor w = weight ? contiguous(cast_to(*weight, self->dtype(), key), key) : Tensor();
  floating(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const T* px = data_of<T>(x, key);
    const int64_t* pt = data_of<int64_t>(t, key);
    const T* pw = weight ? data_of<T>(w, key) : nullptr;
    T* po = data_of<T>(c.results[0].tensor, key);
    T* ptot = data_of<T>(c.results[1].tensor, key);
    *ptot = T(0);
    auto value = [&](int64_t b, int64_t e, int64_t cls) {
      TN_CHECK_KIND(cls >= 0 && cls < C, Index, "Target ", cls, " is out of bounds.");
      return static_cast<A>(px[(b * C + cls) * HW + e]);
    };
    if (reduction == kNone) {
      for (int64_t b = 0; b < N; ++b)
        for (int64_t e = 0; e < HW; ++e) {
          int64_t cls = pt[b * HW + e];
          if (cls == ignore) {
            po[b * HW + e] = T(0);
            continue;
          }
          A cw = pw ? static_cast<A>(pw[cls]) : A(1);
          po[b * HW + e] = T(-value(b, e, cls) * cw);
        }
      return;
    }
    // Upstream's cascade over the N * HW positions (linear index i): level 0 takes each kept
    // value; after kept position i, each level j whose 2^p block starts at i moves into j + 1.
    constexpr int kLevels = 8;
    int64_t count = N * HW;
    int64_t power = std::max<int64_t>(4, ceil_log2(count) / kLevels);
    int64_t mask0 = (int64_t(1) << power) - 1;
    T wsum[kLevels], lsum[kLevels];
    std::fill(wsum, wsum + kLevels, T(0));
    std::fill(lsum, lsum + kLevels, T(0));
    int64_t ignored = 0;
    for (int64_t i = 0; i < count; ++i) {
      int64_t b = i / HW, e = i % HW, cls = pt[i];
      if (cls == ignore) {
        ++ignored;
        continue;
      }
      A v = value(b, e, cls);
      A wv = pw ? static_cast<A>(pw[cls]) : A(1);
      lsum[0] = T(static_cast<A>(lsum[0]) - v * wv);
      wsum[0] = T(static_cast<A>(wsum[0]) + wv);
      for (int j = 0; j + 1 < kLevels; ++j) {
        if ((i & (mask0 << (j * power))) != 0) break;
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
    T tw = pw ? total_of(wsum) : T(static_cast<A>(count - ignored));
    T loss = total_of(lsum);
    if (reduction == kMean) loss = T(static_cast<A>(loss) / static_cast<A>(tw));
    *po = loss;
    *ptot = tw;
  });
}
TN_REGISTER_STRUCTURED("aten::nll_loss2d_forward", nll2d_forward_rule, nll2d_forward_cpu);

// nll_loss2d_backward(grad_output, self, target, weight?, reduction, ignore_index, total_weight)
void nll2d_backward_rule(Call& c) {
  const Tensor &g = c.tensor(0), &x = c.tensor(1), &t = c.tensor(2);
  check_nll2d(x, t, c.optional_tensor(3));
  TN_CHECK(c.tensor(6)->numel() == 1, "expected total_weight to be a single element tensor, "
           "got: ", dims_str(c.tensor(6)->sizes()), " (", c.tensor(6)->numel(), " elements)");
  if (c.to_int(4) == kNone)
    TN_CHECK(g->sizes() == t->sizes(), "grad_output must have same dimension as target: ",
             dims_str(t->sizes()), " but got: ", dims_str(g->sizes()));
  else
    TN_CHECK(g->numel() == 1, "Expected a single element grad_output tensor, but got: ",
             dims_str(g->sizes()));
  c.ret(new_on(x, x->sizes(), x->dtype()));
}
// Zeros, and at each kept position's class -w * grad (none), w * -(grad / total_weight) (mean)
// or w * -grad (sum).
void nll2d_backward_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor &self = c.tensor(1), &target = c.tensor(2);
  check_dtypes(self, target, "nll_loss2d_backward_out_frame");
  const Tensor* weight = c.optional_tensor(3);
  int64_t reduction = c.to_int(4), ignore = c.to_int(5);
  int64_t N = self->size(0), C = self->size(1), HW = self->size(2) * self->size(3);
  Tensor t = contiguous(target, key);
  Tensor g = contiguous(cast_to(c.tensor(0), self->dtype(), key), key);
  Tensor w = weight ? contiguous(cast_to(*weight, self->dtype(), key), key) : Tensor();
  Tensor tot = contiguous(cast_to(c.tensor(6), self->dtype(), key), key);
  const Tensor& out = c.results[0].tensor;
  floating(self->dtype(), key, [&](auto z) {
    using T = decltype(z);
    using A = acc_t<T>;
    const int64_t* pt = data_of<int64_t>(t, key);
    const T* pg = data_of<T>(g, key);
    const T* pw = weight ? data_of<T>(w, key) : nullptr;
    T* po = data_of<T>(out, key);
    std::memset(static_cast<void*>(po), 0, sizeof(T) * out->numel());
    A go = static_cast<A>(pg[0]), tw = static_cast<A>(*data_of<T>(tot, key));
    T grad = T(-(reduction == kMean ? static_cast<A>(T(go / tw)) : go));
    for (int64_t i = 0; i < N * HW; ++i) {
      int64_t cls = pt[i];
      if (cls == ignore) continue;
      TN_CHECK_KIND(cls >= 0 && cls < C, Index, "Target ", cls, " is out of bounds.");
      int64_t at = ((i / HW) * C + cls) * HW + i % HW;
      A wv = pw ? static_cast<A>(pw[cls]) : A(1);
      if (reduction == kNone)
        po[at] = T(-wv * static_cast<A>(pg[i]));
      else
        po[at] = pw ? T(wv * static_cast<A>(grad)) : grad;
    }
  });
}
TN_REGISTER_STRUCTURED("aten::nll_loss2d_backward", nll2d_backward_rule, nll2d_backward_cpu);

}  // namespace
}  // namespace tn
