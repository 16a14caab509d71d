// Derivatives of the scans cummax, cummin and logcumsumexp (kernels/cpu/scans.cpp): upstream's
// derivatives.yaml formulas with its FunctionsManual helpers cummaxmin_backward and
// logcumsumexp_backward, written again with door ops.
#include <limits>

#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// cummax / cummin(self, dim): upstream's cummaxmin_backward, grad scatter-added at the indices
// into zeros of self's shape and dtype (self itself, i.e. an empty tensor, when it is empty).
Grads cum_minmax_backward(const Saved& s, const Grads& g) {
  const ArgMeta& m = s.meta(0);
  Tensor zero = zeros(m.sizes, m.dtype, m.device);
  if (zero->numel() == 0) return {zero};
  return {call_tensor("aten::scatter_add", {V(zero), Value::of_int(s.to_int(1)),
                                            V(s.result(1)), V(g[0])})};
}

// The lowest finite value of a floating dtype (upstream's numeric_limits<scalar_t>::lowest()).
double lowest_of(ScalarType dt) {
  switch (dt) {
    case ScalarType::Half: return -65504.0;
    case ScalarType::BFloat16: return -3.3895313892515355e38;  // -(2 - 2^-7) * 2^127
    case ScalarType::Float: return -static_cast<double>(std::numeric_limits<float>::max());
    default: return -std::numeric_limits<double>::max();
  }
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return call_tensor("aten::where.self", {V(cond), V(a), V(b)});
}
Tensor compare0(const char* op, const Tensor& a) { return call_tensor(op, {V(a), S(0.0)}); }

// flip(logcumsumexp(flip(x, dim), dim), dim): the scan from the end.
Tensor reverse_logcumsumexp(const Tensor& x, int64_t dim) {
  Value dims = Value::of_ints(Dims{dim});
  Tensor f = call_tensor("aten::flip", {V(x), dims});
  Tensor r = call_tensor("aten::logcumsumexp", {V(f), Value::of_int(dim)});
  return call_tensor("aten::flip", {V(r), dims});
}

// logcumsumexp(self, dim): upstream's logcumsumexp_backward; for real tensors the positive and
// negative parts of grad taken apart in log space (log|grad| where grad has that sign, the
// dtype's lowest elsewhere): exp(rev_lcse(log_pos - result) + self) minus the same of log_neg.
Grads logcumsumexp_backward(const Saved& s, const Grads& g) {
  const Tensor& grad = g[0];
  if (grad->dim() == 0 || grad->numel() == 0) return {grad};
  const Tensor& self = s.tensor(0);
  const Tensor& result = s.result(0);
  const int64_t dim = s.to_int(1);
  if (cx(grad)) {  // no sign split: exp(rev_lcse(log(conj(grad)) - result) + self), conjugated
    Tensor log_grad = call_tensor("aten::log", {V(conj(grad))});
    Tensor out = exp(add(reverse_logcumsumexp(sub(log_grad, result), dim), self));
    return {conj(out)};
  }
  Tensor low = call_tensor("aten::scalar_tensor", {S(lowest_of(grad->dtype())),
                                                   Value::of_dtype(grad->dtype()), Value{},
                                                   Value::of_device(grad->device())});
  Tensor log_abs = call_tensor("aten::log", {V(call_tensor("aten::abs", {V(grad)}))});
  Tensor log_pos = where(compare0("aten::gt.Scalar", grad), log_abs, low);
  Tensor log_neg = where(compare0("aten::lt.Scalar", grad), log_abs, low);
  Tensor out_pos = exp(add(reverse_logcumsumexp(sub(log_pos, result), dim), self));
  Tensor out_neg = exp(add(reverse_logcumsumexp(sub(log_neg, result), dim), self));
  return {sub(out_pos, out_neg)};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::cummax", {"CummaxBackward0", {0}, {}, 2, cum_minmax_backward, 2});
TN_REGISTER_DERIVATIVE("aten::cummin", {"CumminBackward0", {0}, {}, 2, cum_minmax_backward, 2});
TN_REGISTER_DERIVATIVE("aten::logcumsumexp",
                       {"LogcumsumexpBackward0", {0}, {{0}}, 1, logcumsumexp_backward});
TN_COMPLEX_READY("aten::logcumsumexp");

}  // namespace tn::autograd
