// cummax, cummin and logcumsumexp on dense CPU tensors, with their out= forms, as upstream's
// ReduceOps.cpp and ReduceOpsKernel.cpp compute them; Meta gives the shapes. Not here: cumsum
// and cumprod (reduce_sum.cpp).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

template <typename T>
bool nan_of(T v) {
  if constexpr (std::is_integral_v<T>) return false;
  else return std::isnan(static_cast<float>(v));
}

// upstream's check_scalar_type_device_layout_equal for an out= argument.
void check_out_type(const Tensor& out, ScalarType expected) {
  TN_CHECK(out->dtype() == expected, "expected scalar_type ", c10_dtype_name(expected),
           " but found ", c10_dtype_name(out->dtype()));
}

// The rows of a scan along dim: per row its start offset (elements) and the dim's stride.
struct Rows {
  ReduceGeom in, out;
};
Rows scan_rows(const Tensor& in, const Tensor& out, int64_t dim) {
  std::vector<bool> mask(static_cast<size_t>(in->dim()), false);
  mask[static_cast<size_t>(dim)] = true;
  return {reduce_geom(in, mask), reduce_geom(out, mask)};
}

// --- cummax / cummin: upstream's cummax_cummin_helper. A row keeps its running extreme and
// its index; an element replaces it when it is NaN, or when the extreme is not NaN and the
// element is >= (cummax) or <= (cummin) it: ties report the latest index, a NaN sticks and
// each later NaN takes its index. ------------------------------------------------------------

bool minmax_dtype(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: case ScalarType::Byte: case ScalarType::Char:
    case ScalarType::Short: case ScalarType::Int: case ScalarType::Long:
    case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::Float:
    case ScalarType::Double: return true;
    default: return false;
  }
}

template <typename T, bool IsMax>
void cum_minmax_rows(const Tensor& self, const Tensor& vals, const Tensor& inds, int64_t dim,
                     const std::string& key) {
  Rows g = scan_rows(self, vals, dim);
  Rows gi = scan_rows(self, inds, dim);
  const T* x = data_of<T>(self, key);
  T* v = data_of<T>(vals, key);
  int64_t* ix = data_of<int64_t>(inds, key);
  for (size_t r = 0; r < g.in.outer.size(); ++r) {
    const T* xr = x + g.in.outer[r];
    T best = xr[g.in.inner[0]];
    int64_t at = 0;
    for (size_t k = 0; k < g.in.inner.size(); ++k) {
      const T cur = xr[g.in.inner[k]];
      const float cf = static_cast<float>(cur), bf = static_cast<float>(best);
      bool take;
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        take = nan_of(cur) || (!nan_of(best) && (IsMax ? cf >= bf : cf <= bf));
      else
        take = nan_of(cur) || (!nan_of(best) && (IsMax ? cur >= best : cur <= best));
      if (take) {
        best = cur;
        at = static_cast<int64_t>(k);
      }
      v[g.out.outer[r] + g.out.inner[k]] = best;
      ix[gi.out.outer[r] + gi.out.inner[k]] = at;
    }
  }
}

// cummax / cummin(self, dim) and their .out(self, dim, values, indices): contiguous outs of
// self's shape. A 0-d self takes dim -1 or 0 (upstream's zero_numel_check_dims, not the usual
// wrap) and is copied; an empty one is not scanned, nor its dim checked.
template <bool Cpu, bool IsMax, bool Out>
void cum_minmax(Call& c) {
  const Tensor& self = c.tensor(0);
  const ScalarType dt = self->dtype();
  const char* name = IsMax ? "cummax" : "cummin";
  if (Out) {
    check_out_type(c.tensor(2), dt);
    check_out_type(c.tensor(3), ScalarType::Long);
  }
  int64_t dim = c.to_int(1);
  if (!Cpu) dim = wrap_dim(dim, self->dim());
  Tensor vals = ops::empty(self->sizes(), dt, self->device());
  Tensor inds = ops::empty(self->sizes(), ScalarType::Long, self->device());
  if (Cpu && self->dim() == 0) {
    TN_CHECK_KIND(dim == 0 || dim == -1, Index, name,
                  "(): Expected reduction dim -1 or 0 for scalar but got ", dim);
    ops::copy_(vals, self);
    call("aten::fill_.Scalar", {ops::t(inds), Value::of_scalar(Scalar::from_int(0))});
  } else if (Cpu && self->numel() != 0) {
    dim = wrap_dim(dim, self->dim());
    TN_CHECK_KIND(minmax_dtype(dt), NotImplemented, "\"", name, "_cpu\" not implemented for '",
                  c10_dtype_name(dt), "'");
    const std::string& key = c.key();
    dispatch_dtype(dt, key, [&](auto zero) {
      cum_minmax_rows<decltype(zero), IsMax>(self, vals, inds, dim, key);
    });
  }
  if (!Out) {
    c.ret(vals);
    return c.ret(inds);
  }
  ops::ret_all(c, {vals, inds}, 2);
}

// --- logcumsumexp: upstream's logcumsumexp_cpu_kernel, a sequential scan per row in its CPU
// accumulation type (float and double in double, float16/bfloat16 in float) from -inf, each step
// _log_add_exp_helper: log1p(exp(min - max)) + max, or x itself where both are the same
// infinity; std::min/std::max's argument order decides which NaN goes on. ---------------------

template <typename A>
A log_add_exp(A x, A y) {
  const A lo = std::isnan(y) ? y : std::min(x, y);
  const A hi = std::isnan(y) ? y : std::max(x, y);
  if (lo != hi || std::isfinite(lo)) return std::log1p(std::exp(lo - hi)) + hi;
  return x;
}

// The complex step (upstream's complex _log_add_exp_helper, in complex128): min and max by
// real part, a NaN in either part of y (then of x) taking both; a NaN min gives NaN; equal
// infinite real parts give min (-inf) or log(exp(min) + exp(max)) (+inf); else
// log1p(exp(min - max)) + max with c10's complex log1p.
// (upstream's kernel is built per CPU capability: its AVX2 and AVX-512 builds contract
// x * (2 + x) + y * y into one fused multiply-add, as ew_cpu_has_avx2_fma says ours runs)
template <typename R>
std::complex<R> c10_log1p(std::complex<R> z) {
  static const bool fused = ew_cpu_has_avx2_fma();
  const R x = z.real(), y = z.imag();
  const R zabs = std::abs(z);
  const R theta = std::atan2(y, x + R(1));
  if (zabs < R(0.5)) {
    const R r = fused ? std::fma(y, y, x * (R(2) + x)) : x * (R(2) + x) + y * y;
    if (r == 0) return {x, theta};
    return {R(0.5) * std::log1p(r), theta};
  }
  return {std::log(std::hypot(x + R(1), y)), theta};
}
template <typename R>
std::complex<R> log_add_exp(std::complex<R> x, std::complex<R> y) {
  auto nan_in = [](std::complex<R> v) { return std::isnan(v.real()) || std::isnan(v.imag()); };
  std::complex<R> lo, hi;
  if (nan_in(y)) lo = hi = y;
  else if (nan_in(x)) lo = hi = x;
  else if (x.real() < y.real()) lo = x, hi = y;
  else lo = y, hi = x;
  constexpr R kNan = std::numeric_limits<R>::quiet_NaN();
  if (nan_in(lo)) return {kNan, kNan};
  if (!std::isfinite(lo.real()) && lo.real() == hi.real()) {
    if (lo.real() < 0) return lo;
    return std::log(std::exp(lo) + std::exp(hi));
  }
  return c10_log1p(std::exp(lo - hi)) + hi;
}

template <typename T>
void logcumsumexp_rows(const Tensor& self, const Tensor& out, int64_t dim,
                       const std::string& key) {
  using A = typename ScanAcc<T>::type;
  Rows g = scan_rows(self, out, dim);
  const T* x = data_of<T>(self, key);
  T* o = data_of<T>(out, key);
  for (size_t r = 0; r < g.in.outer.size(); ++r) {
    A acc = A(-std::numeric_limits<double>::infinity());
    for (size_t k = 0; k < g.in.inner.size(); ++k) {
      acc = log_add_exp(static_cast<A>(x[g.in.outer[r] + g.in.inner[k]]), acc);
      o[g.out.outer[r] + g.out.inner[k]] = static_cast<T>(acc);
    }
  }
}

bool lcse_dtype(ScalarType dt) {
  return dt == ScalarType::Half || dt == ScalarType::BFloat16 || dt == ScalarType::Float ||
         dt == ScalarType::Double || dt == ScalarType::ComplexFloat ||
         dt == ScalarType::ComplexDouble;
}

// logcumsumexp(self, dim) and .out(self, dim, out): a contiguous result of self's shape and
// dtype (the out's dtype must be self's); the dim is wrapped first, even for an empty self.
template <bool Cpu, bool Out>
void logcumsumexp(Call& c) {
  const Tensor& self = c.tensor(0);
  const ScalarType dt = self->dtype();
  if (Out) {  // (a wrong device refused before the dim, as upstream's)
    check_out_type(c.tensor(2), dt);
    check_out_device(c.tensor(2), self->device());
  }
  const int64_t dim = wrap_dim(c.to_int(1), self->dim());
  Tensor out = ops::empty(self->sizes(), dt, self->device());
  if (Cpu) {
    TN_CHECK_KIND(lcse_dtype(dt), NotImplemented, "\"logcumsumexp_out_cpu\" not implemented "
                  "for '", c10_dtype_name(dt), "'");
    if (self->dim() == 0) {
      ops::copy_(out, self);
    } else if (self->numel() != 0) {
      const std::string& key = c.key();
      dispatch_dtype_complex(dt, key, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                      std::is_same_v<T, BFloat16> || is_complex_v<T>)
          logcumsumexp_rows<T>(self, out, dim, key);
      });
    }
  }
  if (!Out) return c.ret(out);
  ops::ret_all(c, {out}, 2);
}

}  // namespace

TN_REGISTER_KERNEL("aten::cummax", DenseCPU, (cum_minmax<true, true, false>));
TN_REGISTER_KERNEL("aten::cummax", Meta, (cum_minmax<false, true, false>));
TN_REGISTER_KERNEL("aten::cummin", DenseCPU, (cum_minmax<true, false, false>));
TN_REGISTER_KERNEL("aten::cummin", Meta, (cum_minmax<false, false, false>));
TN_REGISTER_KERNEL("aten::cummax.out", DenseCPU, (cum_minmax<true, true, true>));
TN_REGISTER_KERNEL("aten::cummax.out", Meta, (cum_minmax<false, true, true>));
TN_REGISTER_KERNEL("aten::cummin.out", DenseCPU, (cum_minmax<true, false, true>));
TN_REGISTER_KERNEL("aten::cummin.out", Meta, (cum_minmax<false, false, true>));
TN_REGISTER_KERNEL("aten::logcumsumexp", DenseCPU, (logcumsumexp<true, false>));
TN_REGISTER_KERNEL("aten::logcumsumexp", Meta, (logcumsumexp<false, false>));
TN_REGISTER_KERNEL("aten::logcumsumexp.out", DenseCPU, (logcumsumexp<true, true>));
TN_REGISTER_KERNEL("aten::logcumsumexp.out", Meta, (logcumsumexp<false, true>));

}  // namespace tn
