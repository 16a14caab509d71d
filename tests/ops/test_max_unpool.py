"""max_unpool2d and max_unpool3d (and .out; F.max_unpool1d/2d/3d), ours and upstream each in
its own process: values bit for bit (a scatter of copies) in every float dtype, batched and
unbatched, channels-last input (and its channels-last result), duplicate indices (the later
element wins), empty batches and empty outputs, out= (resizing, strides, dtype), every check in
upstream's words and order (the meta path's own words), an invalid index (upstream names the
last one met; one invalid index per case, so its parallel loop cannot choose), and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
F = torch.nn.functional
u2, u3 = torch._C._nn.max_unpool2d, torch._C._nn.max_unpool3d
x = torch.randn(2, 3, 6, 5)
y, i = F.max_pool2d(x, 2, return_indices=True)
x3 = torch.randn(2, 3, 4, 6, 5)
y3, i3 = F.max_pool3d(x3, 2, return_indices=True)
S3 = ([2, 2, 2], [0, 0, 0])
for dt in ["float32", "float64", "float16", "bfloat16"]:
    yd, y3d = y.to(getattr(torch, dt)), y3.to(getattr(torch, dt))
    case(f"u2_{dt}", lambda: bits(u2(yd, i, [6, 5])))
    case(f"u2_big_{dt}", lambda: bits(u2(yd, i, [7, 8])))
    case(f"u2_unbatched_{dt}", lambda: bits(u2(yd[0], i[0], [6, 5])))
    case(f"u2_cl_{dt}", lambda: bits(u2(yd.contiguous(memory_format=torch.channels_last),
                                        i.contiguous(memory_format=torch.channels_last), [6, 5])))
    case(f"u2_t_{dt}", lambda: bits(u2(yd.transpose(0, 1), i.transpose(0, 1), [6, 5])))
    case(f"u3_{dt}", lambda: bits(u3(y3d, i3, [4, 6, 5], *S3)))
    case(f"u3_unbatched_{dt}", lambda: bits(u3(y3d[1], i3[1], [4, 6, 5], *S3)))
    case(f"u3_cl_{dt}", lambda: bits(u3(y3d.contiguous(memory_format=torch.channels_last_3d),
                                        i3.contiguous(memory_format=torch.channels_last_3d),
                                        [4, 6, 5], *S3)))
case("u2_dup", lambda: bits(u2(y, torch.zeros_like(i), [6, 5])))
case("u3_dup", lambda: bits(u3(y3, torch.ones_like(i3), [4, 6, 5], *S3)))
case("u2_empty_batch", lambda: bits(u2(y[:0], i[:0], [6, 5])))
case("u2_empty_batch_long", lambda: bits(u2(y[:0].long(), i[:0], [6, 5])))
case("u2_zero_os", lambda: bits(u2(y, i, [0, 5])))
case("u3_empty_batch", lambda: bits(u3(y3[:0], i3[:0], [4, 6, 5], *S3)))
case("u3_stride_pad_ignored", lambda: bits(u3(y3, i3, [4, 6, 5], [3, 1, 7], [1, 2, 0])))
bad = i.clone()
bad[1, 2, 1, 1] = 30
case("u2_bad", lambda: u2(y, bad, [6, 5]))
bad[1, 2, 1, 1] = -1
case("u2_bad_neg", lambda: u2(y, bad, [6, 5]))
case("u2_small_os", lambda: u2(y[:, :, :1, :1], torch.full((2, 3, 1, 1), 4), [2, 2]))
bad3 = i3.clone()
bad3[0, 1, 1, 0, 1] = 120
case("u3_bad", lambda: u3(y3, bad3, [4, 6, 5], *S3))
for dev in ["cpu", "meta"]:
    yy, ii, yy3, ii3 = (v.to(dev) for v in (y, i, y3, i3))
    case(f"u2_idx_int_{dev}", lambda: u2(yy, ii.int(), [6, 5]))
    case(f"u2_os_{dev}", lambda: u2(yy, ii, [6]))
    case(f"u2_dims_{dev}", lambda: u2(yy[0, 0], ii[0, 0], [6, 5]))
    case(f"u2_shape_{dev}", lambda: u2(yy, ii[:1], [6, 5]))
    case(f"u2_empty_c_{dev}", lambda: u2(yy[:, :0], ii[:, :0], [6, 5]))
    case(f"u2_neg_os_{dev}", lambda: u2(yy, ii, [6, -5]))
    case(f"u2_meta_shape_{dev}", lambda: list(u2(yy, ii, [7, 5]).shape))
    case(f"u3_idx_int_{dev}", lambda: u3(yy3, ii3.int(), [4, 6, 5], *S3))
    case(f"u3_dims_{dev}", lambda: u3(yy3[0, 0], ii3[0, 0], [4, 6, 5], *S3))
    case(f"u3_os_{dev}", lambda: u3(yy3, ii3, [4, 6], *S3))
    case(f"u3_stride_len_{dev}", lambda: u3(yy3, ii3, [4, 6, 5], [2, 2], [0, 0, 0]))
    case(f"u3_pad_len_{dev}", lambda: u3(yy3, ii3, [4, 6, 5], [2, 2, 2], [0]))
    case(f"u3_shape_{dev}", lambda: u3(yy3, ii3[:1], [4, 6, 5], *S3))
    case(f"u3_empty_c_{dev}", lambda: u3(yy3[:, :0], ii3[:, :0], [4, 6, 5], *S3))
    case(f"u3_stride0_{dev}", lambda: u3(yy3, ii3, [4, 6, 5], [2, 0, 2], [0, 0, 0]))
    case(f"u3_neg_os_{dev}", lambda: u3(yy3, ii3, [4, -6, 5], *S3))
    case(f"u3_meta_shape_{dev}", lambda: list(u3(yy3, ii3, [4, 7, 5], *S3).shape))
for dt in ["int64", "bool", "int32"]:
    case(f"u2_dtype_{dt}", lambda: u2(y.to(getattr(torch, dt)), i, [6, 5]))
    case(f"u3_dtype_{dt}", lambda: u3(y3.to(getattr(torch, dt)), i3, [4, 6, 5], *S3))
case("u2_meta_long", lambda: str(u2(y.long().to("meta"), i.to("meta"), [6, 5]).dtype))
def outs(fn, o):
    r = fn(o)
    return [bits(r), bits(o), r is o]
case("u2_out", lambda: outs(lambda o: u2(y, i, [6, 5], out=o), torch.empty(0)))
case("u2_out_same", lambda: outs(lambda o: u2(y, i, [6, 5], out=o), torch.full((2, 3, 6, 5), 7.)))
case("u2_out_nc", lambda: outs(lambda o: u2(y, i, [6, 5], out=o),
                               torch.full((2, 3, 5, 6), 7.).transpose(2, 3)))
case("u2_out_nc_3d", lambda: outs(lambda o: u2(y[0], i[0], [6, 5], out=o),
                                  torch.full((3, 5, 6), 7.).transpose(1, 2)))
case("u2_out_cl", lambda: outs(lambda o: u2(y.contiguous(memory_format=torch.channels_last),
                                            i, [6, 5], out=o), torch.empty(0)))
case("u2_out_dtype", lambda: u2(y, i, [6, 5], out=torch.empty(0, dtype=torch.float64)))
case("u2_out_dtype_empty", lambda: outs(lambda o: u2(y[:0], i[:0], [6, 5], out=o),
                                        torch.empty(0, dtype=torch.float64)))
case("u3_out", lambda: outs(lambda o: u3(y3, i3, [4, 6, 5], *S3, out=o), torch.empty(3)))
case("u3_out_nc", lambda: outs(lambda o: u3(y3, i3, [4, 6, 5], *S3, out=o),
                               torch.zeros(2, 3, 4, 5, 6).transpose(3, 4)))
case("F1d", lambda: bits(F.max_unpool1d(*F.max_pool1d(torch.randn(2, 3, 8), 2,
                                                      return_indices=True), 2)))
case("F2d", lambda: bits(F.max_unpool2d(y, i, 2, output_size=[6, 5])))
case("F3d", lambda: bits(F.max_unpool3d(y3, i3, 2, output_size=[4, 6, 5])))
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    r = fn(t)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
case("g_u2", lambda: grads(lambda t: u2(t, i, [6, 5]), y))
case("g_u2_unbatched", lambda: grads(lambda t: u2(t, i[0], [7, 5]), y[0]))
case("g_u3", lambda: grads(lambda t: u3(t, i3, [4, 6, 5], *S3), y3))
case("g_u2_empty", lambda: grads(lambda t: u2(t, i[:0], [6, 5]), y[:0]))
print(json.dumps(out))
"""


def test_max_unpool_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_u2"][0] == "MaxUnpool2DBackward0"
    assert upstream["u2_bad"][0] == "raises"
