// histc(self, bins=100, min=0, max=0) and histc.out, as upstream's CPU computes it: the range
// [min, max] (the data's own extremes when min == max, widened by 1 each way when those are
// equal too), bins + 1 edges from linspace in the input dtype, and per element inside the range
// (NaN is not) its bin by linear interpolation in the input dtype (upstream's histc takes no
// local search); the last bin holds its right edge. Counts accumulate in the input dtype.
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

constexpr int64_t kGrain = 200;  // upstream's HISTOGRAM_GRAIN_SIZE

// Upstream's dispatch refusal: the legacy type name without "Tensor" ('Long', 'Int', ...).
void check_histc_dtype(ScalarType dt) {
  if (is_floating(dt)) return;
  std::string legacy = info(dt).legacy_name;
  if (legacy.size() > 6) legacy.resize(legacy.size() - 6);
  TN_FAIL(NotImplemented, "\"histogram_cpu\" not implemented for '", legacy, "'");
}

// The outer edges as upstream's histc_select_outer_bin_edges picks them.
std::pair<double, double> outer_edges(const Tensor& self, double lo, double hi,
                                      const std::string& key) {
  if (lo == hi && self->numel() > 0) {
    Tensor x = contiguous(self, key);
    dispatch_dtype(x->dtype(), key, [&](auto zero) {
      using T = decltype(zero);
      using A = acc_t<T>;
      const T* p = data_of<T>(x, key);
      A mn = A(p[0]), mx = A(p[0]);
      bool nan = false;
      for (int64_t i = 0; i < x->numel(); ++i) {  // aminmax: a NaN makes both NaN
        A v = A(p[i]);
        nan = nan || std::isnan(static_cast<double>(v));
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
      if (nan) mn = mx = A(NAN);
      lo = static_cast<double>(mn);
      hi = static_cast<double>(mx);
    });
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TN_CHECK(!(std::isinf(lo) || std::isinf(hi) || std::isnan(lo) || std::isnan(hi)),
           "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  TN_CHECK(lo < hi, "torch.histc: max must be larger than min");
  return {lo, hi};
}

// Fill: the CPU kernel counts; Meta's checks and allocates only.
template <bool Fill>
Tensor histc_of(const Call& c) {
  const Tensor& self = c.tensor(0);
  const std::string& key = c.key();
  const int64_t bins = c.to_int(1);
  check_supported(self, key);
  check_histc_dtype(self->dtype());
  TN_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  Tensor hist = call_tensor("aten::zeros", {ops::ints({bins}), Value::of_dtype(self->dtype()),
                                            Value{}, Value::of_device(self->device())});
  if (!Fill) return hist;
  auto [lo, hi] = outer_edges(self, c.scalar(2).to_double(), c.scalar(3).to_double(), key);
  Tensor edges = call_tensor("aten::linspace", {Value::of_scalar(Scalar::from_double(lo)),
                                                Value::of_scalar(Scalar::from_double(hi)),
                                                Value::of_int(bins + 1),
                                                Value::of_dtype(self->dtype())});
  Tensor x = contiguous(self, key);
  const int64_t n = x->numel();
  // Upstream's parallel_for split: one private histogram per chunk (at most one per thread,
  // chunks of at least 200 elements), added together at the end. 16-bit counts saturate, so
  // the split shows in their totals.
  const int64_t chunks = n > kGrain ? std::min<int64_t>(intra_op_threads(), (n + kGrain - 1) /
                                                                             kGrain) : 1;
  const int64_t chunk = chunks > 0 ? (n + chunks - 1) / chunks : n;
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* e = data_of<T>(edges, key);
      const T* p = data_of<T>(x, key);
      T* h = data_of<T>(hist, key);
      const T left = e[0], right = e[bins];
      // (v - left) * bins / (right - left), each step rounded to T as T's own operators do.
      auto bin_of = [&](T v) {
        T d = T(A(v) - A(left));
        T scaled = T(A(d) * A(T(A(bins))));
        T span = T(A(right) - A(left));
        return static_cast<int64_t>(A(T(A(scaled) / A(span))));
      };
      std::vector<std::vector<T>> part(static_cast<size_t>(std::max<int64_t>(chunks, 1)),
                                       std::vector<T>(static_cast<size_t>(bins), T(0)));
      for (int64_t i = 0; i < n; ++i) {
        const T v = p[i];
        if (!(A(v) >= A(left) && A(v) <= A(right))) continue;
        int64_t pos = bin_of(v);
        if (pos == bins) pos -= 1;
        T& slot = part[static_cast<size_t>(i / chunk)][static_cast<size_t>(pos)];
        slot = T(A(slot) + A(1));
      }
      for (int64_t b = 0; b < bins; ++b) {
        A total = 0;
        for (const std::vector<T>& one : part) total += A(one[static_cast<size_t>(b)]);
        h[b] = T(total);
      }
    }
  });
  return hist;
}

// histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0)
template <bool Fill>
void histc(Call& c) { c.ret(histc_of<Fill>(c)); }
// histc.out(self, bins, min, max, *, out): out must have the input's dtype.
template <bool Fill>
void histc_out(Call& c) {
  const Tensor& out = c.tensor(4);
  TN_CHECK(out->dtype() == c.tensor(0)->dtype(), "torch.histogram: input tensor and hist "
           "tensor should have the same dtype, but got input ", cpp_type_name(c.tensor(0)->dtype()),
           " and hist ", cpp_type_name(out->dtype()));
  c.ret(ops::write_out(out, histc_of<Fill>(c), c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::histc", DenseCPU, histc<true>);
TN_REGISTER_KERNEL("aten::histc", Meta, histc<false>);
TN_REGISTER_KERNEL("aten::histc.out", DenseCPU, histc_out<true>);
TN_REGISTER_KERNEL("aten::histc.out", Meta, histc_out<false>);

}  // namespace tn
