// Type promotion (see promotion.h).
#include "core/promotion.h"

#include "core/error.h"

namespace tn {
namespace {
ScalarType g_default_float = ScalarType::Float;

int rank(ScalarType t) {  // position within a category, for widening
  switch (t) {
    case ScalarType::Bool: return 0;
    case ScalarType::Byte: return 1;
    case ScalarType::Char: return 1;
    case ScalarType::Short: return 2;
    case ScalarType::Int: return 3;
    case ScalarType::Long: return 4;
    case ScalarType::Half: return 1;
    case ScalarType::BFloat16: return 1;
    case ScalarType::Float: return 2;
    case ScalarType::Double: return 3;
    case ScalarType::ComplexHalf: return 1;
    case ScalarType::ComplexFloat: return 2;
    case ScalarType::ComplexDouble: return 3;
    default: return -1;
  }
}
}  // namespace

ScalarType default_float_dtype() { return g_default_float; }
void set_default_float_dtype(ScalarType t) { g_default_float = t; }

Category category(ScalarType t) {
  if (t == ScalarType::Bool) return Category::Bool;
  if (is_complex(t)) return Category::Complex;
  return is_floating(t) ? Category::Floating : Category::Integral;
}

ScalarType to_complex_type(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return ScalarType::ComplexHalf;
    case ScalarType::Float: return ScalarType::ComplexFloat;
    case ScalarType::Double: return ScalarType::ComplexDouble;
    default:
      TN_CHECK(is_complex(t), "Unknown Complex ScalarType for ", enum_name(t));
      return t;
  }
}

ScalarType default_complex_dtype() {
  return g_default_float == ScalarType::Double ? ScalarType::ComplexDouble
                                               : ScalarType::ComplexFloat;
}

namespace {
// Dtypes upstream's promotion itself refuses, checked in its order (RuntimeError there too).
bool in_range(ScalarType t, ScalarType lo, ScalarType hi) {
  return static_cast<int>(t) >= static_cast<int>(lo) && static_cast<int>(t) <= static_cast<int>(hi);
}
bool is_bits(ScalarType t) { return in_range(t, ScalarType::Bits1x8, ScalarType::Bits16); }
bool is_float8(ScalarType t) {
  return in_range(t, ScalarType::Float8_e5m2, ScalarType::Float8_e4m3fnuz) ||
         t == ScalarType::Float8_e8m0fnu;
}
bool is_wide_unsigned(ScalarType t) {  // uint16..uint64 and the sub-byte uint1..uint7
  return in_range(t, ScalarType::UInt16, ScalarType::UInt7);
}

void refuse_as_upstream(ScalarType a, ScalarType b) {
  if (is_quantized(a) || is_quantized(b))
    TN_FAIL(Runtime, "promoteTypes with quantized numbers is not handled yet; figure out what "
            "the correct rules should be, offending types: ", enum_name(a), " ", enum_name(b));
  if (is_bits(a) || is_bits(b))
    TN_FAIL(Runtime, "Promotion from ", enum_name(a), " and ", enum_name(b), " is unsupported.");
  if (is_float8(a) || is_float8(b))
    TN_FAIL(Runtime, "Promotion for Float8 Types is not supported, attempted to promote ",
            enum_name(a), " and ", enum_name(b));
  if (is_wide_unsigned(a) || is_wide_unsigned(b))
    TN_FAIL(Runtime, "Promotion for uint16, uint32, uint64 types is not supported, attempted "
            "to promote ", enum_name(a), " and ", enum_name(b));
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (rank(a) < 0 || rank(b) < 0) refuse_as_upstream(a, b);
  TN_CHECK_KIND(rank(a) >= 0 && rank(b) >= 0, NotImplemented, "type promotion between ",
                name(a), " and ", name(b), " is not implemented by torchnative");
  Category ca = category(a), cb = category(b);
  if (ca == Category::Complex || cb == Category::Complex) {
    // A complex type meets a float (or another complex) at the complex type of the wider of
    // their value types; bfloat16 has no complex type (upstream's table: ComplexFloat).
    if (ca != Category::Complex && ca != Category::Floating) return b;
    if (cb != Category::Complex && cb != Category::Floating) return a;
    ScalarType ra = to_real_type(a), rb = to_real_type(b);
    if (ra == ScalarType::BFloat16 || rb == ScalarType::BFloat16) {
      ScalarType other = ra == ScalarType::BFloat16 ? rb : ra;
      return other == ScalarType::Double ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
    }
    return to_complex_type(rank(ra) >= rank(rb) ? ra : rb);
  }
  if (ca != cb) return ca > cb ? a : b;
  if (ca == Category::Floating) {
    // float16 with bfloat16 meets at float32.
    if (rank(a) == 1 && rank(b) == 1) return ScalarType::Float;
    return rank(a) > rank(b) ? a : b;
  }
  // Integral: uint8 with int8 meets at int16; otherwise the wider wins.
  if ((a == ScalarType::Byte && b == ScalarType::Char) ||
      (a == ScalarType::Char && b == ScalarType::Byte))
    return ScalarType::Short;
  if (a == ScalarType::Byte) return rank(b) > 1 ? b : ScalarType::Short;
  if (b == ScalarType::Byte) return rank(a) > 1 ? a : ScalarType::Short;
  return rank(a) > rank(b) ? a : b;
}

void ResultType::add_tensor(ScalarType t, bool zero_dim) {
  if (zero_dim) {
    zero_ = has_zero_ ? promote_types(zero_, t) : t;
    has_zero_ = true;
  } else {
    dim_ = has_dim_ ? promote_types(dim_, t) : t;
    has_dim_ = true;
  }
}

void ResultType::add_number(ScalarType t) {
  wrapped_ = has_wrapped_ ? promote_types(wrapped_, t) : t;
  has_wrapped_ = true;
}

// Upstream's rule for joining tiers: a lower tier counts only when it raises the category.
ScalarType combine_categories(bool has_hi, ScalarType hi, bool has_lo, ScalarType lo) {
  if (!has_hi) return lo;
  if (!has_lo) return hi;
  if (is_complex(hi)) return hi;
  // A complex lower tier keeps a floating higher tier's width (float64 * 1j is complex128).
  if (is_complex(lo)) return is_floating(hi) ? to_complex_type(hi) : lo;
  if (is_floating(hi)) return hi;
  if (hi == ScalarType::Bool || is_floating(lo)) return promote_types(hi, lo);
  return hi;
}

ScalarType ResultType::result() const {
  // A wrapped float takes the default dtype; a wrapped int int64; a wrapped bool bool.
  ScalarType wrapped = wrapped_;
  if (has_wrapped_ && category(wrapped) == Category::Floating) wrapped = g_default_float;
  if (has_wrapped_ && category(wrapped) == Category::Complex) wrapped = default_complex_dtype();
  bool has_lower = has_zero_ || has_wrapped_;
  ScalarType lower = combine_categories(has_zero_, zero_, has_wrapped_, wrapped);
  return combine_categories(has_dim_, dim_, has_lower, lower);
}

bool can_cast(ScalarType from, ScalarType to) {
  return category(from) <= category(to);
}

}  // namespace tn
