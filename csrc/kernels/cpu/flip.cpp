// flip on the CPU and Meta back ends (upstream has a kernel per back end): a copy, through
// copy_, from self viewed with negated strides on the flipped dims.
#include <algorithm>

#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

// flip(Tensor self, int[] dims): a copy from a view with negated strides on the flipped dims.
void flip(Call& c) {
  const Tensor& self = c.tensor(0);
  Dims sizes = self->sizes(), strides = self->strides();
  int64_t offset = self->storage_offset();
  std::vector<bool> seen(std::max<int64_t>(self->dim(), 1), false);
  for (int64_t d : c.int_list(1)) {
    int64_t w = wrap_dim(d, self->dim());
    TN_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (self->dim() == 0 || sizes[w] == 0) continue;
    offset += (sizes[w] - 1) * strides[w];
    strides[w] = -strides[w];
  }
  Tensor out = ops::empty_strided(self->sizes(), preserve_strides(*self), self->dtype(),
                                  self->device());
  // A view of the CPU kernel's own input (as_strided refuses negative strides).
  if (self->numel() > 0) ops::copy_(out, make_view(self, sizes, strides, offset));
  c.ret(out);
}
// Upstream's CPU kernel has no complex32 case (its meta function does not look).
void flip_cpu(Call& c) {
  TN_CHECK_KIND(c.tensor(0)->dtype() != ScalarType::ComplexHalf, NotImplemented,
                "\"flip_cpu\" not implemented for 'ComplexHalf'");
  flip(c);
}
TN_REGISTER_KERNEL("aten::flip", DenseCPU, flip_cpu);
TN_REGISTER_KERNEL("aten::flip", Meta, flip);

}  // namespace
}  // namespace tn
