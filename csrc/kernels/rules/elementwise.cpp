// The shared elementwise rule (see elementwise.h): operands, dtypes, broadcasting, outputs.
#include "core/warning.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tn {

bool ew_operand_of(const Value& v, EwOperand* out) {
  *out = EwOperand{};
  switch (v.tag) {
    case Value::Tag::Tensor: out->tensor = v.tensor.get(); return true;
    case Value::Tag::Scalar: out->number = v.scalar; return true;
    case Value::Tag::Int: out->number = Scalar::from_int(v.i); return true;
    case Value::Tag::Double: out->number = Scalar::from_double(v.d); return true;
    case Value::Tag::Bool: out->number = Scalar::from_bool(v.b); return true;
    case Value::Tag::None: return false;
    default: TN_FAIL(Internal, "torchnative internal error: an elementwise operand is not a "
                     "tensor or a number");
  }
}

const char* c10_dtype_name(ScalarType t) {
  static const char* const kNames[] = {
#define TN_C10_NAME(E, name, size, fl, cx, sg, ok, legacy, abbr) #E,
      TN_FORALL_DTYPES(TN_C10_NAME)
#undef TN_C10_NAME
  };
  return kNames[static_cast<int>(t)];
}


void broadcast_into(Dims& shape, const Dims& sizes) {
  if (shape != sizes) shape = broadcast_shapes(shape, sizes);
}

// --- dtypes ---------------------------------------------------------------------------------

namespace {

void add_to_result_type(ResultType& rt, const EwOperand& op) {
  if (op.is_number())
    rt.add_number(op.number.default_dtype());
  else if (op.tensor->is_wrapped_number())  // a Python number the binder wrapped (x * 3.0)
    rt.add_number(op.tensor->dtype());
  else
    rt.add_tensor(op.tensor->dtype(), op.tensor->dim() == 0);
}

}  // namespace

EwSpec ew_dtypes(const Call& c, const EwRule& r) {
  EwSpec s;
  s.variant = r.variant;
  for (int k = 0; k < r.operands.n; ++k)
    if (ew_operand_of(c.arg(r.operands.idx[k]), &s.ops[s.n])) ++s.n;
  ResultType rt;
  EwOperand op;
  for (int k = 0; k < r.dtype_from.n; ++k)
    if (ew_operand_of(c.arg(r.dtype_from.idx[k]), &op)) add_to_result_type(rt, op);
  s.common = rt.result();
  if (r.result_dtype) {
    s.common = r.result_dtype(c, s.common);
  } else if (r.dtype == EwDtype::CommonFloat && !is_floating(s.common) && !is_complex(s.common)) {
    s.common = default_float_dtype();
  }
  s.result = r.dtype == EwDtype::Bool     ? ScalarType::Bool
             : r.dtype == EwDtype::ToReal ? to_real_type(s.common)
                                          : s.common;
  return s;
}

// --- overlap --------------------------------------------------------------------------------

namespace {

// Upstream's is_non_overlapping_and_dense: some permutation of the dims is contiguous.
bool non_overlapping_and_dense(const Dims& sizes, const Dims& strides) {
  size_t nd = sizes.size();
  if (nd == 0) return true;
  if (nd == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (size_t i : perm) {
    if (sizes[i] < 2) return true;
    if (strides[i] != require) return false;
    require *= sizes[i];
  }
  return true;
}

bool non_overlapping_and_dense(const TensorImpl& t) {
  return t.is_contiguous() || non_overlapping_and_dense(t.sizes(), t.strides());
}

}  // namespace

void check_no_internal_overlap(const TensorImpl& out) {
  if (non_overlapping_and_dense(out)) return;
  for (int64_t d = 0; d < out.dim(); ++d) {
    TN_CHECK(!(out.stride(d) == 0 && out.size(d) > 1),
             "unsupported operation: more than one element of the written-to tensor refers to a "
             "single memory location. Please clone() the tensor before performing the operation.");
  }
}

namespace {

enum class Overlap : uint8_t { No, Full, Partial };

// Upstream's get_overlap_status (its TooHard answer, for tensors that are not dense, is No):
// the same tensor is a full overlap; else both dense on one storage, full when their byte ranges
// and strides are the same, partial when the ranges intersect otherwise.
Overlap overlap_status(const TensorImpl& a, const TensorImpl& b) {
  if (&a == &b) return Overlap::Full;
  if (a.numel() == 0 || b.numel() == 0) return Overlap::No;
  if (a.storage().get() != b.storage().get()) return Overlap::No;
  if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return Overlap::No;
  int64_t a0 = a.storage_offset() * a.itemsize(), a1 = a0 + a.numel() * a.itemsize();
  int64_t b0 = b.storage_offset() * b.itemsize(), b1 = b0 + b.numel() * b.itemsize();
  if (a0 == b0 && a1 == b1) return a.strides() == b.strides() ? Overlap::Full : Overlap::Partial;
  return a0 < b1 && b0 < a1 ? Overlap::Partial : Overlap::No;
}

}  // namespace

void check_no_partial_overlap(const TensorImpl& out, const TensorImpl& in) {
  TN_CHECK(overlap_status(out, in) != Overlap::Partial,
           "unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location, which may cause incorrect results. Please clone() "
           "the tensor before performing the operation.");
}

void check_no_overlap(const TensorImpl& out, const TensorImpl& in) {
  TN_CHECK(overlap_status(out, in) == Overlap::No,
           "unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.");
}

// --- the rule ---------------------------------------------------------------------------------

namespace {

const TensorImpl* written_tensor(const Call& c, const EwRule& r) {
  if (r.variant == EwVariant::InPlace) return c.tensor(0).get();
  if (r.variant == EwVariant::Out) return c.tensor(c.args.size() - 1).get();
  return nullptr;
}

}  // namespace

// TensorIterator's device rule (these ops are `device_check: NoCheck`, so the door leaves it to
// the rule): every operand on one device, the written tensor's or the first operand's, except
// CPU 0-dim tensors, which combine with any device.
void check_devices(const Call& c, const EwRule& r, const EwSpec& s) {
  const TensorImpl* expected = written_tensor(c, r);
  for (int k = 0; k < s.n; ++k) {
    if (s.ops[k].is_number()) continue;
    const TensorImpl* t = s.ops[k].tensor;
    if (t->dim() == 0 && t->device().type == DeviceType::CPU) continue;
    if (!expected) {
      expected = t;
      continue;
    }
    TN_CHECK(t->device().type == expected->device().type, "Tensor on device ",
             t->device().str(), " is not on the expected device ", expected->device().str(), "!");
  }
}

EwSpec ew_spec(const Call& c, const EwRule& r) {
  EwSpec s = ew_dtypes(c, r);
  check_devices(c, r, s);
  if (r.pre) r.pre(c, s);
  if (const TensorImpl* out = written_tensor(c, r)) {
    check_no_internal_overlap(*out);
    for (int k = 0; k < s.n; ++k)
      if (!s.ops[k].is_number()) check_no_partial_overlap(*out, *s.ops[k].tensor);
  }
  for (int k = 0; k < s.n; ++k)
    if (!s.ops[k].is_number()) broadcast_into(s.shape, s.ops[k].tensor->sizes());
  return s;
}

// Note [Output layout]: upstream's TensorIterator gives a new output the inputs' memory layout
// rather than always a contiguous one (exp(x.t()) is transposed, like x.t()). In its order:
//  1. every tensor operand has the broadcast shape and is contiguous: contiguous; all
//     channels-last (4-d): channels-last; all non-overlapping-and-dense with equal strides: those
//     strides. (Upstream also counts an output that is not resized; ours only allocates outputs
//     that are new or resized.)
//  2. otherwise dims are sorted by the operands' strides (insertion sort, operands in order,
//     broadcast dims ignored, ties broken by the smaller size first) and the output is
//     contiguous in that order.
Dims ew_output_strides(const EwSpec& s) {
  const Dims& shape = s.shape;
  size_t nd = shape.size();
  // The common case first (case 1, contiguous): tensors only, each of the broadcast shape and
  // contiguous. What follows would give the same; this skips its bookkeeping.
  bool plain = s.n > 0;
  for (int k = 0; k < s.n && plain; ++k)
    plain = !s.ops[k].is_number() && s.ops[k].tensor->sizes() == shape &&
            s.ops[k].tensor->is_contiguous();
  if (plain) return contiguous_strides(shape);
  std::vector<const TensorImpl*> ts;
  bool same_shape = true, has_scalars = false, has_tensors = false;
  for (int k = 0; k < s.n; ++k) {
    if (s.ops[k].is_number()) {
      has_scalars = true;  // a 0-dim wrapped number
      if (nd != 0) same_shape = false;
      continue;
    }
    const TensorImpl* t = s.ops[k].tensor;
    ts.push_back(t);
    (t->dim() == 0 ? has_scalars : has_tensors) = true;
    if (t->sizes() != shape) same_shape = false;
  }
  if (has_scalars && has_tensors) same_shape = false;
  if (same_shape && !ts.empty()) {
    bool contiguous = true, channels_last = true, dense = true;
    for (const TensorImpl* t : ts) {
      contiguous = contiguous && t->is_contiguous();
      if (nd != 4) {
        channels_last = false;
      } else {
        int64_t expected = 1;
        for (int d : {1, 3, 2, 0}) {
          if (t->size(d) == 1) continue;
          if (t->stride(d) != expected) channels_last = false;
          expected *= t->size(d);
        }
      }
      dense = dense && non_overlapping_and_dense(*t);
    }
    if (contiguous) return contiguous_strides(shape);
    if (channels_last) {
      Dims st(4);
      st[1] = 1;
      st[3] = shape[1];
      st[2] = st[3] * shape[3];
      st[0] = st[2] * shape[2];
      return st;
    }
    if (dense) {
      bool equal = true;
      for (const TensorImpl* t : ts) equal = equal && t->strides() == ts.back()->strides();
      if (equal) return ts.back()->strides();
    }
  }
  // Each operand's strides over the broadcast shape (0 where it broadcasts).
  std::vector<Dims> strides;
  for (const TensorImpl* t : ts) {
    Dims st(nd, 0);
    size_t off = nd - t->dim();
    for (int64_t i = 0; i < t->dim(); ++i)
      st[off + i] = (t->size(i) == 1 && shape[off + i] != 1) ? 0 : t->stride(i);
    strides.push_back(std::move(st));
  }
  // perm[0] is the fastest-moving dim; starts as the reverse of the dims.
  std::vector<size_t> perm(nd);
  for (size_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto should_swap = [&](size_t d0, size_t d1) {
    for (const Dims& st : strides) {
      int64_t s0 = st[d0], s1 = st[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < nd; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  bool inverted = true;
  for (size_t j = 0; j < nd; ++j) inverted = inverted && perm[j] == nd - 1 - j;
  if (inverted) return contiguous_strides(shape);
  Dims out(nd);
  int64_t next = 1;
  for (size_t j = 0; j < nd; ++j) {
    out[perm[j]] = next;
    next *= shape[perm[j]];
  }
  return out;
}

void resize_output(TensorImpl& out, const Dims& shape, const Dims& strides) {
  if (out.sizes() == shape) return;
  if (out.numel() != 0) warn(resized_output_warning(dims_str(out.sizes()), dims_str(shape)));
  size_t need = storage_bytes_needed(shape, strides, out.storage_offset(), out.itemsize());
  if (out.storage()->nbytes() < need) out.storage()->resize(need);
  out.set_sizes_strides(shape, strides, out.storage_offset());
}

namespace {
Dims new_output_strides(const EwRule& r, const EwSpec& s) {
  return r.contiguous_output ? contiguous_strides(s.shape) : ew_output_strides(s);
}
}  // namespace

Tensor ew_output(const Call& c, const EwRule& r, const EwSpec& s) {
  if (r.variant == EwVariant::Functional) {
    // On the call's device: a CPU scalar operand (a wrapped Python number) may come first.
    Dims strides = new_output_strides(r, s);
    warn_if_complex_half(s.result);
    size_t nbytes = storage_bytes_needed(s.shape, strides, 0, itemsize(s.result));
    Storage st = make<StorageImpl>(nbytes, c.device, true);
    return make<TensorImpl>(st, s.result, s.shape, std::move(strides), 0,
                            representation_of(c.device.type));
  }
  const Tensor& out = r.variant == EwVariant::InPlace ? c.tensor(0) : c.tensor(c.args.size() - 1);
  ScalarType od = out->dtype();
  if (r.variant == EwVariant::Out && out->representation() == Representation::Meta) {
    // Upstream fills a meta out= through its Python reference: computed where the operands are,
    // then copied, so operands all on the CPU (0-dim ones, which combine with any device
    // elsewhere) cannot fill it.
    bool on_cpu = true;
    for (int i = 0; i < s.n; ++i)
      on_cpu = on_cpu && (!s.ops[i].tensor || s.ops[i].tensor->device().type == DeviceType::CPU);
    if (on_cpu) check_out_device(out, Device{DeviceType::CPU, -1});
  }
  if (r.variant == EwVariant::InPlace) {
    TN_CHECK(out->sizes() == s.shape, "output with shape ", dims_str(out->sizes()),
             " doesn't match the broadcast shape ", dims_str(s.shape));
  }
  switch (r.out_check) {
    case EwOutCheck::SafeCast: {
      // a complex op with real results (angle) casts its real result, not the complex common
      ScalarType from = r.dtype == EwDtype::ToReal ? s.result : s.common;
      TN_CHECK(od == from || can_cast(from, od), "result type ", c10_dtype_name(from),
               " can't be cast to the desired output type ", c10_dtype_name(od));
      break;
    }
    case EwOutCheck::Any: break;
    case EwOutCheck::Same:
      TN_CHECK(od == s.result, "Found dtype ", c10_dtype_name(od), " but expected ",
               c10_dtype_name(s.result));
      break;
    case EwOutCheck::Exact:
      TN_CHECK(od == s.result, "Expected out tensor to have dtype ", cpp_type_name(s.result),
               ", but got ", cpp_type_name(od), " instead");
      break;
  }
  if (r.variant == EwVariant::Out && out->sizes() != s.shape) {
    // An out= tensor of the wrong shape is resized (upstream also warns when it had elements).
    resize_output(*out, s.shape, new_output_strides(r, s));
  }
  return out;
}

void ew_meta_run(Call& c, const EwRule& r) {
  EwSpec s = ew_spec(c, r);
  // An Exact out= is upstream's generated one: the functional op runs, its own checks with it,
  // before out's dtype is looked at.
  const bool post_first = r.out_check == EwOutCheck::Exact;
  if (post_first && r.post) r.post(c, s);
  Tensor out = ew_output(c, r, s);
  if (!post_first && r.post) r.post(c, s);
  c.ret(std::move(out));
  c.keep_rule_state(std::move(s));  // the compute's operands and dtypes (ew_cpu_run)
}

// --- Scalar range checks ---------------------------------------------------------------------

namespace {

const char* scalar_cpp_name(ScalarType t) {  // the names Scalar::to<T>() reports
  switch (t) {
    case ScalarType::Byte: return "uint8_t";
    case ScalarType::Char: return "int8_t";
    case ScalarType::Short: return "int16_t";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "int64_t";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    case ScalarType::Bool: return "bool";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    default: return name(t);
  }
}

// [lowest, max] of each dtype, as doubles.
void dtype_range(ScalarType t, double* lo, double* hi) {
  switch (t) {
    case ScalarType::Bool: *lo = 0; *hi = 1; return;
    case ScalarType::Byte: *lo = 0; *hi = 255; return;
    case ScalarType::Char: *lo = -128; *hi = 127; return;
    case ScalarType::Short: *lo = -32768; *hi = 32767; return;
    case ScalarType::Int: *lo = -2147483648.0; *hi = 2147483647.0; return;
    case ScalarType::Long: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; return;
    case ScalarType::Half: *lo = -65504; *hi = 65504; return;
    case ScalarType::BFloat16: *lo = -3.3895313892515355e38; *hi = 3.3895313892515355e38; return;
    case ScalarType::Float:
      *lo = -std::numeric_limits<float>::max();
      *hi = std::numeric_limits<float>::max();
      return;
    default:
      *lo = -std::numeric_limits<double>::infinity();
      *hi = std::numeric_limits<double>::infinity();
  }
}

}  // namespace

void check_scalar_fits(const Scalar& s, ScalarType t) {
  TN_CHECK(!scalar_overflows(s, t), "value cannot be converted to type ", scalar_cpp_name(t),
           " without overflow");
}

bool scalar_overflows(const Scalar& s, ScalarType t) {
  // A complex number overflows a real type when its imaginary part is not zero; a complex
  // type checks each part against its value type.
  if (s.is_complex()) {
    if (!is_complex(t) && s.im != 0) return true;
    ScalarType r = to_real_type(t);
    return scalar_overflows(Scalar::from_double(s.d), r) ||
           scalar_overflows(Scalar::from_double(s.im), r);
  }
  if (is_complex(t)) return scalar_overflows(s, to_real_type(t));
  if (s.is_bool() || t == ScalarType::Double) return false;
  double lo, hi;
  dtype_range(t, &lo, &hi);
  bool overflows;
  if (s.is_integral()) {
    int64_t v = s.i;
    if (!is_floating(t) && t != ScalarType::Long && !info(t).is_signed) {
      // Unsigned targets let negative numbers wrap (uint8: -1 is 255), down to -max.
      overflows = static_cast<double>(v) > hi || (v < 0 && -static_cast<double>(v) > hi);
    } else {
      overflows = static_cast<double>(v) < lo || static_cast<double>(v) > hi;
    }
    if (t == ScalarType::Long) overflows = false;
  } else {
    double v = s.d;
    if (std::isinf(v) && is_floating(t)) return false;
    overflows = std::isnan(v) ? !is_floating(t) : (v < lo || v > hi);
  }
  return overflows;
}

// --- the ops' own checks ---------------------------------------------------------------------

namespace {
const Tensor& out_arg(const Call& c) { return c.tensor(c.args.size() - 1); }
}  // namespace

void ew_check_alpha(const Call& c, const EwSpec& s) {
  Scalar alpha = c.scalar(2);
  TN_CHECK(!alpha.is_bool() || s.common == ScalarType::Bool,
           "Boolean alpha only supported for Boolean results.");
  TN_CHECK(is_floating(s.common) || is_complex(s.common) || !alpha.is_floating(),
           "For integral input tensors, argument alpha must not be a floating point number.");
  TN_CHECK(is_complex(s.common) || !alpha.is_complex(),
           "For non-complex input tensors, argument alpha must not be a complex number.");
}

void ew_check_sub(const Call&, const EwSpec& s) {
  bool a = s.ops[0].dtype() == ScalarType::Bool, b = s.ops[1].dtype() == ScalarType::Bool;
  TN_CHECK(!(a && b), "Subtraction, the `-` operator, with two bool tensors is not supported. "
           "Use the `^` or `logical_xor()` operator instead.");
  TN_CHECK(!a && !b, "Subtraction, the `-` operator, with a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

void ew_check_div_mode(const Call& c, const EwSpec&) {
  const Value& mode = c.arg(2);
  if (mode.is_none()) return;
  TN_CHECK(mode.str == "trunc" || mode.str == "floor",
           "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
           mode.str, "'");
}

ScalarType ew_div_mode_dtype(const Call& c, ScalarType common) {
  return c.arg(2).is_none() && !is_floating(common) && !is_complex(common) ? default_float_dtype()
                                                                         : common;
}

void ew_check_pow_scalar(const Call& c, const EwSpec& s) {
  Scalar e = c.scalar(1);
  TN_CHECK(!(!is_floating(s.ops[0].dtype()) && !is_complex(s.ops[0].dtype()) && e.is_integral() && e.i < 0),
           "Integers to negative integer powers are not allowed.");
}

void ew_check_neg(const Call&, const EwSpec& s) {
  TN_CHECK(s.ops[0].dtype() != ScalarType::Bool,
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.");
}

void ew_check_relu(const Call&, const EwSpec& s) {
  TN_CHECK(s.ops[0].dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
}

// clamp_ and clamp_min_/clamp_max_ refuse a promoted dtype in place, naming self's TypeMeta.
void ew_check_clamp_bound(const Call&, const EwSpec& s) {
  if (s.variant != EwVariant::InPlace) return;
  ScalarType self = s.ops[0].dtype();
  TN_CHECK(s.common == self, "result type ", c10_dtype_name(s.common),
           " can't be cast to the desired output type ", cpp_type_name(self));
}

void ew_check_clamp(const Call& c, const EwSpec& s) {
  TN_CHECK(!c.arg(1).is_none() || !c.arg(2).is_none(),
           "torch.clamp: At least one of 'min' or 'max' must not be None");
  ew_check_clamp_bound(c, s);
}

void ew_check_clamp_tensor(const Call& c, const EwSpec&) {
  TN_CHECK(!c.arg(1).is_none() || !c.arg(2).is_none(),
           "torch.clamp: At least one of 'min' or 'max' must not be None");
}

void ew_check_where(const Call& c, const EwSpec& s) {
  if (s.variant == EwVariant::Out) {
    ScalarType od = out_arg(c)->dtype();
    TN_CHECK(od == s.result, "Expected out type to be ", c10_dtype_name(s.result), " but got ",
             c10_dtype_name(od));
  }
  ScalarType cond = s.ops[0].dtype();
  // uint8 conditions are accepted (upstream warns that this is deprecated).
  TN_CHECK(cond == ScalarType::Bool || cond == ScalarType::Byte,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           c10_dtype_name(cond));
}

void ew_check_nan_to_num(const Call& c, const EwSpec& s) {
  if (s.variant != EwVariant::Out) return;
  ScalarType od = out_arg(c)->dtype(), self = s.ops[0].dtype();
  TN_CHECK(od == self, "nan_to_num: dtype of out: ", c10_dtype_name(od),
           " should be same as input: ", c10_dtype_name(self));
}

}  // namespace tn
