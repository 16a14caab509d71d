// linalg_cross (and its .out) on dense CPU and Meta tensors, as upstream's Cross.cpp and
// cpu/CrossKernel.cpp compute them: the inputs broadcast to one shape, then per 3-vector along
// dim r0 = a1 b2 - a2 b1, r1 = a2 b0 - a0 b2, r2 = a0 b1 - a1 b0 in the dtype itself (16-bit
// floats round each product, integers wrap). At upstream's AVX2/AVX-512 builds its compiler fuses
// some products (measured against the wheel, every element agreeing so and none otherwise):
// float32 and float64 compute fma(a1, b2, -(a2 b1)); complex128 products are
// (fma(ac - bd), fma(ad + bc)) with the first product fused, then subtracted unfused; complex64
// fuses nothing. Its baseline build fuses nothing. cross / cross.out (the default dim is the
// first of size 3, after upstream's one-time deprecation warning) are composite/cross_dim.cpp.
#include <cmath>
#include <cstdint>
#include <string>

#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/cpu_util.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/rules/elementwise.h"
#include "kernels/rules/reduce_rules.h"

namespace tn {
namespace {

using ops::t;

// upstream's meta checks, in their order and words; returns the broadcast shape and the
// wrapped dim.
Dims check_cross(const Tensor& a, const Tensor& b, int64_t dim, int64_t* wrapped) {
  TN_CHECK(a->dim() == b->dim(), "linalg.cross: inputs must have the same number of dimensions.");
  TN_CHECK_KIND(a->dim() > 0, Index, "Dimension specified as ", dim,
                " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, a->dim());
  TN_CHECK(a->size(d) == 3 && b->size(d) == 3, "linalg.cross: inputs dimension ", dim,
           " must have length 3. Got ", a->size(d), " and ", b->size(d));
  *wrapped = d;
  return broadcast_shapes(a->sizes(), b->sizes());
}

// One product of the cross: a * b rounded to T (the 16-bit floats through float); complex128's
// parts with their first product fused where `fused`.
template <typename T>
T prod(T a, T b, bool fused) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(a) * static_cast<float>(b));
  } else if constexpr (std::is_same_v<T, cdouble>) {
    if (fused)
      return T(std::fma(a.real(), b.real(), -(a.imag() * b.imag())),
               std::fma(a.real(), b.imag(), a.imag() * b.real()));
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  } else if constexpr (is_complex_v<T>) {
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  } else if constexpr (std::is_integral_v<T>) {  // wraps, as upstream's int arithmetic stored in T
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}
// x * y - z * w as upstream's kernel rounds it (fused for float32 and float64 at its AVX2 and
// AVX-512 builds).
template <typename T>
T diff(T x, T y, T z, T w, bool fused) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (fused) return std::fma(x, y, -(z * w));
  }
  const T p = prod(x, y, fused), q = prod(z, w, fused);
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(static_cast<float>(p) - static_cast<float>(q));
  else if constexpr (is_complex_v<T>)
    return T(p.real() - q.real(), p.imag() - q.imag());
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(p) - static_cast<uint64_t>(q));
  else
    return p - q;
}

// r[o, k, i] for contiguous a, b, r of shape (outer, 3, inner).
template <typename T>
void cross_loop(T* r, const T* a, const T* b, int64_t outer, int64_t inner, bool fused) {
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t base = o * 3 * inner;
    for (int64_t i = 0; i < inner; ++i) {
      auto A = [&](int k) { return a[base + k * inner + i]; };
      auto B = [&](int k) { return b[base + k * inner + i]; };
      r[base + i] = diff(A(1), B(2), A(2), B(1), fused);
      r[base + inner + i] = diff(A(2), B(0), A(0), B(2), fused);
      r[base + 2 * inner + i] = diff(A(0), B(1), A(1), B(0), fused);
    }
  }
}

// The result (contiguous, of a's dtype) of a x b along dim over the broadcast shape.
Tensor compute(const Tensor& a, const Tensor& b, int64_t d, const Dims& shape,
               const std::string& key) {
  const ScalarType dt = a->dtype();
  const bool ok = dt == ScalarType::Byte || dt == ScalarType::Char || dt == ScalarType::Short ||
                  dt == ScalarType::Int || dt == ScalarType::Long || dt == ScalarType::Half ||
                  dt == ScalarType::BFloat16 || dt == ScalarType::Float ||
                  dt == ScalarType::Double || dt == ScalarType::ComplexFloat ||
                  dt == ScalarType::ComplexDouble;
  TN_CHECK_KIND(ok, NotImplemented, "\"cross\" not implemented for '", c10_dtype_name(dt), "'");
  TN_CHECK(b->dtype() == dt, "expected scalar type ", enum_name(dt), " but found ",
           enum_name(b->dtype()));
  Tensor r = ops::empty(shape, dt, a->device());
  if (r->numel() == 0) return r;
  auto expanded = [&](const Tensor& x) {
    return contiguous(call_tensor("aten::expand", {t(x), ops::ints(shape), Value::of_bool(false)}),
                      key);
  };
  Tensor ca = expanded(a), cb = expanded(b);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= shape[i];
  for (size_t i = d + 1; i < shape.size(); ++i) inner *= shape[i];
  const bool fused = cpu::isa() != cpu::Isa::Base;
  dispatch_dtype_complex(dt, key, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>)
      cross_loop(data_of<T>(r, key), data_of<T>(ca, key), data_of<T>(cb, key), outer, inner,
                 fused);
  });
  return r;
}

// linalg_cross(Tensor self, Tensor other, *, int dim=-1); .out adds out.
template <bool Cpu, bool Out>
void linalg_cross(Call& c) {
  const Tensor &a = c.tensor(0), &b = c.tensor(1);
  int64_t d = 0;
  const Dims shape = check_cross(a, b, c.to_int(2), &d);
  if (Out) ops::check_out_dtype(c.tensor(3), a->dtype());
  Tensor r = Cpu ? compute(a, b, d, shape, c.key()) : ops::empty(shape, a->dtype(), a->device());
  if (!Out) return c.ret(r);
  c.ret(ops::write_out(c.tensor(3), r, c.key()));
}

}  // namespace

TN_REGISTER_KERNEL("aten::linalg_cross", DenseCPU, (linalg_cross<true, false>));
TN_REGISTER_KERNEL("aten::linalg_cross", Meta, (linalg_cross<false, false>));
TN_REGISTER_KERNEL("aten::linalg_cross.out", DenseCPU, (linalg_cross<true, true>));
TN_REGISTER_KERNEL("aten::linalg_cross.out", Meta, (linalg_cross<false, true>));

}  // namespace tn
