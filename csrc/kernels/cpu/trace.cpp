// trace(Tensor self): the sum of a matrix's main diagonal, as upstream's trace_cpu computes it:
// one sequential sum along the diagonal in the CPU accumulation type (double for float32,
// float for the 16-bit floats, complex128 for complex64), integers and bool giving int64 (bool
// is refused on CPU: "trace" not implemented for 'Bool'; its meta function accepts it).
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_util.h"

namespace tn {
namespace {

ScalarType trace_dtype(ScalarType dt) {
  return is_integral(dt, /*include_bool=*/true) ? ScalarType::Long : dt;
}

template <bool Cpu>
void trace(Call& c) {
  const Tensor& self = c.tensor(0);
  const std::string& key = c.key();
  const ScalarType dt = self->dtype();
  if (Cpu)  // (the dtype first: upstream's dispatch runs before its check of the shape)
    TN_CHECK_KIND(dt != ScalarType::Bool && dt != ScalarType::ComplexHalf, NotImplemented,
                  "\"trace\" not implemented for '", enum_name(dt), "'");
  TN_CHECK(self->dim() == 2, Cpu ? "trace: " : "", "expected a matrix, but got tensor with dim ",
           self->dim());
  Tensor result = ops::empty({}, trace_dtype(dt), self->device());
  if (!Cpu) return c.ret(result);
  const int64_t n = std::min(self->size(0), self->size(1));
  const int64_t step = self->stride(0) + self->stride(1);
  dispatch_dtype_complex(dt, key, [&](auto zero) {
    using T = decltype(zero);
    using A = typename ScanAcc<T>::type;
    const T* p = data_of<T>(self, key);
    A sum = A(0);
    for (int64_t i = 0; i < n; ++i) sum += A(p[i * step]);
    if constexpr (std::is_integral_v<T>)
      *data_of<int64_t>(result, key) = static_cast<int64_t>(sum);
    else
      *data_of<T>(result, key) = static_cast<T>(sum);
  });
  c.ret(result);
}

}  // namespace

TN_REGISTER_KERNEL("aten::trace", DenseCPU, trace<true>);
TN_REGISTER_KERNEL("aten::trace", Meta, trace<false>);

}  // namespace tn
