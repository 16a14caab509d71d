// The shape/dtype rule every elementwise op shares, for every back end (what upstream's
// TensorIterator decides before it computes): broadcasting N operands, the dtype computed in
// (tn::ResultType: dimensioned tensors, 0-dim tensors and Python numbers, which arrive as Scalar
// arguments and count as wrapped numbers), and the output: allocated with the inputs' layout for
// functional variants, checked and resized for out=, checked for in-place. It also runs each op's
// own argument checks, so meta tensors refuse what upstream refuses. Pure C++; the CPU loops are
// in kernels/cpu/elementwise_loop.h.
#pragma once

#include <cstdint>
#include <string>

#include "core/promotion.h"
#include "core/tensor_impl.h"
#include "dispatch/kernel.h"

namespace tn {

// One operand: a tensor, or a Python number (broadcast as a 0-dim tensor; in promotion it only
// raises the category).
struct EwOperand {
  const TensorImpl* tensor = nullptr;  // null for a number; owned by the Call's arguments
  Scalar number;

  bool is_number() const { return tensor == nullptr; }
  // The operand's own dtype (int64 / float64 / bool for numbers).
  ScalarType dtype() const { return tensor ? tensor->dtype() : number.default_dtype(); }
};

// A Tensor argument, or a number passed where a Tensor is expected (Scalar, int, float, bool).
// False for None.
bool ew_operand_of(const Value& v, EwOperand* out);

enum class EwVariant : uint8_t { Functional, InPlace, Out };

// The dtype a functional variant's result has.
enum class EwDtype : uint8_t {
  Common,       // the promoted dtype of the inputs (add, maximum, neg...)
  CommonFloat,  // ... with integral and bool raised to the default float dtype (div, sqrt...)
  Bool,         // bool, computed in the promoted dtype (eq, logical_and, isnan...)
  ToReal,       // computed in the promoted dtype; a complex one gives its real dtype (abs,
                // angle); integers are raised to the default float dtype first for angle's rule
};

// What an out= tensor (or self, in place) must satisfy; the computed value is cast into it.
enum class EwOutCheck : uint8_t {
  SafeCast,  // "result type Float can't be cast to the desired output type Long" (add, sqrt...)
  Any,       // any dtype (comparisons, logical ops)
  Same,      // exactly the computed dtype: "Found dtype Double but expected Float" (neg, floor...)
  Exact,     // out= made from the functional op (upstream's autogen out= overloads): "Expected
             // out tensor to have dtype float, but got double instead"
};

constexpr int kEwMaxOperands = 3;

// Schema argument indices: which arguments are the loop's operands, which make the dtype.
struct EwArgs {
  int8_t idx[kEwMaxOperands];
  int8_t n;
};

struct EwSpec;

// One overload's rule. Operands that are None (clamp's optional bounds) are skipped.
struct EwRule {
  EwArgs operands;    // the loop operands, in upstream's operand order
  EwArgs dtype_from;  // the arguments whose dtypes are promoted together
  EwVariant variant;
  EwDtype dtype;
  EwOutCheck out_check;
  // The op's own checks, either may be null: `pre` before anything else (sub of bools, integer
  // powers; it may reject an in-place dtype in the op's own words, as clamp_ does), `post` once
  // the output is settled (alpha).
  void (*pre)(const Call&, const EwSpec&) = nullptr;
  void (*post)(const Call&, const EwSpec&) = nullptr;
  // Replaces `dtype` where the rule depends on an argument (div's rounding_mode); may be null.
  ScalarType (*result_dtype)(const Call&, ScalarType common) = nullptr;
  // A new output is contiguous rather than laid out like the inputs (pow.Scalar).
  bool contiguous_output = false;
};

// Rules for the common overload shapes: operands are the leading arguments (self, other...),
// and they alone make the dtype.
constexpr EwRule ew_rule(int n_operands, EwVariant v, EwDtype d, EwOutCheck oc,
                         void (*pre)(const Call&, const EwSpec&) = nullptr,
                         void (*post)(const Call&, const EwSpec&) = nullptr) {
  EwArgs a{{0, 1, 2}, static_cast<int8_t>(n_operands)};
  return EwRule{a, a, v, d, oc, pre, post, nullptr, false};
}

// What the rule decided for one call.
struct EwSpec {
  EwOperand ops[kEwMaxOperands];
  int n = 0;
  EwVariant variant = EwVariant::Functional;
  ScalarType common = ScalarType::Float;  // what the loop computes in
  ScalarType result = ScalarType::Float;  // a functional output's dtype
  Dims shape;                             // the broadcast shape
};

// Reads the operands and computes the dtypes (no shapes, no checks): what the compute step needs.
EwSpec ew_dtypes(const Call& c, const EwRule& r);
// ew_dtypes, the op's `pre` checks, memory-overlap checks and broadcasting (upstream's order).
EwSpec ew_spec(const Call& c, const EwRule& r);
// The output: a new tensor (functional), out= checked and resized, or self checked (in place).
Tensor ew_output(const Call& c, const EwRule& r, const EwSpec& s);

// The structured meta rule of an elementwise overload: ew_spec, ew_output, the `post` check;
// returns the output (the written argument's version is bumped by the ADInplaceOrView layer).
void ew_meta_run(Call& c, const EwRule& r);
template <const EwRule& R>
void ew_meta(Call& c) {
  ew_meta_run(c, R);
}

// --- pieces other rules reuse -------------------------------------------------------------

// Broadcasts `sizes` into `shape` with upstream's rule and wording ("The size of tensor a (3)
// must match the size of tensor b (4) at non-singleton dimension 1").
void broadcast_into(Dims& shape, const Dims& sizes);
// "[2, 3]", as upstream prints sizes in messages.
// Upstream's C++ names in messages: c10 "Float", "Long"; TypeMeta "float", "long int".
const char* c10_dtype_name(ScalarType t);
// Strides upstream gives a new output of `shape` computed from these operands (Note [Output
// layout] in elementwise.cpp): contiguous, or the inputs' permutation.
Dims ew_output_strides(const EwSpec& s);
// The memory-overlap checks upstream's TensorIterator makes for an output and its inputs.
void check_no_internal_overlap(const TensorImpl& out);
void check_no_partial_overlap(const TensorImpl& out, const TensorImpl& in);
// Upstream's assert_no_overlap (cat's): out may not share memory with in, fully or partly.
void check_no_overlap(const TensorImpl& out, const TensorImpl& in);
// Resizes an out= tensor to `shape` (strides as given) if its shape differs; keeps its storage
// when large enough, as upstream's resize_output.
void resize_output(TensorImpl& out, const Dims& shape, const Dims& strides);
// Upstream's Scalar::to<T>() range check ("value cannot be converted to type int8_t without
// overflow"), for ops that convert a Scalar argument to the computed dtype (clamp).
void check_scalar_fits(const Scalar& s, ScalarType t);
// The test check_scalar_fits makes, for callers that name the type their own way.
bool scalar_overflows(const Scalar& s, ScalarType t);
// The type upstream's kernels convert a Scalar argument to, for a computed dtype t: its opmath
// type (float for float16 and bfloat16, t itself otherwise).
inline ScalarType opmath_type(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? ScalarType::Float : t;
}

// --- the ops' own checks (EwRule::pre / post), in upstream's words -----------------------------

void ew_check_alpha(const Call& c, const EwSpec& s);       // add/sub/rsub: alpha is argument 2
void ew_check_sub(const Call& c, const EwSpec& s);         // no bool operand
void ew_check_div_mode(const Call& c, const EwSpec& s);    // rounding_mode (argument 2)
ScalarType ew_div_mode_dtype(const Call& c, ScalarType common);  // true division goes float
void ew_check_pow_scalar(const Call& c, const EwSpec& s);  // int ** negative int
void ew_check_neg(const Call& c, const EwSpec& s);         // no bool
void ew_check_relu(const Call& c, const EwSpec& s);        // no bool
void ew_check_clamp(const Call& c, const EwSpec& s);       // a bound given; in-place dtype
void ew_check_clamp_bound(const Call& c, const EwSpec& s);  // clamp_min/clamp_max in place
void ew_check_clamp_tensor(const Call& c, const EwSpec& s);  // a bound given
void ew_check_where(const Call& c, const EwSpec& s);       // bool condition; out= dtype
void ew_check_nan_to_num(const Call& c, const EwSpec& s);  // out= dtype

}  // namespace tn
