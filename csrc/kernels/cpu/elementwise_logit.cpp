// logit (logit_, logit.out), its backward kernel logit_backward (.grad_input) and the alias
// special_logit (.out) on dense CPU tensors, as upstream 2.13's logit_kernel and
// logit_backward_kernel compute them. Not here: the derivative (autograd/derivatives/
// special_b.cpp).
//
// logit(x, eps): x clamped to [eps, 1 - eps] when eps >= 0 (eps None is -1: no clamp), then
// log(x / (1 - x)), +inf at x == 1; a float op (integer and bool inputs in the default float
// dtype); eps converted to the computed dtype with upstream's overflow check. Its bits depend on
// the path (Note [Vector and scalar paths]), and logit has three:
//   an iteration upstream's TensorIterator counts contiguous (upstream_contiguous) goes to its
//     MKL kernel: x / (1 - x) for every element, then MKL's vsLn/vdLn over the array (float32,
//     float64), or for float16/bfloat16 the division in the 16-bit type and vec::map of SLEEF's
//     logf (every element stored by the vector code: a bfloat16 NaN is 0xFFFF);
//   other rows: cpu_kernel_vec (AVX-512 blocks on an AVX-512 CPU: ALSO_REGISTER_AVX512), its
//     vector blocks SLEEF's log of x / (1 - x), its scalar elements std::log.
// In the 16-bit floats every step rounds to the type (c10's Half/BFloat16 arithmetic).
// An OpenBLAS build (no MKL vector math) keeps std::log on that path and agrees only within
// MKL's error there.
//
// logit_backward(dy, x, eps): binary, the common dtype, floats only. eps < 0: NaN outside
// [0, 1], else dy / (x (1 - x)) (dy * inf at 0 and 1 on the scalar path); eps >= 0: 0 outside
// [eps, 1 - eps]. The vector path has no 0/1 case and keeps NaN x out of the range test, so
// both paths are written (ew_run_simd's split, upstream's AVX-512 blocks).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/composite/ops.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

constexpr EwRule kLogit = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kLogitI = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kLogitO = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);
// logit_ on Meta tensors: upstream's meta is its Python reference, which copies the float
// result into self without a cast check (a bool or integer self comes back unchanged).
constexpr EwRule kLogitIMeta = ew_rule(1, V::InPlace, D::CommonFloat, O::Any);
constexpr EwRule kLogitBack = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kLogitBackO = ew_rule(2, V::Out, D::Common, O::SafeCast);

// The eps argument at schema position i as upstream's kernels see it: Scalar(eps or -1.0),
// converted to the computed type T with Scalar::to's overflow check, then widened back.
template <typename T>
acc_t<T> eps_as(const Call& c, size_t i, ScalarType dt) {
  const double e = c.arg(i).is_none() ? -1.0 : c.to_double(i);
  check_scalar_fits(Scalar::from_double(e), dt);
  return static_cast<acc_t<T>>(ew_cast<T>(e));
}

// v rounded to T and widened back: one step of c10's float16/bfloat16 arithmetic.
template <typename T, typename A>
A rnd(A v) {
  if constexpr (std::is_same_v<T, A>) return v;
  else return static_cast<A>(static_cast<T>(v));
}

// Upstream's iter.is_contiguous(): one element, or one dim every tensor walks at its itemsize.
// A tensor of another dtype than the computed one was a contiguous cast copy there.
bool upstream_contiguous(const EwIter& it) {
  if (it.numel == 1) return true;
  if (it.sizes.size() != 1) return false;
  for (int k = 0; k < it.ntensors; ++k)
    if (it.dtype[k] == it.common && it.strides[k][0] != itemsize(it.dtype[k])) return false;
  return true;
}

// SLEEF's log where upstream's vector code calls it (std::log at the baseline build).
template <typename A>
A vec_log(A v) {
  return sleef::available() ? sleef::log_simd(v) : std::log(v);
}
// std::log as upstream's wheel calls it: its double log binds glibc's old log@GLIBC_2.2.5, whose
// wrapper answers x < 0 with a positive NaN (the current log gives a negative one); float's
// logf is the current one.
template <typename A>
A scalar_log(A v) {
  if constexpr (std::is_same_v<A, double>) {
    if (v < 0.0) return std::numeric_limits<double>::quiet_NaN();
  }
  return std::log(v);
}

// A float result as upstream's vector code stores it into T: vec_result, but a float16 NaN keeps
// its sign and the top of its payload, as F16C's conversion keeps them (SLEEF's AVX-512 log
// leaves payloads in its NaNs; c10's scalar conversion would make them 0x7E00).
template <typename T, typename A>
T vec_store(A r) {
  if constexpr (std::is_same_v<T, Half>) {
    if (r != r) {
      uint32_t b;
      std::memcpy(&b, &r, sizeof b);
      Half h;
      h.x = static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7E00u | ((b >> 13) & 0x3FFu));
      return h;
    }
  }
  return vec_result<T>(r);
}

// x / (1 - x) after the clamp, as the MKL kernel's first loop writes it (in T).
template <typename T, typename A>
A logit_ratio(A x, A lo, A hi, bool clamp) {
  if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
  if (x == A(1)) return std::numeric_limits<A>::infinity();
  return rnd<T>(x / rnd<T>(A(1) - x));
}

template <typename T>
void logit_mkl(EwIter& it, acc_t<T> lo, acc_t<T> hi, bool clamp) {
  using A = acc_t<T>;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const Blas& b = blas();
    const int k = static_cast<int>(VmlFn::Ln);
    const bool mkl = std::is_same_v<T, float> ? b.vml_s[k] != nullptr : b.vml_d[k] != nullptr;
    ew_run_array<T, T>(it, [&](T* o, const T* a, int64_t m) {
      for (int64_t i = 0; i < m; ++i) o[i] = logit_ratio<T>(a[i], lo, hi, clamp);
      if (!mkl) {
        for (int64_t i = 0; i < m; ++i) o[i] = scalar_log(o[i]);
      } else if constexpr (std::is_same_v<T, float>) {
        b.vml_s[k](static_cast<int>(m), o, o, kVmlUpstreamMode);
      } else {
        b.vml_d[k](static_cast<int>(m), o, o, kVmlUpstreamMode);
      }
    });
  } else {
    ew_run<T, T>(it, [=](A x) {
      return vec_store<T>(vec_log(logit_ratio<T>(x, lo, hi, clamp)));
    });
  }
}

void logit_compute(EwIter& it, const Call& c) {
  ew_dispatch<kEwFloats>(it.common, "logit_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A eps = eps_as<T>(c, 1, it.common);
    const bool clamp = !(eps < A(0));
    const A lo = eps, hi = rnd<T>(A(1) - eps);
    if (upstream_contiguous(it)) return logit_mkl<T>(it, lo, hi, clamp);
    auto vec = [=](A x) -> T {
      // vec::clamp's min/max keep a NaN x and a -0.0 at lo = 0, as the scalar test does
      if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
      return vec_store<T>(vec_log(rnd<T>(x / rnd<T>(A(1) - x))));
    };
    auto scalar = [=](A x) -> T {
      if (clamp) x = x < lo ? lo : (x > hi ? hi : x);
      if (x == A(1)) return static_cast<T>(std::numeric_limits<A>::infinity());
      return static_cast<T>(scalar_log(rnd<T>(x / rnd<T>(A(1) - x))));
    };
    ew_run_simd<T, T>(it, vec, scalar);
  });
}

// --- logit_backward ---------------------------------------------------------------------------

template <typename T>
T quiet_nan() {
  return static_cast<T>(std::numeric_limits<acc_t<T>>::quiet_NaN());
}

void logit_backward_compute(EwIter& it, const Call& c) {
  ew_dispatch<kEwFloats>(it.common, "logit_backward_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    const A eps = eps_as<T>(c, 2, it.common);
    const A inf = std::numeric_limits<A>::infinity();
    // dy / (x (1 - x)), each step rounded to T
    auto slope = [](A dy, A x) { return rnd<T>(dy / rnd<T>(x * rnd<T>(A(1) - x))); };
    if (eps < A(0)) {
      auto vec = [=](A dy, A x) -> T {
        return x >= A(0) && x <= A(1) ? vec_result<T>(slope(dy, x)) : quiet_nan<T>();
      };
      auto scalar = [=](A dy, A x) -> T {
        if (x < A(0) || x > A(1)) return quiet_nan<T>();
        return static_cast<T>(x == A(0) || x == A(1) ? dy * inf : slope(dy, x));
      };
      return ew_run_simd<T, T, T>(it, vec, scalar);
    }
    const A lo = eps, hi = rnd<T>(A(1) - eps);
    auto vec = [=](A dy, A x) -> T {
      return x >= lo && x <= hi ? vec_result<T>(slope(dy, x)) : T(0);
    };
    auto scalar = [=](A dy, A x) -> T {
      if (x < lo || x > hi) return T(0);
      return static_cast<T>(x == A(0) || x == A(1) ? dy * inf : slope(dy, x));
    };
    ew_run_simd<T, T, T>(it, vec, scalar);
  });
}

// logit_ on dense CPU tensors: the in-place rule with its cast check, then the compute.
void logit_inplace_cpu(Call& c) {
  ew_meta_run(c, kLogitI);
  ew_cpu_run(c, kLogitI, logit_compute);
}

// special_logit(.out): upstream's CompositeImplicit alias of logit(.out).
constexpr char kLogitKey[] = "aten::logit";
constexpr char kLogitOutKey[] = "aten::logit.out";

}  // namespace

TN_REGISTER_ELEMENTWISE("aten::logit", kLogit, logit_compute);
TN_REGISTER_KERNEL("aten::logit_", Meta, ew_meta<kLogitIMeta>);
TN_REGISTER_KERNEL("aten::logit_", DenseCPU, logit_inplace_cpu);
TN_REGISTER_ELEMENTWISE("aten::logit.out", kLogitO, logit_compute);
TN_REGISTER_ELEMENTWISE("aten::logit_backward", kLogitBack, logit_backward_compute);
TN_REGISTER_ELEMENTWISE("aten::logit_backward.grad_input", kLogitBackO, logit_backward_compute);
TN_REGISTER_COMPOSITE("aten::special_logit", ops::forward_to<kLogitKey>);
TN_REGISTER_COMPOSITE("aten::special_logit.out", ops::forward_to<kLogitOutKey>);

}  // namespace tn
