// Special functions on dense CPU tensors, as upstream 2.13's CPU kernels compute them:
//   erfinv (erfinv_, erfinv.out)   a float op (integer and bool inputs in the default float
//          dtype), upstream's vml kernel: float32 and float64 through MKL's vsErfInv/vdErfInv
//          (its vml.h, mode HA; same library, so bit for bit; an OpenBLAS build keeps the
//          function below, which then agrees only within MKL's error), the 16-bit floats
//          through vec::map of Vectorized<float>::erfinv: Math.h's calc_erfinv per lane in
//          float (a rational first guess, central range |y| <= 0.7, else in
//          sqrt(-log((1 - |y|) / 2)), then two Newton steps with std::erf and std::exp), every
//          element taking the vector store (a bfloat16 NaN is 0xFFFF). Upstream's AVX2 and
//          AVX-512 kernel builds fuse each Horner step a * z + b (GCC's contraction; the
//          baseline build does not), so we fuse where the CPU runs AVX2+FMA, as
//          elementwise_bessel.cpp does.
//   special_entr       a float op, scalar cpu_kernel: -x log(x), 0 at 0, -inf below, NaN kept.
//   special_xlog1py    a float op, scalar cpu_kernel: x log1p(y), 0 where x is 0, NaN where y
//          is NaN; with the Scalar spellings (wrapped numbers) and their out= forms.
//   In the 16-bit floats c10's std::log / std::log1p overloads round the logarithm to the type
//   before the product, which is computed in float and rounded again.
//   special_ndtri (.out)  a float op, scalar cpu_kernel, float and double only: Math.h's
//          calc_ndtri (Cephes: rational approximations in y - 1/2 near the centre, in
//          1 / sqrt(-2 log y) in the tails; the tails' log and sqrt are C's double ones, so
//          float computes them in double), Horner steps (and the centre's y + y * r) fused
//          where upstream's kernel build fuses them, as erfinv's.
//   ldexp (ldexp.out, ldexp_)  upstream's BinaryOps.cpp: a floating self with an integral (or
//          bool) exponent goes to its ldexp kernel, std::ldexp(double(x), int(e)) rounded to
//          self's dtype (through float for the 16-bit ones; bool refused as "ldexp_cpu_exp"
//          refuses it); anything else is self * 2 ** other (pow of 2.0, in self's dtype for
//          double and the 16-bit floats, in float32 otherwise). out= of an integral dtype is
//          refused first; out= of another float dtype than self's, with an integral exponent,
//          fails upstream's loop assertion, which we raise in its words.
//   frexp (.Tensor, .Tensor_out)  floating types only; std::frexp per element (exact).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/composite/ops.h"
#include "kernels/cpu/blas_loader.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_sleef.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;
using ops::t;

constexpr EwRule kFloat1 = ew_rule(1, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloat1I = ew_rule(1, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloat1O = ew_rule(1, V::Out, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloat2 = ew_rule(2, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFloat2O = ew_rule(2, V::Out, D::CommonFloat, O::SafeCast);

// a * b + c, one fused step where upstream's kernel build fuses it.
template <bool F, typename T>
T madd(T a, T b, T c) {
  if constexpr (F) return std::fma(a, b, c);
  else return a * b + c;
}

// Math.h's calc_erfinv in T (float or double), coefficients rounded to T as upstream's T(...).
template <bool F, typename T>
T erfinv_of(T y) {
  const T a0 = T(0.886226899), a1 = T(-1.645349621), a2 = T(0.914624893), a3 = T(-0.140543331);
  const T b0 = T(-2.118377725), b1 = T(1.442710462), b2 = T(-0.329097515), b3 = T(0.012229801);
  const T c0 = T(-1.970840454), c1 = T(-1.624906493), c2 = T(3.429567803), c3 = T(1.641345311);
  const T d0 = T(3.543889200), d1 = T(1.637067800);
  const T ya = std::abs(y);
  if (ya > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (ya == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (ya <= static_cast<T>(0.7)) {
    const T z = y * y;
    const T num = madd<F>(madd<F>(madd<F>(a3, z, a2), z, a1), z, a0);
    const T dem = madd<F>(madd<F>(madd<F>(madd<F>(b3, z, b2), z, b1), z, b0), z, T(1));
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((T(1) - ya) / T(2)));
    const T num = madd<F>(madd<F>(madd<F>(c3, z, c2), z, c1), z, c0);
    const T dem = madd<F>(madd<F>(d1, z, d0), z, T(1));
    x = std::copysign(num, y) / dem;
  }
  // c10::frac_1_sqrt_pi<T>, doubled in T
  const T k = T(2) * static_cast<T>(0.564189583547756286948079451560772586);
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

template <typename B>
void with_fusing(B&& body) {
  if (ew_cpu_has_avx2_fma()) body(std::true_type{});
  else body(std::false_type{});
}

void erfinv_compute(EwIter& it, const Call&) {
  const Blas& b = blas();
  const int k = static_cast<int>(VmlFn::ErfInv);
  ew_dispatch<kEwFloats>(it.common, "erfinv_vml_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, float>) {
      if (b.vml_s[k])
        return ew_run_array<T, T>(it, [&](float* o, const float* a, int64_t m) {
          b.vml_s[k](static_cast<int>(m), a, o, kVmlUpstreamMode);
        });
    } else if constexpr (std::is_same_v<T, double>) {
      if (b.vml_d[k])
        return ew_run_array<T, T>(it, [&](double* o, const double* a, int64_t m) {
          b.vml_d[k](static_cast<int>(m), a, o, kVmlUpstreamMode);
        });
    }
    with_fusing([&](auto f) {
      constexpr bool F = decltype(f)::value;
      ew_run<T, T>(it, [](A a) { return vec_result<T>(erfinv_of<F>(a)); });
    });
  });
}

// std::log / std::log1p as upstream's scalar code calls them on T: c10's overloads for the
// 16-bit floats round the result to T.
template <typename T, typename A>
A log_in(A v) {
  return static_cast<A>(static_cast<T>(std::log(v)));
}
template <typename T, typename A>
A log1p_in(A v) {
  return static_cast<A>(static_cast<T>(std::log1p(v)));
}

// x (a NaN of T widened to A) as the T it came from, bits and all: upstream returns the
// element itself, where a conversion back from float would make it the canonical NaN.
template <typename T, typename A>
T unwidened(A x) {
  if constexpr (std::is_same_v<T, A>) {
    return x;
  } else {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    T r;
    if constexpr (std::is_same_v<T, BFloat16>)
      r.x = static_cast<uint16_t>(b >> 16);
    else  // float16: sign, all-ones exponent, the top 10 bits of float's mantissa
      r.x = static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7C00u | ((b >> 13) & 0x3FFu));
    return r;
  }
}

void entr_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "entr_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A x) -> T {
      if (x != x) return unwidened<T>(x);
      if (x > A(0)) return static_cast<T>(-x * log_in<T>(x));
      if (x == A(0)) return T(0);
      return static_cast<T>(-std::numeric_limits<A>::infinity());
    });
  });
}

void xlog1py_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "xlog1py_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A x, A y) {
      if (y != y) return std::numeric_limits<A>::quiet_NaN();
      if (x == A(0)) return A(0);
      // Where both are NaN, which one comes out follows upstream's product: in float and
      // double its build returns log1p's, in the 16-bit floats c10's operator* returns x's.
      const A l = log1p_in<T>(y);
      if constexpr (std::is_same_v<T, A>) {
        if (l != l) return l;
      } else {
        if (x != x) return x;
      }
      return x * l;
    });
  });
}

// --- special_ndtri ------------------------------------------------------------------------

// Cephes's ndtri tables (Math.h's calc_ndtri), highest order first.
constexpr double kNdtriP0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1,
                               -5.66762857469070293439E1, 1.39312609387279679503E1,
                               -1.23916583867381258016E0};
constexpr double kNdtriQ0[] = {1.00000000000000000000E0,  1.95448858338141759834E0,
                               4.67627912898881538453E0,  8.63602421390890590575E1,
                               -2.25462687854119370527E2, 2.00260212380060660359E2,
                               -8.20372256168333339912E1, 1.59056225126211695515E1,
                               -1.18331621121330003142E0};
constexpr double kNdtriP1[] = {4.05544892305962419923E0,   3.15251094599893866154E1,
                               5.71628192246421288162E1,   4.40805073893200834700E1,
                               1.46849561928858024014E1,   2.18663306850790267539E0,
                               -1.40256079171354495875E-1, -3.50424626827848203418E-2,
                               -8.57456785154685413611E-4};
constexpr double kNdtriQ1[] = {1.00000000000000000000E0,   1.57799883256466749731E1,
                               4.53907635128879210584E1,   4.13172038254672030440E1,
                               1.50425385692907503408E1,   2.50464946208309415979E0,
                               -1.42182922854787788574E-1, -3.80806407691578277194E-2,
                               -9.33259480895457427372E-4};
constexpr double kNdtriP2[] = {3.23774891776946035970E0, 6.91522889068984211695E0,
                               3.93881025292474443415E0, 1.33303460815807542389E0,
                               2.01485389549179081538E-1, 1.23716634817820021358E-2,
                               3.01581553508235416007E-4, 2.65806974686737550832E-6,
                               6.23974539184983293730E-9};
constexpr double kNdtriQ2[] = {1.00000000000000000000E0, 6.02427039364742014255E0,
                               3.67983563856160859403E0, 1.37702099489081330271E0,
                               2.16236993594496635890E-1, 1.34204006088543189037E-2,
                               3.28014464682127739104E-4, 2.89247864745380683936E-6,
                               6.79019408009981274425E-9};

// Math.h's polevl: len + 1 coefficients (rounded to T), Horner from 0.
template <bool F, typename T>
T polevl(T x, const double* a, size_t len) {
  T r = 0;
  for (size_t i = 0; i <= len; ++i) r = madd<F>(r, x, static_cast<T>(a[i]));
  return r;
}

// Math.h's calc_ndtri: the inverse of the standard normal CDF.
template <bool F, typename T>
T ndtri_of(T y0) {
  const T s2pi = static_cast<T>(2.50662827463100050242E0);
  const T e2 = static_cast<T>(0.13533528323661269189);  // exp(-2)
  if (y0 == T(0)) return -std::numeric_limits<T>::infinity();
  if (y0 == T(1)) return std::numeric_limits<T>::infinity();
  if (y0 < T(0) || y0 > T(1)) return std::numeric_limits<T>::quiet_NaN();
  bool code = true;
  T y = y0;
  if (y > T(1) - e2) {
    y = T(1) - y;
    code = false;
  }
  if (y > e2) {
    y = y - T(0.5);
    const T y2 = y * y;
    const T x = madd<F>(y, y2 * polevl<F>(y2, kNdtriP0, 4) / polevl<F>(y2, kNdtriQ0, 8), y);
    return x * s2pi;
  }
  // (upstream calls ::log and ::sqrt, C's double functions: float computes these in double)
  const double dy = static_cast<double>(y);
  T x = static_cast<T>(::sqrt(static_cast<double>(T(-2.0)) * ::log(dy)));
  const double dx = static_cast<double>(x);
  const T x0 = static_cast<T>(dx - ::log(dx) / dx);
  const T z = T(1) / x;
  const T x1 = x < T(8.0) ? z * polevl<F>(z, kNdtriP1, 8) / polevl<F>(z, kNdtriQ1, 8)
                          : z * polevl<F>(z, kNdtriP2, 8) / polevl<F>(z, kNdtriQ2, 8);
  x = x0 - x1;
  return code ? -x : x;
}

// special_ndtri: scalar cpu_kernel, float and double only (upstream's dispatch).
void ndtri_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "ndtri_cpu", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (is_reduced_float_v<T>) {
      TN_FAIL(NotImplemented, "\"ndtri_cpu\" not implemented for '",
              c10_dtype_name(it.common), "'");
    } else {
      with_fusing([&](auto f) {
        constexpr bool F = decltype(f)::value;
        ew_run<T, T>(it, [](T a) { return ndtri_of<F>(a); });
      });
    }
  });
}

// --- ldexp ---------------------------------------------------------------------------------

bool is_integral_or_bool(ScalarType t) { return !is_floating(t) && !is_complex(t); }

// upstream's ldexp kernel: self's dtype out, the exponent kept integral.
ScalarType ldexp_int_dtype(const Call& c, ScalarType) { return c.tensor(0)->dtype(); }
constexpr EwRule ldexp_int_rule(V v) {
  EwRule r = ew_rule(2, v, D::Common, O::Same);
  r.result_dtype = ldexp_int_dtype;
  return r;
}
constexpr EwRule kLdexpInt = ldexp_int_rule(V::Functional);
constexpr EwRule kLdexpIntI = ldexp_int_rule(V::InPlace);
constexpr EwRule kLdexpIntO = ldexp_int_rule(V::Out);

void ldexp_int_compute(EwIter& it, const Call& c) {
  TN_CHECK_KIND(c.tensor(1)->dtype() != ScalarType::Bool, NotImplemented,
                "\"ldexp_cpu_exp\" not implemented for 'Bool'");
  // every float type converts to double exactly, every integer type to int64; the exponent
  // is then narrowed to int as std::ldexp's parameter narrows it; the double result is
  // stored in self's dtype (through float for the 16-bit ones, as c10's constructors).
  ew_run<double, double, int64_t>(it, [](double x, int64_t e) {
    return std::ldexp(x, static_cast<int>(e));
  });
}

// upstream's _pow2: pow(2.0, other) for integral and float32 self, else a 0-d 2.0 of self's
// dtype raised to other.
Tensor pow2(const Tensor& self, const Tensor& other) {
  const ScalarType st = self->dtype();
  if (is_integral_or_bool(st) || st == ScalarType::Float)
    return call_tensor("aten::pow.Scalar", {ops::f64(2.0), t(other)});
  Tensor two = call_tensor("aten::full", {ops::ints({}), ops::f64(2.0), Value::of_dtype(st),
                                          Value{}, Value::of_device(self->device())});
  return call_tensor("aten::pow.Tensor_Tensor", {t(two), t(other)});
}

bool ldexp_int_path(const Tensor& self, const Tensor& other) {
  return is_integral_or_bool(other->dtype()) && is_floating(self->dtype());
}

template <bool Cpu>
void ldexp_functional(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& other = c.tensor(1);
  if (ldexp_int_path(self, other)) {
    ew_meta_run(c, kLdexpInt);
    if (Cpu) ew_cpu_run(c, kLdexpInt, ldexp_int_compute);
    return;
  }
  c.ret(call_tensor("aten::mul.Tensor", {t(self), t(pow2(self, other))}));
}

// ldexp.out (and ldexp_, upstream's ldexp_out(self, self, other)).
template <bool Cpu, bool InPlace>
void ldexp_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& other = c.tensor(1);
  const Tensor& out = InPlace ? self : c.tensor(2);
  TN_CHECK(!is_integral_or_bool(out->dtype()), "ldexp can't be cast to the desired output "
           "type ", c10_dtype_name(out->dtype()));
  if (ldexp_int_path(self, other)) {
    // upstream 2.13 takes its kernel whatever out's dtype, and its loop then asserts
    TN_CHECK(out->dtype() == self->dtype(), "!needs_dynamic_casting<func_t>::check(iter) "
             "INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/cpu/"
             "Loops.h\":311, please report a bug to PyTorch. ");
    const EwRule& r = InPlace ? kLdexpIntI : kLdexpIntO;
    ew_meta_run(c, r);
    if (Cpu) ew_cpu_run(c, r, ldexp_int_compute);
    return;
  }
  c.ret(call_tensor("aten::mul.out", {t(self), t(pow2(self, other)), t(out)}));
}

// --- frexp ---------------------------------------------------------------------------------

void frexp_check_self(const Tensor& self) {
  TN_CHECK(is_floating(self->dtype()), "torch.frexp() only supports floating-point dtypes");
}

// mantissa and exponent of self into m (self's dtype) and e (int32), both contiguous.
void frexp_fill(const Tensor& self, const Tensor& m, const Tensor& e, const std::string& key) {
  Tensor in = contiguous(self, key);
  const int64_t n = self->numel();
  int32_t* eo = data_of<int32_t>(e, key);
  ew_dispatch<kEwFloats>(self->dtype(), "frexp_cpu", [&](auto zero) {
    using T = decltype(zero);
    const T* x = data_of<T>(in, key);
    T* mo = data_of<T>(m, key);
    for (int64_t i = 0; i < n; ++i) {
      int ex = 0;
      const acc_t<T> v = std::frexp(static_cast<acc_t<T>>(x[i]), &ex);
      mo[i] = static_cast<T>(v);
      eo[i] = ex;
    }
  });
}

// frexp.Tensor: upstream's empty_like(self) pair filled by frexp_out.
template <bool Cpu>
void frexp_functional(Call& c) {
  const Tensor& self = c.tensor(0);
  frexp_check_self(self);
  Tensor m = call_tensor("aten::empty_like", {t(self)});
  Tensor e = call_tensor("aten::empty_like", {t(self), Value::of_dtype(ScalarType::Int)});
  if (Cpu && self->numel() > 0) {
    const std::string& key = c.key();
    Tensor mc = ops::empty(self->sizes(), self->dtype(), self->device());
    Tensor ec = ops::empty(self->sizes(), ScalarType::Int, self->device());
    frexp_fill(self, mc, ec, key);
    ops::copy_(m, mc);
    ops::copy_(e, ec);
  }
  c.ret(m);
  c.ret(e);
}

// frexp.Tensor_out(self, *, mantissa, exponent)
template <bool Cpu>
void frexp_out(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& mo = c.tensor(1);
  const Tensor& eo = c.tensor(2);
  frexp_check_self(self);
  TN_CHECK(mo->dtype() == self->dtype(), "torch.frexp() expects mantissa to have dtype ",
           cpp_type_name(self->dtype()), " but got ", cpp_type_name(mo->dtype()));
  TN_CHECK(eo->dtype() == ScalarType::Int, "torch.frexp() expects exponent to have int dtype "
           "but got ", cpp_type_name(eo->dtype()));
  Tensor m = ops::empty(self->sizes(), self->dtype(), self->device());
  Tensor e = ops::empty(self->sizes(), ScalarType::Int, self->device());
  if (Cpu && self->numel() > 0) frexp_fill(self, m, e, c.key());
  ops::ret_all(c, {m, e}, 1);
}

}  // namespace

TN_REGISTER_ELEMENTWISE("aten::erfinv", kFloat1, erfinv_compute);
TN_REGISTER_ELEMENTWISE("aten::erfinv_", kFloat1I, erfinv_compute);
TN_REGISTER_ELEMENTWISE("aten::erfinv.out", kFloat1O, erfinv_compute);
TN_REGISTER_ELEMENTWISE("aten::special_entr", kFloat1, entr_compute);
TN_REGISTER_ELEMENTWISE("aten::special_entr.out", kFloat1O, entr_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py", kFloat2, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py.self_scalar", kFloat2, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py.other_scalar", kFloat2, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py.out", kFloat2O, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py.self_scalar_out", kFloat2O, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_xlog1py.other_scalar_out", kFloat2O, xlog1py_compute);
TN_REGISTER_ELEMENTWISE("aten::special_ndtri", kFloat1, ndtri_compute);
TN_REGISTER_ELEMENTWISE("aten::special_ndtri.out", kFloat1O, ndtri_compute);
TN_REGISTER_KERNEL("aten::ldexp.Tensor", DenseCPU, ldexp_functional<true>);
TN_REGISTER_KERNEL("aten::ldexp.Tensor", Meta, ldexp_functional<false>);
TN_REGISTER_KERNEL("aten::ldexp.out", DenseCPU, (ldexp_out<true, false>));
TN_REGISTER_KERNEL("aten::ldexp.out", Meta, (ldexp_out<false, false>));
TN_REGISTER_KERNEL("aten::ldexp_", DenseCPU, (ldexp_out<true, true>));
TN_REGISTER_KERNEL("aten::ldexp_", Meta, (ldexp_out<false, true>));
TN_REGISTER_KERNEL("aten::frexp.Tensor", DenseCPU, frexp_functional<true>);
TN_REGISTER_KERNEL("aten::frexp.Tensor", Meta, frexp_functional<false>);
TN_REGISTER_KERNEL("aten::frexp.Tensor_out", DenseCPU, frexp_out<true>);
TN_REGISTER_KERNEL("aten::frexp.Tensor_out", Meta, frexp_out<false>);

}  // namespace tn
