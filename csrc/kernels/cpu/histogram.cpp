// histogram (.bin_ct, .bins_tensor and their out= forms) as upstream's CPU computes it
// (Histogram.cpp, cpu/HistogramKernel.cpp): the input flattened to one coordinate per element,
//   bin_ct       edges = linspace(min, max, bins + 1) in the input dtype, where [min, max] is
//                `range` or the data's extremes (0, 1 when empty; widened by 0.5 each way when
//                equal); each element's bin by linear interpolation in the input dtype, then
//                corrected by a search of its neighbouring edges (upstream's local search);
//   bins_tensor  the given edges, each element's bin by binary search (upper_bound);
// elements outside [first, last] edge (and NaN) are skipped; the last bin holds its right edge.
// Counts (or weights) accumulate in the input dtype, one private histogram per chunk of
// upstream's parallel_for split, added in order at the end; density divides by the total and
// by each bin's width. No Meta kernel, as upstream has none (the edges depend on the data).
#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

constexpr int64_t kGrain = 200;  // upstream's HISTOGRAM_GRAIN_SIZE

bool is_hist_float(ScalarType dt) {
  return dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half ||
         dt == ScalarType::BFloat16;
}

// histogramdd_check_inputs for a one-dimensional histogram (input seen as [numel, 1]).
void check_inputs(const Tensor& self, const Tensor& edges, const Tensor* weight) {
  TN_CHECK(self->dtype() == edges->dtype(), "torch.histogramdd: input tensor and bins tensors "
           "should have the same dtype, but got input with dtype ", cpp_type_name(self->dtype()),
           " and bins for dimension 0 with dtype ", cpp_type_name(edges->dtype()));
  TN_CHECK(edges->dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but "
           "got ", edges->dim(), " dimensions in the bins tensor for dimension 0");
  TN_CHECK(edges->numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element, "
           "but got ", edges->numel(), " elements in the bins tensor for dimension 0");
  if (!weight) return;
  const Tensor& w = *weight;
  TN_CHECK(self->dtype() == w->dtype(), "torch.histogramdd: if weight tensor is provided, input "
           "tensor and weight tensor should have the same dtype, but got input(",
           cpp_type_name(self->dtype()), "), and weight(", cpp_type_name(w->dtype()), ")");
  TN_CHECK(w->numel() == self->numel(), "torch.histogramdd: if weight tensor is provided it "
           "should have the same shape as the input tensor excluding its innermost dimension, "
           "but got input with shape ", dims_str({self->numel(), 1}), " and weight with shape ",
           dims_str({w->numel()}));
}
// histogramdd_prepare_out's checks on the out= tensors.
void check_outs(const Tensor& self, const Tensor& hist, const Tensor& edges, int64_t bins) {
  TN_CHECK(self->dtype() == hist->dtype(), "torch.histogram: input tensor and hist tensor should "
           "have the same dtype, but got input ", cpp_type_name(self->dtype()), " and hist ",
           cpp_type_name(hist->dtype()));
  TN_CHECK(self->dtype() == edges->dtype(), "torch.histogram: input tensor and bin_edges tensor "
           "should have the same dtype, but got input ", cpp_type_name(self->dtype()),
           " and bin_edges ", cpp_type_name(edges->dtype()), " for dimension 0");
  TN_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
}

// select_outer_bin_edges for one dimension: range, else the data's extremes.
std::pair<double, double> outer_edges(const Tensor& self, const Value& range,
                                      const std::string& key) {
  double lo = 0, hi = 1;
  if (!range.is_none()) {
    TN_CHECK(range.doubles.size() == 2, "torch.histogramdd: for a 1-dimensional histogram range "
             "should have 2 elements, but got ", range.doubles.size());
    lo = range.doubles[0];
    hi = range.doubles[1];
  } else if (self->numel() > 0) {
    const ScalarType dt = self->dtype();
    TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                  "\"histogramdd\" not implemented for '", c10_dtype_name(dt), "'");
    // upstream's aminmax over the [numel, 1] view: the extremes, NaN if any element is NaN
    auto extreme = [&](const char* op) {
      Tensor r = call_tensor(op, {t(self)});
      return call("aten::_local_scalar_dense", {t(r)})[0].scalar.to_double();
    };
    lo = extreme("aten::min");
    hi = extreme("aten::max");
    (void)key;
  }
  TN_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension 0's range [",
           lo, ", ", hi, "] is not finite");
  TN_CHECK(lo <= hi, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ",
           hi, " for dimension 0");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return {lo, hi};
}

template <typename T>
using SumAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The counting pass into hist (bins = edges' numel - 1), then density.
template <bool kLinear>
void fill(const Tensor& self, const Tensor& edges_in, const Tensor* weight, bool density,
          const Tensor& hist, const std::string& key) {
  const ScalarType dt = self->dtype();
  TN_CHECK_KIND(is_hist_float(dt), NotImplemented, "\"histogram_cpu\" not implemented for '",
                c10_dtype_name(dt), "'");
  Tensor x = contiguous(self, key), edges = contiguous(edges_in, key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  const int64_t n = x->numel(), nedges = edges->numel(), bins = nedges - 1;
  const int64_t chunks =
      n > kGrain ? std::min<int64_t>(intra_op_threads(), (n + kGrain - 1) / kGrain) : 1;
  const int64_t chunk = std::max<int64_t>((n + chunks - 1) / chunks, 1);
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<acc_t<T>>) {
      using A = SumAcc<T>;
      const T* e = data_of<T>(edges, key);
      const T* p = data_of<T>(x, key);
      const T* pw = weight ? data_of<T>(w, key) : nullptr;
      const T left = e[0], right = e[bins];
      auto after = [&](int64_t lo, int64_t hi, T v) {  // upper_bound over e[lo, hi)
        return std::upper_bound(e + lo, e + hi, v, [](T a, T b) { return A(a) < A(b); }) - e;
      };
      std::vector<std::vector<T>> part(static_cast<size_t>(chunks),
                                       std::vector<T>(static_cast<size_t>(bins), T(0)));
      for (int64_t i = 0; i < n; ++i) {
        const T v = p[i];
        if (!(A(v) >= A(left) && A(v) <= A(right))) continue;
        int64_t pos;
        if constexpr (kLinear) {
          // (v - left) * bins / (right - left), each step rounded to T as T's operators do.
          T d = T(A(v) - A(left));
          T scaled = T(A(d) * A(T(A(bins))));
          T span = T(A(right) - A(left));
          pos = static_cast<int64_t>(A(T(A(scaled) / A(span))));
          pos = after(std::max<int64_t>(0, pos - 1), std::min(pos + 2, nedges), v) - 1;
        } else {
          pos = after(0, nedges, v) - 1;
        }
        if (pos == bins) pos -= 1;
        T& slot = part[static_cast<size_t>(i / chunk)][static_cast<size_t>(pos)];
        slot = T(A(slot) + A(pw ? pw[i] : T(1)));
      }
      T* h = data_of<T>(hist, key);
      for (int64_t b = 0; b < bins; ++b) {
        A total = 0;
        for (const std::vector<T>& one : part) total += A(one[static_cast<size_t>(b)]);
        h[b] = T(total);
      }
    }
  });
  if (!density) return;
  Value total = call("aten::_local_scalar_dense", {t(call_tensor("aten::sum", {t(hist)}))})[0];
  call("aten::div_.Scalar", {t(hist), Value::of_scalar(total.scalar)});
  call("aten::div_.Tensor", {t(hist), t(call_tensor("aten::diff", {t(edges_in)}))});
}

// histogram.bin_ct(self, bins, *, range, weight, density) -> (hist, bin_edges)
std::pair<Tensor, Tensor> bin_ct_of(const Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t bins = c.to_int(1);
  TN_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  const Tensor* weight = c.optional_tensor(3);
  Tensor hist = call_tensor("aten::zeros", {ops::ints({bins}), Value::of_dtype(self->dtype()),
                                            Value{}, Value::of_device(self->device())});
  auto [lo, hi] = outer_edges(self, c.arg(2), c.key());
  Tensor edges = call_tensor("aten::linspace", {Value::of_scalar(Scalar::from_double(lo)),
                                                Value::of_scalar(Scalar::from_double(hi)),
                                                Value::of_int(bins + 1),
                                                Value::of_dtype(self->dtype())});
  check_inputs(self, edges, weight);
  fill<true>(self, edges, weight, c.to_bool(4), hist, c.key());
  return {hist, edges};
}
void histogram_bin_ct(Call& c) {
  auto [hist, edges] = bin_ct_of(c);
  c.ret(hist);
  c.ret(edges);
}
void histogram_bin_ct_out(Call& c) {
  check_outs(c.tensor(0), c.tensor(5), c.tensor(6), c.to_int(1));
  auto [hist, edges] = bin_ct_of(c);
  ops::ret_all(c, {hist, edges}, 5);
}

// histogram.bins_tensor(self, bins, *, weight, density) -> (hist, bin_edges)
std::pair<Tensor, Tensor> bins_tensor_of(const Call& c) {
  const Tensor &self = c.tensor(0), &bins = c.tensor(1);
  const Tensor* weight = c.optional_tensor(2);
  check_inputs(self, bins, weight);
  const int64_t count = bins->numel() - 1;
  TN_CHECK(count > 0, "torch.histogram(): bins must be > 0, but got ", count,
           " for dimension 0");
  Tensor hist = call_tensor("aten::zeros", {ops::ints({count}), Value::of_dtype(self->dtype()),
                                            Value{}, Value::of_device(self->device())});
  Tensor edges = ops::empty({count + 1}, bins->dtype(), bins->device());
  ops::copy_(edges, bins);
  fill<false>(self, edges, weight, c.to_bool(3), hist, c.key());
  return {hist, edges};
}
void histogram_bins_tensor(Call& c) {
  auto [hist, edges] = bins_tensor_of(c);
  c.ret(hist);
  c.ret(edges);
}
void histogram_bins_tensor_out(Call& c) {
  auto [hist, edges] = bins_tensor_of(c);
  check_outs(c.tensor(0), c.tensor(4), c.tensor(5), hist->numel());
  ops::ret_all(c, {hist, edges}, 4);
}

}  // namespace

TN_REGISTER_KERNEL("aten::histogram.bin_ct", DenseCPU, histogram_bin_ct);
TN_REGISTER_KERNEL("aten::histogram.bin_ct_out", DenseCPU, histogram_bin_ct_out);
TN_REGISTER_KERNEL("aten::histogram.bins_tensor", DenseCPU, histogram_bins_tensor);
TN_REGISTER_KERNEL("aten::histogram.bins_tensor_out", DenseCPU, histogram_bins_tensor_out);

}  // namespace tn
