// arange (three overloads and both out= forms), linspace and logspace (with their 0-dim tensor
// spellings) on dense CPU tensors, with meta kernels that share the length/dtype rules and
// allocate without bytes.
// Arithmetic: upstream's formulas (arange: start + step * i in the accumulate type; linspace:
// from start for the first half, from end for the second, in the step type), with the multiply-add
// fused for float/double as upstream's build computes it (checked bit-identical in
// tests/ops/test_views.py); float16/bfloat16 round after each operation as c10::Half does.
#include <cmath>

#include "core/promotion.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/copy.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/factory_rules.h"

namespace tn {
namespace {

// Upstream's CPU accumulate type for arange: int64 for integers, double for float/double,
// float for the 16-bit floats.
template <typename T>
using range_acc_t = std::conditional_t<
    std::is_integral_v<T>, int64_t,
    std::conditional_t<std::is_floating_point_v<T>, double, float>>;

// a * b + c: one rounding (FMA) for float/double, as upstream's compiled kernels; otherwise the
// type's own operators (integers exact, 16-bit floats rounding per operation).
template <typename S>
S muladd(S a, S b, S c) {
  if constexpr (std::is_floating_point_v<S>) {
    return std::fma(a, b, c);
  } else {
    return S(S(a * b) + c);
  }
}

ScalarType arange_dtype(const Call& c, int n_scalars, size_t dtype_at) {
  if (auto d = c.optional_dtype(dtype_at)) return *d;
  for (int i = 0; i < n_scalars; ++i)
    if (c.scalar(i).is_floating()) return default_float_dtype();
  return ScalarType::Long;
}

// Upstream has no sparse (or other) layout kernel for these factories.
void check_strided(const Value& layout, const std::string& key) {
  TN_CHECK_KIND(layout.is_none() || layout.i == 0, NotImplemented, key,
                ": only the strided layout is implemented by torchnative");
}

void refuse_bool(ScalarType t, const char* key) {
  TN_CHECK_KIND(t != ScalarType::Bool && info(t).supported, NotImplemented, "\"", key,
                "\" not implemented for '", short_name_of(t), "'");
}

// Number of elements of arange(start, end, step) in dtype t, with upstream's checks.
int64_t arange_length(Scalar start, Scalar end, Scalar step, ScalarType t, const char* key) {
  int64_t n = 0;
  dispatch_dtype(t, key, [&](auto z) {
    using T = decltype(z);
    using A = range_acc_t<T>;
    A xs = scalar_to<A>(start), xe = scalar_to<A>(end), xst = scalar_to<A>(step);
    // The bounds are checked in double, as given (so a step of 0.5 passes for an int32
    // result, whose elements are then all start, as upstream's are); int64 then computes the
    // length in its own type, refusing a step that became 0 there with a ValueError.
    double ds = start.to_double(), de = end.to_double(), dst = step.to_double();
    TN_CHECK(dst > 0 || dst < 0, "step must be nonzero");
    TN_CHECK(std::isfinite(ds) && std::isfinite(de), "unsupported range: ", ds, " -> ", de);
    TN_CHECK((dst > 0 && de >= ds) || (dst < 0 && de <= ds),
             "upper bound and lower bound inconsistent with step sign");
    double len;
    if constexpr (std::is_same_v<T, int64_t>) {
      TN_CHECK_KIND(xst != 0, Value, "step must be nonzero");
      int64_t sgn = (xst > 0) - (xst < 0);
      len = std::ceil(double((xe - xs + xst - sgn) / xst));
    } else {
      len = std::ceil((end.to_double() - start.to_double()) / step.to_double());
    }
    TN_CHECK(len >= 0 && len <= 9.2e18, "invalid size, possible overflow?");
    n = static_cast<int64_t>(len);
  });
  return n;
}

void arange_fill(const Tensor& out, Scalar start, Scalar step, const char* key) {
  dispatch_dtype(out->dtype(), key, [&](auto z) {
    using T = decltype(z);
    using A = range_acc_t<T>;
    A xs = scalar_to<A>(start), xst = scalar_to<A>(step);
    T* p = static_cast<T*>(out->dense_cpu_data(key)) - out->storage_offset();
    int64_t i = 0;
    for_each_offset(out->sizes(), out->strides(), out->storage_offset(), [&](int64_t o) {
      p[o] = convert<T>(muladd<A>(xst, static_cast<A>(i++), xs));
    });
  });
}

// The three arange overloads differ only in which scalars are given. Each kernel is the checks
// and the allocation (shared) then, on the CPU (Fill), the values; Meta's is the first part.
template <bool Fill>
void arange_common(Call& c, Scalar start, Scalar end, Scalar step, int n_scalars) {
  const char* key = "arange_cpu";
  TN_CHECK_KIND(c.arg(n_scalars + 1).is_none() || c.arg(n_scalars + 1).i == 0, NotImplemented,
                c.key(), ": only the strided layout is implemented by torchnative");
  ScalarType t = arange_dtype(c, n_scalars, n_scalars);
  refuse_bool(t, key);
  Device dev = c.arg(n_scalars + 2).is_none() ? Device{} : c.arg(n_scalars + 2).device;
  // Upstream's meta arange, a Python reference, refuses pinning as not implemented.
  const Value& pin = c.arg(n_scalars + 3);
  TN_CHECK_KIND(pin.is_none() || !pin.b || dev.type != DeviceType::Meta, NotImplemented,
                "PrimTorch does not support pinned memory");
  check_pin_memory(pin, Value{}, dev);
  Tensor out = empty_tensor({arange_length(start, end, step, t, key)}, t, dev);
  if constexpr (Fill) arange_fill(out, start, step, key);
  c.ret(out);
}
Scalar one() { return Scalar::from_int(1); }
Scalar zero() { return Scalar::from_int(0); }

// arange(Scalar end, *, dtype?, layout?, device?, pin_memory?)
template <bool Fill>
void arange_end(Call& c) { arange_common<Fill>(c, zero(), c.scalar(0), one(), 1); }
// arange.start(Scalar start, Scalar end, *, ...)
template <bool Fill>
void arange_start(Call& c) { arange_common<Fill>(c, c.scalar(0), c.scalar(1), one(), 2); }
// arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ...)
template <bool Fill>
void arange_step(Call& c) {
  arange_common<Fill>(c, c.scalar(0), c.scalar(1), c.scalar(2), 3);
}
TN_REGISTER_KERNEL("aten::arange", DenseCPU, arange_end<true>);
TN_REGISTER_KERNEL("aten::arange", Meta, arange_end<false>);
TN_REGISTER_KERNEL("aten::arange.start", DenseCPU, arange_start<true>);
TN_REGISTER_KERNEL("aten::arange.start", Meta, arange_start<false>);
TN_REGISTER_KERNEL("aten::arange.start_step", DenseCPU, arange_step<true>);
TN_REGISTER_KERNEL("aten::arange.start_step", Meta, arange_step<false>);

// arange.out(Scalar end, *, out) / arange.start_out(start, end, step=1, *, out): out's dtype.
template <bool Fill>
void arange_out_common(Call& c, Scalar start, Scalar end, Scalar step, const Tensor& out) {
  const char* key = "arange_cpu";
  refuse_bool(out->dtype(), key);
  int64_t n = arange_length(start, end, step, out->dtype(), key);
  ops::resize_out(out, {n});
  if constexpr (Fill) arange_fill(out, start, step, key);
  c.ret(out);
}
template <bool Fill>
void arange_out(Call& c) { arange_out_common<Fill>(c, zero(), c.scalar(0), one(), c.tensor(1)); }
template <bool Fill>
void arange_start_out(Call& c) {
  arange_out_common<Fill>(c, c.scalar(0), c.scalar(1), c.scalar(2), c.tensor(3));
}
TN_REGISTER_KERNEL("aten::arange.out", DenseCPU, arange_out<true>);
TN_REGISTER_KERNEL("aten::arange.out", Meta, arange_out<false>);
TN_REGISTER_KERNEL("aten::arange.start_out", DenseCPU, arange_start_out<true>);
TN_REGISTER_KERNEL("aten::arange.start_out", Meta, arange_start_out<false>);

// linspace values into out (steps elements, any strides); see the file header for the formula.
// Complex linspace, upstream's complex arithmetic: step = (end - start) / (steps - 1) (c10's
// division by a real divisor: a multiplication by its reciprocal), the first half
// start + step * i, the second end - step * (steps - i - 1), each part apart.
void complex_linspace_fill(const Tensor& out, Scalar start, Scalar end, int64_t steps,
                           const char* key) {
  dispatch_dtype_complex(out->dtype(), key, [&](auto z) {
    using T = decltype(z);
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      T s = scalar_to<T>(start), e = scalar_to<T>(end);
      T* p = static_cast<T*>(out->dense_cpu_data(key)) - out->storage_offset();
      R inv = steps > 1 ? R(1) / R(steps - 1) : R(0);
      T step = steps > 1 ? T((e.real() - s.real()) * inv, (e.imag() - s.imag()) * inv) : T(0);
      int64_t half = steps / 2, i = 0;
      for_each_offset(out->sizes(), out->strides(), out->storage_offset(), [&](int64_t o) {
        if (steps == 1) {
          p[o] = s;
        } else if (i < half) {
          R k = R(i);
          p[o] = T(s.real() + step.real() * k, s.imag() + step.imag() * k);
        } else {
          R k = R(steps - i - 1);
          p[o] = T(e.real() - step.real() * k, e.imag() - step.imag() * k);
        }
        ++i;
      });
    }
  });
}

void linspace_fill(const Tensor& out, Scalar start, Scalar end, int64_t steps, const char* key) {
  check_scalar_fits(start, out->dtype());  // upstream converts both ends to the dtype first
  check_scalar_fits(end, out->dtype());
  if (is_complex(out->dtype())) return complex_linspace_fill(out, start, end, steps, key);
  dispatch_dtype(out->dtype(), key, [&](auto z) {
    using T = decltype(z);
    using S = std::conditional_t<std::is_integral_v<T>, double, T>;  // upstream's step_t
    T s = scalar_to<T>(start), e = scalar_to<T>(end);
    T* p = static_cast<T*>(out->dense_cpu_data(key)) - out->storage_offset();
    S step = steps > 1 ? S((S(e) - S(s)) / S(double(steps - 1))) : S(0);
    int64_t half = steps / 2, i = 0;
    for_each_offset(out->sizes(), out->strides(), out->storage_offset(), [&](int64_t o) {
      if (steps == 1) {
        p[o] = s;
      } else if (i < half) {
        p[o] = convert<T>(muladd<S>(step, S(double(i)), S(s)));
      } else {
        p[o] = convert<T>(muladd<S>(S(-step), S(double(steps - i - 1)), S(e)));
      }
      ++i;
    });
  });
}

// linspace(Scalar start, Scalar end, int steps, *, dtype?, layout?, device?, pin_memory?);
// Fill: the CPU kernel (Meta's checks and allocates only).
template <bool Fill>
void linspace(Call& c) {
  int64_t steps = c.to_int(2);
  TN_CHECK(steps >= 0, "number of steps must be non-negative");
  ScalarType t = c.optional_dtype(3).value_or(default_float_dtype());
  Device dev = c.arg(5).is_none() ? Device{} : c.arg(5).device;
  check_pin_memory(c.arg(6), c.arg(4), dev);
  check_strided(c.arg(4), c.key());
  refuse_bool(t, "linspace_cpu");
  Tensor out = empty_tensor({steps}, t, dev);
  if constexpr (Fill) linspace_fill(out, c.scalar(0), c.scalar(1), steps, "linspace_cpu");
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::linspace", DenseCPU, linspace<true>);
TN_REGISTER_KERNEL("aten::linspace", Meta, linspace<false>);

// linspace.out(Scalar start, Scalar end, int steps, *, Tensor(a!) out)
template <bool Fill>
void linspace_out(Call& c) {
  int64_t steps = c.to_int(2);
  TN_CHECK(steps >= 0, "number of steps must be non-negative");
  const Tensor& out = c.tensor(3);
  refuse_bool(out->dtype(), "linspace_cpu");
  ops::resize_out(out, {steps});
  if constexpr (Fill) linspace_fill(out, c.scalar(0), c.scalar(1), steps, "linspace_cpu");
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::linspace.out", DenseCPU, linspace_out<true>);
TN_REGISTER_KERNEL("aten::linspace.out", Meta, linspace_out<false>);

// a + b * c with the product rounded first: upstream's logspace is not contracted into an FMA
// (measured: its float64 values are the two-rounding ones), which our build would otherwise do.
double add_product(double a, double b, double c) {
  volatile double p = b * c;
  return a + p;
}
// A double converted to an integer dtype as upstream's x86-64 build converts it: through int32
// (cvttsd2si: INT32_MIN when out of range) for the narrow types, keeping the low bits.
template <typename T>
T int_of_double(double v) {
  if constexpr (sizeof(T) == 8) return static_cast<T>(v);
  else return static_cast<T>(static_cast<int32_t>(v));
}

// logspace values into out: base ** x for x along linspace's halves (from start, then from end),
// as upstream's logspace_out computes them: the step in double from the ends converted to the
// dtype, the exponent start + step * i (end - step * k) in double, std::pow in double (the base
// as float for integer dtypes), converted to the dtype (16-bit floats through float). Complex
// dtypes compute in their own complex type (the step divided by a real count, as c10's complex
// division by a real divisor does; std::pow of complex numbers). A single step is
// base ** start, filled.
void logspace_fill(const Tensor& out, Scalar start, Scalar end, int64_t steps, double base,
                   const char* key) {
  if (steps == 0) return;
  if (steps == 1) {
    Scalar v = Scalar::from_double(std::pow(base, start.to_double()));
    if (is_complex(out->dtype())) {
      std::complex<double> z = std::pow(std::complex<double>(base, 0),
                                        std::complex<double>(start.to_double(), start.imag()));
      v = Scalar::from_complex(z.real(), z.imag());
    }
    call("aten::fill_.Scalar", {ops::t(out), Value::of_scalar(v)});
    return;
  }
  refuse_bool(out->dtype(), key);
  check_scalar_fits(start, out->dtype());
  check_scalar_fits(end, out->dtype());
  const int64_t half = steps / 2;
  if (is_complex(out->dtype())) {
    dispatch_dtype_complex(out->dtype(), key, [&](auto z) {
      using T = decltype(z);
      if constexpr (is_complex_v<T>) {
        using R = typename T::value_type;
        const T s = scalar_to<T>(start), e = scalar_to<T>(end), b(static_cast<R>(base), R(0));
        const R inv = R(1) / R(steps - 1);
        const T step((e.real() - s.real()) * inv, (e.imag() - s.imag()) * inv);
        T* p = static_cast<T*>(out->dense_cpu_data(key)) - out->storage_offset();
        int64_t i = 0;
        for_each_offset(out->sizes(), out->strides(), out->storage_offset(), [&](int64_t o) {
          const R k = R(i < half ? i : steps - i - 1);
          const T x = i < half ? T(s.real() + step.real() * k, s.imag() + step.imag() * k)
                               : T(e.real() - step.real() * k, e.imag() - step.imag() * k);
          p[o] = std::pow(b, x);
          ++i;
        });
      }
    });
    return;
  }
  dispatch_dtype(out->dtype(), key, [&](auto z) {
    using T = decltype(z);
    constexpr bool kNative = std::is_integral_v<T> || std::is_floating_point_v<T>;
    auto as_double = [](T v) {
      if constexpr (kNative) return static_cast<double>(v);
      else return static_cast<double>(static_cast<float>(v));
    };
    const T s = scalar_to<T>(start), e = scalar_to<T>(end);
    const double b = std::is_integral_v<T> ? double(static_cast<float>(base)) : base;
    // e - s in T's own arithmetic (integers promoted to int; a 16-bit float's difference
    // rounded to it, as c10's).
    double diff;
    if constexpr (kNative) diff = static_cast<double>(e - s);
    else diff = as_double(T(static_cast<float>(e) - static_cast<float>(s)));
    const double step = diff / double(steps - 1);
    T* p = static_cast<T*>(out->dense_cpu_data(key)) - out->storage_offset();
    int64_t i = 0;
    for_each_offset(out->sizes(), out->strides(), out->storage_offset(), [&](int64_t o) {
      const double x = i < half ? add_product(as_double(s), step, double(i))
                                : add_product(as_double(e), -step, double(steps - i - 1));
      const double v = std::pow(b, x);
      if constexpr (std::is_integral_v<T>) p[o] = int_of_double<T>(v);
      else p[o] = convert<T>(v);
      ++i;
    });
  });
}

// logspace(Scalar start, Scalar end, int steps, float base=10.0, *, dtype?, layout?, device?,
//   pin_memory?); Fill: the CPU kernel (Meta's checks and allocates only).
template <bool Fill>
void logspace(Call& c) {
  int64_t steps = c.to_int(2);
  TN_CHECK(steps >= 0, "number of steps must be non-negative");
  ScalarType t = c.optional_dtype(4).value_or(default_float_dtype());
  Device dev = c.arg(6).is_none() ? Device{} : c.arg(6).device;
  check_pin_memory(c.arg(7), c.arg(5), dev);
  check_strided(c.arg(5), c.key());
  Tensor out = empty_tensor({steps}, t, dev);
  if constexpr (Fill)
    logspace_fill(out, c.scalar(0), c.scalar(1), steps, c.to_double(3), "logspace_cpu");
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::logspace", DenseCPU, logspace<true>);
TN_REGISTER_KERNEL("aten::logspace", Meta, logspace<false>);

// logspace.out(Scalar start, Scalar end, int steps, float base=10.0, *, Tensor(a!) out)
template <bool Fill>
void logspace_out(Call& c) {
  int64_t steps = c.to_int(2);
  TN_CHECK(steps >= 0, "number of steps must be non-negative");
  const Tensor& out = c.tensor(4);
  ops::resize_out(out, {steps});
  if constexpr (Fill)
    logspace_fill(out, c.scalar(0), c.scalar(1), steps, c.to_double(3), "logspace_cpu");
  c.ret(out);
}
TN_REGISTER_KERNEL("aten::logspace.out", DenseCPU, logspace_out<true>);
TN_REGISTER_KERNEL("aten::logspace.out", Meta, logspace_out<false>);

// The 0-dim tensor spellings of linspace and logspace (Tensor_Tensor, Tensor_Scalar,
// Scalar_Tensor, and their out= forms): each tensor end read as a number (item()), then the
// Scalar op; upstream's message names the ends that are tensors.
struct SpaceEnds {
  const char* op;     // "aten::linspace" or "aten::logspace"
  const char* name;   // for the message
  bool start_tensor;  // argument 0 is a tensor
  bool end_tensor;    // argument 1 is a tensor
  bool out;           // the out= spelling
};
Value end_value(const Call& c, size_t i, bool tensor) {
  if (!tensor) return c.arg(i);
  return call("aten::_local_scalar_dense", {c.arg(i)})[0];
}
template <const SpaceEnds& K>
void space_of_tensors(Call& c) {
  const int64_t ds = K.start_tensor ? c.tensor(0)->dim() : 0;
  const int64_t de = K.end_tensor ? c.tensor(1)->dim() : 0;
  if (K.start_tensor && K.end_tensor)
    TN_CHECK(ds == 0 && de == 0, K.name, " only supports 0-dimensional start and end tensors, "
             "but got start with ", ds, " dimension(s) and end with ", de, " dimension(s).");
  else if (K.start_tensor)
    TN_CHECK(ds == 0, K.name, " only supports 0-dimensional start and end tensors, but got "
             "start with ", ds, " dimension(s).");
  else
    TN_CHECK(de == 0, K.name, " only supports 0-dimensional start and end tensors, but got "
             "end with ", de, " dimension(s).");
  std::vector<Value> args{end_value(c, 0, K.start_tensor), end_value(c, 1, K.end_tensor)};
  for (size_t i = 2; i < c.args.size(); ++i) args.push_back(c.arg(i));
  std::string op = std::string(K.op) + (K.out ? ".out" : "");
  for (Value& v : call(op.c_str(), std::move(args))) c.ret(std::move(v));
}
constexpr SpaceEnds kLinTT{"aten::linspace", "linspace", true, true, false};
constexpr SpaceEnds kLinTS{"aten::linspace", "linspace", true, false, false};
constexpr SpaceEnds kLinST{"aten::linspace", "linspace", false, true, false};
constexpr SpaceEnds kLinTTo{"aten::linspace", "linspace", true, true, true};
constexpr SpaceEnds kLinTSo{"aten::linspace", "linspace", true, false, true};
constexpr SpaceEnds kLinSTo{"aten::linspace", "linspace", false, true, true};
constexpr SpaceEnds kLogTT{"aten::logspace", "logspace", true, true, false};
constexpr SpaceEnds kLogTS{"aten::logspace", "logspace", true, false, false};
constexpr SpaceEnds kLogST{"aten::logspace", "logspace", false, true, false};
constexpr SpaceEnds kLogTTo{"aten::logspace", "logspace", true, true, true};
constexpr SpaceEnds kLogTSo{"aten::logspace", "logspace", true, false, true};
constexpr SpaceEnds kLogSTo{"aten::logspace", "logspace", false, true, true};
TN_REGISTER_COMPOSITE("aten::linspace.Tensor_Tensor", space_of_tensors<kLinTT>);
TN_REGISTER_COMPOSITE("aten::linspace.Tensor_Scalar", space_of_tensors<kLinTS>);
TN_REGISTER_COMPOSITE("aten::linspace.Scalar_Tensor", space_of_tensors<kLinST>);
TN_REGISTER_COMPOSITE("aten::linspace.Tensor_Tensor_out", space_of_tensors<kLinTTo>);
TN_REGISTER_COMPOSITE("aten::linspace.Tensor_Scalar_out", space_of_tensors<kLinTSo>);
TN_REGISTER_COMPOSITE("aten::linspace.Scalar_Tensor_out", space_of_tensors<kLinSTo>);
TN_REGISTER_COMPOSITE("aten::logspace.Tensor_Tensor", space_of_tensors<kLogTT>);
TN_REGISTER_COMPOSITE("aten::logspace.Tensor_Scalar", space_of_tensors<kLogTS>);
TN_REGISTER_COMPOSITE("aten::logspace.Scalar_Tensor", space_of_tensors<kLogST>);
TN_REGISTER_COMPOSITE("aten::logspace.Tensor_Tensor_out", space_of_tensors<kLogTTo>);
TN_REGISTER_COMPOSITE("aten::logspace.Tensor_Scalar_out", space_of_tensors<kLogTSo>);
TN_REGISTER_COMPOSITE("aten::logspace.Scalar_Tensor_out", space_of_tensors<kLogSTo>);

}  // namespace
}  // namespace tn
