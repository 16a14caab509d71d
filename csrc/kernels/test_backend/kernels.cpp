// The test back end's kernels: copies in and out through the back-end contract, and the few
// computes a small nn forward needs (addmm for nn.Linear, relu), on float32 with any strides,
// in plain loops. The shared rules (kernels/rules/, and each op's structured rule) run first and
// allocate the outputs on this device; every other op, or another dtype, is refused by name.
#include <cstring>
#include <vector>

#include "core/backend.h"
#include "dispatch/kernel.h"
#include "kernels/strided.h"

namespace tn {
namespace {

constexpr Representation kHere = Representation::PrivateUse1;

float* f32(const Tensor& t, const std::string& key) {
  TN_CHECK_KIND(t->dtype() == ScalarType::Float, NotImplemented, key,
                " has no kernel in torchnative for PrivateUse1 tensors of dtype ",
                name(t->dtype()), " (the test back end computes float32 only)");
  return static_cast<float*>(t->data_of(kHere, key.c_str())) - t->storage_offset();
}

// A contiguous copy of t's elements on t's device (itemsize-wide words, any strides).
std::vector<char> gather(const Tensor& t, const char* key) {
  const size_t item = static_cast<size_t>(t->itemsize());
  std::vector<char> out(static_cast<size_t>(t->numel()) * item);
  const char* base = static_cast<const char*>(t->data_of(kHere, key)) -
                     t->storage_offset() * static_cast<int64_t>(item);
  size_t k = 0;
  for_each_offset(t->sizes(), t->strides(), t->storage_offset(), [&](int64_t off) {
    std::memcpy(out.data() + k++ * item, base + off * static_cast<int64_t>(item), item);
  });
  return out;
}

// Writes contiguous bytes into t's elements (any strides), on t's device.
void scatter(const Tensor& t, const char* bytes, const char* key) {
  const size_t item = static_cast<size_t>(t->itemsize());
  char* base = static_cast<char*>(t->data_of(kHere, key)) -
               t->storage_offset() * static_cast<int64_t>(item);
  size_t k = 0;
  for_each_offset(t->sizes(), t->strides(), t->storage_offset(), [&](int64_t off) {
    std::memcpy(base + off * static_cast<int64_t>(item), bytes + k++ * item, item);
  });
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False): host->device, device->host and
// on the device. A dtype change or a broadcast happens on the CPU side, through door ops.
void copy_(Call& c) {
  const Tensor& self = c.tensor(0);
  Tensor src = c.tensor(1);
  const char* key = "aten::copy_";
  bool to_here = self->representation() == kHere;
  if (to_here && src->representation() == Representation::DenseCPU) {
    // Shape the source on the host, then one counted transfer of contiguous bytes.
    src = call_tensor("aten::expand", {Value::of(src), Value::of_ints(self->sizes())});
    if (src->dtype() != self->dtype()) {
      Value dt = Value::of_dtype(self->dtype());
      src = call_tensor("aten::_to_copy", {Value::of(src), dt});
    }
    src = call_tensor("aten::contiguous", {Value::of(src)});
    std::vector<char> staged(static_cast<size_t>(self->numel()) * self->itemsize());
    copy_bytes(DeviceType::PrivateUse1, staged.data(), DeviceType::CPU, src->data_unchecked(),
               staged.size());
    scatter(self, staged.data(), key);
  } else if (!to_here && src->representation() == kHere) {
    TN_CHECK_KIND(self->representation() == Representation::DenseCPU, NotImplemented, key,
                  " from PrivateUse1 to ", representation_name(self->representation()),
                  " tensors is not implemented by torchnative");
    TN_CHECK(self->sizes() == src->sizes(), "copy_ from the test back end needs equal shapes, "
             "got ", dims_str(self->sizes()), " and ", dims_str(src->sizes()));
    std::vector<char> staged = gather(src, key);
    Tensor host = empty_tensor(src->sizes(), src->dtype(), Device{});
    copy_bytes(DeviceType::CPU, host->data_unchecked(), DeviceType::PrivateUse1, staged.data(),
               staged.size());
    call("aten::copy_", {Value::of(self), Value::of(host)});
  } else {
    TN_CHECK_KIND(self->representation() == kHere && src->representation() == kHere &&
                      self->dtype() == src->dtype() && self->sizes() == src->sizes(),
                  NotImplemented, key, " between ", representation_name(src->representation()),
                  " and ", representation_name(self->representation()),
                  " tensors of these dtypes or shapes is not implemented by the test back end");
    std::vector<char> staged = gather(src, key);
    scatter(self, staged.data(), key);
  }
  c.ret(self);
}
TN_REGISTER_KERNEL("aten::copy_", PrivateUse1, copy_);

// _local_scalar_dense(Tensor self) -> Scalar: one element read back to the host (counted).
void local_scalar_dense(Call& c) {
  const Tensor& t = c.tensor(0);
  TN_CHECK(t->numel() > 0, "_local_scalar_dense: Empty tensor not supported");
  float v = 0;
  f32(t, c.key());
  copy_bytes(DeviceType::CPU, &v, DeviceType::PrivateUse1, t->data_of(kHere, c.key().c_str()),
             sizeof v);
  c.ret(Value::of_scalar(Scalar::from_double(v)));
}
TN_REGISTER_KERNEL("aten::_local_scalar_dense", PrivateUse1, local_scalar_dense);

// addmm's compute (the rule, shared with CPU and Meta, checked and allocated the output):
// out = beta * self (broadcast) + alpha * mat1 @ mat2, accumulated in float in k order.
void addmm_compute(Call& c) {
  const Tensor& out = c.results.at(0).tensor;
  const Tensor &self = c.tensor(0), &a = c.tensor(1), &b = c.tensor(2);
  const std::string& key = c.key();
  float *o = f32(out, key), *s = f32(self, key), *pa = f32(a, key), *pb = f32(b, key);
  float beta = static_cast<float>(c.scalar(3).to_double());
  float alpha = static_cast<float>(c.scalar(4).to_double());
  int64_t m = out->size(0), n = out->size(1), k = a->size(1);
  // self broadcasts to (m, n): strides of its trailing dims, 0 where it has size 1 or is absent.
  int64_t sd = self->dim();
  int64_t ss0 = sd == 2 && self->size(0) != 1 ? self->stride(0) : 0;
  int64_t ss1 = sd >= 1 && self->size(sd - 1) != 1 ? self->stride(sd - 1) : 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t q = 0; q < k; ++q)
        acc += pa[a->storage_offset() + i * a->stride(0) + q * a->stride(1)] *
               pb[b->storage_offset() + q * b->stride(0) + j * b->stride(1)];
      float bias = beta == 0 ? 0.f : beta * s[self->storage_offset() + i * ss0 + j * ss1];
      o[out->storage_offset() + i * out->stride(0) + j * out->stride(1)] = bias + alpha * acc;
    }
}
TN_REGISTER_COMPUTE("aten::addmm", PrivateUse1, addmm_compute);

// relu's compute (the elementwise rule allocated the output): max(x, 0), NaN kept.
void relu_compute(Call& c) {
  const Tensor& out = c.results.at(0).tensor;
  const Tensor& x = c.tensor(0);
  std::vector<char> in = gather(x, c.key().c_str());
  f32(x, c.key());
  f32(out, c.key());
  auto* v = reinterpret_cast<float*>(in.data());
  for (int64_t i = 0; i < x->numel(); ++i) v[i] = v[i] > 0.f || v[i] != v[i] ? v[i] : 0.f;
  scatter(out, in.data(), c.key().c_str());
}
TN_REGISTER_COMPUTE("aten::relu", PrivateUse1, relu_compute);

}  // namespace
}  // namespace tn
