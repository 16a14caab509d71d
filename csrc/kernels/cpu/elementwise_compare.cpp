// Comparison, logical and selection ops on dense CPU tensors: eq/ne/lt/le/gt/ge (and their
// aliases), logical_and/or/xor/not, bitwise_and/or/xor/not, where,
// maximum/minimum, clamp/clamp_min/clamp_max (Scalar and Tensor bounds; clip). Comparisons
// compute in the operands' promoted dtype and give bool (or cast into any out= dtype); max, min
// and clamp propagate NaN as upstream does.
#include <cmath>
#include <functional>
#include <limits>

#include "kernels/cpu/elementwise_complex.h"
#include "kernels/cpu/elementwise_loop.h"
#include "kernels/cpu/elementwise_math.h"

namespace tn {
namespace {

using V = EwVariant;
using D = EwDtype;
using O = EwOutCheck;
namespace m = ew_math;

// --- comparisons and logical ops ----------------------------------------------------------------

// Set: the dtypes computed (the logical ops take complex numbers too, by truth: nonzero).
template <typename Op, int Set = kEwAll>
void compare(EwIter& it, const char* name) {
  ew_dispatch<Set>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<bool, T, T>(it, [](A a, A b) { return static_cast<bool>(Op{}(a, b)); });
  });
}

struct LogicalAnd {
  template <typename A> bool operator()(A a, A b) const { return a != A(0) && b != A(0); }
};
struct LogicalOr {
  template <typename A> bool operator()(A a, A b) const { return a != A(0) || b != A(0); }
};
struct LogicalXor {
  template <typename A> bool operator()(A a, A b) const { return (a != A(0)) != (b != A(0)); }
};

void eq_compute(EwIter& it, const Call&) {
  if (!cx_eq(it, true)) compare<std::equal_to<>>(it, "eq_cpu");
}
void ne_compute(EwIter& it, const Call&) {
  if (!cx_eq(it, false)) compare<std::not_equal_to<>>(it, "ne_cpu");
}
void lt_compute(EwIter& it, const Call&) { compare<std::less<>>(it, "lt_cpu"); }
void le_compute(EwIter& it, const Call&) { compare<std::less_equal<>>(it, "le_cpu"); }
void gt_compute(EwIter& it, const Call&) { compare<std::greater<>>(it, "gt_cpu"); }
void ge_compute(EwIter& it, const Call&) { compare<std::greater_equal<>>(it, "ge_cpu"); }
void logical_and_compute(EwIter& it, const Call&) {
  compare<LogicalAnd, kEwAllComplex>(it, "logical_and_cpu");
}
void logical_or_compute(EwIter& it, const Call&) {
  compare<LogicalOr, kEwAllComplex>(it, "logical_or_cpu");
}
void logical_xor_compute(EwIter& it, const Call&) {
  compare<LogicalXor, kEwAllComplex>(it, "logical_xor_cpu");
}

void logical_not_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAllComplex>(it.common, "logical_not_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<bool, T>(it, [](A a) { return a == A(0); });
  });
}

constexpr EwRule kCmp = ew_rule(2, V::Functional, D::Bool, O::Any);
constexpr EwRule kCmpI = ew_rule(2, V::InPlace, D::Bool, O::Any);
constexpr EwRule kCmpO = ew_rule(2, V::Out, D::Bool, O::Any);

// name.Tensor / .Scalar / _.Tensor / _.Scalar / .Tensor_out / .Scalar_out
#define TN_COMPARISON(name, compute)                                                   \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor", kCmp, compute);                     \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar", kCmp, compute);                     \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Tensor", kCmpI, compute);                   \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Scalar", kCmpI, compute);                   \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_out", kCmpO, compute);                \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_out", kCmpO, compute)

TN_COMPARISON("eq", eq_compute);
TN_COMPARISON("ne", ne_compute);
TN_COMPARISON("lt", lt_compute);
TN_COMPARISON("le", le_compute);
TN_COMPARISON("gt", gt_compute);
TN_COMPARISON("ge", ge_compute);

// logical_and / _ / .out (Tensor operands only)
#define TN_LOGICAL(name, compute)                             \
  TN_REGISTER_ELEMENTWISE("aten::" name, kCmp, compute);      \
  TN_REGISTER_ELEMENTWISE("aten::" name "_", kCmpI, compute); \
  TN_REGISTER_ELEMENTWISE("aten::" name ".out", kCmpO, compute)

TN_LOGICAL("logical_and", logical_and_compute);
TN_LOGICAL("logical_or", logical_or_compute);
TN_LOGICAL("logical_xor", logical_xor_compute);

constexpr EwRule kNot = ew_rule(1, V::Functional, D::Bool, O::Any);
constexpr EwRule kNotI = ew_rule(1, V::InPlace, D::Bool, O::Any);
constexpr EwRule kNotO = ew_rule(1, V::Out, D::Bool, O::Any);
TN_REGISTER_ELEMENTWISE("aten::logical_not", kNot, logical_not_compute);
TN_REGISTER_ELEMENTWISE("aten::logical_not_", kNotI, logical_not_compute);
TN_REGISTER_ELEMENTWISE("aten::logical_not.out", kNotO, logical_not_compute);

// --- bitwise ops (integers and bool) -----------------------------------------------------------

template <typename IntOp, typename BoolOp>
void bitwise(EwIter& it, const char* name) {
  ew_dispatch<kEwBool | kEwInts>(it.common, name, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, bool, bool>(it, [](bool a, bool b) { return BoolOp{}(a, b); });
    else
      ew_run<T, T, T>(it, [](T a, T b) { return static_cast<T>(IntOp{}(a, b)); });
  });
}

void bitwise_and_compute(EwIter& it, const Call&) {
  bitwise<std::bit_and<>, std::logical_and<>>(it, "bitwise_and_cpu");
}
void bitwise_or_compute(EwIter& it, const Call&) {
  bitwise<std::bit_or<>, std::logical_or<>>(it, "bitwise_or_cpu");
}
void bitwise_xor_compute(EwIter& it, const Call&) {
  bitwise<std::bit_xor<>, std::not_equal_to<>>(it, "bitwise_xor_cpu");
}

void bitwise_not_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwBool | kEwInts>(it.common, "bitwise_not_cpu", [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, bool>(it, [](bool a) { return !a; });
    else
      ew_run<T, T>(it, [](T a) { return static_cast<T>(~a); });
  });
}

// The bitwise ops' dtype check, in the rule (once the output is settled, where the compute made
// it) so that Meta refuses what CPU refuses: upstream's
// CPU kernel names itself (NotImplementedError: "bitwise_xor_cpu" not implemented for 'Float').
void check_bitwise(const Call& c, const EwSpec& s) {
  if (!is_floating(s.common) && !info(s.common).is_complex) return;
  std::string op = c.op->name;
  const char* kernel = op.find("xor") != std::string::npos  ? "bitwise_xor_cpu"
                       : op.find("and") != std::string::npos ? "bitwise_and_cpu"
                                                             : "bitwise_or_cpu";
  TN_FAIL(NotImplemented, "\"", kernel, "\" not implemented for '", c10_dtype_name(s.common), "'");
}

constexpr EwRule kBin = ew_rule(2, V::Functional, D::Common, O::SafeCast);
constexpr EwRule kBinI = ew_rule(2, V::InPlace, D::Common, O::SafeCast);
constexpr EwRule kBinO = ew_rule(2, V::Out, D::Common, O::SafeCast);
constexpr EwRule kBinOX = ew_rule(2, V::Out, D::Common, O::Exact);
constexpr EwRule kBit = ew_rule(2, V::Functional, D::Common, O::SafeCast, nullptr, check_bitwise);
constexpr EwRule kBitI = ew_rule(2, V::InPlace, D::Common, O::SafeCast, nullptr, check_bitwise);
constexpr EwRule kBitO = ew_rule(2, V::Out, D::Common, O::SafeCast, nullptr, check_bitwise);
constexpr EwRule kBitOX = ew_rule(2, V::Out, D::Common, O::Exact, nullptr, check_bitwise);

// bitwise_and and its forms (the Python-operator spellings, __and__ and __iand__, are
// composites upstream: kernels/composite/pointwise.cpp).
#define TN_BITWISE(name, compute)                                  \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor", kBit, compute);                  \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar", kBit, compute);                  \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_Tensor", kBit, compute);           \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Tensor", kBitI, compute);                \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Scalar", kBitI, compute);                \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_out", kBitO, compute);             \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_out", kBitO, compute);             \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Scalar_Tensor_out", kBitOX, compute)

TN_BITWISE("bitwise_and", bitwise_and_compute);
TN_BITWISE("bitwise_or", bitwise_or_compute);
TN_BITWISE("bitwise_xor", bitwise_xor_compute);

constexpr EwRule kSame = ew_rule(1, V::Functional, D::Common, O::Same);
constexpr EwRule kSameI = ew_rule(1, V::InPlace, D::Common, O::Same);
constexpr EwRule kSameO = ew_rule(1, V::Out, D::Common, O::Same);
TN_REGISTER_ELEMENTWISE("aten::bitwise_not", kSame, bitwise_not_compute);
TN_REGISTER_ELEMENTWISE("aten::bitwise_not_", kSameI, bitwise_not_compute);
TN_REGISTER_ELEMENTWISE("aten::bitwise_not.out", kSameO, bitwise_not_compute);

// --- where -------------------------------------------------------------------------------------

void where_compute(EwIter& it, const Call&) {
  ew_dispatch<kEwAllComplex | kEwComplexHalf>(it.common, "where_cpu", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T, bool, T, T>(it, [](bool c, acc_t<T> a, acc_t<T> b) { return c ? a : b; });
  });
}

// The condition is an operand but takes no part in the dtype; an out= dtype must be exact.
constexpr EwRule where_rule(V v) {
  return EwRule{{{0, 1, 2}, 3}, {{1, 2}, 2}, v, D::Common, O::Any, ew_check_where};
}
constexpr EwRule kWhere = where_rule(V::Functional);
constexpr EwRule kWhereO = where_rule(V::Out);
TN_REGISTER_ELEMENTWISE("aten::where.self", kWhere, where_compute);
TN_REGISTER_ELEMENTWISE("aten::where.self_out", kWhereO, where_compute);

// --- maximum, minimum, clamp -----------------------------------------------------------------

// Floats take upstream's SIMD or scalar semantics by path: they differ on -0.0 against 0.0
// (Note [Vector and scalar paths]).
void maximum_kernel(EwIter& it) {
  ew_dispatch<kEwAll>(it.common, "maximum_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, bool, bool>(it, [](bool a, bool b) { return a || b; });
    else if constexpr (std::is_floating_point_v<A>)
      ew_run_split<T, T, T>(it, [](A a, A b) { return m::maximum_vec(a, b); },
                            [](A a, A b) { return m::maximum(a, b); });
    else
      ew_run<T, T, T>(it, [](A a, A b) { return m::maximum(a, b); });
  });
}

void minimum_kernel(EwIter& it) {
  ew_dispatch<kEwAll>(it.common, "minimum_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      ew_run<bool, bool, bool>(it, [](bool a, bool b) { return a && b; });
    else if constexpr (std::is_floating_point_v<A>)
      ew_run_split<T, T, T>(it, [](A a, A b) { return m::minimum_vec(a, b); },
                            [](A a, A b) { return m::minimum(a, b); });
    else
      ew_run<T, T, T>(it, [](A a, A b) { return m::minimum(a, b); });
  });
}

void maximum_compute(EwIter& it, const Call&) { maximum_kernel(it); }
void minimum_compute(EwIter& it, const Call&) { minimum_kernel(it); }

TN_REGISTER_ELEMENTWISE("aten::maximum", kBin, maximum_compute);
TN_REGISTER_ELEMENTWISE("aten::maximum.out", kBinO, maximum_compute);
TN_REGISTER_ELEMENTWISE("aten::minimum", kBin, minimum_compute);
TN_REGISTER_ELEMENTWISE("aten::minimum.out", kBinO, minimum_compute);
// clamp_min/clamp_max with a Tensor bound are maximum/minimum.
TN_REGISTER_ELEMENTWISE("aten::clamp_min.Tensor", kBin, maximum_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_min_.Tensor", kBinI, maximum_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_min.Tensor_out", kBinO, maximum_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max.Tensor", kBin, minimum_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max_.Tensor", kBinI, minimum_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max.Tensor_out", kBinO, minimum_compute);

// Fills the output with NaN (clamp with a NaN bound).
void fill_nan(EwIter& it) {
  while (it.ntensors > 1) it.remove_operand(it.ntensors - 1);
  ew_dispatch<kEwFloats>(it.dtype[0], "fill", [&](auto zero) {
    using T = decltype(zero);
    ew_run<T>(it, [] { return std::numeric_limits<acc_t<T>>::quiet_NaN(); });
  });
}

// clamp with Scalar bounds (arguments 1 and 2, either may be None): std::min(std::max(a, lo),
// hi) in the computed dtype, so a NaN element stays NaN; a NaN bound makes every element NaN.
void clamp_scalars(EwIter& it, const Value& lo_v, const Value& hi_v) {
  bool has_lo = !lo_v.is_none(), has_hi = !hi_v.is_none();
  Scalar lo_s = has_lo ? lo_v.scalar : Scalar{}, hi_s = has_hi ? hi_v.scalar : Scalar{};
  if ((has_lo && std::isnan(lo_s.to_double())) || (has_hi && std::isnan(hi_s.to_double())))
    return fill_nan(it);
  const char* kernel = has_lo && has_hi ? "clamp_scalar_cpu"
                       : has_lo          ? "clamp_min_scalar_cpu"
                                         : "clamp_max_scalar_cpu";
  ew_dispatch<kEwInts | kEwFloats>(it.common, kernel, [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    auto bound = [&](const Scalar& s) {
      check_scalar_fits(s, it.common);
      T v = ew_scalar<T>(s);
      return static_cast<A>(v);
    };
    if (has_lo && has_hi) {
      A lo = bound(lo_s), hi = bound(hi_s);
      ew_run<T, T>(it, [=](A a) {
        A r = a < lo ? lo : a;
        return hi < r ? hi : r;
      });
    } else if (has_lo) {
      A lo = bound(lo_s);
      ew_run<T, T>(it, [=](A a) { return a < lo ? lo : a; });
    } else {
      A hi = bound(hi_s);
      ew_run<T, T>(it, [=](A a) { return hi < a ? hi : a; });
    }
  });
}

Value optional_scalar(const Call& c, size_t i) {
  Value v;
  if (!c.arg(i).is_none()) v = Value::of_scalar(c.scalar(i));
  return v;
}

void clamp_compute(EwIter& it, const Call& c) {
  clamp_scalars(it, optional_scalar(c, 1), optional_scalar(c, 2));
}
void clamp_min_compute(EwIter& it, const Call& c) {
  clamp_scalars(it, Value::of_scalar(c.scalar(1)), Value{});
}
void clamp_max_compute(EwIter& it, const Call& c) {
  clamp_scalars(it, Value{}, Value::of_scalar(c.scalar(1)));
}

// clamp with Tensor bounds: both given, a NaN bound gives NaN; one given, maximum or minimum.
void clamp_tensor_compute(EwIter& it, const Call& c) {
  if (it.ntensors == 3) return c.arg(1).is_none() ? minimum_kernel(it) : maximum_kernel(it);
  ew_dispatch<kEwInts | kEwFloats>(it.common, "clamp_cpu", [&](auto zero) {
    using T = decltype(zero);
    using A = acc_t<T>;
    ew_run<T, T, T, T>(it, [](A a, A lo, A hi) {
      if constexpr (std::is_floating_point_v<A>) {
        if (lo != lo || hi != hi) return std::numeric_limits<A>::quiet_NaN();
      }
      A r = a < lo ? lo : a;
      return hi < r ? hi : r;
    });
  });
}

// clamp(self, Scalar? min, Scalar? max): the bounds take part in the dtype (self stays the
// only operand); out= must have that dtype.
constexpr EwRule clamp_rule(V v) {
  return EwRule{{{0}, 1}, {{0, 1, 2}, 3}, v, D::Common, O::Same, ew_check_clamp};
}
constexpr EwRule clamp_bound_rule(V v) {
  return EwRule{{{0}, 1}, {{0, 1}, 2}, v, D::Common, O::Same, ew_check_clamp_bound};
}
constexpr EwRule clamp_tensor_rule(V v) {
  return EwRule{{{0, 1, 2}, 3}, {{0, 1, 2}, 3}, v, D::Common, O::SafeCast, ew_check_clamp_tensor};
}
constexpr EwRule kClamp = clamp_rule(V::Functional);
constexpr EwRule kClampI = clamp_rule(V::InPlace);
constexpr EwRule kClampO = clamp_rule(V::Out);
constexpr EwRule kBound = clamp_bound_rule(V::Functional);
constexpr EwRule kBoundI = clamp_bound_rule(V::InPlace);
constexpr EwRule kBoundO = clamp_bound_rule(V::Out);
constexpr EwRule kClampT = clamp_tensor_rule(V::Functional);
constexpr EwRule kClampTI = clamp_tensor_rule(V::InPlace);
constexpr EwRule kClampTO = clamp_tensor_rule(V::Out);

#define TN_CLAMP(name)                                                        \
  TN_REGISTER_ELEMENTWISE("aten::" name, kClamp, clamp_compute);              \
  TN_REGISTER_ELEMENTWISE("aten::" name "_", kClampI, clamp_compute);         \
  TN_REGISTER_ELEMENTWISE("aten::" name ".out", kClampO, clamp_compute);      \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor", kClampT, clamp_tensor_compute);   \
  TN_REGISTER_ELEMENTWISE("aten::" name "_.Tensor", kClampTI, clamp_tensor_compute); \
  TN_REGISTER_ELEMENTWISE("aten::" name ".Tensor_out", kClampTO, clamp_tensor_compute)

TN_CLAMP("clamp");
TN_REGISTER_ELEMENTWISE("aten::clamp_min", kBound, clamp_min_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_min_", kBoundI, clamp_min_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_min.out", kBoundO, clamp_min_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max", kBound, clamp_max_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max_", kBoundI, clamp_max_compute);
TN_REGISTER_ELEMENTWISE("aten::clamp_max.out", kBoundO, clamp_max_compute);

}  // namespace
}  // namespace tn
