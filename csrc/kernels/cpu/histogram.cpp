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
// histogramdd (.default, .int_bins, .TensorList_bins) and its pieces _histogramdd_bin_edges,
// _histogramdd_from_bin_cts and _histogramdd_from_bin_tensors are the same kernel over N
// coordinates per row (the last dim), bins indexed row-major, grain 200 / N.
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

// The counting pass over x2 ([M, N]: M coordinates of N dims) into the contiguous hist (one dim
// of edges[d]'s numel - 1 bins per d), then density.
template <bool kLinear>
void fill_nd(const Tensor& x2, const std::vector<Tensor>& edges_in, const Tensor* weight,
             bool density, const Tensor& hist, const std::string& key) {
  const ScalarType dt = x2->dtype();
  TN_CHECK_KIND(is_hist_float(dt), NotImplemented, "\"histogram_cpu\" not implemented for '",
                c10_dtype_name(dt), "'");
  const int64_t m = x2->size(0), nd = x2->size(1);
  if (nd == 0) return;
  Tensor x = contiguous(x2, key);
  Tensor w = weight ? contiguous(*weight, key) : Tensor();
  std::vector<Tensor> edges;
  for (const Tensor& e : edges_in) edges.push_back(contiguous(e, key));
  const int64_t grain = std::max<int64_t>(1, kGrain / nd);
  const int64_t chunks =
      m > grain ? std::min<int64_t>(intra_op_threads(), (m + grain - 1) / grain) : 1;
  const int64_t chunk = std::max<int64_t>((m + chunks - 1) / chunks, 1);
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<acc_t<T>>) {
      using A = SumAcc<T>;
      const T* p = data_of<T>(x, key);
      const T* pw = weight ? data_of<T>(w, key) : nullptr;
      std::vector<const T*> e(static_cast<size_t>(nd));
      std::vector<int64_t> ne(static_cast<size_t>(nd)), stride(static_cast<size_t>(nd));
      int64_t cells = 1;
      for (int64_t d = nd - 1; d >= 0; --d) {
        e[size_t(d)] = data_of<T>(edges[size_t(d)], key);
        ne[size_t(d)] = edges[size_t(d)]->numel();
        stride[size_t(d)] = cells;
        cells *= ne[size_t(d)] - 1;
      }
      std::vector<std::vector<T>> part(static_cast<size_t>(chunks),
                                       std::vector<T>(static_cast<size_t>(cells), T(0)));
      for (int64_t i = 0; i < m; ++i) {
        int64_t cell = 0;
        bool skip = false;
        for (int64_t d = 0; d < nd && !skip; ++d) {
          const T* ed = e[size_t(d)];
          const int64_t n_e = ne[size_t(d)], bins = n_e - 1;
          const T v = p[i * nd + d], left = ed[0], right = ed[bins];
          if (!(A(v) >= A(left) && A(v) <= A(right))) {
            skip = true;
            break;
          }
          auto after = [&](int64_t lo, int64_t hi) {  // upper_bound over ed[lo, hi)
            return std::upper_bound(ed + lo, ed + hi, v,
                                    [](T a, T b) { return A(a) < A(b); }) - ed;
          };
          int64_t pos;
          if constexpr (kLinear) {
            // (v - left) * bins / (right - left), each step rounded to T as T's operators do.
            T dv = T(A(v) - A(left));
            T scaled = T(A(dv) * A(T(A(bins))));
            T span = T(A(right) - A(left));
            pos = static_cast<int64_t>(A(T(A(scaled) / A(span))));
            pos = after(std::max<int64_t>(0, pos - 1), std::min(pos + 2, n_e)) - 1;
          } else {
            pos = after(0, n_e) - 1;
          }
          if (pos == bins) pos -= 1;
          cell += stride[size_t(d)] * pos;
        }
        if (skip) continue;
        T& slot = part[static_cast<size_t>(i / chunk)][static_cast<size_t>(cell)];
        slot = T(A(slot) + A(pw ? pw[i] : T(1)));
      }
      T* h = data_of<T>(hist, key);
      for (int64_t b = 0; b < cells; ++b) {
        A total = 0;
        for (const std::vector<T>& one : part) total += A(one[static_cast<size_t>(b)]);
        h[b] = T(total);
      }
    }
  });
  if (!density) return;
  Value total = call("aten::_local_scalar_dense", {t(call_tensor("aten::sum", {t(hist)}))})[0];
  call("aten::div_.Scalar", {t(hist), Value::of_scalar(total.scalar)});
  for (int64_t d = 0; d < nd; ++d) {
    Tensor len = call_tensor("aten::diff", {t(edges_in[size_t(d)])});
    Dims shape(static_cast<size_t>(nd), 1);
    shape[size_t(d)] = len->numel();
    Tensor by = call_tensor("aten::reshape", {t(len), ops::ints(shape)});
    call("aten::div_.Tensor", {t(hist), t(by)});
  }
}
// One-dimensional: self flattened to [numel, 1].
template <bool kLinear>
void fill(const Tensor& self, const Tensor& edges, const Tensor* weight, bool density,
          const Tensor& hist, const std::string& key) {
  Tensor x2 = call_tensor("aten::reshape", {t(self), ops::ints({self->numel(), 1})});
  fill_nd<kLinear>(x2, {edges}, weight, density, hist, key);
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

// histogramdd's pieces: self is [..., N], N coordinates per row.
const char* kNeedsTwoDims = "torch.histogramdd: input tensor should have at least 2 dimensions";

void check_inputs_nd(const Tensor& self, const std::vector<Tensor>& bins, const Tensor* weight) {
  TN_CHECK(self->dim() >= 2, kNeedsTwoDims, ", but got ", self->dim());
  const int64_t n = self->size(self->dim() - 1);
  TN_CHECK(int64_t(bins.size()) == n, "torch.histogramdd: expected ", n, " sequences of bin "
           "edges for a ", n, "-dimensional histogram but got ", bins.size());
  for (int64_t d = 0; d < n; ++d) {
    const Tensor& b = bins[size_t(d)];
    TN_CHECK(self->dtype() == b->dtype(), "torch.histogramdd: input tensor and bins tensors "
             "should have the same dtype, but got input with dtype ",
             cpp_type_name(self->dtype()), " and bins for dimension ", d, " with dtype ",
             cpp_type_name(b->dtype()));
    TN_CHECK(b->dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ",
             b->dim(), " dimensions in the bins tensor for dimension ", d);
    TN_CHECK(b->numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element, "
             "but got ", b->numel(), " elements in the bins tensor for dimension ", d);
  }
  if (!weight) return;
  const Tensor& w = *weight;
  TN_CHECK(self->dtype() == w->dtype(), "torch.histogramdd: if weight tensor is provided, input "
           "tensor and weight tensor should have the same dtype, but got input(",
           cpp_type_name(self->dtype()), "), and weight(", cpp_type_name(w->dtype()), ")");
  Dims in(self->sizes().begin(), self->sizes().end() - 1);
  Dims ws = w->dim() == 0 ? Dims{1} : w->sizes();
  TN_CHECK(in == ws, "torch.histogramdd: if weight tensor is provided it should have the same "
           "shape as the input tensor excluding its innermost dimension, but got input with "
           "shape ", dims_str(self->sizes()), " and weight with shape ", dims_str(w->sizes()));
}
Tensor rows_of(const Tensor& self) {
  const int64_t n = self->size(self->dim() - 1);
  const int64_t m = n ? self->numel() / n : 0;
  Dims rows{m, n};
  if (n == 0) {
    rows[0] = 1;
    for (int64_t d = 0; d + 1 < self->dim(); ++d) rows[0] *= self->size(d);
  }
  return call_tensor("aten::reshape", {t(self), ops::ints(rows)});
}
// histogramdd_bin_edges: linspace edges per dim between range or the rows' extremes.
std::vector<Tensor> bin_edges_nd(const Tensor& self, const Dims& bins, const Value& range) {
  TN_CHECK(self->dim() >= 2, kNeedsTwoDims);
  const int64_t n = self->size(self->dim() - 1);
  Tensor x2 = rows_of(self);
  std::vector<double> lo(size_t(n), 0.0), hi(size_t(n), 1.0);
  if (!range.is_none()) {
    TN_CHECK(int64_t(range.doubles.size()) == 2 * n, "torch.histogramdd: for a ", n,
             "-dimensional histogram range should have ", 2 * n, " elements, but got ",
             range.doubles.size());
    for (int64_t d = 0; d < n; ++d) {
      lo[size_t(d)] = range.doubles[size_t(2 * d)];
      hi[size_t(d)] = range.doubles[size_t(2 * d + 1)];
    }
  } else if (x2->numel() > 0) {
    const ScalarType dt = self->dtype();
    TN_CHECK_KIND(dt == ScalarType::Float || dt == ScalarType::Double, NotImplemented,
                  "\"histogramdd\" not implemented for '", c10_dtype_name(dt), "'");
    auto column = [&](const char* op, std::vector<double>& into) {
      Tensor r = call_tensor("aten::to.dtype", {t(call_tensor(op, {t(x2), ops::ints({0})})),
                                                Value::of_dtype(ScalarType::Double)});
      for (int64_t d = 0; d < n; ++d)
        into[size_t(d)] = call("aten::_local_scalar_dense",
                               {t(call_tensor("aten::select.int", {t(r), ops::i64(0),
                                                                   ops::i64(d)}))})[0]
                              .scalar.to_double();
    };
    column("aten::amin", lo);
    column("aten::amax", hi);
  }
  for (int64_t d = 0; d < n; ++d) {
    double& l = lo[size_t(d)];
    double& h = hi[size_t(d)];
    TN_CHECK(std::isfinite(l) && std::isfinite(h), "torch.histogramdd: dimension ", d,
             "'s range [", l, ", ", h, "] is not finite");
    TN_CHECK(l <= h, "torch.histogramdd: min should not exceed max, but got min ", l, " max ", h,
             " for dimension ", d);
    if (l == h) {
      l -= 0.5;
      h += 0.5;
    }
  }
  TN_CHECK(int64_t(bins.size()) == n, "histogramdd: The size of bins must be equal to the "
           "innermost dimension of the input.");
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < n; ++d) {
    const Value l = Value::of_scalar(Scalar::from_double(lo[size_t(d)]));
    const Value h = Value::of_scalar(Scalar::from_double(hi[size_t(d)]));
    edges.push_back(call_tensor("aten::linspace",
                                {l, h, Value::of_int(bins[size_t(d)] + 1),
                                 Value::of_dtype(self->dtype()), Value{},
                                 Value::of_device(self->device())}));
  }
  return edges;
}
// The histogram over edges (checked as upstream's histogramdd_out_cpu does).
template <bool kLinear>
Tensor histogram_nd(const Tensor& self, const std::vector<Tensor>& edges, const Tensor* weight,
                    bool density, const std::string& key) {
  check_inputs_nd(self, edges, weight);
  Dims counts;
  for (size_t d = 0; d < edges.size(); ++d) {
    const int64_t bins = edges[d]->numel() - 1;
    TN_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension ",
             d);
    counts.push_back(bins);
  }
  Tensor hist = call_tensor("aten::zeros", {ops::ints(counts), Value::of_dtype(self->dtype()),
                                            Value{}, Value::of_device(self->device())});
  Tensor x2 = rows_of(self);
  Tensor w;
  if (weight) w = call_tensor("aten::reshape", {t(*weight), ops::ints({x2->size(0)})});
  fill_nd<kLinear>(x2, edges, weight ? &w : nullptr, density, hist, key);
  return hist;
}

// _histogramdd_bin_edges(self, int[] bins, *, range, weight, density) -> Tensor[]
void histogramdd_bin_edges(Call& c) {
  c.ret(Value::of_tensors(bin_edges_nd(c.tensor(0), c.arg(1).ints, c.arg(2))));
}
// _histogramdd_from_bin_cts(self, int[] bins, *, range, weight, density) -> Tensor
void histogramdd_from_bin_cts(Call& c) {
  std::vector<Tensor> edges = bin_edges_nd(c.tensor(0), c.arg(1).ints, c.arg(2));
  c.ret(histogram_nd<true>(c.tensor(0), edges, c.optional_tensor(3), c.to_bool(4), c.key()));
}
// _histogramdd_from_bin_tensors(self, Tensor[] bins, *, weight, density) -> Tensor
void histogramdd_from_bin_tensors(Call& c) {
  TN_CHECK(c.tensor(0)->dim() >= 2, kNeedsTwoDims);
  c.ret(histogram_nd<false>(c.tensor(0), c.arg(1).tensors, c.optional_tensor(2), c.to_bool(3),
                            c.key()));
}
// histogramdd(self, int[] bins, range, weight, density) -> (hist, bin_edges), and int_bins.
void histogramdd_of(Call& c, const Dims& bins) {
  Value b = Value::of_ints(bins);
  std::vector<Value> edges = call("aten::_histogramdd_bin_edges",
                                  {c.arg(0), b, c.arg(2), c.arg(3), c.arg(4)});
  Tensor hist = call_tensor("aten::_histogramdd_from_bin_cts",
                            {c.arg(0), b, c.arg(2), c.arg(3), c.arg(4)});
  c.ret(hist);
  c.ret(std::move(edges[0]));
}
void histogramdd(Call& c) { histogramdd_of(c, c.arg(1).ints); }
void histogramdd_int_bins(Call& c) {
  const Tensor& x = c.tensor(0);
  TN_CHECK_KIND(x->dim() > 0, Index, "Dimension specified as -1 but tensor has no dimensions");
  histogramdd_of(c, Dims(size_t(x->size(x->dim() - 1)), c.to_int(1)));
}
// histogramdd.TensorList_bins(self, Tensor[] bins, range, weight, density): range unused.
void histogramdd_tensors(Call& c) {
  c.ret(call_tensor("aten::_histogramdd_from_bin_tensors",
                    {c.arg(0), c.arg(1), c.arg(3), c.arg(4)}));
  c.ret(c.arg(1));
}

}  // namespace

TN_REGISTER_KERNEL("aten::histogram.bin_ct", DenseCPU, histogram_bin_ct);
TN_REGISTER_KERNEL("aten::histogram.bin_ct_out", DenseCPU, histogram_bin_ct_out);
TN_REGISTER_KERNEL("aten::histogram.bins_tensor", DenseCPU, histogram_bins_tensor);
TN_REGISTER_KERNEL("aten::histogram.bins_tensor_out", DenseCPU, histogram_bins_tensor_out);

TN_REGISTER_KERNEL("aten::_histogramdd_bin_edges", DenseCPU, histogramdd_bin_edges);
TN_REGISTER_KERNEL("aten::_histogramdd_from_bin_cts", DenseCPU, histogramdd_from_bin_cts);
TN_REGISTER_KERNEL("aten::_histogramdd_from_bin_tensors", DenseCPU,
                   histogramdd_from_bin_tensors);
TN_REGISTER_COMPOSITE("aten::histogramdd", histogramdd);
TN_REGISTER_COMPOSITE("aten::histogramdd.int_bins", histogramdd_int_bins);
TN_REGISTER_COMPOSITE("aten::histogramdd.TensorList_bins", histogramdd_tensors);

}  // namespace tn
