// Elementwise ops whose results are exact (no rounding beyond the dtype's own), on dense CPU
// tensors, with upstream's checks (BinaryOps.cpp, UnaryOps.cpp) and kernels' arithmetic
// (BinaryOpsKernel.cpp, UnaryOpsKernel.cpp):
//   fmax, fmin        floats: std::fmax / std::fmin (a NaN loses to a number); integers and
//                     bool: maximum / minimum; complex refused ("fmax not implemented for
//                     complex tensors.").
//   copysign          (Tensor and Scalar other) in the float result dtype: |a| with b's sign.
//   heaviside         a == 0 ? b : (a > 0), both operands (and out) of one dtype.
//   nextafter         float32/float64 (std::nextafter), float16 and bfloat16 (c10's bit walk);
//                     integers refused as upstream's dispatch ("nextafter_cpu").
//   gcd, lcm          integers (Euclid on |a|, |b|; lcm = |a / gcd * b|, 0 when gcd is 0).
//   signbit           bool out: integers a < 0, floats their sign bit, bool false.
//   isposinf, isneginf bool out: a == +inf / -inf for floats, false for integers and bool.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/cpu/elementwise_loop.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;

// The name an op's checks use: "fmax" for aten::fmax and aten::fmax.out.
std::string base_name(const Call& c) {
  std::string n = c.op->name;
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

bool any_complex(const EwSpec& s) {
  for (int k = 0; k < s.n; ++k) {
    const EwOperand& op = s.ops[k];
    if (op.is_number() ? op.number.is_complex() : is_complex(op.tensor->dtype())) return true;
  }
  return false;
}

// --- fmax, fmin --------------------------------------------------------------------------------

void check_not_complex_fm(const Call& c, const EwSpec& s) {
  TN_CHECK(!any_complex(s), base_name(c), " not implemented for complex tensors.");
}

template <bool Max>
void fmaxmin_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAll>(it.common, Max ? "fmax_cpu" : "fmin_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      ew_run<T, T, T>(it, [](bool a, bool b) { return Max ? (a || b) : (a && b); });
    else if constexpr (std::is_floating_point_v<A>)
      ew_run<T, T, T>(it, [](A a, A b) { return Max ? std::fmax(a, b) : std::fmin(a, b); });
    else
      ew_run<T, T, T>(it, [](A a, A b) { return Max ? std::max(a, b) : std::min(a, b); });
  });
}

constexpr EwRule kFm = ew_rule(2, V::Functional, D::Common, O::SafeCast, check_not_complex_fm);
constexpr EwRule kFmO = ew_rule(2, V::Out, D::Common, O::SafeCast, check_not_complex_fm);
TN_REGISTER_ELEMENTWISE("aten::fmax", kFm, fmaxmin_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::fmax.out", kFmO, fmaxmin_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::fmin", kFm, fmaxmin_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::fmin.out", kFmO, fmaxmin_compute<false>);

// --- copysign ----------------------------------------------------------------------------------

void copysign_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "copysign_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A a, A b) { return std::copysign(a, b); });
  });
}
constexpr EwRule kFl = ew_rule(2, V::Functional, D::CommonFloat, O::SafeCast);
constexpr EwRule kFlI = ew_rule(2, V::InPlace, D::CommonFloat, O::SafeCast);
constexpr EwRule kFlO = ew_rule(2, V::Out, D::CommonFloat, O::SafeCast);
constexpr EwRule kFlOX = ew_rule(2, V::Out, D::CommonFloat, O::Exact);
TN_REGISTER_ELEMENTWISE("aten::copysign.Tensor", kFl, copysign_compute);
TN_REGISTER_ELEMENTWISE("aten::copysign_.Tensor", kFlI, copysign_compute);
TN_REGISTER_ELEMENTWISE("aten::copysign.out", kFlO, copysign_compute);
TN_REGISTER_ELEMENTWISE("aten::copysign.Scalar", kFl, copysign_compute);
TN_REGISTER_ELEMENTWISE("aten::copysign_.Scalar", kFlI, copysign_compute);
TN_REGISTER_ELEMENTWISE("aten::copysign.Scalar_out", kFlOX, copysign_compute);

// --- heaviside ---------------------------------------------------------------------------------

void check_heaviside(const Call& c, const EwSpec& s) {
  const Tensor& self = c.tensor(0);
  const Tensor& values = c.tensor(1);
  const Tensor* out = s.variant == V::Out ? &c.tensor(c.args.size() - 1) : nullptr;
  TN_CHECK(!is_complex(self->dtype()) && !is_complex(values->dtype()) &&
               !(out && is_complex((*out)->dtype())),
           "heaviside is not yet implemented for complex tensors.");
  TN_CHECK(self->dtype() == values->dtype() && !(out && (*out)->dtype() != self->dtype()),
           "heaviside is not yet implemented for tensors with different dtypes.");
}
void heaviside_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAll>(it.common, "heaviside_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T>(it, [](A a, A b) { return a == A(0) ? b : static_cast<A>(a > A(0)); });
  });
}
constexpr EwRule kHv = ew_rule(2, V::Functional, D::Common, O::SafeCast, check_heaviside);
constexpr EwRule kHvI = ew_rule(2, V::InPlace, D::Common, O::SafeCast, check_heaviside);
constexpr EwRule kHvO = ew_rule(2, V::Out, D::Common, O::SafeCast, check_heaviside);
TN_REGISTER_ELEMENTWISE("aten::heaviside", kHv, heaviside_compute);
TN_REGISTER_ELEMENTWISE("aten::heaviside_", kHvI, heaviside_compute);
TN_REGISTER_ELEMENTWISE("aten::heaviside.out", kHvO, heaviside_compute);

// --- nextafter -----------------------------------------------------------------------------------

// The next 16-bit float after `from` towards `to`, on the bits (the sign-magnitude walk c10
// uses for float16 and bfloat16).
template <typename H>
H next_16bit(H from, H to) {
  const float f = static_cast<float>(from), t = static_cast<float>(to);
  if (f != f || t != t) return H(f + t);
  uint16_t fb, tb;
  std::memcpy(&fb, &from, 2);
  std::memcpy(&tb, &to, 2);
  if (fb == tb) return from;
  constexpr uint16_t kSign = 0x8000;
  const uint16_t abs_f = fb & ~kSign, abs_t = tb & ~kSign;
  if (abs_f == 0) {
    if (abs_t == 0) return to;
    fb = static_cast<uint16_t>((tb & kSign) | 1);
  } else if (abs_f > abs_t || ((fb ^ tb) & kSign)) {
    --fb;
  } else {
    ++fb;
  }
  H r;
  std::memcpy(&r, &fb, 2);
  return r;
}
void nextafter_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwFloats>(it.common, "nextafter_cpu", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      ew_run<T, T, T>(it, [](T a, T b) { return std::nextafter(a, b); });
    else
      ew_run<T, T, T>(it, [](float a, float b) {
        return static_cast<float>(next_16bit(T(a), T(b)));
      });
  });
}
constexpr EwRule kNa = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kNaI = ew_rule(2, V::InPlace, D::Common, O::SafeCast);
constexpr EwRule kNaO = ew_rule(2, V::Out, D::Common, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::nextafter", kNa, nextafter_compute);
TN_REGISTER_ELEMENTWISE("aten::nextafter_", kNaI, nextafter_compute);
TN_REGISTER_ELEMENTWISE("aten::nextafter.out", kNaO, nextafter_compute);

// --- gcd, lcm ------------------------------------------------------------------------------------

template <typename T>
T abs_of(T a) {
  if constexpr (std::is_signed_v<T>) return a < 0 ? static_cast<T>(-a) : a;
  else return a;
}
template <typename T>
T gcd_of(T a, T b) {
  a = abs_of(a);
  b = abs_of(b);
  while (a != 0) {
    T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}
template <bool Lcm>
void gcd_lcm_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwInts>(it.common, Lcm ? "lcm_cpu" : "gcd_cpu", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, T, T>(it, [](T a, T b) {
      const T g = gcd_of(a, b);
      if (!Lcm) return g;
      return g == 0 ? T(0) : abs_of(static_cast<T>(a / g * b));
    });
  });
}
constexpr EwRule kGc = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kGcI = ew_rule(2, V::InPlace, D::Common, O::SafeCast);
constexpr EwRule kGcO = ew_rule(2, V::Out, D::Common, O::SafeCast);
TN_REGISTER_ELEMENTWISE("aten::gcd", kGc, gcd_lcm_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::gcd_", kGcI, gcd_lcm_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::gcd.out", kGcO, gcd_lcm_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::lcm", kGc, gcd_lcm_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::lcm_", kGcI, gcd_lcm_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::lcm.out", kGcO, gcd_lcm_compute<true>);

// --- signbit, isposinf, isneginf -----------------------------------------------------------------

// The unary predicates' meta checks: not complex; an out= must be bool.
void check_predicate(const Call& c, const EwSpec& s) {
  const std::string name = base_name(c);
  const bool complex_in = is_complex(c.tensor(0)->dtype());
  if (name == "signbit")  // (a NotImplementedError there, a RuntimeError for isposinf/isneginf)
    TN_CHECK_KIND(!complex_in, NotImplemented, name, " is not implemented for complex tensors.");
  TN_CHECK(!complex_in, name, " does not support complex inputs.");
  if (s.variant == V::Out)
    TN_CHECK(c.tensor(c.args.size() - 1)->dtype() == ScalarType::Bool, name,
             " does not support non-boolean outputs.");
}
// The sign bit read from the bits (std::signbit's value; g++ 12 fails to compile its vectorised
// form into a bool loop: an internal compiler error).
template <typename A>
bool sign_bit_of(A a) {
  if constexpr (sizeof(A) == 8) {
    uint64_t b;
    std::memcpy(&b, &a, 8);
    return (b >> 63) != 0;
  } else {
    uint32_t b;
    std::memcpy(&b, &a, 4);
    return (b >> 31) != 0;
  }
}
void signbit_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAll>(it.common, "signbit_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, T>(it, [](A) { return false; });
    else if constexpr (std::is_floating_point_v<A>)
      ew_run<bool, T>(it, [](A a) { return sign_bit_of(a); });
    else if constexpr (std::is_signed_v<A>)
      ew_run<bool, T>(it, [](A a) { return a < 0; });
    else
      ew_run<bool, T>(it, [](A) { return false; });
  });
}
template <bool Positive>
void isinf_sign_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAll>(it.common, Positive ? "isposinf" : "isneginf", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_floating_point_v<A>)
      ew_run<bool, T>(it, [](A a) {
        return a == (Positive ? std::numeric_limits<A>::infinity()
                              : -std::numeric_limits<A>::infinity());
      });
    else
      ew_run<bool, T>(it, [](A) { return false; });
  });
}
constexpr EwRule kPr = ew_rule(1, V::Functional, D::Bool, O::Any, check_predicate);
constexpr EwRule kPrO = ew_rule(1, V::Out, D::Bool, O::Any, check_predicate);
TN_REGISTER_ELEMENTWISE("aten::signbit", kPr, signbit_compute);
TN_REGISTER_ELEMENTWISE("aten::signbit.out", kPrO, signbit_compute);
TN_REGISTER_ELEMENTWISE("aten::isposinf", kPr, isinf_sign_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::isposinf.out", kPrO, isinf_sign_compute<true>);
TN_REGISTER_ELEMENTWISE("aten::isneginf", kPr, isinf_sign_compute<false>);
TN_REGISTER_ELEMENTWISE("aten::isneginf.out", kPrO, isinf_sign_compute<false>);

}  // namespace
}  // namespace tn
