#include "kernels/composite/uninitialized_fill.h"

#include <limits>

#include "core/determinism.h"
#include "kernels/composite/ops.h"

namespace tn {
namespace {

Scalar fill_value(ScalarType dt) {
  if (is_floating(dt) || is_complex(dt))
    return Scalar::from_double(std::numeric_limits<double>::quiet_NaN());
  if (dt == ScalarType::Bool) return Scalar::from_bool(true);
  switch (dt) {
    case ScalarType::Byte: return Scalar::from_int(std::numeric_limits<uint8_t>::max());
    case ScalarType::Char: return Scalar::from_int(std::numeric_limits<int8_t>::max());
    case ScalarType::Short: return Scalar::from_int(std::numeric_limits<int16_t>::max());
    case ScalarType::Int: return Scalar::from_int(std::numeric_limits<int32_t>::max());
    default: return Scalar::from_int(std::numeric_limits<int64_t>::max());
  }
}

}  // namespace

void fill_uninitialized(const Tensor& t) {
  if (!fills_uninitialized_memory() || t->numel() == 0) return;  // (fill_ on meta: nothing)
  call("aten::fill_.Scalar", {ops::t(t), Value::of_scalar(fill_value(t->dtype()))});
}

void fill_uninitialized_storage_tail(const Tensor& t, int64_t old_storage_nbytes) {
  if (!fills_uninitialized_memory()) return;
  const auto item = static_cast<int64_t>(t->itemsize());
  const int64_t old_n = old_storage_nbytes / item;
  const int64_t new_n = static_cast<int64_t>(t->storage()->nbytes()) / item;
  if (new_n <= old_n) return;
  Tensor tail = make<TensorImpl>(t->storage(), t->dtype(), Dims{new_n - old_n}, Dims{1}, old_n,
                                 representation_of(t->device().type));
  fill_uninitialized(tail);
}

}  // namespace tn
