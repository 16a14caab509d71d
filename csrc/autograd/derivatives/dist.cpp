// The derivative of dist (kernels/composite/dist.cpp): upstream's derivatives.yaml formula,
// norm_backward of self - other for self and its negation for other, taken from this core's
// linalg_vector_norm formula (the same norm_backward) rather than written twice.
#include "autograd/derivatives/helpers.h"
#include "dispatch/registry.h"

namespace tn::autograd {
namespace {

using namespace d;

// dist(self, other, p) -> result: g_diff = norm_backward(grad, self - other, p, result) over
// every element; self gets g_diff, other -g_diff (the engine sums each to its input's shape).
Grads dist_backward(const Saved& s, const Grads& g) {
  static const int norm_op = find_op_key("aten::linalg_vector_norm");
  const Formula* f = formula_of(norm_op);
  TN_CHECK_KIND(f != nullptr, Internal, "dist's backward needs linalg_vector_norm's formula");
  Tensor diff = sub(s.tensor(0), s.tensor(1));
  const std::vector<Value> args = {V(diff), s.arg(2), Value{}, Value::of_bool(false), Value{}};
  const std::vector<Tensor> results = {s.result(0)};
  const std::vector<bool> needs = {true};
  const std::vector<ArgMeta> metas = {{diff->sizes(), diff->strides(), diff->dtype(),
                                       diff->device()}};
  Tensor gd = f->backward(Saved{args, results, needs, metas}, {g[0]})[0];
  if (!gd) {  // p = 0: upstream's undefined gradient, which its -norm_backward cannot negate
    TN_CHECK(!s.need(1), "Expected a proper Tensor but got None (or an undefined Tensor in C++) "
             "for argument #0 'self'");
    return {Tensor(), Tensor()};
  }
  return {s.need(0) ? gd : Tensor(), s.need(1) ? neg(gd) : Tensor()};
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::dist", {"DistBackward0", {0, 1}, {{0}, {1}}, 1, dist_backward});
TN_COMPLEX_READY("aten::dist");

}  // namespace tn::autograd
