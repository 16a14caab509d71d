// Short spellings for composites that call other ops through the door (tn::call), so that one
// composite serves every representation. Header-only but for write_out (write_out.cpp).
#pragma once

#include <initializer_list>

#include "dispatch/kernel.h"

namespace tn {
namespace ops {

inline Value ints(const Dims& d) { return Value::of_ints(d); }
inline Value i64(int64_t v) { return Value::of_int(v); }
inline Value f64(double v) { return Value::of_scalar(Scalar::from_double(v)); }  // a float Scalar
inline Value t(const Tensor& x) { return Value::of(x); }

// A new uninitialised tensor with the given geometry on device.
inline Tensor empty_strided(const Dims& sizes, const Dims& strides, ScalarType dtype,
                            Device device) {
  return call_tensor("aten::empty_strided",
                     {ints(sizes), ints(strides), Value::of_dtype(dtype), Value{},
                      Value::of_device(device)});
}
inline Tensor empty(const Dims& sizes, ScalarType dtype, Device device) {
  return empty_strided(sizes, contiguous_strides(sizes), dtype, device);
}
// dst.copy_(src): broadcasting, converting; a no-op on meta.
inline void copy_(const Tensor& dst, const Tensor& src) {
  call("aten::copy_", {t(dst), t(src)});
}
inline Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t len) {
  return call_tensor("aten::narrow", {t(x), i64(dim), i64(start), i64(len)});
}
inline Tensor view(const Tensor& x, const Dims& shape) {
  return call_tensor("aten::view", {t(x), ints(shape)});
}
// x.conj() for a complex tensor (a conjugate view), x itself otherwise.
inline Tensor conj_if_complex(const Tensor& x) {
  return is_complex(x->dtype()) ? call_tensor("aten::conj", {t(x)}) : x;
}
// x.mT and x.mH (the last two dims transposed, conjugated for complex tensors): views.
inline Tensor mT(const Tensor& x) {
  return call_tensor("aten::transpose.int", {t(x), i64(-2), i64(-1)});
}
inline Tensor mH(const Tensor& x) { return conj_if_complex(mT(x)); }
// x.clone(memory_format=torch.contiguous_format), as upstream's contiguous() and reshape() copy.
inline Tensor clone_contiguous(const Tensor& x) {
  Value contiguous_format;
  contiguous_format.tag = Value::Tag::MemoryFormat;
  contiguous_format.memory_format = MemoryFormatKind::Contiguous;
  return call_tensor("aten::clone", {t(x), contiguous_format});
}

// upstream's resize_output for out= arguments: a no-op when the shape already matches, else
// contiguous strides and a storage grown as needed.
inline void resize_out(const Tensor& out, const Dims& shape) {
  if (out->sizes() == shape) return;
  out->set_sizes_strides(shape, contiguous_strides(shape), out->storage_offset());
  size_t need = storage_bytes_needed(shape, out->strides(), out->storage_offset(),
                                     out->itemsize());
  if (need > out->storage()->nbytes()) out->storage()->resize(need);
}

// The out= spellings written over their functional op: out resized to result's shape (upstream's
// resize_output, which warns when out had elements) and result copied in with a cast through
// aten::copy_, so each back end copies its own way (meta's copies nothing). Refuses a result on
// another device, or of a dtype that cannot be cast to out's, as upstream.
Tensor write_out(const Tensor& out, const Tensor& result, const std::string& key);
// Returns results in order: as they are, or with first_out >= 0 each written first into the
// out= argument at first_out + i (write_out), as the out= spellings return their outs.
void ret_all(Call& c, std::initializer_list<Tensor> results, int first_out = -1);

// A structured (or generated) out= argument's dtype must be the result's, checked before
// computing, as upstream's set_output: "Expected out tensor to have dtype double, but got float
// instead".
inline void check_out_dtype(const Tensor& out, ScalarType expected) {
  TN_CHECK(out->dtype() == expected, "Expected out tensor to have dtype ", cpp_type_name(expected),
           ", but got ", cpp_type_name(out->dtype()), " instead");
}

// An out= spelling written over its functional op kOp, as upstream generates them for
// structured and autogen kernels: the arguments before the kOuts outs (the schema's last) go
// to kOp, each out must have its result's dtype, then is resized and written (write_out).
template <const char* kOp, size_t kOuts = 1>
void generated_out(Call& c) {
  const size_t first = c.args.size() - kOuts;
  std::vector<Value> args(c.args.begin(), c.args.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<Value> r = call(kOp, std::move(args));
  for (size_t i = 0; i < kOuts; ++i) check_out_dtype(c.tensor(first + i), r[i].tensor->dtype());
  for (size_t i = 0; i < kOuts; ++i) c.ret(write_out(c.tensor(first + i), r[i].tensor, c.key()));
}

// A composite that is another op under a second name (upstream's CompositeImplicit aliases:
// absolute -> abs, __and__ -> bitwise_and...): every argument as given, to the op kTarget names
// (same schema order, out= included), its results returned as they come.
template <const char* kTarget>
void forward_to(Call& c) {
  std::vector<Value> args(c.args.begin(), c.args.end());
  for (Value& v : call(kTarget, std::move(args))) c.ret(std::move(v));
}

}  // namespace ops
}  // namespace tn
