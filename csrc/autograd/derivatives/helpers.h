// Door ops as the derivative formulas spell them (short names for tn::call), and upstream's
// small helpers of its FunctionsManual (maybe_multiply, the mm layout rule), written again.
#pragma once

#include "autograd/formula.h"
#include "dispatch/kernel.h"
#include "kernels/composite/ops.h"

namespace tn::autograd::d {

inline Value V(const Tensor& t) { return Value::of(t); }
// A bool[] argument (a backward op's output_mask).
inline Value bool_list(std::initializer_list<bool> bs) {
  Value v;
  v.tag = Value::Tag::BoolList;
  v.bools.assign(bs.begin(), bs.end());
  return v;
}
inline Value S(double x) { return Value::of_scalar(Scalar::from_double(x)); }
inline Value S(Scalar x) { return Value::of_scalar(x); }

inline Tensor add(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::add.Tensor", {V(a), V(b)});
}
inline Tensor sub(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::sub.Tensor", {V(a), V(b)});
}
inline Tensor mul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::mul.Tensor", {V(a), V(b)});
}
inline Tensor mul(const Tensor& a, Scalar s) {
  return call_tensor("aten::mul.Scalar", {V(a), S(s)});
}
inline Tensor div(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::div.Tensor", {V(a), V(b)});
}
inline Tensor div(const Tensor& a, Scalar s) {
  return call_tensor("aten::div.Scalar", {V(a), S(s)});
}
inline Tensor neg(const Tensor& a) { return call_tensor("aten::neg", {V(a)}); }
inline Tensor rsub(const Tensor& a, Scalar s) {
  return call_tensor("aten::rsub.Scalar", {V(a), S(s)});
}
inline Tensor pow(const Tensor& a, Scalar s) {
  return call_tensor("aten::pow.Tensor_Scalar", {V(a), S(s)});
}
inline Tensor exp(const Tensor& a) { return call_tensor("aten::exp", {V(a)}); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return call_tensor("aten::mm", {V(a), V(b)}); }
inline Tensor bmm(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::bmm", {V(a), V(b)});
}
inline Tensor t(const Tensor& a) { return call_tensor("aten::t", {V(a)}); }
inline Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  return call_tensor("aten::transpose.int", {V(a), Value::of_int(d0), Value::of_int(d1)});
}
inline Tensor expand(const Tensor& a, const Dims& sizes) {
  return call_tensor("aten::expand", {V(a), Value::of_ints(sizes)});
}
inline Tensor reshape(const Tensor& a, const Dims& sizes) {
  return call_tensor("aten::reshape", {V(a), Value::of_ints(sizes)});
}
inline Tensor permute(const Tensor& a, const Dims& dims) {
  return call_tensor("aten::permute", {V(a), Value::of_ints(dims)});
}
inline Tensor unsqueeze(const Tensor& a, int64_t dim) {
  return call_tensor("aten::unsqueeze", {V(a), Value::of_int(dim)});
}
inline Tensor squeeze(const Tensor& a, int64_t dim) {
  return call_tensor("aten::squeeze.dim", {V(a), Value::of_int(dim)});
}
inline Tensor sum_keep(const Tensor& a, int64_t dim) {
  return call_tensor("aten::sum.dim_IntList",
                     {V(a), Value::of_ints(Dims{dim}), Value::of_bool(true)});
}
inline Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t len) {
  return ops::narrow(a, dim, start, len);
}
inline Tensor zeros(const Dims& sizes, ScalarType dtype, Device device) {
  return call_tensor("aten::zeros", {Value::of_ints(sizes), Value::of_dtype(dtype), Value{},
                                     Value::of_device(device)});
}
inline Tensor to_dtype(const Tensor& a, ScalarType dtype) {
  if (a->dtype() == dtype) return a;
  return call_tensor("aten::_to_copy", {V(a), Value::of_dtype(dtype)});
}

inline bool is_one(const Scalar& s) { return s.to_double() == 1.0 && s.imag() == 0.0; }

// Complex formulas (formula.h's TN_COMPLEX_READY): upstream's .conj() on a formula's factor, the
// conjugate view for a complex tensor and the tensor itself for a real one (no call).
inline bool cx(const Tensor& a) { return is_complex(a->dtype()); }
inline Tensor conj(const Tensor& a) { return cx(a) ? call_tensor("aten::conj", {V(a)}) : a; }
inline Scalar conj(const Scalar& s) {
  return s.is_complex() ? Scalar::from_complex(s.d, -s.im) : s;
}
inline Tensor real(const Tensor& a) { return cx(a) ? call_tensor("aten::real", {V(a)}) : a; }
// Upstream's maybe_multiply: t itself when s is 1, else t * s.
inline Tensor maybe_multiply(const Tensor& t, const Scalar& s) { return is_one(s) ? t : mul(t, s); }

// dim wrapped into [0, n) (the forward op has checked it).
inline int64_t wrap(int64_t dim, int64_t n) { return dim < 0 ? dim + (n > 0 ? n : 1) : dim; }

// Softmax's backward on its result y along dim: (grad - sum(grad * y, dim)) * y (upstream's
// _softmax_backward_data), for _softmax and _safe_softmax alike: its kernel (upstream's
// arithmetic, kernels/cpu/nn_softmax.cpp) for float32/float64 on the CPU, else door ops.
inline Tensor softmax_backward_data(const Tensor& grad, const Tensor& y, int64_t dim) {
  ScalarType dt = y->dtype();
  if ((dt == ScalarType::Float || dt == ScalarType::Double) && grad->dtype() == dt &&
      y->device().type == DeviceType::CPU && grad->device().type == DeviceType::CPU)
    return call_tensor("aten::_softmax_backward_data",
                       {V(grad), V(y), Value::of_int(dim), Value::of_dtype(dt)});
  return mul(sub(grad, sum_keep(mul(grad, y), dim)), y);
}

// The gradient of mm's first operand (upstream's mm_mat1_backward): computed column-major, as
// the transpose of conj(mat2) . grad^T, when the operand was column-major, else
// grad . conj(mat2)^T; alpha conjugated.
inline Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, const ArgMeta& mat1,
                               const Scalar& alpha) {
  if (mat1.strides.size() == 2 && mat1.strides[0] == 1 && mat1.strides[1] == mat1.sizes[0])
    return maybe_multiply(t(mm(conj(mat2), t(grad))), conj(alpha));
  return maybe_multiply(mm(grad, t(conj(mat2))), conj(alpha));
}
// The second operand's (mm_mat2_backward): (grad^T . conj(mat1))^T when it was column-major,
// else conj(mat1)^T . grad.
inline Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const ArgMeta& mat2,
                               const Scalar& alpha) {
  if (mat2.strides.size() == 2 && mat2.strides[0] == 1 && mat2.strides[1] == mat2.sizes[0])
    return maybe_multiply(t(mm(t(grad), conj(mat1))), conj(alpha));
  return maybe_multiply(mm(t(conj(mat1)), grad), conj(alpha));
}

// A formula upstream writes as not_implemented("what"): the node is recorded, and backward
// refuses when it reaches it ("the derivative for 'what' is not implemented.").
template <const char* kWhat>
Grads not_implemented(const Saved&, const Grads&) {
  TN_FAIL(NotImplemented, "the derivative for '", kWhat, "' is not implemented.");
}

// Whether output i's gradient stands for one upstream's engine would hand as defined: the
// engine fills zeros for outputs nothing used, so a gradient counts when it has history or
// is not all zeros (formulas that branch on which gradients are defined, as upstream's do,
// take the same branch).
inline bool handed(const Grads& g, size_t i) {
  if (i >= g.size() || !g[i]) return false;
  if (g[i]->requires_grad() || g[i]->numel() == 0) return true;  // (an empty one is as given)
  Tensor any = call_tensor("aten::any", {V(call_tensor("aten::ne.Scalar", {V(g[i]), S(0.0)}))});
  return call("aten::_local_scalar_dense", {V(any)})[0].scalar.to_int() != 0;
}
// g[i] when handed, else null.
inline Tensor handed_or_null(const Grads& g, size_t i) { return handed(g, i) ? g[i] : Tensor(); }

// Where output i's gradient is in g, for an op whose output i exists when mask[i] is set: the
// recording numbers only the outputs that exist, so g holds one per set bit (one per output if
// it numbers them all); -1 when output i does not exist.
inline int grad_slot(const Grads& g, const std::vector<bool>& mask, size_t i) {
  if (i >= mask.size() || !mask[i]) return -1;
  if (g.size() == mask.size()) return static_cast<int>(i);
  size_t slot = 0;
  for (size_t j = 0; j < i; ++j) slot += mask[j] ? 1 : 0;
  return slot < g.size() ? static_cast<int>(slot) : -1;
}

// upstream's max_pool_double_backward(grad, indices, dims): grad read back at the indices, plane
// by plane over the last `dims` dims, in the indices' shape (zeros of it when they are empty).
// The max pools' double backward and max_unpool's backward.
inline Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, size_t dims) {
  const Dims& isz = indices->sizes();
  if (indices->numel() == 0) return zeros(isz, grad->dtype(), grad->device());
  Dims flat(isz.begin(), isz.end() - static_cast<std::ptrdiff_t>(dims));
  flat.push_back(-1);
  Dims gflat(grad->sizes().begin(), grad->sizes().end() - static_cast<std::ptrdiff_t>(dims));
  gflat.push_back(-1);
  Tensor picked = call_tensor("aten::gather", {V(reshape(grad, gflat)), Value::of_int(-1),
                                               V(reshape(indices, flat))});
  return reshape(picked, isz);
}

}  // namespace tn::autograd::d
