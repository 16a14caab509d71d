// Statistical reductions: var/std and var_mean/std_mean (the correction overloads, out=) and
// linalg_vector_norm. var/std use two passes in double (upstream: Welford accumulating in
// double for float inputs), so float32 results are expected to agree to the last ulp or so.
#include <cmath>
#include <limits>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

struct VarArgs {
  Dims dims;
  double correction = 1;
  bool keepdim = false;
};

// (var and var.dim, without a correction, are composites upstream: composite/aliases.cpp.)
// var.correction(self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
VarArgs var_corr(const Call& c) {
  double corr = c.arg(2).is_none() ? 1.0 : c.scalar(2).to_double();
  return {opt_dims(c, 1), corr, c.to_bool(3)};
}

// var/std.correction: one result; var_mean/std_mean.correction (kWithMean) also the mean, in
// self's dtype.
template <VarArgs (*Parse)(const Call&), bool kWithMean = false>
void var_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  const char* who = !kWithMean ? "std and var"
                    : c.key().find("std_mean") != std::string::npos ? "std_mean" : "var_mean";
  TN_CHECK(is_floating(self->dtype()) || is_complex(self->dtype()), who,
           " only support floating point and complex dtypes");
  VarArgs a = Parse(c);
  auto mask = reduce_mask(self->dim(), a.dims);
  Dims sizes = reduced_sizes(self->sizes(), mask, a.keepdim);
  c.ret(new_on(self, sizes, to_real_type(self->dtype())));
  if (kWithMean) c.ret(new_on(self, sizes, self->dtype()));
}

// Complex self, as upstream: the variances of the real and imaginary parts added (std: its
// square root); the mean (kWithMean) made of the parts' means.
template <bool Sqrt, bool kWithMean>
void var_complex(Call& c) {
  std::vector<Value> rest(c.args.begin() + 1, c.args.end());
  auto var_of = [&](const char* part) {
    std::vector<Value> args{Value::of(call_tensor(part, {c.arg(0)}))};
    args.insert(args.end(), rest.begin(), rest.end());
    return call(kWithMean ? "aten::var_mean.correction" : "aten::var.correction",
                std::move(args));
  };
  std::vector<Value> re = var_of("aten::real"), im = var_of("aten::imag");
  Tensor v = call_tensor("aten::add.Tensor", {re[0], im[0]});
  if (Sqrt) v = call_tensor("aten::sqrt", {Value::of(v)});
  ops::copy_(c.results[0].tensor, v);
  if (kWithMean) ops::copy_(c.results[1].tensor, call_tensor("aten::complex", {re[1], im[1]}));
}

// Upstream accumulates Welford's mean and M2 in double for float inputs; ours sums twice in
// double (pairwise), the mean then the squared deviations. The mean result (kWithMean) is
// that double mean in self's dtype: the same float32 as upstream's but at a rounding tie.
template <bool Sqrt, VarArgs (*Parse)(const Call&), bool kWithMean = false>
void var_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& out = c.results[0].tensor;
  const std::string& key = c.key();
  VarArgs a = Parse(c);
  if (is_complex(self->dtype())) return var_complex<Sqrt, kWithMean>(c);
  ReduceGeom g = reduce_geom(self, reduce_mask(self->dim(), a.dims));
  double n = static_cast<double>(g.inner.size());
  // Upstream divides by max(0, N - correction): 0/0 = NaN, x/0 = inf.
  double divisor = std::max(0.0, n - a.correction);
  dispatch_dtype(self->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    const T* x = data_of<T>(self, key);
    T* o = data_of<T>(out, key);
    T* m = kWithMean ? data_of<T>(c.results[1].tensor, key) : nullptr;
    for (size_t i = 0; i < g.outer.size(); ++i) {
      const T* b = x + g.outer[i];
      auto at = [&](int64_t k) { return static_cast<double>(b[g.inner[k]]); };
      double mean = pairwise_sum<double>(0, g.inner.size(), at) / n;
      double m2 = pairwise_sum<double>(0, g.inner.size(), [&](int64_t k) {
        double d = at(k) - mean;
        return d * d;
      });
      double v = m2 / divisor;
      o[i] = T(static_cast<acc_t<T>>(Sqrt ? std::sqrt(v) : v));
      if (kWithMean) m[i] = T(static_cast<acc_t<T>>(mean));
    }
  });
}

TN_REGISTER_STRUCTURED("aten::var.correction", var_rule<var_corr>, (var_cpu<false, var_corr>));
TN_REGISTER_STRUCTURED("aten::std.correction", var_rule<var_corr>, (var_cpu<true, var_corr>));
TN_REGISTER_STRUCTURED("aten::var_mean.correction", (var_rule<var_corr, true>),
                       (var_cpu<false, var_corr, true>));
TN_REGISTER_STRUCTURED("aten::std_mean.correction", (var_rule<var_corr, true>),
                       (var_cpu<true, var_corr, true>));

// var.correction_out / std.correction_out (self, dim, *, correction, keepdim, out).
template <const char* Functional>
void var_out(Call& c) {
  Tensor r = call_tensor(Functional, {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  c.ret(ops::write_out(c.tensor(4), r, c.key()));
}
constexpr char kVarCorr[] = "aten::var.correction";
constexpr char kStdCorr[] = "aten::std.correction";
TN_REGISTER_COMPOSITE("aten::var.correction_out", var_out<kVarCorr>);
TN_REGISTER_COMPOSITE("aten::std.correction_out", var_out<kStdCorr>);
// var_mean/std_mean.correction_out (self, dim, *, correction, keepdim, out0, out1): upstream's
// generated out= forms, the functional results copied into the outs of their dtypes.
template <const char* Functional>
void var_mean_out(Call& c) {
  std::vector<Value> r = call(Functional, {c.arg(0), c.arg(1), c.arg(2), c.arg(3)});
  for (size_t i = 0; i < 2; ++i) ops::check_out_dtype(c.tensor(4 + i), r[i].tensor->dtype());
  ops::ret_all(c, {r[0].tensor, r[1].tensor}, 4);
}
constexpr char kVarMeanCorr[] = "aten::var_mean.correction";
constexpr char kStdMeanCorr[] = "aten::std_mean.correction";
TN_REGISTER_COMPOSITE("aten::var_mean.correction_out", var_mean_out<kVarMeanCorr>);
TN_REGISTER_COMPOSITE("aten::std_mean.correction_out", var_mean_out<kStdMeanCorr>);

// var.out / std.out (self, dim, bool unbiased, keepdim, out): CompositeImplicit upstream, a call
// of *.correction_out with correction = unbiased ? 1 : 0.
template <const char* kCorrectionOut>
void unbiased_out(Call& c) {
  c.ret(call_tensor(kCorrectionOut, {c.arg(0), c.arg(1),
                                     Value::of_scalar(Scalar::from_int(c.to_bool(2) ? 1 : 0)),
                                     c.arg(3), c.arg(4)}));
}
constexpr char kVarCorrOut[] = "aten::var.correction_out";
constexpr char kStdCorrOut[] = "aten::std.correction_out";
TN_REGISTER_COMPOSITE("aten::var.out", unbiased_out<kVarCorrOut>);
TN_REGISTER_COMPOSITE("aten::std.out", unbiased_out<kStdCorrOut>);

// --- linalg_vector_norm(self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
//                        ScalarType? dtype=None) -------------------------------------------
// Sums run pairwise in the accumulation type (float for float32, as upstream's acc type);
// upstream's vectorised order is not reproduced, so float results are not bit-identical.

// The dtype the norm is computed in (a complex one: its absolute values'; the result is real).
ScalarType norm_dtype(const Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK(is_floating(self->dtype()) || is_complex(self->dtype()), "linalg.vector_norm: "
           "Expected a floating point or complex tensor as input. Got ", enum_name(self->dtype()));
  auto dt = c.optional_dtype(4);
  if (!dt) return self->dtype();
  TN_CHECK(is_floating(*dt) || is_complex(*dt), "linalg.vector_norm: dtype should be floating "
           "point or complex, but got ", enum_name(*dt));
  TN_CHECK(promote_types(self->dtype(), *dt) == *dt, "linalg.vector_norm: the dtype of the "
           "input (", enum_name(self->dtype()), ") should be convertible without narrowing to "
           "the specified dtype (", enum_name(*dt), ")");
  return *dt;
}

void norm_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  ScalarType dt = norm_dtype(c);
  double ord = c.scalar(1).to_double();
  Dims dims = opt_dims(c, 2);
  if (self->numel() == 0 && (ord < 0 || ord == INFINITY)) {
    bool ok = !dims.empty();
    for (int64_t d : dims) ok = ok && self->size(wrap_dim(d, self->dim())) != 0;
    TN_CHECK_KIND(ok, Index, "linalg.vector_norm cannot compute the ", c.scalar(1).to_double(),
                  " norm on an empty tensor because the operation does not have an identity");
  }
  auto mask = reduce_mask(self->dim(), dims);
  c.ret(new_on(self, reduced_sizes(self->sizes(), mask, c.to_bool(3)), to_real_type(dt)));
}

template <typename A, typename Get>
A norm_of(int64_t n, double ord, Get&& abs_at) {
  if (std::isinf(ord)) {
    A best = n ? abs_at(0) : A(0);
    for (int64_t k = 1; k < n && !std::isnan(best); ++k) {
      A v = abs_at(k);
      if (std::isnan(v) || (ord > 0 ? v > best : v < best)) best = v;
    }
    return best;
  }
  if (ord == 0) return pairwise_sum<A>(0, n, [&](int64_t k) { return A(abs_at(k) != A(0)); });
  if (ord == 1) return pairwise_sum<A>(0, n, abs_at);
  if (ord == 2) {
    return std::sqrt(pairwise_sum<A>(0, n, [&](int64_t k) { A v = abs_at(k); return v * v; }));
  }
  A p = static_cast<A>(ord);
  A s = pairwise_sum<A>(0, n, [&](int64_t k) { return std::pow(abs_at(k), p); });
  return std::pow(s, A(1) / p);
}

// Upstream's vectorised 2-norm of a contiguous row, before its root (its path when the reduced elements are
// the innermost, contiguous ones and the result keeps the input's float32/float64 dtype): the
// squares summed in W lanes (apart, not fused), the lanes added in order, the tail's squares
// fused into that sum; then the square root. Measured bit for bit against upstream on rows of
// 1 to 100,000 and every float32 tail length (AVX2; W = 32 bytes' worth, on AVX-512 machines
// too, which run norm_stub's AVX2 build: cpu::avx2_registered_isa(); no FMA on the baseline).
template <typename T>
T sum_squares_row(const T* x, int64_t n) {
  const int W = 32 / static_cast<int>(sizeof(T));
  const bool fma = cpu::isa() != cpu::Isa::Base;
  T lane[16] = {};
  int64_t d = 0;
  for (; d < n - n % W; d += W)
    for (int l = 0; l < W; ++l) lane[l] = lane[l] + x[d + l] * x[d + l];
  T acc = lane[0];
  for (int l = 1; l < W; ++l) acc = acc + lane[l];
  // float32's tail: upstream's compiler squares its first 4 elements in one SSE step (each
  // product apart) when there are 4 or more, and fuses the rest (measured on 3,400 rows).
  if (std::is_same_v<T, float> && fma && n - d >= 4)
    for (int64_t e = d + 4; d < e; ++d) acc = acc + x[d] * x[d];
  for (; d < n; ++d) acc = fma ? std::fma(x[d], x[d], acc) : acc + x[d] * x[d];
  return acc;
}

void norm_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor& out = c.results[0].tensor;
  bool same_dtype = c.tensor(0)->dtype() == out->dtype();
  Tensor in = c.tensor(0);
  if (is_complex(in->dtype()))  // the norm of the absolute values, in the requested precision
    in = call_tensor("aten::abs", {Value::of(cast_to(in, norm_dtype(c), key))});
  in = cast_to(in, out->dtype(), key);
  double ord = c.scalar(1).to_double();
  ReduceGeom g = reduce_geom(in, reduce_mask(in->dim(), opt_dims(c, 2)));
  bool rows = same_dtype && ord == 2.0;  // the reduced elements one contiguous run?
  for (size_t k = 0; rows && k < g.inner.size(); ++k) rows = g.inner[k] == int64_t(k);
  // One element reduced: upstream returns its absolute value for every nonzero ord, not
  // pow(pow(|x|, p), 1 / p) nor sqrt(x * x), which under- or overflows (measured: 2,000 float32
  // and float64 rows of one element, ord 0.5, 1.5, 2, 3, 6, -1, reduced dims of size 1 and
  // 0-dim inputs, 1e-30 and 1e30 at ord 2; two elements take the pows).
  bool one = g.inner.size() == 1 && ord != 0.0;
  dispatch_dtype(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* x = data_of<T>(in, key);
      T* o = data_of<T>(out, key);
      for (size_t i = 0; i < g.outer.size(); ++i) {
        const T* b = x + g.outer[i];
        if (one) {
          o[i] = T(std::abs(A(b[g.inner[0]])));
          continue;
        }
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          if (rows) {
            o[i] = std::sqrt(sum_squares_row(b, static_cast<int64_t>(g.inner.size())));
            continue;
          }
        }
        o[i] = T(norm_of<A>(g.inner.size(), ord,
                            [&](int64_t k) { return std::abs(A(b[g.inner[k]])); }));
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::linalg_vector_norm", norm_rule, norm_cpu);

// linalg_vector_norm.out(self, ord, dim, keepdim, *, dtype, out): the result's dtype (dtype=, or
// self's real dtype) must be out's, as upstream's structured kernel checks.
void vector_norm_out(Call& c) {
  const Tensor& out = c.tensor(5);
  const ScalarType dt = c.optional_dtype(4).value_or(to_real_type(c.tensor(0)->dtype()));
  ops::check_out_dtype(out, dt);
  Tensor r = call_tensor("aten::linalg_vector_norm", {c.arg(0), c.arg(1), c.arg(2), c.arg(3),
                                                      c.arg(4)});
  c.ret(ops::write_out(out, r, c.key()));
}
TN_REGISTER_COMPOSITE("aten::linalg_vector_norm.out", vector_norm_out);

// --- linalg__powsum(self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
//                   ScalarType? dtype=None): sum(|x| ** ord), vector_norm without its root ---
// Unlike vector_norm: dtype= casts the input without a narrowing check, an empty reduction is 0
// for every ord, |x| ** ord is pow's for every ord (0 counts every element, nonzero or not;
// inf and -inf give inf, 1 or 0 per element), and the one-element shortcut does not apply.
// The sums are vector_norm's (pairwise; the 2-norm's contiguous rows as upstream's lanes).
// The dtype the sum is computed in: dtype=, else self's (integers and bool as int64, as upstream's
// reduction promotes them; the CPU kernel then refuses them).
ScalarType powsum_dtype(const Call& c) {
  const ScalarType self = c.tensor(0)->dtype();
  if (auto dt = c.optional_dtype(4)) return *dt;
  return is_floating(self) || is_complex(self) ? self : ScalarType::Long;
}

void powsum_rule(Call& c) {
  const Tensor& self = c.tensor(0);
  const ScalarType dt = powsum_dtype(c);
  TN_CHECK(c.scalar(1).imag() == 0, "value cannot be converted to type double without overflow");
  auto mask = reduce_mask(self->dim(), opt_dims(c, 2));
  c.ret(new_on(self, reduced_sizes(self->sizes(), mask, c.to_bool(3)), to_real_type(dt)));
}

void powsum_cpu(Call& c) {
  const std::string& key = c.key();
  const Tensor& out = c.results[0].tensor;
  const ScalarType dt = powsum_dtype(c);
  TN_CHECK_KIND(is_floating(dt) || is_complex(dt), NotImplemented,
                "\"powsum_cpu\" not implemented for '", c10_dtype_name(dt), "'");
  TN_CHECK_KIND(!is_complex(c.tensor(0)->dtype()) || is_complex(dt), NotImplemented,
                "torchnative: linalg._powsum of a complex input with a real dtype= (",
                c10_dtype_name(dt), ") is not implemented");
  Tensor in = cast_to(c.tensor(0), dt, key);
  if (is_complex(in->dtype())) in = call_tensor("aten::abs", {Value::of(in)});
  in = cast_to(in, out->dtype(), key);
  const double ord = c.scalar(1).to_double();
  ReduceGeom g = reduce_geom(in, reduce_mask(in->dim(), opt_dims(c, 2)));
  bool rows = ord == 2.0;
  for (size_t k = 0; rows && k < g.inner.size(); ++k) rows = g.inner[k] == int64_t(k);
  dispatch_dtype(out->dtype(), key, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>) {
      const T* x = data_of<T>(in, key);
      T* o = data_of<T>(out, key);
      const auto n = static_cast<int64_t>(g.inner.size());
      const A p = static_cast<A>(ord);
      for (size_t i = 0; i < g.outer.size(); ++i) {
        const T* b = x + g.outer[i];
        auto at = [&](int64_t k) { return std::abs(A(b[g.inner[k]])); };
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          if (rows) {
            o[i] = sum_squares_row(b, n);
            continue;
          }
        }
        A s;
        if (ord == 1) s = pairwise_sum<A>(0, n, at);
        else if (ord == 2) s = pairwise_sum<A>(0, n, [&](int64_t k) { A v = at(k); return v * v; });
        else s = pairwise_sum<A>(0, n, [&](int64_t k) { return std::pow(at(k), p); });
        o[i] = T(s);
      }
    }
  });
}
TN_REGISTER_STRUCTURED("aten::linalg__powsum", powsum_rule, powsum_cpu);

}  // namespace
}  // namespace tn
