// searchsorted (Tensor and Scalar values, out=), bucketize (Tensor and Scalar, out=) and
// bincount on dense CPU tensors, as upstream's Bucketization.cpp and SummaryOps.cpp compute
// them; Meta runs the same checks and allocates (bincount's length depends on the values, so
// Meta refuses it by name).
//
// searchsorted: per value, a binary search of its row of the sorted sequence (one row when the
// sequence is 1-d, else the row with the value's leading indices), lower bound (`mid >= v`
// stops) or upper bound (`mid > v`) as upstream's cus_lower_bound / cus_upper_bound, through
// `sorter` when given; the index within the row, int64 or int32. Values and sequence are
// compared in their common dtype.
#include <climits>
#include <limits>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

struct SearchArgs {
  Tensor boundaries;
  Tensor values;
  bool out_int32 = false;
  bool right = false;
  Tensor sorter;  // null when not given
};

bool dims_match_before_last(const Tensor& b, const Tensor& v) {
  if (b->dim() != v->dim()) return false;
  for (int64_t d = 0; d + 1 < b->dim(); ++d)
    if (b->size(d) != v->size(d)) return false;
  return true;
}

// upstream's searchsorted_pre_check (with the out tensor's dtype checked by the caller).
template <bool Cpu>
void check_search(const SearchArgs& a, const Value& side) {
  const Tensor& b = a.boundaries;
  const Tensor& v = a.values;
  if (!side.is_none()) {
    TN_CHECK(side.str == "left" || side.str == "right", "torch.searchsorted(): side can only be "
             "'left' or 'right' but got ", side.str);
    TN_CHECK(!(side.str == "left" && a.right), "torch.searchsorted(): side and right can't be "
             "set to opposites, got side of ", side.str, " while right was True");
  }
  TN_CHECK(b->device() == v->device(), "torch.searchsorted(): boundaries and input value tensors "
           "should have same device type, but got boundaries tensor device type ",
           b->device().str(), " and input value tensor device type ", v->device().str());
  if (a.sorter) {
    const Tensor& s = a.sorter;
    TN_CHECK(s->device() == b->device(), "torch.searchsorted(): sorter and boundary tensors should "
             "have same device type, but got sorter tensor device type ", s->device().str(),
             " and input value tensor device type ", b->device().str());
    TN_CHECK(s->sizes() == b->sizes(), "torch.searchsorted(): boundary and sorter must have the "
             "same size, but got boundary tensor ", dims_str(b->sizes()), "and got sorter tensor ",
             dims_str(s->sizes()));
    TN_CHECK(s->dtype() == ScalarType::Long, "torch.searchsorted(): sorter must be a tensor of "
             "long dtype but got dtype ", enum_name(s->dtype()));
    if (Cpu && s->numel() > 0) {
      Tensor dense = contiguous(s, "searchsorted");
      const int64_t* p = data_of<int64_t>(dense, "searchsorted");
      int64_t lo = p[0], hi = p[0];
      for (int64_t i = 1; i < dense->numel(); ++i) {
        lo = std::min(lo, p[i]);
        hi = std::max(hi, p[i]);
      }
      TN_CHECK(lo >= 0 && hi < s->sizes().back(), "torch.searchsorted(): sorter index out of "
               "range");
    }
  }
  TN_CHECK(v->dim() > 0 || (v->numel() == 1 && b->dim() == 1), "torch.searchsorted(): input "
           "value can be a scalar only when boundaries tensor dimension is 1, but we got "
           "boundaries tensor dim(", b->dim(), ") and input value's dim(", v->dim(), ") numel(",
           v->numel(), ")");
  TN_CHECK(b->dim() != 0, "torch.searchsorted(): boundaries tensor should have positive "
           "dimension, but got 0 dimension");
  TN_CHECK(b->dim() == 1 || dims_match_before_last(b, v), "torch.searchsorted(): boundaries "
           "tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and "
           "input value tensor must match, but we got boundaries tensor ", dims_str(b->sizes()),
           " and input value tensor ", dims_str(v->sizes()));
  if (a.out_int32)
    TN_CHECK(b->sizes().back() < INT_MAX, "torch.searchsorted(): the size of boundaries' last "
             "dimension should be less than ", INT_MAX, ", but we got ", b->sizes().back());
}

void check_result_dtype(ScalarType dt, bool out_int32) {
  TN_CHECK((dt == ScalarType::Long && !out_int32) || (dt == ScalarType::Int && out_int32),
           "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
           "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
           "dtype ", enum_name(dt), " and out_int32 flag is ", out_int32 ? "True" : "False");
}

// Fills out (values' shape, contiguous) with each value's position.
void search_fill(const Tensor& out, const SearchArgs& a, const std::string& key) {
  if (a.values->numel() == 0) return;
  ResultType rt;
  rt.add_tensor(a.boundaries->dtype(), a.boundaries->dim() == 0);
  rt.add_tensor(a.values->dtype(), a.values->dim() == 0);
  const ScalarType common = rt.result();
  Tensor b = contiguous(cast_to(a.boundaries, common, key), key);
  Tensor v = contiguous(cast_to(a.values, common, key), key);
  Tensor sorter = a.sorter ? contiguous(a.sorter, key) : Tensor();
  const int64_t row = b->sizes().back();
  const int64_t n = v->numel();
  const int64_t v_row = v->dim() == 0 ? 1 : v->sizes().back();
  const bool one_row = b->dim() == 1;
  const int64_t* srt = sorter ? data_of<int64_t>(sorter, key) : nullptr;
  const bool right = a.right;
  dispatch_dtype(common, "searchsorted_out_cpu", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      TN_FAIL(NotImplemented, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
    } else {
      const T* bp = data_of<T>(b, key);
      const T* vp = data_of<T>(v, key);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t start_bd = one_row ? 0 : (i / v_row) * row;
        int64_t lo = start_bd, hi = start_bd + row;
        const T val = vp[i];
        while (lo < hi) {
          const int64_t mid = lo + ((hi - lo) >> 1);
          const T m = srt ? bp[srt[mid] + start_bd] : bp[mid];
          const bool go_right = right ? !(m > val) : !(m >= val);
          if (go_right) lo = mid + 1;
          else hi = mid;
        }
        const int64_t pos = lo - start_bd;
        if (out->dtype() == ScalarType::Int)
          data_of<int32_t>(out, key)[i] = static_cast<int32_t>(pos);
        else
          data_of<int64_t>(out, key)[i] = pos;
      }
    }
  });
}

// The dtype refusal CPU makes before anything is computed (upstream's dispatch names it).
void check_search_dtype(const SearchArgs& a) {
  ResultType rt;
  rt.add_tensor(a.boundaries->dtype(), a.boundaries->dim() == 0);
  rt.add_tensor(a.values->dtype(), a.values->dim() == 0);
  const ScalarType common = rt.result();
  TN_CHECK_KIND(common != ScalarType::Bool && !is_complex(common), NotImplemented,
                "\"searchsorted_out_cpu\" not implemented for '", c10_dtype_name(common), "'");
}

Tensor scalar_values(const Scalar& s, Device device) {
  return call_tensor("aten::scalar_tensor", {Value::of_scalar(s), Value::of_dtype(
                                                 s.default_dtype()), Value{},
                                             Value::of_device(device)});
}

// Checked already; the result allocated (and filled on CPU).
template <bool Cpu>
Tensor search(const SearchArgs& a, const Tensor* out, const std::string& key) {
  if (out) check_result_dtype((*out)->dtype(), a.out_int32);
  Tensor r = ops::empty(a.values->sizes(), a.out_int32 ? ScalarType::Int : ScalarType::Long,
                        a.values->device());
  if (Cpu && a.values->numel() > 0) {
    check_search_dtype(a);
    search_fill(r, a, key);
  }
  return r;
}

template <bool Out>
void ret_search(Call& c, const Tensor& r, size_t out_at) {
  if (!Out) return c.ret(r);
  ops::resize_out(c.tensor(out_at), r->sizes());
  c.ret(ops::write_out(c.tensor(out_at), r, c.key()));
}

// searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False,
//   bool right=False, str? side=None, Tensor? sorter=None); .Scalar takes a number for self;
// .Tensor_out / .Scalar_out write into out. A side given decides the bound.
template <bool Cpu, bool ScalarSelf, bool Out>
void searchsorted(Call& c) {
  SearchArgs a;
  a.boundaries = c.tensor(0);
  a.values = ScalarSelf ? scalar_values(c.scalar(1), a.boundaries->device()) : c.tensor(1);
  a.out_int32 = c.to_bool(2);
  a.right = c.to_bool(3);
  if (const Tensor* s = c.optional_tensor(5)) a.sorter = *s;
  check_search<Cpu>(a, c.arg(4));
  if (!c.arg(4).is_none()) a.right = c.arg(4).str == "right";
  ret_search<Out>(c, search<Cpu>(a, Out ? &c.tensor(6) : nullptr, c.key()), 6);
}

// bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False);
// .Scalar(Scalar self, Tensor boundaries, ...); .Tensor_out: searchsorted of a 1-d boundaries.
template <bool Cpu, bool ScalarSelf, bool Out>
void bucketize(Call& c) {
  const Tensor& boundaries = c.tensor(1);
  TN_CHECK(boundaries->dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
           boundaries->dim(), ")");
  SearchArgs a;
  a.boundaries = boundaries;
  a.values = ScalarSelf ? scalar_values(c.scalar(0), boundaries->device()) : c.tensor(0);
  a.out_int32 = c.to_bool(2);
  a.right = c.to_bool(3);
  check_search<Cpu>(a, Value{});
  ret_search<Out>(c, search<Cpu>(a, Out ? &c.tensor(4) : nullptr, c.key()), 4);
}

// bincount(Tensor self, Tensor? weights=None, SymInt minlength=0): counts (int64), or sums of
// the weights (float32 weights stay float32; any other dtype sums in float64) per value.
void bincount_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor* weights = c.optional_tensor(1);
  const int64_t minlength = c.to_int(2);
  const std::string& key = c.key();
  TN_CHECK_KIND(is_integral(self->dtype(), /*include_bool=*/false), NotImplemented,
                "\"bincount_cpu\" not implemented for '", c10_dtype_name(self->dtype()), "'");
  TN_CHECK(minlength >= 0, "minlength should be >= 0");
  if (self->dim() == 1 && self->numel() == 0)
    return c.ret(call_tensor("aten::zeros", {ops::ints({minlength}),
                                             Value::of_dtype(ScalarType::Long)}));
  Tensor x = contiguous(cast_to(self, ScalarType::Long, key), key);
  const int64_t* p = data_of<int64_t>(x, key);
  int64_t lo = 0, hi = 0;
  if (x->numel() > 0) {
    lo = hi = p[0];
    for (int64_t i = 1; i < x->numel(); ++i) {
      lo = std::min(lo, p[i]);
      hi = std::max(hi, p[i]);
    }
  }
  TN_CHECK(self->dim() == 1 && lo >= 0, "bincount only supports 1-d non-negative integral "
           "inputs.");
  TN_CHECK(hi < std::numeric_limits<int64_t>::max(), "maximum value of input overflowed, it "
           "should be < ", std::numeric_limits<int64_t>::max(), " but got ", hi);
  if (weights)
    TN_CHECK((*weights)->dim() == 1 && (*weights)->size(0) == self->size(0),
             "weights should be 1-d and have the same length as input");
  const int64_t nbins = std::max(hi + 1, minlength);
  const int64_t n = self->size(0);
  if (!weights) {
    Tensor out =
        call_tensor("aten::zeros", {ops::ints({nbins}), Value::of_dtype(ScalarType::Long)});
    int64_t* o = data_of<int64_t>(out, key);
    for (int64_t i = 0; i < n; ++i) o[p[i]] += 1;
    return c.ret(out);
  }
  const bool as_float = (*weights)->dtype() == ScalarType::Float;
  const ScalarType wdt = as_float ? ScalarType::Float : ScalarType::Double;
  Tensor w = contiguous(cast_to(*weights, wdt, key), key);
  Tensor out = call_tensor("aten::zeros", {ops::ints({nbins}), Value::of_dtype(wdt), Value{},
                                           Value::of_device((*weights)->device())});
  if (as_float) {
    const float* wp = data_of<float>(w, key);
    float* o = data_of<float>(out, key);
    for (int64_t i = 0; i < n; ++i) o[p[i]] += wp[i];
  } else {
    const double* wp = data_of<double>(w, key);
    double* o = data_of<double>(out, key);
    for (int64_t i = 0; i < n; ++i) o[p[i]] += wp[i];
  }
  c.ret(out);
}

// Meta: bincount's length is the largest value plus one.
void bincount_meta(Call& c) {
  TN_FAIL(NotImplemented, c.key(), ": the length of a meta tensor's bincount is not known (its "
          "output shape depends on the data)");
}

}  // namespace

TN_REGISTER_KERNEL("aten::bincount", Meta, bincount_meta);
TN_REGISTER_KERNEL("aten::searchsorted.Tensor", DenseCPU, (searchsorted<true, false, false>));
TN_REGISTER_KERNEL("aten::searchsorted.Tensor", Meta, (searchsorted<false, false, false>));
TN_REGISTER_KERNEL("aten::searchsorted.Scalar", DenseCPU, (searchsorted<true, true, false>));
TN_REGISTER_KERNEL("aten::searchsorted.Scalar", Meta, (searchsorted<false, true, false>));
TN_REGISTER_KERNEL("aten::searchsorted.Tensor_out", DenseCPU, (searchsorted<true, false, true>));
TN_REGISTER_KERNEL("aten::searchsorted.Tensor_out", Meta, (searchsorted<false, false, true>));
TN_REGISTER_KERNEL("aten::searchsorted.Scalar_out", DenseCPU, (searchsorted<true, true, true>));
TN_REGISTER_KERNEL("aten::searchsorted.Scalar_out", Meta, (searchsorted<false, true, true>));
TN_REGISTER_KERNEL("aten::bucketize.Tensor", DenseCPU, (bucketize<true, false, false>));
TN_REGISTER_KERNEL("aten::bucketize.Tensor", Meta, (bucketize<false, false, false>));
TN_REGISTER_KERNEL("aten::bucketize.Scalar", DenseCPU, (bucketize<true, true, false>));
TN_REGISTER_KERNEL("aten::bucketize.Scalar", Meta, (bucketize<false, true, false>));
TN_REGISTER_KERNEL("aten::bucketize.Tensor_out", DenseCPU, (bucketize<true, false, true>));
TN_REGISTER_KERNEL("aten::bucketize.Tensor_out", Meta, (bucketize<false, false, true>));
TN_REGISTER_KERNEL("aten::bincount", DenseCPU, bincount_cpu);

}  // namespace tn
