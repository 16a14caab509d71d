// index_reduce (index_reduce.out, index_reduce_) on dense CPU tensors and Meta, as upstream's
// TensorAdvancedIndexing.cpp: self copied into a contiguous result, the indexed slices first
// reset to the reduction's identity unless include_self, then source's slices folded in index
// order (prod, mean's sum, amax, amin); mean divides by the counts (floor division for
// integers). Above one dim each step is a door op on a pair of slices (mul_, add_, maximum,
// minimum), as upstream's; at most one dim, upstream's scalar loop (NaN in source wins).
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::i64;
using ops::t;

enum class Red { Prod, Mean, Max, Min };

Red reduction_of(const std::string& s) {
  if (s == "prod") return Red::Prod;
  if (s == "mean") return Red::Mean;
  if (s == "amax") return Red::Max;
  TN_CHECK(s == "amin", "index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
           "but got ", s, ".");
  return Red::Min;
}

// upstream's index_func_meta_impl checks.
void check_args(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t numel = index->numel();
  TN_CHECK_KIND(index->dim() <= 1, Index, "index_reduce_(): Index is supposed to be a vector, "
                "but got dim: ", index->dim(), " with type: ", c10_dtype_name(index->dtype()),
                " and size: ", dims_str(index->sizes()));
  TN_CHECK(index->dtype() == ScalarType::Long || index->dtype() == ScalarType::Int,
           "index_reduce_(): Expected dtype int32/int64 for index but got: ",
           c10_dtype_name(index->dtype()));
  TN_CHECK(self->dtype() == source->dtype(), "index_reduce_(): self (",
           c10_dtype_name(self->dtype()), ") and source (", c10_dtype_name(source->dtype()),
           ") must have the same scalar type");
  TN_CHECK(dim == 0 || dim < source->dim(), "index_reduce_(): Indexing dim ", dim,
           " is out of bounds of the source tensor with dim ", source->dim());
  const int64_t along = source->dim() == 0 ? 1 : source->size(dim);
  TN_CHECK(numel == along, "index_reduce_(): Number of indices (", numel, ") should be equal "
           "to source.size(dim): (", along, "), for dim: ", dim);
}

bool all_types_and_halves(ScalarType dt) {
  return dt != ScalarType::Bool && !is_complex(dt) && info(dt).supported;
}

// The identity each indexed slice starts from when include_self is false, as a Scalar of T's
// kind (an integer's extremes exactly).
template <typename T>
Value identity_of(Red r) {
  if (r == Red::Prod || r == Red::Mean) return ops::f64(r == Red::Prod ? 1.0 : 0.0);
  if constexpr (std::is_integral_v<T>) {
    return Value::of_scalar(Scalar::from_int(r == Red::Max ? std::numeric_limits<T>::lowest()
                                                           : std::numeric_limits<T>::max()));
  }
  return ops::f64(r == Red::Max ? -INFINITY : INFINITY);
}

// a < b as upstream's std::max/std::min compare T (16-bit floats through float).
template <typename T>
bool less(T a, T b) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<float>(a) < static_cast<float>(b);
  else
    return a < b;
}

// index values as int64 (int32 or int64 index).
std::vector<int64_t> indices_of(const Tensor& index, const std::string& key) {
  Tensor ix = cast_to(index, ScalarType::Long, key);
  ix = contiguous(ix, key);
  const int64_t* p = data_of<int64_t>(ix, key);
  return std::vector<int64_t>(p, p + index->numel());
}

template <typename T>
bool nan_of(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<float>(v));
}

// At most one dim: upstream's scalar loop over result (contiguous) and source's stride.
template <typename T>
void fold_scalar(const Tensor& result, const Tensor& source, const std::vector<int64_t>& idx,
                 Red r, const std::string& key) {
  T* out = data_of<T>(result, key);
  Tensor src = contiguous(source, key);
  const T* s = data_of<T>(src, key);
  for (size_t i = 0; i < idx.size(); ++i) {
    const int64_t at = idx[i];
    TN_CHECK_KIND(at >= 0 && at < result->numel(), Index, "index out of range in self");
    T& o = out[at];
    const T v = s[i];
    switch (r) {
      case Red::Prod: o = static_cast<T>(o * v); break;
      case Red::Mean: o = static_cast<T>(o + v); break;
      case Red::Max: o = nan_of(v) ? v : (less(o, v) ? v : o); break;
      case Red::Min: o = nan_of(v) ? v : (less(v, o) ? v : o); break;
    }
  }
}

// index_reduce(self, dim, index, source, reduce, *, include_self=True).
template <bool Cpu>
Tensor index_reduce_of(Call& c) {
  const Tensor& self = c.tensor(0);
  const Red r = reduction_of(c.arg(4).str);
  const int64_t dim = wrap_dim(c.to_int(1), self->dim());
  const Tensor& index = c.tensor(2);
  const Tensor& source = c.tensor(3);
  check_args(self, dim, index, source);
  if (!Cpu) return ops::empty(self->sizes(), self->dtype(), self->device());
  const bool include_self = c.to_bool(5);
  const std::string& key = c.key();
  const ScalarType dt = self->dtype();
  Tensor result = ops::clone_contiguous(self);
  if (!include_self) {
    TN_CHECK_KIND(all_types_and_halves(dt), NotImplemented,
                  "\"index_reduce_func_exclude_input_init\" not implemented for '",
                  c10_dtype_name(dt), "'");
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      call("aten::index_fill_.int_Scalar", {t(result), i64(dim),
                                            t(cast_to(index, ScalarType::Long, key)),
                                            identity_of<T>(r)});
    });
  }
  const std::vector<int64_t> idx = indices_of(index, key);
  if (result->dim() > 1) {
    const int64_t size = result->size(dim);
    for (size_t i = 0; i < idx.size(); ++i) {
      TN_CHECK_KIND(idx[i] >= 0 && idx[i] < size, Index, "index out of range in self");
      Tensor mine = call_tensor("aten::select.int", {t(result), i64(dim), i64(idx[i])});
      Tensor theirs = call_tensor("aten::select.int", {t(source), i64(dim),
                                                       i64(static_cast<int64_t>(i))});
      if (r == Red::Prod) call("aten::mul_.Tensor", {t(mine), t(theirs)});
      else if (r == Red::Mean) call("aten::add_.Tensor", {t(mine), t(theirs)});
      else
        ops::copy_(mine, call_tensor(r == Red::Max ? "aten::maximum" : "aten::minimum",
                                     {t(mine), t(theirs)}));
    }
  } else {
    TN_CHECK_KIND(all_types_and_halves(dt), NotImplemented, "\"index_func_\" not implemented "
                  "for '", c10_dtype_name(dt), "'");
    dispatch_dtype(dt, key, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (!std::is_same_v<T, bool>) fold_scalar<T>(result, source, idx, r, key);
    });
  }
  if (r == Red::Mean) {
    Tensor counts = call_tensor(include_self ? "aten::ones_like" : "aten::zeros_like",
                                {t(result)});
    call("aten::index_add_", {t(counts), i64(dim), t(index),
                              t(call_tensor("aten::ones_like", {t(source)}))});
    call("aten::masked_fill_.Scalar", {t(counts), t(call_tensor("aten::eq.Scalar",
                                                                {t(counts), i64(0)})), i64(1)});
    if (is_floating(dt) || is_complex(dt))
      call("aten::div_.Tensor", {t(result), t(counts)});
    else
      call("aten::div_.Tensor_mode", {t(result), t(counts), Value::of_string("floor")});
  }
  return result;
}

template <bool Cpu>
void index_reduce(Call& c) { c.ret(index_reduce_of<Cpu>(c)); }

constexpr char kIndexReduce[] = "aten::index_reduce";

// index_reduce_: the result written back into self.
void index_reduce_inplace(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.end());
  Tensor r = call_tensor(kIndexReduce, std::move(args));
  c.ret(ops::write_out(c.tensor(0), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::index_reduce", DenseCPU, index_reduce<true>);
TN_REGISTER_KERNEL("aten::index_reduce", Meta, index_reduce<false>);
TN_REGISTER_COMPOSITE("aten::index_reduce.out", ops::generated_out<kIndexReduce>);
TN_REGISTER_COMPOSITE("aten::index_reduce_", index_reduce_inplace);

}  // namespace tn
