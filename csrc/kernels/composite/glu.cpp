// glu and glu_backward (functional and out=), as upstream's CPU kernels compute them
// (GatedLinearUnit.cpp, GluKernel.cpp), written in door ops: glu(x, dim) = a * sigmoid(b) for
// the halves a, b of x along dim (float32/float64: sigmoid's kernel then a product, upstream's
// a * (1 / (1 + exp(-b))) step for step; the 16-bit floats in float, rounded once);
// glu_backward writes sigmoid(b) into the first half of the gradient, (1 - s) * s * a * dy into
// the second, then multiplies the first by dy, as upstream's glu_backward_cpu_out does.
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using namespace ops;

bool reduced(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
Tensor to(const Tensor& x, ScalarType t) {
  return call_tensor("aten::_to_copy", {ops::t(x), Value::of_dtype(t)});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return call_tensor("aten::mul.Tensor", {t(a), t(b)});
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t len) {
  return call_tensor("aten::narrow", {t(x), i64(dim), i64(start), i64(len)});
}

// upstream's checks; the halving dim, wrapped, and its half size.
std::pair<int64_t, int64_t> halves(const Tensor& self, int64_t dim, const char* kernel) {
  TN_CHECK(self->dim() > 0, "glu does not support scalars because halving size must be even");
  int64_t d = wrap_dim(dim, self->dim());
  int64_t n = self->size(d);
  TN_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  if (kernel)  // (the backward's first step, sigmoid into the gradient, refuses integers itself)
    TN_CHECK_KIND(is_floating(self->dtype()), NotImplemented, "\"", kernel,
                  "\" not implemented for '", enum_name(self->dtype()), "'");
  return {d, n / 2};
}

Tensor glu_of(const Tensor& self, int64_t dim) {
  auto [d, h] = halves(self, dim, "glu_cpu");
  Tensor a = narrow(self, d, 0, h), b = narrow(self, d, h, h);
  ScalarType dt = self->dtype();
  if (!reduced(dt)) return mul(a, call_tensor("aten::sigmoid", {t(b)}));
  Tensor af = to(a, ScalarType::Float), bf = to(b, ScalarType::Float);
  return to(mul(af, call_tensor("aten::sigmoid", {t(bf)})), dt);
}
// glu(Tensor self, int dim=-1) -> Tensor
void glu(Call& c) { c.ret(glu_of(c.tensor(0), c.to_int(1))); }
// glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
void glu_out(Call& c) {
  c.ret(write_out(c.tensor(2), glu_of(c.tensor(0), c.to_int(1)), c.key()));  // cast as upstream
}

// glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor
Tensor glu_backward_of(const Tensor& go, const Tensor& self, int64_t dim) {
  auto [d, h] = halves(self, dim, nullptr);
  ScalarType dt = self->dtype();
  Tensor gi = empty(self->sizes(), dt, self->device());
  Tensor first = narrow(gi, d, 0, h), second = narrow(gi, d, h, h);
  Tensor a = narrow(self, d, 0, h), b = narrow(self, d, h, h);
  call("aten::sigmoid.out", {t(b), t(first)});
  // (1 - s) * s * a * dy, in float for the 16-bit floats.
  auto wide = [&](const Tensor& x) { return reduced(dt) ? to(x, ScalarType::Float) : x; };
  Tensor s = wide(first);
  Tensor r = call_tensor("aten::rsub.Scalar", {t(s), Value::of_scalar(Scalar::from_int(1))});
  r = mul(mul(mul(r, s), wide(a)), wide(go));
  copy_(second, r);
  call("aten::mul_.Tensor", {t(first), t(go)});
  return gi;
}
void glu_backward(Call& c) { c.ret(glu_backward_of(c.tensor(0), c.tensor(1), c.to_int(2))); }
void glu_backward_out(Call& c) {
  Tensor r = glu_backward_of(c.tensor(0), c.tensor(1), c.to_int(2));
  c.ret(write_out(c.tensor(3), r, c.key()));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::glu", glu);
TN_REGISTER_COMPOSITE("aten::glu.out", glu_out);
TN_REGISTER_COMPOSITE("aten::glu_backward", glu_backward);
TN_REGISTER_COMPOSITE("aten::glu_backward.grad_input", glu_backward_out);

}  // namespace tn
