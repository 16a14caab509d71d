// segment_reduce (+ .out) and _segment_reduce_backward on dense CPU tensors, as upstream's
// SegmentReduce.cpp computes them: the segments along `axis` given by lengths or offsets (the
// axis is the last dim of either; leading dims are batches), each reduced in order by sum,
// mean, max, min or prod from `initial` (or the reduction's identity), in the data's own type
// (float16 and bfloat16 round every step, as upstream's scalar_t arithmetic does). float32,
// float64, float16, bfloat16 data; int32 / int64 lengths and offsets. Meta is upstream's meta
// registration. Out-of-range segments (unsafe=True, or offsets, which upstream never checks)
// are refused here rather than read past the data.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

enum class Red { Max, Mean, Min, Sum, Prod };

// upstream's get_reduction_enum (ReductionType.h), in its words.
Red reduction_of(const std::string& r) {
  if (r == "max" || r == "amax") return Red::Max;
  if (r == "mean") return Red::Mean;
  if (r == "min" || r == "amin") return Red::Min;
  if (r == "sum") return Red::Sum;
  if (r == "prod") return Red::Prod;
  TN_FAIL(Runtime, "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

// scalar_t arithmetic as c10's: 16-bit floats computed in float and rounded back each step;
// a 16-bit float divided by an integer divides by the integer rounded to its type.
template <typename T>
struct Arith {
  using A = acc_t<T>;
  static T add(T a, T b) { return T(A(a) + A(b)); }
  static T mul(T a, T b) { return T(A(a) * A(b)); }
  static T div(T a, T b) { return T(A(a) / A(b)); }
  static T div_int(T a, int64_t n) { return div(a, static_cast<T>(static_cast<A>(n))); }
  static bool nan(T a) { return std::isnan(A(a)); }
  static bool lt(T a, T b) { return A(a) < A(b); }
};

// The segments of one batch row: [start, end) of each, from lengths (running sums) or offsets.
struct Segments {
  const void* idx;
  bool is64, offsets;
  int64_t count, row_len;  // segments per row; entries per row of idx
  int64_t at(int64_t k) const {
    return is64 ? static_cast<const int64_t*>(idx)[k] : static_cast<const int32_t*>(idx)[k];
  }
  // Calls f(segment, start, end) for every segment of batch row `outer`, in order.
  template <typename F>
  void each(int64_t outer, int64_t axis_size, const F& f) const {
    const int64_t base = outer * row_len;
    int64_t end = offsets ? at(base) : 0;
    for (int64_t s = 0; s < count; ++s) {
      const int64_t start = end;
      end = offsets ? at(base + s + 1) : end + at(base + s);
      TN_CHECK(end - start >= 0, "segment_reduce(): segment ", s, " has negative length ",
               end - start);
      TN_CHECK(start >= 0 && end <= axis_size, "segment_reduce(): segment ", s, " spans [",
               start, ", ", end, "), outside the ", axis_size, " entries along the axis");
      f(s, start, end);
    }
  }
};

struct Geometry {
  int64_t outer = 1, inner = 1, axis_size = 0;
};

Geometry geometry_of(const Dims& data_sizes, int64_t axis) {
  Geometry g;
  for (int64_t d = 0; d < axis; ++d) g.outer *= data_sizes[d];
  for (size_t d = axis + 1; d < data_sizes.size(); ++d) g.inner *= data_sizes[d];
  g.axis_size = data_sizes[axis];
  return g;
}

template <typename T>
T start_value(Red r, const std::optional<Scalar>& initial) {
  if (initial) return static_convert<T>(initial->to_double());
  switch (r) {
    case Red::Max: return T(-std::numeric_limits<float>::infinity());
    case Red::Min: return T(std::numeric_limits<float>::infinity());
    case Red::Prod: return T(1);
    default: return T(0);
  }
}

// out[outer, s, inner] = the reduction of data[outer, start..end, inner].
template <typename T>
void forward(T* out, const T* x, const Segments& sg, const Geometry& g, Red r,
             const std::optional<Scalar>& initial) {
  using M = Arith<T>;
  for (int64_t o = 0; o < g.outer; ++o) {
    sg.each(o, g.axis_size, [&](int64_t s, int64_t start, int64_t end) {
      for (int64_t in = 0; in < g.inner; ++in) {
        T v = start_value<T>(r, initial);
        for (int64_t j = start; j < end; ++j) {
          const T e = x[(o * g.axis_size + j) * g.inner + in];
          if (r == Red::Max) v = M::nan(e) ? e : (M::lt(v, e) ? e : v);
          else if (r == Red::Min) v = M::nan(e) ? e : (M::lt(e, v) ? e : v);
          else if (r == Red::Prod) v = M::mul(v, e);
          else v = M::add(v, e);
        }
        const int64_t len = end - start;
        if (r == Red::Mean && len == 0 && !initial) v = T(std::nanf(""));
        else if (r == Red::Mean && len > 0 && !M::nan(v)) v = M::div_int(v, len);
        out[(o * sg.count + s) * g.inner + in] = v;
      }
    });
  }
}

// The lengths or offsets argument, checked as upstream's segment_reduce_kernel checks it.
struct Index {
  Tensor t;
  bool offsets;
};

Index index_arg(const Call& c, size_t lengths_at, size_t offsets_at) {
  const Tensor* off = c.optional_tensor(offsets_at);
  const Tensor* len = c.optional_tensor(lengths_at);
  TN_CHECK(off || len, "segment_reduce(): Either lengths or offsets must be defined.");
  return off ? Index{*off, true} : Index{*len, false};
}

Segments segments_of(const Index& ix, const std::string& key, const char* kernel) {
  const ScalarType it = ix.t->dtype();
  TN_CHECK_KIND(it == ScalarType::Int || it == ScalarType::Long, NotImplemented, "\"", kernel,
                "\" not implemented for '", enum_name(it), "'");
  TN_CHECK(ix.t->dim() >= 1, "segment_reduce(): ", ix.offsets ? "offsets" : "lengths",
           " must have at least one dimension");
  const int64_t last = ix.t->sizes()[ix.t->dim() - 1];
  TN_CHECK(!ix.offsets || last >= 1, "segment_reduce(): offsets must have at least one entry "
           "along the axis");
  Segments sg{nullptr, it == ScalarType::Long, ix.offsets, ix.offsets ? last - 1 : last, last};
  sg.idx = it == ScalarType::Long ? static_cast<const void*>(data_of<int64_t>(ix.t, key))
                                  : static_cast<const void*>(data_of<int32_t>(ix.t, key));
  return sg;
}

bool floating_data(ScalarType dt) {
  return dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half ||
         dt == ScalarType::BFloat16;
}

template <typename F>
void dispatch_data(ScalarType dt, const F& f) {
  TN_CHECK_KIND(floating_data(dt), NotImplemented, "\"_segment_reduce_cpu\" not implemented for '",
                enum_name(dt), "'");
  switch (dt) {
    case ScalarType::Float: return f(float(0));
    case ScalarType::Double: return f(double(0));
    case ScalarType::Half: return f(Half());
    default: return f(BFloat16());
  }
}

std::optional<Scalar> initial_of(const Call& c, size_t i) {
  if (c.arg(i).is_none()) return std::nullopt;
  return c.scalar(i);
}

// upstream's checks of the index tensor (lengths: with the !unsafe sums), in its order.
void check_index(const Tensor& data, const Index& ix, int64_t axis, bool unsafe) {
  const char* what = ix.offsets ? "offsets" : "lengths";
  TN_CHECK(data->dim() >= ix.t->dim(), "Expected data.dim() >= ", what,
           "_value.dim() to be true, but got false.  (Could this error message be improved?  "
           "If so, please report an enhancement request to PyTorch.)");
  TN_CHECK(axis == ix.t->dim() - 1, "segment_reduce(): Expected axis to be the last dimension of ",
           what, " but got ", axis, ".");
  if (ix.offsets || unsafe) return;
  Tensor mn = call_tensor("aten::min", {t(ix.t)});
  const int64_t min_length = call("aten::_local_scalar_dense", {t(mn)})[0].scalar.to_int();
  TN_CHECK(min_length >= 0, "lengths contains negative value!");
  Tensor sums = call_tensor("aten::sum.dim_IntList", {t(ix.t), ops::ints({-1}),
                                                       Value::of_bool(false)});
  Tensor eq = call_tensor("aten::eq.Scalar",
                          {t(sums), Value::of_scalar(Scalar::from_int(data->sizes()[axis]))});
  Tensor all = call_tensor("aten::all", {t(eq)});
  TN_CHECK(call("aten::_local_scalar_dense", {t(all)})[0].scalar.to_int() != 0,
           "segment_reduce(): Expected all rows of lengths along axis to sum to "
           "data.size(lengths.dim()-1) when !unsafe.");
}

// segment_reduce(data, str reduce, *, lengths=None, indices=None, offsets=None, int axis=0,
//                bool unsafe=False, Scalar? initial=None)
void segment_reduce(Call& c) {
  const Tensor& data = c.tensor(0);
  const int64_t axis = wrap_dim(c.to_int(5), data->dim());
  TN_CHECK(c.optional_tensor(3) == nullptr,
           "segment_reduce(): indices based reduction is not supported yet.");
  const Index ix = index_arg(c, 2, 4);
  const Red r = reduction_of(c.arg(1).str);
  const std::string& key = c.key();
  Tensor x = contiguous(data, key);
  check_index(data, ix, axis, c.to_bool(6));
  const Index ic{contiguous(ix.t, key), ix.offsets};
  const Segments sg = segments_of(ic, key, ix.offsets ? "_segment_reduce_offsets_cpu_kernel1"
                                                      : "_segment_reduce_lengths_cpu_kernel1");
  Dims shape = x->sizes();
  shape[axis] = sg.count;
  Tensor out = ops::empty(shape, x->dtype(), x->device());
  const std::optional<Scalar> initial = initial_of(c, 7);
  const Geometry g = geometry_of(x->sizes(), axis);
  dispatch_data(x->dtype(), [&](auto zero) {
    using T = decltype(zero);
    forward<T>(data_of<T>(out, key), data_of<T>(x, key), sg, g, r, initial);
  });
  c.ret(out);
}

// Python's seq[i] for upstream's meta function: a negative i from the end, else IndexError.
int64_t py_at(const Dims& seq, int64_t i, const char* what) {
  const int64_t n = static_cast<int64_t>(seq.size());
  TN_CHECK_KIND(i >= -n && i < n, Index, what, " index out of range");
  return i < 0 ? i + n : i;
}

// Meta: upstream's meta_segment_reduce (data's shape, the axis's size the segment count:
// lengths.shape[axis], or offsets.shape[axis] - 1).
void segment_reduce_meta(Call& c) {
  const Tensor& data = c.tensor(0);
  TN_CHECK_KIND(c.optional_tensor(3) == nullptr, NotImplemented,
                "segment_reduce(): indices based reduction is not supported yet.");
  const Tensor *len = c.optional_tensor(2), *off = c.optional_tensor(4);
  TN_CHECK(len || off, "segment_reduce(): Either lengths or offsets must be defined.");
  const int64_t axis = c.to_int(5);
  const Dims& is = len ? (*len)->sizes() : (*off)->sizes();
  const int64_t count = is[py_at(is, axis, "tuple")] - (len ? 0 : 1);
  Dims shape = data->sizes();
  shape[py_at(shape, axis, "list assignment")] = count;
  c.ret(ops::empty(shape, data->dtype(), data->device()));
}

// gi (zeros, data's shape) from grad and out (the forward's), as upstream's backward kernel:
// max/min hand grad to every element equal to the result (or NaN), then split a positive share
// among ties; mean grad / length; sum grad; prod grad * out / x, or grad times the product of
// the others (from initial) where x is 0 or NaN.
template <typename T>
void backward(T* gi, const T* grad, const T* out, const T* x, const Segments& sg,
              const Geometry& g, Red r, const std::optional<Scalar>& initial) {
  using M = Arith<T>;
  const T prod0 = initial ? static_convert<T>(initial->to_double()) : T(1);
  for (int64_t o = 0; o < g.outer; ++o) {
    sg.each(o, g.axis_size, [&](int64_t s, int64_t start, int64_t end) {
      const int64_t len = end - start;
      if (len == 0) return;
      for (int64_t in = 0; in < g.inner; ++in) {
        const int64_t oi = (o * sg.count + s) * g.inner + in;
        auto at = [&](int64_t j) { return (o * g.axis_size + j) * g.inner + in; };
        if (r == Red::Max || r == Red::Min) {
          int64_t counter = 0;
          for (int64_t j = start; j < end; ++j) {
            if (M::nan(x[at(j)]) || acc_t<T>(x[at(j)]) == acc_t<T>(out[oi])) {
              gi[at(j)] = grad[oi];
              ++counter;
            }
          }
          if (counter < 2) continue;
          for (int64_t j = start; j < end; ++j)
            if (acc_t<T>(gi[at(j)]) > 0) gi[at(j)] = M::div_int(gi[at(j)], counter);
        } else if (r == Red::Mean) {
          const T v = M::div_int(grad[oi], len);
          for (int64_t j = start; j < end; ++j) gi[at(j)] = v;
        } else if (r == Red::Sum) {
          for (int64_t j = start; j < end; ++j) gi[at(j)] = grad[oi];
        } else {
          const T v = M::mul(grad[oi], out[oi]);
          for (int64_t j = start; j < end; ++j) {
            const T e = x[at(j)];
            if (!M::nan(e) && acc_t<T>(e) != 0) {
              gi[at(j)] = M::div(v, e);
              continue;
            }
            T excl = prod0;
            for (int64_t k = start; k < end; ++k)
              if (k != j) excl = M::mul(excl, x[at(k)]);
            gi[at(j)] = M::mul(grad[oi], excl);
          }
        }
      }
    });
  }
}

// _segment_reduce_backward(grad, output, data, str reduce, *, lengths=None, offsets=None,
//                          int axis=0, Scalar? initial=None)
void segment_reduce_backward(Call& c) {
  const Tensor& data = c.tensor(2);
  wrap_dim(c.to_int(6), data->dim());
  const Index ix = index_arg(c, 4, 5);
  const std::string& key = c.key();
  Tensor grad = contiguous(c.tensor(0), key), out = contiguous(c.tensor(1), key);
  Tensor x = contiguous(data, key);
  const Red r = reduction_of(c.arg(3).str);
  const Index ic{contiguous(ix.t, key), ix.offsets};
  // upstream's backward takes the index's last dim as the axis (the argument is not compared)
  const int64_t axis = ic.t->dim() - 1;
  Tensor gi = call_tensor("aten::zeros", {ops::ints(x->sizes()), Value::of_dtype(grad->dtype()),
                                          Value{}, Value::of_device(grad->device())});
  const Segments sg = segments_of(ic, key, ix.offsets
                                               ? "_segment_reduce_cpu_offsets_backward_kernel1"
                                               : "_segment_reduce_cpu_lengths_backward_kernel1");
  TN_CHECK(axis >= 0 && axis < x->dim(), "_segment_reduce_backward: the ",
           ix.offsets ? "offsets" : "lengths", " of ", ic.t->dim(), " dims do not fit data of ",
           x->dim(), " dims");
  const std::optional<Scalar> initial = initial_of(c, 7);
  const Geometry g = geometry_of(x->sizes(), axis);
  dispatch_data(x->dtype(), [&](auto zero) {
    using T = decltype(zero);
    const ScalarType dt = x->dtype();
    for (const Tensor* v : {&grad, &out, &gi})
      TN_CHECK((*v)->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
               enum_name((*v)->dtype()));
    TN_CHECK(out->numel() == g.outer * sg.count * g.inner && grad->numel() == out->numel(),
             "_segment_reduce_backward: expected grad and output of ", g.outer * sg.count *
             g.inner, " elements, got ", grad->numel(), " and ", out->numel());
    backward<T>(data_of<T>(gi, key), data_of<T>(grad, key), data_of<T>(out, key),
                data_of<T>(x, key), sg, g, r, initial);
  });
  c.ret(gi);
}

void segment_reduce_backward_meta(Call& c) {
  const Tensor &grad = c.tensor(0), &data = c.tensor(2);
  c.ret(ops::empty(data->sizes(), grad->dtype(), grad->device()));
}

constexpr char kSegmentReduce[] = "aten::segment_reduce";

}  // namespace

TN_REGISTER_KERNEL("aten::segment_reduce", DenseCPU, segment_reduce);
TN_REGISTER_KERNEL("aten::segment_reduce", Meta, segment_reduce_meta);
TN_REGISTER_COMPOSITE("aten::segment_reduce.out", ops::generated_out<kSegmentReduce>);
TN_REGISTER_KERNEL("aten::_segment_reduce_backward", DenseCPU, segment_reduce_backward);
TN_REGISTER_KERNEL("aten::_segment_reduce_backward", Meta, segment_reduce_backward_meta);

}  // namespace tn
