// The unique family on dense CPU tensors, as upstream's Unique.cpp computes it:
//   _unique2(self, sorted, return_inverse, return_counts) and _unique(self, sorted,
//     return_inverse): the distinct values of the flattened input in ascending order (upstream's
//     CPU sorts whatever `sorted` says), NaN last and never equal to another NaN; inverse in
//     the input's shape, counts per value; the outputs not asked for are empty 1-d tensors.
//   unique_consecutive(self, return_inverse, return_counts, dim=None): runs of equal values, in
//     input order (with a dim: runs of equal slices).
//   unique_dim(self, dim, sorted, return_inverse, return_counts) and unique_dim_consecutive:
//     the distinct slices along dim, sorted lexicographically (or consecutive runs).
// Values compare as upstream's `a == b` (so -0.0 and 0.0 are one value, its first in sorted
// order kept). Complex tensors refuse ("unique" not implemented for 'ComplexFloat'); Meta refuses
// by name (the output's length depends on the values). None is differentiable:
// upstream's not_implemented nodes (autograd/derivatives/unique.cpp).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"

namespace tn {
namespace {

using ops::t;

Tensor long_tensor(const Dims& sizes, Device device) {
  return ops::empty(sizes, ScalarType::Long, device);
}
Tensor empty_long(Device device) { return long_tensor({0}, device); }

void check_unique_dtype(ScalarType dt, const char* name) {
  TN_CHECK_KIND(!is_complex(dt) && info(dt).supported, NotImplemented, "\"", name,
                "\" not implemented for '", c10_dtype_name(dt), "'");
}

template <typename T>
double as_double(T v) {
  if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>)
    return static_cast<double>(v);
  else
    return static_cast<double>(static_cast<float>(v));
}
template <typename T>
bool is_nan_value(T v) {
  return std::isnan(as_double(v));
}

struct Groups {
  std::vector<int64_t> rep;     // per group: the position (in `order`) of its first element
  std::vector<int64_t> counts;  // per group
  std::vector<int64_t> of;      // per element (input position): its group
};

// Groups the n elements visited in `order` into runs where `same(a, b)` holds between
// consecutive ones.
template <typename Same>
Groups group_runs(const std::vector<int64_t>& order, Same same) {
  Groups g;
  g.of.assign(order.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || !same(order[i - 1], order[i])) {
      g.rep.push_back(static_cast<int64_t>(i));
      g.counts.push_back(0);
    }
    g.counts.back() += 1;
    g.of[static_cast<size_t>(order[i])] = static_cast<int64_t>(g.rep.size() - 1);
  }
  return g;
}

// The three results from the groups: values (gathered by `take_values`), inverse in
// inverse_shape, counts; empty 1-d tensors for those not asked for.
template <typename TakeValues>
void ret_groups(Call& c, const Groups& g, bool want_inverse, bool want_counts,
                const Dims& inverse_shape, Device device, TakeValues take_values, bool three) {
  c.ret(take_values());
  Tensor inverse = empty_long(device);
  if (want_inverse) {
    inverse = long_tensor(inverse_shape, device);
    int64_t* p = data_of<int64_t>(inverse, c.key());
    for (size_t i = 0; i < g.of.size(); ++i) p[i] = g.of[i];
  }
  c.ret(inverse);
  if (!three) return;
  Tensor counts = empty_long(device);
  if (want_counts) {
    counts = long_tensor({static_cast<int64_t>(g.counts.size())}, device);
    int64_t* p = data_of<int64_t>(counts, c.key());
    for (size_t i = 0; i < g.counts.size(); ++i) p[i] = g.counts[i];
  }
  c.ret(counts);
}

// Values of the flattened input (sorted, or in input order for consecutive runs).
void unique_flat(Call& c, bool consecutive, bool want_inverse, bool want_counts, bool three) {
  const Tensor& self = c.tensor(0);
  const std::string& key = c.key();
  check_unique_dtype(self->dtype(), consecutive ? "unique_consecutive" : "unique");
  Tensor x = contiguous(self, key);
  const int64_t n = x->numel();
  dispatch_dtype(x->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* p = data_of<T>(x, key);
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    if (!consecutive)  // ascending, NaN last, equal values in input order
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        const bool na = is_nan_value(p[a]), nb = is_nan_value(p[b]);
        if (na || nb) return !na && nb;
        return as_double(p[a]) < as_double(p[b]);
      });
    Groups g = group_runs(order, [&](int64_t a, int64_t b) {
      return as_double(p[a]) == as_double(p[b]);
    });
    // A 0-dim input's unique is 1-d; its inverse keeps the input's (empty) shape.
    ret_groups(c, g, want_inverse, want_counts, self->sizes(), self->device(), [&] {
      Tensor values = ops::empty({static_cast<int64_t>(g.rep.size())}, x->dtype(),
                                 self->device());
      T* v = data_of<T>(values, key);
      for (size_t i = 0; i < g.rep.size(); ++i) v[i] = p[order[static_cast<size_t>(g.rep[i])]];
      return values;
    }, three);
  });
}

// Slices along dim: compared lexicographically by their elements (flattened in order).
void unique_slices(Call& c, int64_t dim_arg, bool consecutive, bool want_inverse,
                   bool want_counts) {
  const Tensor& self = c.tensor(0);
  const std::string& key = c.key();
  check_unique_dtype(self->dtype(), consecutive ? "unique_dim_consecutive" : "unique_dim");
  TN_CHECK_KIND(self->dim() > 0, Index, "Dimension specified as ", dim_arg, " but tensor has no "
                "dimensions");
  const int64_t dim = wrap_dim(dim_arg, self->dim());
  int64_t zero_dims = 0;
  for (int64_t s : self->sizes()) zero_dims += s == 0;
  if (self->size(dim) == 0) {  // the input itself (uninitialised, as upstream's empty)
    TN_CHECK(zero_dims == 1, "Number of zero sized dimensions is more than one, so unique "
             "cannot be applied ");
    c.ret(ops::empty(self->sizes(), self->dtype(), self->device()));
    c.ret(empty_long(self->device()));
    c.ret(empty_long(self->device()));
    return;
  }
  TN_CHECK(zero_dims == 0, "There are 0 sized dimensions, and they aren't selected, so unique "
           "cannot be applied");
  // dim first, the rest flattened: one row per slice.
  Tensor moved = ops::clone_contiguous(
      call_tensor("aten::movedim.int", {t(self), Value::of_int(dim), Value::of_int(0)}));
  const int64_t rows = self->size(dim);
  const int64_t width = rows == 0 ? 0 : moved->numel() / rows;
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* p = data_of<T>(moved, key);
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < width; ++k) {
        const double x = as_double(p[a * width + k]), y = as_double(p[b * width + k]);
        if (x < y) return true;
        if (y < x) return false;
      }
      return false;
    };
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < width; ++k)
        if (!(as_double(p[a * width + k]) == as_double(p[b * width + k]))) return false;
      return true;
    };
    std::vector<int64_t> order(static_cast<size_t>(rows));
    std::iota(order.begin(), order.end(), 0);
    if (!consecutive) std::stable_sort(order.begin(), order.end(), less);
    Groups g = group_runs(order, same);
    // (upstream's unique_dim returns inverse and counts whatever it was asked)
    (void)want_inverse;
    (void)want_counts;
    ret_groups(c, g, true, true, {rows}, self->device(), [&] {
      // The distinct rows stacked (contiguous, dim first), dim moved back: a view.
      Tensor index = long_tensor({static_cast<int64_t>(g.rep.size())}, self->device());
      int64_t* ip = data_of<int64_t>(index, key);
      for (size_t i = 0; i < g.rep.size(); ++i) ip[i] = order[static_cast<size_t>(g.rep[i])];
      Tensor rows_out = call_tensor("aten::index_select", {t(moved), Value::of_int(0), t(index)});
      return call_tensor("aten::movedim.int", {t(rows_out), Value::of_int(0), Value::of_int(dim)});
    }, true);
  });
}

// _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
void unique2(Call& c) { unique_flat(c, false, c.to_bool(2), c.to_bool(3), true); }
// _unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)
void unique1(Call& c) { unique_flat(c, false, c.to_bool(2), false, false); }
// unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False,
//   int? dim=None)
void unique_consecutive(Call& c) {
  const Tensor& self = c.tensor(0);
  if (c.arg(3).is_none() || (c.to_int(3) == 0 && self->dim() == 1))
    return unique_flat(c, true, c.to_bool(1), c.to_bool(2), true);
  unique_slices(c, c.to_int(3), true, c.to_bool(1), c.to_bool(2));
}
// unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False,
//   bool return_counts=False)
void unique_dim(Call& c) { unique_slices(c, c.to_int(1), false, c.to_bool(3), c.to_bool(4)); }
// unique_dim_consecutive(Tensor self, int dim, bool return_inverse=False,
//   bool return_counts=False)
void unique_dim_consecutive(Call& c) {
  unique_slices(c, c.to_int(1), true, c.to_bool(2), c.to_bool(3));
}

// Meta: the number of distinct values (or runs) depends on the data.
void unique_meta(Call& c) {
  TN_FAIL(NotImplemented, c.key(), ": the number of distinct values of a meta tensor is not "
          "known (its output shape depends on the data)");
}

}  // namespace

TN_REGISTER_KERNEL("aten::_unique2", Meta, unique_meta);
TN_REGISTER_KERNEL("aten::_unique", Meta, unique_meta);
TN_REGISTER_KERNEL("aten::unique_consecutive", Meta, unique_meta);
TN_REGISTER_KERNEL("aten::unique_dim", Meta, unique_meta);
TN_REGISTER_KERNEL("aten::unique_dim_consecutive", Meta, unique_meta);
TN_REGISTER_KERNEL("aten::_unique2", DenseCPU, unique2);
TN_REGISTER_KERNEL("aten::_unique", DenseCPU, unique1);
TN_REGISTER_KERNEL("aten::unique_consecutive", DenseCPU, unique_consecutive);
TN_REGISTER_KERNEL("aten::unique_dim", DenseCPU, unique_dim);
TN_REGISTER_KERNEL("aten::unique_dim_consecutive", DenseCPU, unique_dim_consecutive);

}  // namespace tn
