// Derivative of _trilinear (TrilinearBackward0): upstream's _trilinear_backward, each operand's
// gradient another _trilinear with grad in its place and its expand list swapped for sumdim
// (unroll_dim left at its default, 1). An operand is kept only when another one needs a
// gradient, as derivatives.yaml's wrap_opt_if saves it.
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

Grads trilinear_backward(const Saved& s, const Grads& g) {
  Grads out(3);
  for (size_t k = 0; k < 3; ++k) {
    if (!s.need(k)) continue;
    std::vector<Value> args;
    for (size_t j = 0; j < 3; ++j) args.push_back(j == k ? V(g[0]) : s.arg(j));
    for (size_t j = 0; j < 3; ++j) args.push_back(j == k ? s.arg(6) : s.arg(3 + j));
    args.push_back(s.arg(3 + k));
    args.push_back(Value::of_int(1));
    out[k] = call_tensor("aten::_trilinear", std::move(args));
  }
  return out;
}

}  // namespace

TN_REGISTER_DERIVATIVE("aten::_trilinear",
                       {"TrilinearBackward0", {0, 1, 2},
                        {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}, 0,
                        trilinear_backward});

}  // namespace tn::autograd
