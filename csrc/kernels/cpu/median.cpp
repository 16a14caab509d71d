// median and nanmedian on dense CPU tensors, as upstream's Sorting.cpp computes them: the whole
// tensor's (a value: the (n - 1) / 2-th smallest, n counting the non-NaN elements for
// nanmedian; median is NaN when any element is, an empty tensor gives NaN converted to its
// dtype) and along a dim (.dim and .dim_values: values and int64 indices; per row the first
// NaN for median, else the element of rank (n - 1) / 2 in the order (value, index), NaN last for
// nanmedian, so ties resolve to a fixed index). Integer, float16 and bfloat16 too; bool and
// complex refused in upstream's words. Meta gives the shapes, as upstream's meta functions
// (no empty-dim check, no NaN for an empty tensor).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

template <typename T>
bool nan_of(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<float>(v)) || v != v;
}

// upstream's dispatch (all real types with float16/bfloat16): bool and complex refused.
void check_dtype(ScalarType dt, const char* name) {
  TN_CHECK_KIND(dt != ScalarType::Bool && !is_complex(dt), NotImplemented, "\"", name,
                "\" not implemented for '", c10_dtype_name(dt), "'");
}

// median() / nanmedian(): the whole tensor's median, a 0-d tensor of self's dtype.
template <bool Cpu, bool IgnoreNan>
void median_all(Call& c) {
  const Tensor& self = c.tensor(0);
  const ScalarType dt = self->dtype();
  const std::string& key = c.key();
  Tensor out = ops::empty({}, dt, self->device());
  if (Cpu && self->numel() == 0) {
    // upstream's full({}, NaN).to(dtype): the float NaN converted to dtype as a scalar
    // (x86's conversion: INT_MIN for int32, INT64_MIN for int64, 0 for narrower integers;
    // volatile so the compiler does not fold the conversion itself)
    volatile float nanv = std::nanf("");
    if (is_complex(dt)) {
      Tensor nan = call_tensor("aten::full", {ops::ints({}), ops::f64(std::nan("")),
                                              Value::of_dtype(ScalarType::Float), Value{},
                                              Value::of_device(self->device())});
      return c.ret(call_tensor("aten::_to_copy", {t(nan), Value::of_dtype(dt)}));
    }
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      *data_of<T>(out, key) = static_cast<T>(nanv);
    });
    return c.ret(out);
  }
  if (!Cpu) return c.ret(out);
  check_dtype(dt, "median_cpu");
  Tensor in = call_tensor("aten::clone", {t(contiguous(self, key))});
  dispatch_dtype(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool> || IsComplex<T>::value) return;
    else {
      T* first = data_of<T>(in, key);
      T* last = first + self->numel();
      T* o = data_of<T>(out, key);
      if (!IgnoreNan && std::any_of(first, last, nan_of<T>)) {
        *o = static_cast<T>(std::nanf(""));
        return;
      }
      const int64_t nans = IgnoreNan ? std::count_if(first, last, nan_of<T>) : 0;
      T* mid = first + (self->numel() - nans - 1) / 2;
      std::nth_element(first, mid, last, [](T a, T b) {
        return a < b || (nan_of(b) && !nan_of(a));
      });
      *o = *mid;
    }
  });
  c.ret(out);
}

// The reduced shape of self along dim.
Dims reduced(const Tensor& self, int64_t dim, bool keepdim) {
  Dims s = self->sizes();
  if (self->dim() == 0) return s;
  if (keepdim) s[static_cast<size_t>(dim)] = 1;
  else s.erase(s.begin() + dim);
  return s;
}

// Each row's median and its index; rows are contiguous runs of `len` in `in`.
template <typename T, bool IgnoreNan>
void median_rows(const T* in, int64_t rows, int64_t len, T* vals, int64_t* inds) {
  std::vector<int64_t> idx(static_cast<size_t>(len));
  for (int64_t r = 0; r < rows; ++r) {
    const T* ip = in + r * len;
    if (!IgnoreNan) {
      const T* nanp = std::find_if(ip, ip + len, nan_of<T>);
      if (nanp != ip + len) {
        vals[r] = *nanp;
        inds[r] = nanp - ip;
        continue;
      }
    }
    std::iota(idx.begin(), idx.end(), 0);
    const int64_t nans = IgnoreNan ? std::count_if(ip, ip + len, nan_of<T>) : 0;
    auto nth = idx.begin() + (len - nans - 1) / 2;
    // ties broken by index, NaN last: a total order but among NaNs
    std::nth_element(idx.begin(), nth, idx.end(), [ip](int64_t i, int64_t j) {
      return ip[i] < ip[j] || (ip[i] == ip[j] && i < j) || (nan_of(ip[j]) && !nan_of(ip[i]));
    });
    vals[r] = ip[*nth];
    inds[r] = *nth;
  }
}

// median.dim / nanmedian.dim (self, dim, keepdim) and their .dim_values (values, indices).
template <bool Cpu, bool IgnoreNan, bool Out>
void median_dim(Call& c) {
  const Tensor& self = c.tensor(0);
  const bool keepdim = c.to_bool(2);
  const int64_t dim = wrap_dim(c.to_int(1), self->dim());
  // (upstream's meta function has no such check)
  if (Cpu && self->dim() > 0)
    TN_CHECK_KIND(self->size(dim) != 0, Index, "median(): Expected reduction dim ", dim,
                  " to have non-zero size.");
  const ScalarType dt = self->dtype();
  if (Out) {
    const Tensor& vo = c.tensor(3);
    const Tensor& io = c.tensor(4);
    TN_CHECK(io->dtype() == ScalarType::Long, "Expected tensor for argument #1 'indices' to "
             "have scalar type Long; but got torch.", info(io->dtype()).legacy_name,
             " instead (while checking arguments for median)");
    TN_CHECK(vo->dtype() == dt, "Expected tensor for 'values' to have the same type as tensor "
             "for argument #2 'self'; but type torch.", info(vo->dtype()).legacy_name, " does not "
             "equal torch.", info(dt).legacy_name, " (while checking arguments for median)");
  }
  const Dims shape = reduced(self, dim, keepdim);
  Tensor vals = ops::empty(shape, dt, self->device());
  Tensor inds = ops::empty(shape, ScalarType::Long, self->device());
  if (Cpu && self->numel() > 0) {
    check_dtype(dt, "median_out");
    const std::string& key = c.key();
    Tensor in = self->dim() == 0 ? self
                                 : call_tensor("aten::movedim.int", {t(self), ops::i64(dim),
                                                                     ops::i64(-1)});
    in = contiguous(in, key);
    const int64_t len = self->dim() == 0 ? 1 : self->size(dim);
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (!std::is_same_v<T, bool> && !IsComplex<T>::value)
        median_rows<T, IgnoreNan>(data_of<T>(in, key), self->numel() / len, len,
                                  data_of<T>(vals, key), data_of<int64_t>(inds, key));
    });
  }
  if (!Out) {
    c.ret(vals);
    return c.ret(inds);
  }
  ops::ret_all(c, {vals, inds}, 3);
}

}  // namespace

TN_REGISTER_KERNEL("aten::median", DenseCPU, (median_all<true, false>));
TN_REGISTER_KERNEL("aten::median", Meta, (median_all<false, false>));
TN_REGISTER_KERNEL("aten::nanmedian", DenseCPU, (median_all<true, true>));
TN_REGISTER_KERNEL("aten::nanmedian", Meta, (median_all<false, true>));
TN_REGISTER_KERNEL("aten::median.dim", DenseCPU, (median_dim<true, false, false>));
TN_REGISTER_KERNEL("aten::median.dim", Meta, (median_dim<false, false, false>));
TN_REGISTER_KERNEL("aten::nanmedian.dim", DenseCPU, (median_dim<true, true, false>));
TN_REGISTER_KERNEL("aten::nanmedian.dim", Meta, (median_dim<false, true, false>));
TN_REGISTER_KERNEL("aten::median.dim_values", DenseCPU, (median_dim<true, false, true>));
TN_REGISTER_KERNEL("aten::median.dim_values", Meta, (median_dim<false, false, true>));
TN_REGISTER_KERNEL("aten::nanmedian.dim_values", DenseCPU, (median_dim<true, true, true>));
TN_REGISTER_KERNEL("aten::nanmedian.dim_values", Meta, (median_dim<false, true, true>));

}  // namespace tn
