// Complex elementwise arithmetic (elementwise_complex.h), and the ops that exist only for
// complex numbers: angle, sgn, conj_physical, complex(real, imag) and polar(abs, angle).
//
// The formulas are upstream's. Products are (ac - bd) + (ad + bc)i with every product rounded
// (its vectorised multiply; this file is compiled with -ffp-contract=off so that no product is
// fused into an fma). Quotients follow c10::complex's scaled division, and reciprocal its
// vectorised (re, -im) / |z|^2. exp, log, sqrt and the trigonometric functions are the C
// library's (std::exp of a std::complex is glibc's cexp), which is upstream's scalar path; its
// vectorised exp computes exp(re) * (cos(im), sin(im)) with SLEEF, which may differ by an ulp.
#include "kernels/cpu/elementwise_complex.h"

#include <cmath>
#include <complex>

#include "kernels/cpu/elementwise_loop.h"

namespace tn {

namespace {

template <typename C>
inline C cmul(C a, C b) {
  return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

// c10::complex's operator/ (numpy's algorithm: scale by the larger part of the divisor).
template <typename C>
inline C cdiv(C x, C y) {
  using R = typename C::value_type;
  R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  R abs_c = std::abs(c), abs_d = std::abs(d);
  if (abs_c >= abs_d) {
    if (abs_c == R(0) && abs_d == R(0)) return C(a / abs_c, b / abs_d);
    R rat = d / c;
    R scl = R(1) / (c + d * rat);
    return C((a + b * rat) * scl, (b - a * rat) * scl);
  }
  R rat = c / d;
  R scl = R(1) / (d + c * rat);
  return C((a * rat + b) * scl, (b * rat - a) * scl);
}

// Upstream's vectorised reciprocal: (re, -im) / (re^2 + im^2).
template <typename C>
inline C creciprocal(C z) {
  using R = typename C::value_type;
  R n = z.real() * z.real() + z.imag() * z.imag();
  return C(z.real() / n, -z.imag() / n);
}

// Runs f(C{}) for the loop's complex dtype. complex32 computes as complex<float> (C = cfloat,
// each part rounded back to float16 as it is stored) in the kernels upstream runs on it; the
// others pass half_name, upstream's kernel name, and refuse complex32 as upstream does:
// NotImplementedError "\"exp_vml_cpu\" not implemented for 'ComplexHalf'".
template <typename F>
bool run_complex(EwIter& it, const char* half_name, F&& f) {
  if (!is_complex(it.common)) return false;
  if (half_name != nullptr)
    ew_dispatch<kEwComplex>(it.common, half_name, [&](auto zero) { f(zero); });
  else
    ew_dispatch<kEwComplex | kEwComplexHalf>(it.common, "complex", [&](auto zero) { f(zero); });
  return true;
}

// The kernels upstream runs complex32 through take nullptr: neg, conj, sgn.
const char* half_refusal_name(CxUnary op) {
  switch (op) {
    case CxUnary::Neg: case CxUnary::Conj: case CxUnary::Sgn: return nullptr;
    case CxUnary::Reciprocal: return "reciprocal_cpu";
    case CxUnary::Exp: return "exp_vml_cpu";
    case CxUnary::Log: return "log_vml_cpu";
    case CxUnary::Log2: return "log2_vml_cpu";
    case CxUnary::Log10: return "log10_vml_cpu";
    case CxUnary::Sqrt: return "sqrt_vml_cpu";
    case CxUnary::Rsqrt: return "rsqrt_cpu";
    case CxUnary::Sin: return "sin_vml_cpu";
    case CxUnary::Cos: return "cos_vml_cpu";
    case CxUnary::Tan: return "tan_vml_cpu";
    case CxUnary::Sinh: return "sinh_cpu";
    case CxUnary::Cosh: return "cosh_cpu";
    case CxUnary::Tanh: return "tanh_vml_cpu";
    case CxUnary::Sigmoid: return "sigmoid_cpu";
    case CxUnary::Square: return "pow";
    case CxUnary::Exp2: return "exp2";
    case CxUnary::Expm1: return "expm1_vml_cpu";
    case CxUnary::Log1p: return "log1p_vml_cpu";
    case CxUnary::Asin: return "asin_vml_cpu";
    case CxUnary::Acos: return "acos_vml_cpu";
    case CxUnary::Atan: return "atan_vml_cpu";
    case CxUnary::Silu: return "silu_cpu";
    case CxUnary::Acosh: return "acosh_cpu";
    case CxUnary::Asinh: return "asinh_cpu";
    case CxUnary::Atanh: return "atanh_cpu";
  }
  return "complex";
}

}  // namespace

bool cx_unary(EwIter& it, CxUnary op) {
  return run_complex(it, half_refusal_name(op), [&](auto zero) {
    using C = decltype(zero);
    using R = typename C::value_type;
    switch (op) {
      case CxUnary::Neg: return ew_run<C, C>(it, [](C a) { return C(-a.real(), -a.imag()); });
      case CxUnary::Conj: return ew_run<C, C>(it, [](C a) { return C(a.real(), -a.imag()); });
      case CxUnary::Reciprocal: return ew_run<C, C>(it, [](C a) { return creciprocal(a); });
      case CxUnary::Exp: return ew_run<C, C>(it, [](C a) { return std::exp(a); });
      case CxUnary::Log: return ew_run<C, C>(it, [](C a) { return std::log(a); });
      case CxUnary::Log2:
        return ew_run<C, C>(it, [](C a) {
          C l = std::log(a);
          R k = std::log(R(2));
          return C(l.real() / k, l.imag() / k);
        });
      case CxUnary::Log10: return ew_run<C, C>(it, [](C a) { return std::log10(a); });
      case CxUnary::Sqrt: return ew_run<C, C>(it, [](C a) { return std::sqrt(a); });
      case CxUnary::Rsqrt: return ew_run<C, C>(it, [](C a) { return cdiv(C(1), std::sqrt(a)); });
      case CxUnary::Sin: return ew_run<C, C>(it, [](C a) { return std::sin(a); });
      case CxUnary::Cos: return ew_run<C, C>(it, [](C a) { return std::cos(a); });
      case CxUnary::Tan: return ew_run<C, C>(it, [](C a) { return std::tan(a); });
      case CxUnary::Sinh: return ew_run<C, C>(it, [](C a) { return std::sinh(a); });
      case CxUnary::Cosh: return ew_run<C, C>(it, [](C a) { return std::cosh(a); });
      case CxUnary::Tanh: return ew_run<C, C>(it, [](C a) { return std::tanh(a); });
      case CxUnary::Sigmoid:
        return ew_run<C, C>(it, [](C a) {
          C e = std::exp(C(-a.real(), -a.imag()));
          return creciprocal(C(R(1) + e.real(), e.imag()));
        });
      case CxUnary::Sgn:
        return ew_run<C, C>(it, [](C a) {
          R m = std::abs(a);
          return m == R(0) ? C(0) : C(a.real() / m, a.imag() / m);
        });
      case CxUnary::Square: return ew_run<C, C>(it, [](C a) { return cmul(a, a); });
      // exp2 as upstream's vectorised complex exp2: exp of z with both parts scaled by ln 2.
      case CxUnary::Exp2:
        return ew_run<C, C>(it, [](C a) {
          const R ln2 = std::log(R(2));
          return std::exp(C(a.real() * ln2, a.imag() * ln2));
        });
      // expm1 and log1p: c10::complex's CPU formulas, accurate near zero:
      //   expm1(x + iy) = expm1(x) cos y - 2 sin(y/2)^2 + i e^x sin y;
      //   log1p(z): u = 1 + z; z where u == 1; log(u) where u - 1 == z exactly; else
      //   log(u) * (z / (u - 1)), which corrects for the rounding of 1 + z (numpy's way).
      case CxUnary::Expm1:
        return ew_run<C, C>(it, [](C a) {
          R x = a.real(), y = a.imag(), h = std::sin(y / R(2));
          return C(std::expm1(x) * std::cos(y) - R(2) * h * h, std::exp(x) * std::sin(y));
        });
      case CxUnary::Log1p:
        return ew_run<C, C>(it, [](C a) {
          C u(a.real() + R(1), a.imag());
          if (u.real() == R(1) && u.imag() == R(0)) return a;
          C lu = std::log(u);
          C um1(u.real() - R(1), u.imag());
          if (um1.real() == a.real() && um1.imag() == a.imag()) return lu;
          return cmul(lu, cdiv(a, um1));
        });
      // The inverse trigonometric functions: the C library's (casin, cacos, catan).
      // silu: z / (1 + exp(-z)), upstream's complex silu.
      case CxUnary::Silu:
        return ew_run<C, C>(it, [](C a) {
          C e = std::exp(C(-a.real(), -a.imag()));
          return cdiv(a, C(R(1) + e.real(), e.imag()));
        });
      case CxUnary::Asin: return ew_run<C, C>(it, [](C a) { return std::asin(a); });
      case CxUnary::Acos: return ew_run<C, C>(it, [](C a) { return std::acos(a); });
      case CxUnary::Atan: return ew_run<C, C>(it, [](C a) { return std::atan(a); });
      // The inverse hyperbolic functions: the C library's too (cacosh, casinh, catanh).
      case CxUnary::Acosh: return ew_run<C, C>(it, [](C a) { return std::acosh(a); });
      case CxUnary::Asinh: return ew_run<C, C>(it, [](C a) { return std::asinh(a); });
      case CxUnary::Atanh: return ew_run<C, C>(it, [](C a) { return std::atanh(a); });
    }
  });
}

template <typename C>
inline C cadd(C a, C b) { return C(a.real() + b.real(), a.imag() + b.imag()); }
template <typename C>
inline C csub(C a, C b) { return C(a.real() - b.real(), a.imag() - b.imag()); }
template <typename C>
inline C clerp(C s, C e, C w) {
  using R = typename C::value_type;
  C d = csub(e, s);
  if (std::abs(w) < R(0.5)) return cadd(s, cmul(w, d));
  return csub(e, cmul(d, csub(C(1), w)));
}

// complex32 through complex<Half>'s operators, as upstream's kernels compute it: the number
// is rounded to complex32 first and every product and sum after it (a single operation
// rounds once either way, so only the ops that chain several need this).
inline cfloat round_half(cfloat z) {
  return cfloat(static_cast<float>(Half(z.real())), static_cast<float>(Half(z.imag())));
}

bool cx_addcmul(EwIter& it, const Scalar& value) {
  if (it.common == ScalarType::ComplexHalf) {
    cfloat v = round_half(ew_scalar<cfloat>(value));
    ew_run<cfloat, cfloat, cfloat, cfloat>(it, [=](cfloat s, cfloat a, cfloat b) {
      return cadd(s, round_half(cmul(round_half(cmul(v, a)), b)));
    });
    return true;
  }
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    C v = ew_scalar<C>(value);
    ew_run<C, C, C, C>(it, [=](C s, C a, C b) { return cadd(s, cmul(cmul(v, a), b)); });
  });
}
bool cx_addcdiv(EwIter& it, const Scalar& value) {
  return run_complex(it, "addcdiv_cpu_out", [&](auto zero) {
    using C = decltype(zero);
    C v = ew_scalar<C>(value);
    ew_run<C, C, C, C>(it, [=](C s, C a, C b) { return cadd(s, cdiv(cmul(v, a), b)); });
  });
}
bool cx_lerp(EwIter& it, const Scalar& weight) {
  return run_complex(it, "lerp_kernel_scalar", [&](auto zero) {
    using C = decltype(zero);
    C w = ew_scalar<C>(weight);
    ew_run<C, C, C>(it, [=](C s, C e) { return clerp(s, e, w); });
  });
}
bool cx_lerp_tensor(EwIter& it) {
  return run_complex(it, "lerp_kernel_tensor", [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C, C>(it, [](C s, C e, C w) { return clerp(s, e, w); });
  });
}

bool cx_add(EwIter& it, const Scalar& alpha) {
  if (it.common == ScalarType::ComplexHalf) {
    cfloat al = round_half(ew_scalar<cfloat>(alpha));
    ew_run<cfloat, cfloat, cfloat>(it, [=](cfloat a, cfloat b) {
      return cadd(a, round_half(cmul(al, b)));
    });
    return true;
  }
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    C al = ew_scalar<C>(alpha);
    ew_run<C, C, C>(it, [=](C a, C b) {
      C p = cmul(al, b);
      return C(a.real() + p.real(), a.imag() + p.imag());
    });
  });
}

bool cx_mul(EwIter& it) {
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C>(it, [](C a, C b) { return cmul(a, b); });
  });
}

bool cx_div(EwIter& it) {
  return run_complex(it, "div_cpu", [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C>(it, [](C a, C b) { return cdiv(a, b); });
  });
}

bool cx_pow(EwIter& it) {
  return run_complex(it, "pow", [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C>(it, [](C a, C b) { return std::pow(a, b); });
  });
}

bool cx_pow_scalar(EwIter& it, const Scalar& exponent) {
  if (!is_complex(it.common)) return false;
  TN_CHECK_KIND(it.common != ScalarType::ComplexHalf, NotImplemented,
                "\"pow\" not implemented for 'ComplexHalf'");
  double re = exponent.to_double(), im = exponent.imag();
  if (im == 0 && re == 0.5) return cx_unary(it, CxUnary::Sqrt);
  if (im == 0 && re == -0.5) return cx_unary(it, CxUnary::Rsqrt);
  if (im == 0 && re == -1.0) return cx_unary(it, CxUnary::Reciprocal);
  return run_complex(it, "pow", [&](auto zero) {
    using C = decltype(zero);
    if (im == 0 && re == 2.0) return ew_run<C, C>(it, [](C a) { return cmul(a, a); });
    if (im == 0 && re == 3.0) return ew_run<C, C>(it, [](C a) { return cmul(cmul(a, a), a); });
    if (im == 0 && re == -2.0)
      return ew_run<C, C>(it, [](C a) { return creciprocal(cmul(a, a)); });
    C e = ew_scalar<C>(exponent);
    ew_run<C, C>(it, [=](C a) { return std::pow(a, e); });
  });
}

bool cx_abs(EwIter& it) {
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    using R = typename C::value_type;
    ew_run<R, C>(it, [](C a) { return std::abs(a); });
  });
}

bool cx_angle(EwIter& it) {
  return run_complex(it, "angle_cpu", [&](auto zero) {
    using C = decltype(zero);
    using R = typename C::value_type;
    ew_run<R, C>(it, [](C a) { return std::atan2(a.imag(), a.real()); });
  });
}

bool cx_eq(EwIter& it, bool equal) {
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    ew_run<bool, C, C>(it, [=](C a, C b) {
      return (a.real() == b.real() && a.imag() == b.imag()) == equal;
    });
  });
}

bool cx_predicate(EwIter& it, CxPredicate p) {
  return run_complex(it, nullptr, [&](auto zero) {
    using C = decltype(zero);
    switch (p) {
      case CxPredicate::IsNan:
        return ew_run<bool, C>(
            it, [](C a) { return std::isnan(a.real()) || std::isnan(a.imag()); });
      case CxPredicate::IsInf:
        return ew_run<bool, C>(it, [](C a) { return std::isinf(a.real()) || std::isinf(a.imag()); });
      case CxPredicate::IsFinite:
        return ew_run<bool, C>(
            it, [](C a) { return std::isfinite(a.real()) && std::isfinite(a.imag()); });
    }
  });
}

namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

// --- ops of complex numbers ---------------------------------------------------------------------

// angle: complex -> its real dtype; real x -> 0 or pi (NaN stays NaN), integers as float.
void angle_compute(EwIter& it, const Call&) {
  if (cx_angle(it)) return;
  ew_dispatch<kEwFloats>(it.common, "angle_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T>(it, [](A a) {
      if (std::isnan(a)) return a;
      return a < A(0) ? static_cast<A>(M_PI) : A(0);
    });
  });
}
// Upstream's angle: integers and bools compute in the default float dtype.
ScalarType angle_dtype(const Call&, ScalarType common) {
  return is_integral(common, true) ? default_float_dtype() : common;
}
constexpr EwRule with_angle(EwRule r) {
  r.result_dtype = angle_dtype;
  return r;
}
constexpr EwRule kAngle = with_angle(ew_rule(1, V::Functional, D::ToReal, O::SafeCast));
constexpr EwRule kAngleO = with_angle(ew_rule(1, V::Out, D::ToReal, O::SafeCast));
TN_REGISTER_ELEMENTWISE("aten::angle", kAngle, angle_compute);
TN_REGISTER_ELEMENTWISE("aten::angle.out", kAngleO, angle_compute);

constexpr EwRule kSame = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSameO = ew_rule(1, V::Out, D::Common, O::Same);

// _conj_physical / conj_physical.out: the conjugate, computed (real tensors are copied).
void conj_physical_compute(EwIter& it, const Call&) {
  if (cx_unary(it, CxUnary::Conj)) return;
  ew_dispatch<kEwAll>(it.common, "conj_physical", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T>(it, [](acc_t<T> a) { return a; });
  });
}
TN_REGISTER_ELEMENTWISE("aten::_conj_physical", kSame, conj_physical_compute);
TN_REGISTER_ELEMENTWISE("aten::conj_physical.out", kSameO, conj_physical_compute);

// conj_physical(Tensor self) -> Tensor: self for real tensors (upstream returns it as is).
void conj_physical(Call& c) {
  if (!is_complex(c.tensor(0)->dtype())) return c.ret(c.tensor(0));
  c.ret(call_tensor("aten::_conj_physical", {c.arg(0)}));
}
// conj_physical_(Tensor(a!) self) -> Tensor(a!)
void conj_physical_(Call& c) {
  if (!is_complex(c.tensor(0)->dtype())) return c.ret(c.tensor(0));
  c.ret(call_tensor("aten::conj_physical.out", {c.arg(0), c.arg(0)}));
}
TN_REGISTER_COMPOSITE("aten::conj_physical", conj_physical);
TN_REGISTER_COMPOSITE("aten::conj_physical_", conj_physical_);

// complex(real, imag) and polar(abs, angle): two real tensors of one floating dtype make the
// complex dtype of it. The loop computes in that complex dtype (each input loaded with imag 0).
void check_complex_parts(const Call&, const EwSpec& s) {
  ScalarType a = s.ops[0].dtype(), b = s.ops[1].dtype();
  auto ok = [](ScalarType t) {
    return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double;
  };
  TN_CHECK(ok(a) && ok(b) && a == b, "Expected both inputs to be Half, Float or Double tensors "
           "but got ", c10_dtype_name(a), " and ", c10_dtype_name(b));
}
ScalarType complex_of(const Call&, ScalarType common) { return to_complex_type(common); }
constexpr EwRule parts_rule(EwVariant v) {
  EwRule r = ew_rule(2, v, D::Common, O::Exact, check_complex_parts);
  r.result_dtype = complex_of;
  return r;
}
constexpr EwRule kParts = parts_rule(V::Functional);
constexpr EwRule kPartsO = parts_rule(V::Out);

void complex_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwComplex | kEwComplexHalf>(it.common, "complex_cpu", [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C>(it, [](C re, C im) { return C(re.real(), im.real()); });
  });
}
void polar_compute(EwIter& it, const Call&) {
  TN_CHECK_KIND(it.common != ScalarType::ComplexHalf, NotImplemented,
                "\"polar_cpu\" not implemented for 'Half'");  // upstream names the parts' dtype
  ew_dispatch<kEwComplex>(it.common, "polar_cpu", [&](auto zero) {
    using C = decltype(zero);
    ew_run<C, C, C>(it, [](C r, C t) {
      return C(r.real() * std::cos(t.real()), r.real() * std::sin(t.real()));
    });
  });
}
TN_REGISTER_ELEMENTWISE("aten::complex", kParts, complex_compute);
TN_REGISTER_ELEMENTWISE("aten::complex.out", kPartsO, complex_compute);
TN_REGISTER_ELEMENTWISE("aten::polar", kParts, polar_compute);
TN_REGISTER_ELEMENTWISE("aten::polar.out", kPartsO, polar_compute);

}  // namespace
}  // namespace tn
