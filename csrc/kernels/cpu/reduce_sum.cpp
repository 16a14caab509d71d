// Sum-like reductions: sum, mean, prod, any/all (all dims, one dim, several dims, keepdim,
// dtype=), cumsum and cumprod, with their out= and in-place spellings. One shape/dtype rule per op
// (structured), shared with meta; the CPU compute fills the output it allocated.
#include <cmath>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/reduce_cascade.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

struct ReduceArgs {
  Dims dims;  // empty: every dim
  bool keepdim = false;
  std::optional<ScalarType> dtype;
};

// The argument layouts of the overloads: (self, dtype) and (self, dim, keepdim, dtype).
ReduceArgs args_all(const Call& c) { return {{}, false, c.optional_dtype(1)}; }
ReduceArgs args_dims(const Call& c) { return {opt_dims(c, 1), c.to_bool(2), c.optional_dtype(3)}; }
ReduceArgs args_dims_nodtype(const Call& c) { return {opt_dims(c, 1), c.to_bool(2), {}}; }
ReduceArgs args_all_nodtype(const Call&) { return {}; }

Tensor alloc_reduced(const Tensor& self, const ReduceArgs& a, ScalarType dt) {
  auto mask = reduce_mask(self->dim(), a.dims);
  return new_on(self, reduced_sizes(self->sizes(), mask, a.keepdim), dt);
}

ScalarType mean_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  ScalarType dt = dtype.value_or(self->dtype());
  TN_CHECK(is_floating(dt) || is_complex(dt), "mean(): could not infer output dtype. ",
           dtype ? "Optional" : "Input", " dtype must be either a floating point or complex "
           "dtype. Got: ", enum_name(dt));
  return dt;
}

enum class Fold { Sum, Mean, Prod };

// The sums of kBlock slices whose elements lie side by side (slice t's k-th element at
// b[inner[k] + t]), each in pairwise_sum's order (the same tree, the same base case), so the
// same bits as kBlock calls of it; the fixed-width loops over t vectorise. For a reduction over
// a dim that is not the innermost (sum(dim=1) at 6 x 15 x 384: 31 -> 10.8 us; upstream 4.4).
constexpr int kBlock = 16;
template <typename A>
void pairwise_sum_block(const A* b, const int64_t* inner, int64_t lo, int64_t hi, A* out) {
  if (hi - lo <= 16) {
    A s[kBlock] = {};
    for (int64_t k = lo; k < hi; ++k) {
      const A* row = b + inner[k];
      for (int t = 0; t < kBlock; ++t) s[t] += row[t];
    }
    for (int t = 0; t < kBlock; ++t) out[t] = s[t];
    return;
  }
  int64_t mid = lo + (hi - lo) / 2;
  A left[kBlock], right[kBlock];
  pairwise_sum_block(b, inner, lo, mid, left);
  pairwise_sum_block(b, inner, mid, hi, right);
  for (int t = 0; t < kBlock; ++t) out[t] = left[t] + right[t];
}

// Whether slices i .. i + kBlock - 1 start at consecutive elements.
inline bool side_by_side(const std::vector<int64_t>& outer, size_t i) {
  if (i + kBlock > outer.size()) return false;
  for (int t = 1; t < kBlock; ++t)
    if (outer[i + t] != outer[i] + t) return false;
  return true;
}

// A complex product: each slice multiplied in order, (ac - bd) + (ad + bc)i per step.
void complex_prod_into(const Tensor& self, const ReduceArgs& a, const Tensor& out,
                       const std::string& key) {
  Tensor in = cast_to(self, out->dtype(), key);
  ReduceGeom g = reduce_geom(in, reduce_mask(in->dim(), a.dims));
  dispatch_dtype_complex(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (is_complex_v<T>) {
      const T* x = data_of<T>(in, key);
      T* o = data_of<T>(out, key);
      for (size_t i = 0; i < g.outer.size(); ++i) {
        T p(1);
        for (int64_t off : g.inner) {
          T v = x[g.outer[i] + off];
          p = T(p.real() * v.real() - p.imag() * v.imag(),
                p.real() * v.imag() + p.imag() * v.real());
        }
        o[i] = p;
      }
    }
  });
}

// Folds each reduced slice of self (cast to out's dtype first, as upstream) into out.
void fold_into(const Tensor& self, const ReduceArgs& a, const Tensor& out, Fold fold,
               const std::string& key) {
  TN_CHECK_KIND(out->dtype() != ScalarType::ComplexHalf, NotImplemented, "\"",
                fold == Fold::Prod ? "prod_out_cpu" : "sum_cpu",
                "\" not implemented for 'ComplexHalf'");  // upstream's kernels have no case
  if (is_complex(out->dtype())) {
    // A complex sum or mean is that of the real and imaginary parts: the real views of input
    // and output, reduced over the same dims (the pair dim kept).
    if (fold == Fold::Prod) return complex_prod_into(self, a, out, key);
    Tensor src = self->dtype() == out->dtype()
                     ? self
                     : call_tensor("aten::_to_copy", {Value::of(self),
                                                      Value::of_dtype(out->dtype())});
    ReduceArgs parts = a;
    std::vector<bool> mask = reduce_mask(self->dim(), a.dims);
    parts.dims.clear();
    for (int64_t d = 0; d < self->dim(); ++d)
      if (mask[d]) parts.dims.push_back(d);
    parts.dtype.reset();
    if (self->dim() == 0) {  // the sum of one value is the value
      call("aten::copy_", {Value::of(out), Value::of(src)});
      return;
    }
    fold_into(call_tensor("aten::view_as_real", {Value::of(src)}), parts,
              call_tensor("aten::view_as_real", {Value::of(out)}), fold, key);
    return;
  }
  Tensor in = cast_to(self, out->dtype(), key);
  // float32 and float64 sums in upstream's order (mean: that sum divided by the count, as
  // upstream's CPU mean computes it).
  if (fold != Fold::Prod && cascade_sum(in, reduce_mask(in->dim(), a.dims), out)) {
    if (fold == Fold::Mean) {
      int64_t count = in->numel() / std::max<int64_t>(out->numel(), 1);
      if (out->numel() == 0) return;
      call("aten::div_.Scalar", {Value::of(out), Value::of_int(count)});
    }
    return;
  }
  ReduceGeom g = reduce_geom(in, reduce_mask(in->dim(), a.dims));
  int64_t n = static_cast<int64_t>(g.inner.size());
  dispatch_dtype(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const T* x = data_of<T>(in, key);
    T* o = data_of<T>(out, key);
    for (size_t i = 0; i < g.outer.size(); ++i) {
      const T* b = x + g.outer[i];
      if constexpr (std::is_same_v<T, A> && std::is_floating_point_v<A>) {
        if (fold != Fold::Prod && n > 0 && side_by_side(g.outer, i)) {
          pairwise_sum_block<A>(b, g.inner.data(), 0, n, o + i);
          if (fold == Fold::Mean)
            for (int t = 0; t < kBlock; ++t) o[i + t] = o[i + t] / static_cast<A>(n);
          i += kBlock - 1;
          continue;
        }
      }
      if (fold == Fold::Prod) {
        A p = A(1);
        for (int64_t k = 0; k < n; ++k) p = p * A(b[g.inner[k]]);
        o[i] = T(p);
        continue;
      }
      A s = pairwise_sum<A>(0, n, [&](int64_t k) { return A(b[g.inner[k]]); });
      if constexpr (std::is_floating_point_v<A>) {
        if (fold == Fold::Mean) s = s / static_cast<A>(n);
      }
      o[i] = T(s);
    }
  });
}

template <ReduceArgs (*Parse)(const Call&)>
void sum_rule(Call& c) {
  ReduceArgs a = Parse(c);
  c.ret(alloc_reduced(c.tensor(0), a, sum_dtype(c.tensor(0)->dtype(), a.dtype)));
}
template <ReduceArgs (*Parse)(const Call&)>
void sum_cpu(Call& c) { fold_into(c.tensor(0), Parse(c), c.results[0].tensor, Fold::Sum, c.key()); }
template <ReduceArgs (*Parse)(const Call&)>
void prod_cpu(Call& c) {
  fold_into(c.tensor(0), Parse(c), c.results[0].tensor, Fold::Prod, c.key());
}
template <ReduceArgs (*Parse)(const Call&)>
void mean_rule(Call& c) {
  ReduceArgs a = Parse(c);
  c.ret(alloc_reduced(c.tensor(0), a, mean_dtype(c.tensor(0), a.dtype)));
}
template <ReduceArgs (*Parse)(const Call&)>
void mean_cpu(Call& c) {
  fold_into(c.tensor(0), Parse(c), c.results[0].tensor, Fold::Mean, c.key());
}

// prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)
ReduceArgs args_one_dim(const Call& c) {
  return {{c.to_int(1)}, c.to_bool(2), c.optional_dtype(3)};
}

TN_REGISTER_STRUCTURED("aten::sum", sum_rule<args_all>, sum_cpu<args_all>);
TN_REGISTER_STRUCTURED("aten::sum.dim_IntList", sum_rule<args_dims>, sum_cpu<args_dims>);
TN_REGISTER_STRUCTURED("aten::mean", mean_rule<args_all>, mean_cpu<args_all>);
TN_REGISTER_STRUCTURED("aten::mean.dim", mean_rule<args_dims>, mean_cpu<args_dims>);
TN_REGISTER_STRUCTURED("aten::prod", sum_rule<args_all>, prod_cpu<args_all>);
TN_REGISTER_STRUCTURED("aten::prod.dim_int", sum_rule<args_one_dim>, prod_cpu<args_one_dim>);

// out= spellings of (self, dim, keepdim, dtype, out): dtype defaults to out's, and a dtype
// given must be out's, as upstream.
template <const char* Functional>
void dims_dtype_out(Call& c) {
  const Tensor& out = c.tensor(4);
  if (!c.arg(3).is_none()) ops::check_out_dtype(out, *c.optional_dtype(3));
  Value dt = c.arg(3).is_none() ? Value::of_dtype(out->dtype()) : c.arg(3);
  Tensor r = call_tensor(Functional, {c.arg(0), c.arg(1), c.arg(2), dt});
  c.ret(ops::write_out(out, r, c.key()));
}
constexpr char kSumDim[] = "aten::sum.dim_IntList";
constexpr char kMeanDim[] = "aten::mean.dim";
constexpr char kProdDim[] = "aten::prod.dim_int";
TN_REGISTER_COMPOSITE("aten::sum.IntList_out", dims_dtype_out<kSumDim>);
// nansum(self, dim?, keepdim, *, dtype?): sum with each NaN read as 0 (upstream's cascade sum
// with NaN skipped, the same fold over the same values); integers are summed as they are. The
// NaN-free copy keeps self's strides (unless self overlaps itself), so the sum walks it as
// upstream's walks self: a strided row is folded another way than a contiguous one.
void nansum(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(!info(self->dtype()).is_complex, "nansum on CPU does not support complex inputs");
  std::optional<ScalarType> dtype = c.optional_dtype(3);
  TN_CHECK_KIND(!dtype || !is_complex(*dtype), NotImplemented, "\"nansum_cpu\" not implemented "
                "for '", enum_name(*dtype), "'");
  Value x = c.arg(0);
  if (is_floating(self->dtype())) {
    bool overlaps = false;
    for (int64_t d = 0; d < self->dim(); ++d)
      overlaps = overlaps || (self->stride(d) == 0 && self->size(d) > 1);
    Tensor copy = overlaps ? ops::clone_contiguous(self)
                           : ops::empty_strided(self->sizes(), self->strides(), self->dtype(),
                                                self->device());
    if (!overlaps) ops::copy_(copy, self);
    Tensor nan = call_tensor("aten::isnan", {Value::of(copy)});
    call("aten::masked_fill_.Scalar",
         {Value::of(copy), Value::of(nan), Value::of_scalar(Scalar::from_int(0))});
    x = Value::of(copy);
  }
  c.ret(call_tensor(kSumDim, {x, c.arg(1), c.arg(2), c.arg(3)}));
}
// logsumexp(self, dim, keepdim), upstream's composite: m = amax(self, dim, keepdim=True) with
// infinite maxima read as 0, then log(sum(exp(self - m), dim, keepdim)) + m (m squeezed back
// unless keepdim); integral and bool inputs in the default float dtype. The sum of an empty
// input is exp's, then log.
Tensor logsumexp_of(const Value& self_v, const Value& dims, bool keepdim) {
  const Tensor& x0 = self_v.tensor;
  Value x = self_v;
  if (is_integral(x0->dtype(), true))
    x = Value::of(call_tensor("aten::_to_copy", {self_v, Value::of_dtype(default_float_dtype())}));
  const Tensor& xt = x.tensor;
  if (xt->numel() == 0) {
    Tensor e = call_tensor("aten::exp", {x});
    Tensor r = call_tensor(kSumDim, {Value::of(e), dims, Value::of_bool(keepdim)});
    return call_tensor("aten::log_", {Value::of(r)});
  }
  // complex: the maxima of the real parts (upstream's, after the log-sum-exp trick for complex
  // numbers)
  Value xr = is_complex(xt->dtype()) ? Value::of(call_tensor("aten::real", {x})) : x;
  Tensor m = call_tensor("aten::amax", {xr, dims, Value::of_bool(true)});
  Tensor inf = call_tensor("aten::eq.Scalar", {Value::of(call_tensor("aten::abs", {Value::of(m)})),
                                               Value::of_scalar(Scalar::from_double(INFINITY))});
  call("aten::masked_fill_.Scalar", {Value::of(m), Value::of(inf),
                                     Value::of_scalar(Scalar::from_int(0))});
  Tensor d = call_tensor("aten::sub.Tensor", {x, Value::of(m)});
  call("aten::exp_", {Value::of(d)});
  Tensor r = call_tensor(kSumDim, {Value::of(d), dims, Value::of_bool(keepdim)});
  call("aten::log_", {Value::of(r)});
  // m squeezed at the listed dims only (upstream's squeeze_multiple): with dim=[] and
  // keepdim=False nothing is squeezed, and the in-place add refuses the broadcast, as upstream's.
  Tensor ms = m;
  if (!keepdim && !dims.ints.empty())
    ms = call_tensor("aten::squeeze.dims", {Value::of(m), dims});
  call("aten::add_.Tensor", {Value::of(r), Value::of(ms)});
  return r;
}
void logsumexp(Call& c) { c.ret(logsumexp_of(c.arg(0), c.arg(1), c.to_bool(2))); }
// logsumexp.out(self, dim, keepdim, *, out): out must be floating or complex.
void logsumexp_out(Call& c) {
  const Tensor& out = c.tensor(3);
  TN_CHECK(is_floating(out->dtype()) || is_complex(out->dtype()), "logsumexp(): Expected "
           "floating point type for result tensor, but got: ", enum_name(out->dtype()));
  c.ret(ops::write_out(out, logsumexp_of(c.arg(0), c.arg(1), c.to_bool(2)), c.key()));
}
TN_REGISTER_COMPOSITE("aten::logsumexp", logsumexp);
TN_REGISTER_COMPOSITE("aten::logsumexp.out", logsumexp_out);

constexpr char kNansum[] = "aten::nansum";
TN_REGISTER_COMPOSITE("aten::nansum", nansum);
TN_REGISTER_COMPOSITE("aten::nansum.out", dims_dtype_out<kNansum>);
// mean.out: the input (or dtype=) must be floating before out's dtype is looked at, as upstream.
void mean_out(Call& c) {
  mean_dtype(c.tensor(0), c.optional_dtype(3));
  dims_dtype_out<kMeanDim>(c);
}
TN_REGISTER_COMPOSITE("aten::mean.out", mean_out);
TN_REGISTER_COMPOSITE("aten::prod.int_out", dims_dtype_out<kProdDim>);

// --- any / all: bool results, except uint8 inputs give uint8 (as upstream) -------------------

// The dims any / all reduce: as the other reductions, except that an empty list (all.dims with
// dim=[]) reduces none, as upstream's (each element's truth); None reduces every dim.
template <ReduceArgs (*Parse)(const Call&)>
std::vector<bool> logical_mask(const Call& c, const ReduceArgs& a) {
  const int64_t nd = c.tensor(0)->dim();
  if (Parse == args_dims_nodtype && !c.arg(1).is_none() && a.dims.empty())
    return std::vector<bool>(static_cast<size_t>(nd), false);
  return reduce_mask(nd, a.dims);
}

template <bool IsAny, ReduceArgs (*Parse)(const Call&)>
void logical_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  check_supported(self, c.key(), /*allow_complex32=*/true);
  ScalarType dt = self->dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  ReduceArgs a = Parse(c);
  c.ret(new_on(self, reduced_sizes(self->sizes(), logical_mask<Parse>(c, a), a.keepdim), dt));
}

template <bool IsAny, ReduceArgs (*Parse)(const Call&)>
void logical_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.results[0].tensor;
  ReduceGeom g = reduce_geom(self, logical_mask<Parse>(c, Parse(c)));
  const std::string& key = c.key();
  std::vector<uint8_t> r(g.outer.size());
  dispatch_dtype_complex32(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* x = data_of<T>(self, key);
    auto truth = [](T v) {
      if constexpr (is_complex_v<T>) return v.real() != 0 || v.imag() != 0;
      else return static_convert<bool>(v);
    };
    for (size_t i = 0; i < g.outer.size(); ++i) {
      bool acc = !IsAny;
      for (int64_t off : g.inner) {
        if (truth(x[g.outer[i] + off]) == IsAny) {
          acc = IsAny;
          break;
        }
      }
      r[i] = acc;
    }
  });
  // Bool and uint8 are both one byte holding 0/1.
  auto* o = data_of<uint8_t>(out, key);
  for (size_t i = 0; i < r.size(); ++i) o[i] = r[i];
}

ReduceArgs args_int_dim(const Call& c) { return {{c.to_int(1)}, c.to_bool(2), {}}; }

TN_REGISTER_STRUCTURED("aten::any", (logical_rule<true, args_all_nodtype>),
                       (logical_cpu<true, args_all_nodtype>));
TN_REGISTER_STRUCTURED("aten::any.dim", (logical_rule<true, args_int_dim>),
                       (logical_cpu<true, args_int_dim>));
TN_REGISTER_STRUCTURED("aten::any.dims", (logical_rule<true, args_dims_nodtype>),
                       (logical_cpu<true, args_dims_nodtype>));
TN_REGISTER_STRUCTURED("aten::all", (logical_rule<false, args_all_nodtype>),
                       (logical_cpu<false, args_all_nodtype>));
TN_REGISTER_STRUCTURED("aten::all.dim", (logical_rule<false, args_int_dim>),
                       (logical_cpu<false, args_int_dim>));
TN_REGISTER_STRUCTURED("aten::all.dims", (logical_rule<false, args_dims_nodtype>),
                       (logical_cpu<false, args_dims_nodtype>));

// The out= spellings (all.out / .dims_out / .all_out, any's): out must be bool or uint8 and
// takes the result in its own dtype (upstream computes in out's dtype: a uint8 input may fill a
// bool out), resized as resize_output does.
template <bool IsAny, const char* Functional>
void logical_out(Call& c) {
  const Tensor& out = c.tensor(c.args.size() - 1);
  TN_CHECK(out->dtype() == ScalarType::Bool || out->dtype() == ScalarType::Byte,
           IsAny ? "any" : "all", " only supports bool tensor for result, got: ",
           enum_name(out->dtype()));
  std::vector<Value> args(c.args.begin(), c.args.end() - 1);
  Tensor r = call_tensor(Functional, args);
  check_out_device(out, r->device());
  resize_out(out, r->sizes());
  call("aten::copy_", {Value::of(out), Value::of(r)});
  c.ret(out);
}
constexpr char kAnyAll[] = "aten::any", kAnyDim[] = "aten::any.dim", kAnyDims[] = "aten::any.dims";
constexpr char kAllAll[] = "aten::all", kAllDim[] = "aten::all.dim", kAllDims[] = "aten::all.dims";
TN_REGISTER_COMPOSITE("aten::any.all_out", (logical_out<true, kAnyAll>));
TN_REGISTER_COMPOSITE("aten::any.out", (logical_out<true, kAnyDim>));
TN_REGISTER_COMPOSITE("aten::any.dims_out", (logical_out<true, kAnyDims>));
TN_REGISTER_COMPOSITE("aten::all.all_out", (logical_out<false, kAllAll>));
TN_REGISTER_COMPOSITE("aten::all.out", (logical_out<false, kAllDim>));
TN_REGISTER_COMPOSITE("aten::all.dims_out", (logical_out<false, kAllDims>));

// --- cumsum and cumprod: a sequential scan in upstream's CPU accumulation type (float scans in
// double), so results are expected to be bit-identical to upstream's scalar scan. A complex
// product is c10's (re = ac - bd, im = ad + bc). -----------------------------------------------

void cumsum_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  wrap_dim(c.to_int(1), self->dim());
  c.ret(new_on(self, self->sizes(), sum_dtype(self->dtype(), c.optional_dtype(2))));
}

template <typename A>
A scan_step(A acc, A x, bool prod) {
  if (!prod) return acc + x;
  if constexpr (is_complex_v<A>) {
    using R = typename A::value_type;
    const R a = acc.real(), b = acc.imag(), cr = x.real(), d = x.imag();
    return A(a * cr - b * d, a * d + b * cr);
  } else {
    return acc * x;
  }
}

template <bool Prod>
void scan_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor& out = c.results[0].tensor;
  Tensor in = cast_to(c.tensor(0), out->dtype(), key);
  std::vector<bool> mask(in->dim(), false);
  if (in->dim() > 0) mask[wrap_dim(c.to_int(1), in->dim())] = true;
  ReduceGeom gi = reduce_geom(in, mask), go = reduce_geom(out, mask);
  dispatch_dtype_complex(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = typename ScanAcc<T>::type;
    const T* x = data_of<T>(in, key);
    T* o = data_of<T>(out, key);
    for (size_t i = 0; i < gi.outer.size(); ++i) {
      A acc = A(Prod ? 1 : 0);
      for (size_t k = 0; k < gi.inner.size(); ++k) {
        acc = scan_step(acc, static_cast<A>(x[gi.outer[i] + gi.inner[k]]), Prod);
        o[go.outer[i] + go.inner[k]] = T(acc);
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::cumsum", cumsum_rule, scan_cpu<false>);
TN_REGISTER_STRUCTURED("aten::cumprod", cumsum_rule, scan_cpu<true>);

// upstream's scan refuses a written tensor that holds one element twice (its iterator's check),
// once past the 0-dim and empty cases it fills directly.
void check_scan_written(const Tensor& self, const Tensor& written) {
  if (self->dim() > 0 && self->numel() > 0) check_no_internal_overlap(*written);
}

// cumsum.out / cumprod.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out): a
// dtype given must be out's.
template <const char* kOp>
void scan_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.tensor(3);
  wrap_dim(c.to_int(1), self->dim());  // (the dim first, as upstream's)
  if (!c.arg(2).is_none()) ops::check_out_dtype(out, *c.optional_dtype(2));
  Value dt = c.arg(2).is_none() ? Value::of_dtype(out->dtype()) : c.arg(2);
  Tensor r = call_tensor(kOp, {c.arg(0), c.arg(1), dt});
  resize_out(out, r->sizes());
  check_scan_written(self, out);
  c.ret(ops::write_out(out, r, c.key()));
}

// cumsum_ / cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None): computes in self's
// dtype; a dtype given must be self's (upstream's in-place check).
template <const char* kOp>
void scan_inplace(Call& c) {
  const Tensor& self = c.tensor(0);
  wrap_dim(c.to_int(1), self->dim());
  if (!c.arg(2).is_none()) {
    ScalarType dt = *c.optional_dtype(2);
    TN_CHECK(dt == self->dtype(), "Bad in-place call: input tensor dtype ",
             cpp_type_name(self->dtype()), " and output tensor dtype ", cpp_type_name(dt),
             " should match");
  }
  Value dt = c.arg(2).is_none() ? Value::of_dtype(self->dtype()) : c.arg(2);
  Tensor r = call_tensor(kOp, {c.arg(0), c.arg(1), dt});
  check_scan_written(self, self);
  c.ret(ops::write_out(self, r, c.key()));
}
constexpr char kCumsum[] = "aten::cumsum", kCumprod[] = "aten::cumprod";
TN_REGISTER_COMPOSITE("aten::cumsum.out", scan_out<kCumsum>);
TN_REGISTER_COMPOSITE("aten::cumsum_", scan_inplace<kCumsum>);
TN_REGISTER_COMPOSITE("aten::cumprod.out", scan_out<kCumprod>);
TN_REGISTER_COMPOSITE("aten::cumprod_", scan_inplace<kCumprod>);

}  // namespace
}  // namespace tn
