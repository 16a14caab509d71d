// copy_ on dense CPU tensors (any strides, broadcasting src, any dtype pair) and on meta tensors
// (shape checks only), plus the strided-copy helper other CPU kernels share (copy.h).
#include "kernels/cpu/copy.h"

#include <cstring>
#include <mutex>

#include "core/warning.h"

#include "dispatch/kernel.h"
#include "kernels/composite/shape_util.h"
#include "kernels/cpu/copy_plan.h"

namespace tn {

namespace {

struct Words16 {  // a complex128
  uint64_t w[2];
};

// Same-dtype copy: moves itemsize-wide words, so no per-dtype instantiation is needed.
template <typename W>
void move_words(const Tensor& dst, const Tensor& src, char* d, const char* s) {
  W* dw = reinterpret_cast<W*>(d);
  const W* sw = reinterpret_cast<const W*>(s);
  for_each_offset_pair(dst->sizes(), dst->strides(), 0, src->strides(), 0,
                       [&](int64_t a, int64_t b) { dw[a] = sw[b]; });
}

}  // namespace

void copy_dense_cpu(const Tensor& dst, const Tensor& src, const char* key) {
  if (dst->numel() == 0) return;
  char* d = static_cast<char*>(dst->dense_cpu_data(key));
  const char* s = static_cast<const char*>(src->dense_cpu_data(key));
  if (dst->dtype() == src->dtype()) {
    if (dst->is_contiguous() && src->is_contiguous()) {  // one memmove: the common case
      std::memmove(d, s, static_cast<size_t>(dst->numel()) * dst->itemsize());
      return;
    }
    if (copy_planned(dst, src, d, s)) return;  // Note [Permuted copies]
    int64_t nd = dst->dim();
    if (nd >= 1 && dst->stride(nd - 1) == 1 && src->stride(nd - 1) == 1 &&
        dst->size(nd - 1) >= 16) {
      // Rows contiguous in both (a bias broadcast over an addmm result, a slice of rows): one
      // memmove a row. move_words' loop of unknown trip count stays scalar at -O2 (GCC's cheap
      // cost model): F.linear's bias copy at 90 x 1536 took 80 of its 835 us.
      const size_t item = dst->itemsize(), row = static_cast<size_t>(dst->size(nd - 1)) * item;
      Dims lead(dst->sizes().begin(), dst->sizes().end() - 1);
      Dims dl(dst->strides().begin(), dst->strides().end() - 1);
      Dims sl(src->strides().begin(), src->strides().end() - 1);
      for_each_offset_pair(lead, dl, 0, sl, 0, [&](int64_t a, int64_t b) {
        std::memmove(d + a * static_cast<int64_t>(item), s + b * static_cast<int64_t>(item), row);
      });
      return;
    }
    switch (dst->itemsize()) {
      case 1: return move_words<uint8_t>(dst, src, d, s);
      case 2: return move_words<uint16_t>(dst, src, d, s);
      case 4: return move_words<uint32_t>(dst, src, d, s);
      case 8: return move_words<uint64_t>(dst, src, d, s);
      case 16: return move_words<Words16>(dst, src, d, s);
      default: TN_FAIL(NotImplemented, key, " has no kernel in torchnative for dtype ",
                       name(dst->dtype()));
    }
  }
  if (is_complex(src->dtype()) && !is_complex(dst->dtype())) {
    static std::once_flag once;  // upstream's TORCH_WARN_ONCE
    std::call_once(once,
                   [] { warn("Casting complex values to real discards the imaginary part"); });
  }
  if (copy_convert_flat(dst, src, d, s, key)) return;
  dispatch_dtype_complex32(dst->dtype(), key, [&](auto dz) {
    using D = decltype(dz);
    dispatch_dtype_complex32(src->dtype(), key, [&](auto sz) {
      using S = decltype(sz);
      D* dp = reinterpret_cast<D*>(d);
      const S* sp = reinterpret_cast<const S*>(s);
      // float64 to bfloat16 between contiguous tensors is upstream's vector conversion in
      // blocks of 16 (a NaN becomes 0xFFFF there, as vec_result in elementwise_sleef.h), the
      // rest scalar (0x7FC0); strided copies all scalar; its baseline build all 0x7FC0.
      // float32's: copy_convert.cpp.
      if constexpr (std::is_same_v<D, BFloat16> && std::is_same_v<S, double>) {
        if (dst->is_contiguous() && src->is_contiguous() && dst->sizes() == src->sizes() &&
            copy_runs_avx2_build()) {
          const int64_t n = dst->numel();
          const int64_t vector_end = n - n % 16;
          for (int64_t i = 0; i < n; ++i) {
            dp[i] = convert<D>(sp[i]);
            if (i < vector_end && sp[i] != sp[i]) dp[i].x = 0xFFFF;
          }
          return;
        }
      }
      for_each_offset_pair(dst->sizes(), dst->strides(), 0, src->strides(), 0,
                           [&](int64_t a, int64_t b) { dp[a] = convert<D>(sp[b]); });
    });
  });
}

Scalar item_cpu(const Tensor& t, const char* key) {
  TN_CHECK(t->numel() == 1, "a Tensor with ", t->numel(),
           " elements cannot be converted to Scalar");
  Scalar out;
  dispatch_dtype_complex32(t->dtype(), key, [&](auto z) {
    using T = decltype(z);
    T v = *static_cast<const T*>(t->dense_cpu_data(key));
    if constexpr (is_complex_v<T>) {
      out = Scalar::from_complex(v.real(), v.imag());
    } else if constexpr (std::is_same_v<T, bool>) {
      out = Scalar::from_bool(v);
    } else if constexpr (is_float_like_v<T>) {
      out = Scalar::from_double(static_cast<double>(static_cast<acc_t<T>>(v)));
    } else {
      out = Scalar::from_int(static_cast<int64_t>(v));
    }
  });
  return out;
}

namespace {

// src's strides broadcast to self's shape, with upstream's error when that is impossible.
Dims copy_src_strides(const Tensor& self, const Tensor& src) {
  Dims shape = broadcast_shapes(self->sizes(), src->sizes());
  TN_CHECK(shape == self->sizes(), "output with shape ", dims_str(self->sizes()),
           " doesn't match the broadcast shape ", dims_str(shape));
  return broadcast_strides(*src, shape);
}

// Element range [first, last] an operand touches, in storage elements (strides may be < 0).
std::pair<int64_t, int64_t> element_span(const TensorImpl& t) {
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t reach = (t.size(d) - 1) * t.stride(d);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

// Upstream's overlap assertions for copy_: self may not write one location twice, and may not
// partially overlap src (a full, identical overlap is a no-op copy).
void check_overlap(const Tensor& self, const Tensor& src) {
  bool self_dense = non_overlapping_and_dense(self->sizes(), self->strides());
  bool has_zero_stride = false;
  for (int64_t d = 0; d < self->dim(); ++d)
    has_zero_stride |= self->size(d) > 1 && self->stride(d) == 0;
  TN_CHECK(self_dense || !has_zero_stride, "unsupported operation: more than one element of the "
           "written-to tensor refers to a single memory location. Please clone() the tensor "
           "before performing the operation.");
  if (self->storage() != src->storage() || self->numel() == 0 || src->numel() == 0) return;
  if (!self_dense || !non_overlapping_and_dense(src->sizes(), src->strides())) return;
  auto [a0, a1] = element_span(*self);
  auto [b0, b1] = element_span(*src);
  int64_t ai = self->itemsize(), bi = src->itemsize();
  int64_t abeg = a0 * ai, aend = (a1 + 1) * ai, bbeg = b0 * bi, bend = (b1 + 1) * bi;
  bool full = abeg == bbeg && aend == bend && self->strides() == src->strides();
  bool partial = !full && abeg < bend && bbeg < aend;
  TN_CHECK(!partial, "unsupported operation: some elements of the input tensor and the "
           "written-to tensor refer to a single memory location. Please clone() the tensor "
           "before performing the operation.");
}

// Applies, in place, what differs between the math bits of the tensor copied from and of self
// (core/tensor_impl.h): self's bytes then read as the source's values. Conjugation negates the
// imaginary parts, negation every part.
void apply_math_bits(const Tensor& self, bool conj, bool neg) {
  if (!conj && !neg) return;
  char* base = static_cast<char*>(self->dense_cpu_data("aten::copy_")) -
               self->storage_offset() * self->itemsize();
  dispatch_dtype_complex32(self->dtype(), "aten::copy_ (math bits)", [&](auto zero) {
    using T = decltype(zero);
    T* data = reinterpret_cast<T*>(base);
    for_each_offset(self->sizes(), self->strides(), self->storage_offset(), [&](int64_t off) {
      T& v = data[off];
      if constexpr (is_complex_v<T>) {
        if (conj) v = T(v.real(), -v.imag());
        if (neg) v = T(-v.real(), -v.imag());
      } else if constexpr (!std::is_same_v<T, bool>) {
        if (neg) v = static_cast<T>(-static_cast<acc_t<T>>(v));
      }
    });
  });
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
void copy_cpu(Call& c) {
  const Tensor& self = c.tensor(0);
  const Tensor& src = c.tensor(1);
  Dims strides = copy_src_strides(self, src);
  if (self.get() != src.get()) {
    check_overlap(self, src);
    Tensor s = make_view(src, self->sizes(), strides, src->storage_offset());
    if (self->storage() == src->storage() && self->dtype() != src->dtype()) {
      // Same bytes reinterpreted (view.dtype): stage src so no element is read after a write.
      Tensor staged = empty_tensor(self->sizes(), src->dtype(), src->device());
      copy_dense_cpu(staged, s, "aten::copy_");
      s = staged;
    }
    copy_dense_cpu(self, s, "aten::copy_");
  }
  apply_math_bits(self, self->is_conj() != src->is_conj(), self->is_neg() != src->is_neg());
  c.ret(self);
}

// Also runs when one side is on the CPU (Meta is the higher back end): a meta self takes any
// source without reading it; a meta source has no bytes to give.
void copy_meta(Call& c) {
  const Tensor& self = c.tensor(0);
  TN_CHECK_KIND(self->representation() == Representation::Meta, NotImplemented,
                "Cannot copy out of meta tensor; no data!");
  copy_src_strides(self, c.tensor(1));
  c.ret(self);
}
// _local_scalar_dense(Tensor self) -> Scalar: item(), bool(), int(), float() read here.
void local_scalar_dense_cpu(Call& c) {
  // The first element, as upstream's kernel reads it (item() checks that there is one only).
  const Tensor& t = c.tensor(0);
  TN_CHECK(t->numel() > 0, "_local_scalar_dense: Empty tensor not supported");
  dispatch_dtype_complex32(t->dtype(), c.key(), [&](auto zero) {
    using T = decltype(zero);
    T v = *static_cast<const T*>(t->dense_cpu_data(c.key().c_str()));
    if constexpr (is_complex_v<T>)
      c.ret(Value::of_scalar(Scalar::from_complex(v.real(), v.imag())));
    else if constexpr (std::is_same_v<T, bool>)
      c.ret(Value::of_scalar(Scalar::from_bool(v)));
    else if constexpr (std::is_integral_v<T>)
      c.ret(Value::of_scalar(Scalar::from_int(static_cast<int64_t>(v))));
    else if constexpr (std::is_same_v<T, double>)
      c.ret(Value::of_scalar(Scalar::from_double(v)));
    else  // float and the 16-bit floats, through float
      c.ret(Value::of_scalar(Scalar::from_double(static_cast<float>(v))));
  });
}
[[noreturn]] void local_scalar_dense_meta(Call&) {
  TN_FAIL(Runtime, "Tensor.item() cannot be called on meta tensors");
}
TN_REGISTER_KERNEL("aten::_local_scalar_dense", DenseCPU, local_scalar_dense_cpu);
TN_REGISTER_KERNEL("aten::_local_scalar_dense", Meta, local_scalar_dense_meta);

TN_REGISTER_KERNEL("aten::copy_", DenseCPU, copy_cpu);
TN_REGISTER_KERNEL("aten::copy_", Meta, copy_meta);

}  // namespace
}  // namespace tn
