// pixel_shuffle and pixel_unshuffle, with upstream's checks (PixelShuffle.cpp): the input viewed
// with each rearranged dim split in two, permuted, and copied into a new tensor in the input's
// suggested memory format (channels-last stays channels-last, as upstream's CPU kernel). Exact:
// values only move. Their own derivatives are each other (PixelShuffleBackward0,
// PixelUnshuffleBackward0, autograd/derivatives/shape_more.cpp).
#include "kernels/composite/ops.h"
#include "kernels/composite/shape_util.h"

namespace tn {
namespace {

using ops::ints;
using ops::t;

// The result: out_sizes in self's suggested format, filled from `moved` (a view of self whose
// sizes are `split`, the result's dims with the rearranged ones split).
Tensor rearranged(const Tensor& self, const Tensor& moved, const Dims& split,
                  const Dims& out_sizes) {
  const MemoryFormatKind f = suggested_format(*self);
  Dims strides = f == MemoryFormatKind::Contiguous ? contiguous_strides(out_sizes)
                                                   : channels_last_strides(out_sizes);
  Tensor out = ops::empty_strided(out_sizes, strides, self->dtype(), self->device());
  ops::copy_(ops::view(out, split), moved);
  return out;
}

Dims leading(const Tensor& x) {  // the batch dims before (C, H, W)
  return Dims(x->sizes().begin(), x->sizes().end() - 3);
}

// pixel_shuffle(Tensor self, int upscale_factor): (*, C r^2, H, W) -> (*, C, H r, W r).
void pixel_shuffle(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t r = c.to_int(1);
  TN_CHECK(self->dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but "
           "got input with ", self->dim(), " dimension(s)");
  TN_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t ch = self->size(self->dim() - 3), h = self->size(self->dim() - 2),
                w = self->size(self->dim() - 1);
  TN_CHECK(ch % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be "
           "divisible by the square of upscale_factor, but input.size(-3)=", ch,
           " is not divisible by ", r * r);
  const int64_t oc = ch / (r * r);
  const Dims batch = leading(self);
  const int64_t nb = static_cast<int64_t>(batch.size());
  Dims split6 = batch;
  split6.insert(split6.end(), {oc, r, r, h, w});
  Dims perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 3, nb + 1, nb + 4, nb + 2});  // (C, H, r, W, r)
  Tensor moved = call_tensor("aten::permute", {t(ops::view(ops::clone_contiguous(self), split6)),
                                               ints(perm)});
  Dims split = batch, out_sizes = batch;
  split.insert(split.end(), {oc, h, r, w, r});
  out_sizes.insert(out_sizes.end(), {oc, h * r, w * r});
  c.ret(rearranged(self, moved, split, out_sizes));
}

// pixel_unshuffle(Tensor self, int downscale_factor): (*, C, H r, W r) -> (*, C r^2, H, W).
void pixel_unshuffle(Call& c) {
  const Tensor& self = c.tensor(0);
  const int64_t r = c.to_int(1);
  TN_CHECK(self->dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but "
           "got input with ", self->dim(), " dimension(s)");
  TN_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t ch = self->size(self->dim() - 3), h = self->size(self->dim() - 2),
                w = self->size(self->dim() - 1);
  TN_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but "
           "input.size(-2)=", h, " is not divisible by ", r);
  TN_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but "
           "input.size(-1)=", w, " is not divisible by ", r);
  const int64_t oh = h / r, ow = w / r;
  const Dims batch = leading(self);
  const int64_t nb = static_cast<int64_t>(batch.size());
  Dims split6 = batch;
  split6.insert(split6.end(), {ch, oh, r, ow, r});
  Dims perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 2, nb + 4, nb + 1, nb + 3});  // (C, r, r, H, W)
  Tensor moved = call_tensor("aten::permute", {t(ops::view(ops::clone_contiguous(self), split6)),
                                               ints(perm)});
  Dims split = batch, out_sizes = batch;
  split.insert(split.end(), {ch, r, r, oh, ow});
  out_sizes.insert(out_sizes.end(), {ch * r * r, oh, ow});
  c.ret(rearranged(self, moved, split, out_sizes));
}

}  // namespace

TN_REGISTER_COMPOSITE("aten::pixel_shuffle", pixel_shuffle);
TN_REGISTER_COMPOSITE("aten::pixel_unshuffle", pixel_unshuffle);

}  // namespace tn
