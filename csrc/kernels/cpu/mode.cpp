// mode along a dim (mode and mode.values) on dense CPU tensors and Meta, as upstream's CPU
// mode kernel computes it: per row the (value, index) pairs sorted by value with std::sort (not
// stable: the index reported for the most frequent value is the last of its run in libstdc++'s
// introsort order, which this file reproduces by making the same calls), then the first value
// whose run is strictly longest (NaN never equals NaN, so each NaN is a run of one).
#include <algorithm>
#include <utility>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

bool mode_dtype(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: case ScalarType::Byte: case ScalarType::Char:
    case ScalarType::Short: case ScalarType::Int: case ScalarType::Long:
    case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::Float:
    case ScalarType::Double: return true;
    default: return false;
  }
}

// The comparison value of an element: float for the 16-bit floats (as c10's operators).
template <typename T>
auto key_of(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<float>(v);
  else
    return v;
}

// Each row's mode and its index; rows are contiguous runs of `len` in `in`. The pairs hold the
// elements themselves (a NaN's bits come out as they went in), compared through key_of.
template <typename T>
void mode_rows(const T* in, int64_t rows, int64_t len, T* vals, int64_t* inds) {
  std::vector<std::pair<T, int64_t>> el(static_cast<size_t>(len));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < len; ++i) el[i] = {in[r * len + i], i};
    std::sort(el.begin(), el.end(),
              [](const auto& a, const auto& b) { return key_of(a.first) < key_of(b.first); });
    int64_t best_i = 0, run = 0, best_run = 0;
    T best = T(0);
    for (int64_t i = 0; i < len; ++i) {
      ++run;
      if (i == len - 1 || key_of(el[i].first) != key_of(el[i + 1].first)) {
        if (run > best_run) {
          best = el[i].first;
          best_i = el[i].second;
          best_run = run;
        }
        run = 0;
      }
    }
    vals[r] = best;
    inds[r] = best_i;
  }
}

// mode(self, dim=-1, keepdim=False) and mode.values(..., values, indices).
template <bool Cpu, bool Out>
void mode(Call& c) {
  const Tensor& self = c.tensor(0);
  const ScalarType dt = self->dtype();
  if (Out) {
    TN_CHECK(c.tensor(3)->dtype() == dt, "expected scalar type '", c10_dtype_name(dt),
             "' but got '", c10_dtype_name(c.tensor(3)->dtype()), "' for values output");
    TN_CHECK(c.tensor(4)->dtype() == ScalarType::Long, "expected scalar type 'Long' but got '",
             c10_dtype_name(c.tensor(4)->dtype()), "' for indices output");
  }
  const int64_t dim = wrap_dim(c.to_int(1), self->dim());
  const bool keepdim = c.to_bool(2);
  if (Cpu && self->numel() == 0 && self->dim() > 0)
    TN_CHECK_KIND(self->size(dim) != 0, Index, "mode(): Expected reduction dim ", dim,
                  " to have non-zero size.");
  Dims shape;
  if (self->dim() > 0)
    shape = reduced_sizes(self->sizes(), reduce_mask(self->dim(), Dims{dim}), keepdim);
  Tensor vals = ops::empty(shape, dt, self->device());
  Tensor inds = ops::empty(shape, ScalarType::Long, self->device());
  if (Cpu && self->dim() == 0) {
    ops::copy_(vals, self);
    call("aten::fill_.Scalar", {ops::t(inds), Value::of_scalar(Scalar::from_int(0))});
  } else if (Cpu && self->numel() != 0) {
    TN_CHECK_KIND(mode_dtype(dt), NotImplemented, "\"mode_cpu\" not implemented for '",
                  c10_dtype_name(dt), "'");
    const std::string& key = c.key();
    Tensor in = call_tensor("aten::movedim.int", {ops::t(self), ops::i64(dim), ops::i64(-1)});
    in = contiguous(in, key);
    const int64_t len = self->size(dim);
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      mode_rows<T>(data_of<T>(in, key), self->numel() / len, len, data_of<T>(vals, key),
                   data_of<int64_t>(inds, key));
    });
  }
  if (!Out) {
    c.ret(vals);
    return c.ret(inds);
  }
  ops::ret_all(c, {vals, inds}, 3);
}

}  // namespace

TN_REGISTER_KERNEL("aten::mode", DenseCPU, (mode<true, false>));
TN_REGISTER_KERNEL("aten::mode", Meta, (mode<false, false>));
TN_REGISTER_KERNEL("aten::mode.values", DenseCPU, (mode<true, true>));
TN_REGISTER_KERNEL("aten::mode.values", Meta, (mode<false, true>));

}  // namespace tn
