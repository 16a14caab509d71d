// The derivative of aminmax (kernels/cpu/aminmax.cpp): upstream's derivatives.yaml formula,
// its FunctionsManual aminmax_backward, written again with door ops.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// aminmax(self, dim, keepdim) -> (min, max): upstream's aminmax_backward, for each output whose
// gradient is handed, scale_grad_by_count: grad / count * mask, mask where self equals the
// result (the reduced dim put back unless kept), count its sum over the reduced dims; the two
// added when both are handed.
Grads aminmax_backward(const Saved& s, const Grads& g) {
  const Tensor& self = s.tensor(0);
  const int64_t n = self->dim();
  const bool given = !s.arg(1).is_none() && n > 0;
  const int64_t dim = given ? wrap(s.to_int(1), n) : 0;
  Tensor ret;
  for (size_t i = 0; i < 2; ++i) {
    if (!handed(g, i)) continue;
    Tensor grad = g[i], result = s.result(i);
    if (given && !s.to_bool(2)) {
      grad = unsqueeze(grad, dim);
      result = unsqueeze(result, dim);
    }
    Tensor mask = call_tensor("aten::eq.Tensor", {V(result), V(self)});
    Tensor count = call_tensor("aten::sum.dim_IntList", {V(mask), Value::of_ints(
                                   given ? Dims{dim} : Dims{}), Value::of_bool(true)});
    Tensor part = mul(div(grad, count), mask);
    ret = ret ? add(ret, part) : part;
  }
  return {ret};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::aminmax",
                       {"AminmaxBackward0", {0}, {{0}}, 3, aminmax_backward});

}  // namespace tn::autograd
