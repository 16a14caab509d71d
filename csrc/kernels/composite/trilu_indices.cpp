// tril_indices and triu_indices: the (row, col) pairs of a row x col matrix's lower or upper
// triangle (offset diagonals up), in row-major order, as a 2 x N tensor of int32 or int64.
// Counted first with upstream's closed forms (get_tril_size); the pairs themselves are the
// nonzero positions of the triangle's mask, whose row-major order is upstream's fill order. On
// Meta: the checks and words of upstream's Python reference, and the shape.
#include <algorithm>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Value V(const Tensor& t) { return Value::of(t); }

// Upstream's get_tril_size: the top trapezoid plus the bottom rectangle.
int64_t tril_size(int64_t row, int64_t col, int64_t offset) {
  if (row == 0 || col == 0) return 0;
  int64_t first = offset > 0 ? std::min<int64_t>(col, 1 + offset) : (row + offset > 0);
  int64_t last = std::max<int64_t>(0, std::min<int64_t>(col, row + offset));
  int64_t rows_all = std::max<int64_t>(0, std::min<int64_t>(row, row + offset));
  int64_t rows_trapezoid = last - first + 1;
  int64_t trapezoid = (first + last) * rows_trapezoid / 2;
  int64_t rectangle = std::max<int64_t>(0, (rows_all - rows_trapezoid) * col);
  return trapezoid + rectangle;
}

template <bool kUpper>
int64_t trilu_size(int64_t row, int64_t col, int64_t offset) {
  return kUpper ? row * col - tril_size(row, col, offset - 1) : tril_size(row, col, offset);
}
template <bool kUpper>
const char* name_of() {
  return kUpper ? "triu_indices" : "tril_indices";
}

// The 2 x n result, uninitialised, with the call's dtype (int64 by default), layout, device.
Tensor allocate(const Call& c, int64_t n, ScalarType dtype) {
  return call_tensor("aten::empty.memory_format", {ops::ints({2, n}), Value::of_dtype(dtype),
                                                   c.arg(4), c.arg(5), c.arg(6)});
}

// tril_indices / triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long,
// Layout? layout, Device? device, bool? pin_memory)
// A sparse layout has no kernel (upstream's dispatcher refuses it before any check).
void check_strided(const Call& c) {
  const Value& layout = c.arg(4);
  TN_CHECK_KIND(layout.is_none() || layout.i == 0, NotImplemented, c.key(),
                " has no kernel for a layout other than strided");
}

template <bool kUpper>
void trilu_indices(Call& c) {
  check_strided(c);
  int64_t row = c.to_int(0), col = c.to_int(1), offset = c.to_int(2);
  TN_CHECK(row >= 0, "row must be non-negative, got", row);
  TN_CHECK(col >= 0, "col must be non-negative, got", col);
  ScalarType dtype = c.optional_dtype(3).value_or(ScalarType::Long);
  int64_t n = trilu_size<kUpper>(row, col, offset);
  Tensor result = allocate(c, n, dtype);
  TN_CHECK_KIND(dtype == ScalarType::Int || dtype == ScalarType::Long, NotImplemented, "\"",
                name_of<kUpper>(), "\" not implemented for '", enum_name(dtype), "'");
  if (n == 0) return c.ret(result);
  Value device = Value::of_device(result->device());
  Value none;
  Tensor r = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(row)), none, none,
                                          device});
  Tensor k = call_tensor("aten::arange", {Value::of_scalar(Scalar::from_int(col)), none, none,
                                          device});
  Tensor diff = call_tensor("aten::sub.Tensor", {V(call_tensor("aten::unsqueeze", {V(k),
                                                 ops::i64(0)})),
                                                 V(call_tensor("aten::unsqueeze", {V(r),
                                                 ops::i64(1)}))});
  Value off = Value::of_scalar(Scalar::from_int(offset));
  Tensor mask = call_tensor(kUpper ? "aten::ge.Scalar" : "aten::le.Scalar", {V(diff), off});
  Tensor pairs = call_tensor("aten::nonzero", {V(mask)});  // n x 2, row-major order
  ops::copy_(result, call_tensor("aten::t", {V(pairs)}));
  c.ret(result);
}
// Meta: upstream's Python reference (its _trilu_checks, where a dtype given as None is
// refused; its aranges refuse pinned memory), then the shape.
template <bool kUpper>
void trilu_indices_meta(Call& c) {
  check_strided(c);
  int64_t row = c.to_int(0), col = c.to_int(1), offset = c.to_int(2);
  TN_CHECK(row >= 0, "row must be non-negative, got ", row);
  TN_CHECK(col >= 0, "col must be non-negative, got ", col);
  TN_CHECK(!c.arg(3).is_none(), "\"", name_of<kUpper>(), "\" not implemented for 'None'");
  ScalarType dtype = c.arg(3).dtype;
  TN_CHECK(dtype == ScalarType::Int || dtype == ScalarType::Long, "\"", name_of<kUpper>(),
           "\" not implemented for 'torch.", name(dtype), "'");
  const Value& pin = c.arg(6);
  TN_CHECK_KIND(pin.is_none() || !pin.b, NotImplemented,
                "PrimTorch does not support pinned memory");
  c.ret(allocate(c, trilu_size<kUpper>(row, col, offset), dtype));
}
TN_REGISTER_COMPOSITE("aten::tril_indices", trilu_indices<false>);
TN_REGISTER_COMPOSITE("aten::triu_indices", trilu_indices<true>);
TN_REGISTER_KERNEL("aten::tril_indices", Meta, trilu_indices_meta<false>);
TN_REGISTER_KERNEL("aten::triu_indices", Meta, trilu_indices_meta<true>);

}  // namespace
}  // namespace tn
