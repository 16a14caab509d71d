// Sorting and selection along one dim: sort (stable or not), topk and kthvalue, with the
// composites over them (argsort, msort, the out= spellings). Every order puts NaN above every
// number, as upstream's CPU kernels (numpy's convention). Ties keep upstream's order where its
// CPU kernel is the standard library's: stable sorts, unstable sorts of bool, 8/16-bit and
// 16-bit float tensors (std::sort over (value, index) pairs), topk (std::partial_sort when
// k * 64 <= n, else std::nth_element then std::sort of the first k - 1), and kthvalue
// (median-of-three quickselect on a contiguous copy). Upstream's unstable sort of int32, int64,
// float and double goes through x86-simd-sort, whose order among equal values is its own: there
// the values agree and the indices of equal values may differ (upstream documents that order as
// unspecified). Structured: the shape rules are shared with meta.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

template <typename A>
bool nan_of(A v) {
  if constexpr (std::is_floating_point_v<A>) return std::isnan(v);
  else return false;
}
// "a comes before b": ascending puts NaN last, descending first (upstream's key comparators).
template <typename A>
struct Before {
  bool descending;
  bool operator()(const std::pair<A, int64_t>& a, const std::pair<A, int64_t>& b) const {
    if (descending) return (nan_of(a.first) && !nan_of(b.first)) || a.first > b.first;
    return (!nan_of(a.first) && nan_of(b.first)) || a.first < b.first;
  }
};

// The slices along dim of t: outer offsets (row-major over the other dims) and the stride.
struct Slices {
  std::vector<int64_t> outer;
  int64_t stride;
};
Slices slices_of(const Tensor& t, int64_t dim) {
  std::vector<bool> mask(static_cast<size_t>(t->dim()), false);
  mask[static_cast<size_t>(dim)] = true;
  ReduceGeom g = reduce_geom(t, mask);
  return {std::move(g.outer), t->stride(dim)};
}

// An output laid out as self (upstream's sort: self's strides when dense, else dense strides
// in self's order).
Tensor new_like_strided(const Tensor& self, ScalarType dtype) {
  return ops::empty_strided(self->sizes(), preserve_strides(*self), dtype, self->device());
}

// --- sort -------------------------------------------------------------------------------------

// sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False)
// Upstream's CPU sort and topk kernels refuse complex tensors with a RuntimeError (their meta
// functions do not look, so neither do the rules); `what` names the op as its message does.
void check_not_complex(const Tensor& self, const char* what) {
  TN_CHECK(!is_complex(self->dtype()), " ", what, " does not support complex dtypes on CPU");
}

void sort_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  if (!is_complex(self->dtype())) check_supported(self, c.key());
  wrap_dim(c.to_int(2), self->dim());
  c.ret(new_like_strided(self, self->dtype()));
  c.ret(new_like_strided(self, ScalarType::Long));
}

void sort_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  check_not_complex(self, "Sort");
  const Tensor& values = c.results[0].tensor;
  const Tensor& indices = c.results[1].tensor;
  const bool stable = !c.arg(1).is_none() && c.to_bool(1);
  const bool descending = c.to_bool(3);
  const std::string& key = c.key();
  if (self->numel() == 0) return;
  if (self->dim() == 0) {
    copy_cast(values, self, key);
    *data_of<int64_t>(indices, key) = 0;
    return;
  }
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  const int64_t n = self->size(dim);
  Slices in = slices_of(self, dim), vo = slices_of(values, dim), io = slices_of(indices, dim);
  // A dim of stride 0 (an expanded tensor) is every slice equal: upstream leaves the identity.
  const bool identity = self->stride(dim) == 0;
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const T* x = data_of<T>(self, key);
    T* v = data_of<T>(values, key);
    int64_t* ix = data_of<int64_t>(indices, key);
    std::vector<std::pair<A, int64_t>> buf(static_cast<size_t>(n));
    Before<A> before{descending};
    for (size_t s = 0; s < in.outer.size(); ++s) {
      for (int64_t j = 0; j < n; ++j) buf[j] = {A(x[in.outer[s] + j * in.stride]), j};
      if (!identity) {
        if (stable) std::stable_sort(buf.begin(), buf.end(), before);
        else std::sort(buf.begin(), buf.end(), before);
      }
      for (int64_t j = 0; j < n; ++j) {
        v[vo.outer[s] + j * vo.stride] = T(buf[j].first);
        ix[io.outer[s] + j * io.stride] = buf[j].second;
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::sort.stable", sort_rule, sort_cpu);

// sort(Tensor self, int dim=-1, bool descending=False): sort.stable with stable=False.
void sort_default(Call& c) {
  for (Value& v : call("aten::sort.stable", {c.arg(0), Value::of_bool(false), c.arg(1),
                                             c.arg(2)}))
    c.ret(std::move(v));
}
TN_REGISTER_COMPOSITE("aten::sort", sort_default);

// A structured out= argument: its dtype must be the result's (upstream's resize_out check).
void write_exact(const Tensor& out, const Tensor& result, const std::string& key) {
  TN_CHECK(out->dtype() == result->dtype(), "Expected out tensor to have dtype ",
           cpp_type_name(result->dtype()), ", but got ", cpp_type_name(out->dtype()),
           " instead");
  ops::write_out(out, result, key);
}
// Two results (values, indices) written into the two out= tensors, returned as they are.
void ret_two_out(Call& c, std::vector<Value> results, size_t values_at) {
  const Tensor& vo = c.tensor(values_at);
  const Tensor& io = c.tensor(values_at + 1);
  write_exact(vo, results[0].tensor, c.key());
  write_exact(io, results[1].tensor, c.key());
  c.ret(vo);
  c.ret(io);
}

// sort.values_stable(self, *, stable, dim, descending, values, indices)
void sort_values_stable(Call& c) {
  ret_two_out(c, call("aten::sort.stable", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)}), 4);
}
TN_REGISTER_COMPOSITE("aten::sort.values_stable", sort_values_stable);
// sort.values(self, dim, descending, *, values, indices)
void sort_values(Call& c) {
  ret_two_out(c, call("aten::sort.stable", {c.arg(0), Value::of_bool(false), c.arg(1),
                                            c.arg(2)}), 3);
}
TN_REGISTER_COMPOSITE("aten::sort.values", sort_values);

// argsort(self, dim, descending): sort's indices; argsort.stable(self, *, stable, dim, desc).
void argsort(Call& c) {
  c.ret(call("aten::sort.stable", {c.arg(0), Value::of_bool(false), c.arg(1), c.arg(2)})[1]);
}
void argsort_stable(Call& c) {
  c.ret(call("aten::sort.stable", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)})[1]);
}
// argsort.stable_out(self, *, stable, dim, descending, out): sort's out= form with a scratch
// values tensor, as upstream (so its autograd refusal of out= is sort's).
void argsort_stable_out(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor values = ops::empty({0}, self->dtype(), self->device());
  call("aten::sort.values_stable", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), ops::t(values),
                                    c.arg(4)});
  c.ret(c.tensor(4));
}
TN_REGISTER_COMPOSITE("aten::argsort", argsort);
TN_REGISTER_COMPOSITE("aten::argsort.stable", argsort_stable);
TN_REGISTER_COMPOSITE("aten::argsort.stable_out", argsort_stable_out);

// msort(self): sort along dim 0 (unstable, ascending), the values.
void msort(Call& c) {
  c.ret(call("aten::sort", {c.arg(0), Value::of_int(0), Value::of_bool(false)})[0]);
}
void msort_out(Call& c) {
  Tensor r = call("aten::sort", {c.arg(0), Value::of_int(0), Value::of_bool(false)})[0].tensor;
  write_exact(c.tensor(1), r, c.key());
  c.ret(c.tensor(1));
}
TN_REGISTER_COMPOSITE("aten::msort", msort);
TN_REGISTER_COMPOSITE("aten::msort.out", msort_out);

// --- topk -------------------------------------------------------------------------------------

// topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True)
void topk_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  if (!is_complex(self->dtype())) check_supported(self, c.key());
  const int64_t k = c.to_int(1);
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  const int64_t slice = self->dim() == 0 ? 1 : self->size(dim);
  TN_CHECK(k >= 0 && k <= slice, "selected index k out of range");
  Dims sizes = self->sizes();
  if (!sizes.empty()) sizes[static_cast<size_t>(dim)] = k;
  c.ret(new_on(self, sizes, self->dtype()));
  c.ret(new_on(self, sizes, ScalarType::Long));
}

void topk_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  check_not_complex(self, "topk");
  const Tensor& values = c.results[0].tensor;
  const Tensor& indices = c.results[1].tensor;
  const std::string& key = c.key();
  const int64_t k = c.to_int(1);
  const bool largest = c.to_bool(3), sorted = c.to_bool(4);
  TN_CHECK_KIND(self->dtype() != ScalarType::Bool, NotImplemented,
                "\"topk_cpu\" not implemented for 'Bool'");
  if (k == 0 || self->numel() == 0) return;
  if (self->dim() == 0) {
    copy_cast(values, self, key);
    *data_of<int64_t>(indices, key) = 0;
    return;
  }
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  const int64_t n = self->size(dim);
  Slices in = slices_of(self, dim), vo = slices_of(values, dim), io = slices_of(indices, dim);
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const T* x = data_of<T>(self, key);
    T* v = data_of<T>(values, key);
    int64_t* ix = data_of<int64_t>(indices, key);
    std::vector<std::pair<A, int64_t>> buf(static_cast<size_t>(n));
    Before<A> before{largest};  // largest first is the descending order
    for (size_t s = 0; s < in.outer.size(); ++s) {
      for (int64_t j = 0; j < n; ++j) buf[j] = {A(x[in.outer[s] + j * in.stride]), j};
      if (k * 64 <= n) {
        std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), before);
      } else {
        std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), before);
        if (sorted) std::sort(buf.begin(), buf.begin() + (k - 1), before);
      }
      for (int64_t j = 0; j < k; ++j) {
        v[vo.outer[s] + j * vo.stride] = T(buf[j].first);
        ix[io.outer[s] + j * io.stride] = buf[j].second;
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::topk", topk_rule, topk_cpu);

// topk.values(self, k, dim, largest, sorted, *, values, indices)
void topk_values(Call& c) {
  ret_two_out(c, call("aten::topk", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)}), 5);
}
TN_REGISTER_COMPOSITE("aten::topk.values", topk_values);

// --- kthvalue ---------------------------------------------------------------------------------

// Partially orders a[0, n) (with its indices) so that a[k] is the k-th smallest, NaN counting
// as the largest: Sedgewick's quickselect with a median-of-three pivot, the selection upstream's
// kthvalue runs, so that among equal values the same index is chosen.
template <typename T>
void quickselect(T* a, int64_t* idx, int64_t n, int64_t k) {
  auto above = [](T x, T y) { return (nan_of(x) && !nan_of(y)) || x > y; };
  auto swap_at = [&](int64_t i, int64_t j) {
    std::swap(a[i], a[j]);
    std::swap(idx[i], idx[j]);
  };
  int64_t lo = 0, hi = n - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (above(a[lo], a[hi])) swap_at(lo, hi);
      return;
    }
    // Median of a[lo], a[mid], a[hi] moved to lo, the smaller to lo + 1, the larger to hi.
    swap_at((lo + hi) >> 1, lo + 1);
    if (above(a[lo + 1], a[hi])) swap_at(lo + 1, hi);
    if (above(a[lo], a[hi])) swap_at(lo, hi);
    if (above(a[lo + 1], a[lo])) swap_at(lo + 1, lo);
    const T pivot = a[lo];
    int64_t i = lo + 1, j = hi;
    for (;;) {
      do ++i; while (above(pivot, a[i]));
      do --j; while (above(a[j], pivot));
      if (j < i) break;
      swap_at(i, j);
    }
    swap_at(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

// kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (values, indices)
void kthvalue_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  check_supported(self, c.key());
  const int64_t k = c.to_int(1);
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  TN_CHECK(self->numel() > 0, "cannot perform reduction function kthvalue on tensor with no "
           "elements because the operation does not have an identity");
  TN_CHECK(k > 0 && k <= (self->dim() > 0 ? self->size(dim) : 1),
           "kthvalue(): selected number k out of range for dimension ", dim);
  Dims sizes = self->sizes();
  if (!sizes.empty()) {
    if (c.to_bool(3)) sizes[static_cast<size_t>(dim)] = 1;
    else sizes.erase(sizes.begin() + dim);
  }
  c.ret(new_on(self, sizes, self->dtype()));
  c.ret(new_on(self, sizes, ScalarType::Long));
}

void kthvalue_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& values = c.results[0].tensor;
  const Tensor& indices = c.results[1].tensor;
  const std::string& key = c.key();
  const ScalarType dt = self->dtype();
  TN_CHECK_KIND(dt != ScalarType::Bool, NotImplemented,
                "\"kthvalue_cpu\" not implemented for 'Bool'");
  const int64_t k = c.to_int(1);
  if (self->dim() == 0) {
    copy_cast(values, self, key);
    *data_of<int64_t>(indices, key) = 0;
    return;
  }
  const int64_t dim = wrap_dim(c.to_int(2), self->dim());
  const int64_t n = self->size(dim);
  Slices in = slices_of(self, dim);
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;  // 16-bit floats selected as floats: the same order, exactly
    if constexpr (!std::is_same_v<T, bool>) {  // bool is refused above
      const T* x = data_of<T>(self, key);
      T* v = data_of<T>(values, key);  // contiguous, one per slice in row-major order
      int64_t* ix = data_of<int64_t>(indices, key);
      std::vector<A> a(static_cast<size_t>(n));
      std::vector<int64_t> idx(static_cast<size_t>(n));
      for (size_t s = 0; s < in.outer.size(); ++s) {
        for (int64_t j = 0; j < n; ++j) {
          a[j] = A(x[in.outer[s] + j * in.stride]);
          idx[j] = j;
        }
        quickselect(a.data(), idx.data(), n, k - 1);
        v[s] = T(a[k - 1]);
        ix[s] = idx[k - 1];
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::kthvalue", kthvalue_rule, kthvalue_cpu);

// kthvalue.values(self, k, dim, keepdim, *, values, indices)
void kthvalue_values(Call& c) {
  check_no_overlap(*c.tensor(4), *c.tensor(0));  // upstream's assert_no_overlap(self, values)
  ret_two_out(c, call("aten::kthvalue", {c.arg(0), c.arg(1), c.arg(2), c.arg(3)}), 4);
}
TN_REGISTER_COMPOSITE("aten::kthvalue.values", kthvalue_values);

}  // namespace
}  // namespace tn
