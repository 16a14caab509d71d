// Derivatives of select_scatter, diagonal_scatter and as_strided_scatter
// (SelectScatterBackward0, DiagonalScatterBackward0, AsStridedScatterBackward0): self's gradient
// is grad with the scattered view zeroed (the op again with zeros of src's shape; as_strided's
// is upstream's own rule, below), src's the view of grad (as_strided's of grad made contiguous).
#include "autograd/derivatives/helpers.h"

namespace tn::autograd {
namespace {

using namespace d;

// key(grad, zeros like src, rest...) for self, view(grad, rest...) for src.
Grads scatter_backward(const Saved& s, const Grads& g, const char* scatter, const char* view,
                       std::vector<Value> rest, const Tensor& view_of) {
  Grads out(2);
  if (s.need(0)) {
    const ArgMeta& src = s.meta(1);
    std::vector<Value> args{V(g[0]), V(zeros(src.sizes, src.dtype, src.device))};
    args.insert(args.end(), rest.begin(), rest.end());
    out[0] = call_tensor(scatter, std::move(args));
  }
  if (s.need(1)) {
    rest.insert(rest.begin(), V(view_of));
    out[1] = call_tensor(view, std::move(rest));
  }
  return out;
}
Grads select_scatter_backward(const Saved& s, const Grads& g) {
  return scatter_backward(s, g, "aten::select_scatter", "aten::select.int",
                          {s.arg(2), s.arg(3)}, g[0]);
}
Grads diagonal_scatter_backward(const Saved& s, const Grads& g) {
  return scatter_backward(s, g, "aten::diagonal_scatter", "aten::diagonal",
                          {s.arg(2), s.arg(3), s.arg(4)}, g[0]);
}
// as_strided_scatter: upstream's as_strided_scatter_backward gives self grad's values at the
// scattered positions and zeros elsewhere (self is contiguous under autograd, see the forward);
// we give the same.
Grads as_strided_scatter_backward(const Saved& s, const Grads& g) {
  Tensor grad = call_tensor("aten::contiguous", {V(g[0])});
  Grads out(2);
  if (s.need(0)) {
    const ArgMeta& self = s.meta(0);
    Tensor result = zeros(self.sizes, grad->dtype(), self.device);
    Tensor into = call_tensor("aten::as_strided", {V(result), s.arg(2), s.arg(3), s.arg(4)});
    ops::copy_(into, call_tensor("aten::as_strided", {V(grad), s.arg(2), s.arg(3), s.arg(4)}));
    out[0] = result;
  }
  if (s.need(1)) out[1] = call_tensor("aten::as_strided", {V(grad), s.arg(2), s.arg(3), s.arg(4)});
  return out;
}

}  // namespace

// Upstream lists select_scatter outside its complex-differentiable ops: a complex output refuses
// in its words.
TN_REGISTER_DERIVATIVE("aten::select_scatter",
                       {"SelectScatterBackward0", {0, 1}, {}, 0, select_scatter_backward, 0, {},
                        false, true});
TN_REGISTER_DERIVATIVE("aten::diagonal_scatter",
                       {"DiagonalScatterBackward0", {0, 1}, {}, 0, diagonal_scatter_backward});
TN_REGISTER_DERIVATIVE("aten::as_strided_scatter",
                       {"AsStridedScatterBackward0", {0, 1}, {}, 0,
                        as_strided_scatter_backward});
TN_COMPLEX_READY("aten::select_scatter", "aten::diagonal_scatter", "aten::as_strided_scatter");

}  // namespace tn::autograd
