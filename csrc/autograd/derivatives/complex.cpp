// Derivatives of the complex-number ops (upstream's derivatives.yaml entries for _conj,
// view_as_real, view_as_complex, complex, polar and the fft primitives, with its polar_backward,
// fft_r2c_backward and fft_c2r_backward written again with door ops), and the list of the
// formulas elsewhere that hold for complex tensors as they are written: those linear in their
// inputs with real coefficients (views, shape ops, sums, selection), whose gradient is the same
// map's adjoint whatever the dtype. Upstream's convention throughout: the gradient of a
// holomorphic f is grad * conj(f'(z)); a real input takes a complex gradient's real part (the
// engine does that, engine.cpp's validate).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Tensor op1(const char* op, const Tensor& a) { return call_tensor(op, {V(a)}); }
// grad with both math bits applied (view_as_real and view_as_complex read bytes, not values).
Tensor resolved(const Tensor& a) {
  return op1("aten::resolve_neg", op1("aten::resolve_conj", op1("aten::contiguous", a)));
}

// _conj(self): conj(grad).
Grads conj_backward(const Saved&, const Grads& g) { return {conj(g[0])}; }
// view_as_real(self): view_as_complex(grad); view_as_complex(self): view_as_real(grad).
Grads view_as_real_backward(const Saved&, const Grads& g) {
  return {op1("aten::view_as_complex", resolved(g[0]))};
}
Grads view_as_complex_backward(const Saved&, const Grads& g) {
  return {op1("aten::view_as_real", resolved(g[0]))};
}
// complex(real, imag): real: real(grad); imag: imag(grad).
Grads complex_backward(const Saved& s, const Grads& g) {
  return {s.need(0) ? real(g[0]) : Tensor(), s.need(1) ? op1("aten::imag", g[0]) : Tensor()};
}
// polar(abs, angle), upstream's polar_backward: abs: real(conj(grad) * sgn(result));
// angle: real(conj(grad) * result * 1j).
Grads polar_backward(const Saved& s, const Grads& g) {
  const Tensor& y = s.result(0);
  Tensor gc = conj(g[0]);
  return {s.need(0) ? real(mul(gc, op1("aten::sgn", y))) : Tensor(),
          s.need(1) ? real(mul(gc, mul(y, Scalar::from_complex(0.0, 1.0)))) : Tensor()};
}

Tensor c2c(const Tensor& x, const Value& dim, const Value& norm, bool forward) {
  return call_tensor("aten::_fft_c2c", {V(x), dim, norm, Value::of_bool(forward)});
}
// _fft_c2c(self, dim, normalization, forward): the transform the other way, same scaling (the
// adjoint of a DFT is the inverse DFT without its 1/n).
Grads fft_c2c_backward(const Saved& s, const Grads& g) {
  return {c2c(g[0], s.arg(1), s.arg(2), !s.to_bool(3))};
}
// _fft_r2c(self, dim, normalization, onesided), upstream's fft_r2c_backward: the one-sided
// gradient padded with zeros to self's length along the last dim, transformed back, real part.
Grads fft_r2c_backward(const Saved& s, const Grads& g) {
  Tensor grad = g[0];
  if (s.to_bool(3)) {
    const Dims& self_sizes = s.meta(0).sizes;
    int64_t last = wrap(s.ints(1).back(), static_cast<int64_t>(self_sizes.size()));
    int64_t missing = self_sizes[last] - grad->size(last);
    if (missing > 0) {
      Dims zs = grad->sizes();
      zs[last] = missing;
      Tensor z = d::zeros(zs, grad->dtype(), grad->device());
      grad = call_tensor("aten::cat", {Value::of_tensors({grad, z}), Value::of_int(last)});
    }
  }
  return {real(c2c(grad, s.arg(1), s.arg(2), false))};
}
// _fft_c2r(self, dim, normalization, last_dim_size), upstream's fft_c2r_backward: the one-sided
// forward transform of grad, with the entries whose mirror images fell outside the one-sided
// half (1 .. n - half) doubled.
Grads fft_c2r_backward(const Saved& s, const Grads& g) {
  const Tensor& grad = g[0];
  Tensor gi = call_tensor("aten::_fft_r2c", {V(grad), s.arg(1), s.arg(2), Value::of_bool(true)});
  int64_t last = wrap(s.ints(1).back(), grad->dim());
  int64_t doubled = grad->size(last) - gi->size(last);
  if (doubled <= 0) return {gi};
  Dims shape(static_cast<size_t>(gi->dim()), 1);
  shape[static_cast<size_t>(last)] = gi->size(last);
  Tensor w = call_tensor("aten::ones", {Value::of_ints(shape),
                                        Value::of_dtype(to_real_type(gi->dtype())), Value{},
                                        Value::of_device(gi->device())});
  call("aten::fill_.Scalar", {V(narrow(w, last, 1, doubled)), S(Scalar::from_int(2))});
  return {mul(gi, w)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_conj", {"ConjBackward0", {0}, {}, 0, conj_backward});
TN_REGISTER_DERIVATIVE("aten::view_as_real",
                       {"ViewAsRealBackward0", {0}, {}, 0, view_as_real_backward});
TN_REGISTER_DERIVATIVE("aten::view_as_complex",
                       {"ViewAsComplexBackward0", {0}, {}, 0, view_as_complex_backward});
TN_REGISTER_DERIVATIVE("aten::complex", {"ComplexBackward0", {0, 1}, {}, 0, complex_backward});
TN_REGISTER_DERIVATIVE("aten::polar", {"PolarBackward0", {0, 1}, {}, 1, polar_backward});
TN_REGISTER_DERIVATIVE("aten::_fft_c2c", {"FftC2CBackward0", {0}, {}, 0, fft_c2c_backward});
TN_REGISTER_DERIVATIVE("aten::_fft_r2c", {"FftR2CBackward0", {0}, {}, 0, fft_r2c_backward});
TN_REGISTER_DERIVATIVE("aten::_fft_c2r", {"FftC2RBackward0", {0}, {}, 0, fft_c2r_backward});
TN_COMPLEX_READY("aten::_conj", "aten::view_as_real", "aten::view_as_complex", "aten::complex",
                 "aten::polar", "aten::_fft_c2c", "aten::_fft_r2c", "aten::_fft_c2r");

// Linear with real coefficients: complex as written.
TN_COMPLEX_READY("aten::alias", "aten::t", "aten::transpose.int", "aten::transpose_",
                 "aten::view", "aten::_unsafe_view", "aten::_reshape_alias", "aten::expand",
                 "aten::permute", "aten::unsqueeze", "aten::squeeze", "aten::squeeze.dim",
                 "aten::squeeze.dims", "aten::select.int", "aten::slice.Tensor", "aten::cat",
                 "aten::stack", "aten::unbind.int", "aten::split.Tensor",
                 "aten::split_with_sizes", "aten::sum", "aten::sum.dim_IntList", "aten::mean",
                 "aten::mean.dim", "aten::flip", "aten::roll", "aten::repeat", "aten::tril",
                 "aten::triu", "aten::diagonal", "aten::index_select", "aten::index.Tensor",
                 "aten::index_put", "aten::_index_put_impl_", "aten::masked_select",
                 "aten::masked_fill.Scalar", "aten::masked_fill.Tensor", "aten::constant_pad_nd",
                 "aten::gather", "aten::as_strided", "aten::as_strided_", "aten::unsqueeze_",
                 "aten::t_", "aten::squeeze_", "aten::squeeze_.dim", "aten::squeeze_.dims",
                 "aten::cumsum", "aten::scatter.src",
                 "aten::scatter.value", "aten::scatter_add", "aten::index_add",
                 "aten::diag_embed", "aten::diagonal_copy");
// The products (their formulas conjugate the other operand: helpers.h, shape_linalg.cpp,
// shape_more.cpp).
TN_COMPLEX_READY("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::mv",
                 "aten::dot");

}  // namespace tn::autograd
