"""interpolate(..., antialias=True) for bilinear and bicubic (_upsample_bilinear2d_aa,
_upsample_bicubic2d_aa: default, .vec, out=, backward kernels and their grad_input=, the
derivatives) and uint8 input to bilinear / bicubic with and without antialias, ours and
upstream each in its own process: every value bit for bit (float32 and float64 in upstream's
order of operations, uint8 in its integers), strides, errors and messages, meta shapes,
node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

FLOATS = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
F = torch.nn.functional
A = torch.ops.aten
x = torch.randn(2, 3, 17, 23) * 3
x[0, 0, 0, :3] = torch.tensor([0.0, -0.0, 1e30])
SIZES = [(5, 7), (8, 30), (3, 11), (17, 9), (40, 50), (1, 1), (17, 23), (6, 23), (2, 80)]
for dt in ["float32", "float64"]:
    xd = x.to(getattr(torch, dt))
    for mode in ["bilinear", "bicubic"]:
        op = getattr(A, f"_upsample_{mode}2d_aa")
        opb = getattr(A, f"_upsample_{mode}2d_aa_backward")
        for size in SIZES:
            for align in (False, True):
                key = f"{dt}_{mode}_{size}_{align}"
                case(f"f_{key}", lambda: bits(op(xd, list(size), align)))
                g = torch.randn(2, 3, *size).to(xd.dtype)
                case(f"b_{key}", lambda: bits(opb(g, list(size), list(xd.shape), align)))
        for sf in [0.3, 0.5, 0.77, 1.6, (0.4, 2.5)]:
            case(f"sf_{dt}_{mode}_{sf}", lambda: bits(F.interpolate(
                xd, scale_factor=sf, mode=mode, antialias=True)))
            case(f"sfr_{dt}_{mode}_{sf}", lambda: bits(F.interpolate(
                xd, scale_factor=sf, mode=mode, antialias=True, recompute_scale_factor=True)))
        case(f"scales_{dt}_{mode}", lambda: bits(op(xd, [7, 9], False, 0.45, 0.3)))
        case(f"same_size_scales_{dt}_{mode}", lambda: bits(op(xd, [17, 9], True, 2.0, None)))
        case(f"cl_{dt}_{mode}", lambda: bits(op(xd.to(memory_format=torch.channels_last),
                                                [6, 8], False)))
        case(f"t_{dt}_{mode}", lambda: bits(op(xd.transpose(2, 3), [9, 4], False)))
        case(f"empty_{dt}_{mode}", lambda: bits(op(xd[:0], [6, 8], False)))
        gcl = torch.randn(2, 3, 6, 8).to(xd.dtype).to(memory_format=torch.channels_last)
        case(f"bcl_{dt}_{mode}", lambda: bits(opb(gcl, [6, 8], [2, 3, 17, 23], False)))
        case(f"bsc_{dt}_{mode}", lambda: bits(opb(gcl.contiguous(), [6, 8], [2, 3, 17, 23],
                                                  True, 0.3, 0.4)))
        o = torch.empty(0, dtype=xd.dtype)
        case(f"out_{dt}_{mode}", lambda: [bits(op(xd, [6, 8], False, out=o)), bits(o)])
        gi = torch.empty(0, dtype=xd.dtype)
        case(f"gi_{dt}_{mode}", lambda: [bits(opb(gcl, [6, 8], [2, 3, 17, 23], False,
                                                  grad_input=gi)), bits(gi)])
        case(f"vec_{dt}_{mode}", lambda: bits(op(xd, None, True, [0.6, 1.3])))
for mode in ["bilinear", "bicubic"]:
    op = getattr(A, f"_upsample_{mode}2d_aa")
    opb = getattr(A, f"_upsample_{mode}2d_aa_backward")
    for dt in ["float16", "bfloat16", "int64", "bool", "complex64"]:
        case(f"dtype_{mode}_{dt}", lambda: op(x.to(getattr(torch, dt)), [6, 8], False))
        case(f"dtype_same_{mode}_{dt}", lambda: op(x.to(getattr(torch, dt)), [17, 23], False))
    case(f"bdtype_{mode}", lambda: opb(torch.randn(2, 3, 6, 8).half(), [6, 8], [2, 3, 17, 23],
                                       False))
    case(f"bad_len_{mode}", lambda: op(x, [6], False))
    case(f"bad_rank_{mode}", lambda: op(x[0], [6, 8], False))
    case(f"zero_out_{mode}", lambda: op(x, [0, 8], False))
    case(f"zero_in_{mode}", lambda: op(x[:, :0], [6, 8], False))
    case(f"vec_both_{mode}", lambda: op(x, [6, 8], False, [0.5, 0.5]))
    case(f"vec_none_{mode}", lambda: op(x, None, False, None))
    case(f"vec_len_{mode}", lambda: op(x, None, False, [0.5]))
    case(f"b_rank_{mode}", lambda: opb(torch.randn(3, 6, 8), [6, 8], [2, 3, 17, 23], False))
    case(f"b_shape_{mode}", lambda: opb(torch.randn(2, 3, 6, 9), [6, 8], [2, 3, 17, 23], False))
    case(f"b_in_len_{mode}", lambda: opb(torch.randn(2, 3, 6, 8), [6, 8], [2, 17, 23], False))
    case(f"out_dtype_{mode}", lambda: op(x, [6, 8], False, out=torch.empty(0).double()))
    case(f"meta_{mode}", lambda: [list(r.shape) + list(r.stride()) for r in [
        op(x.to("meta"), [6, 8], False),
        op(x.to("meta").to(memory_format=torch.channels_last), [6, 8], False),
        op(x.half().to("meta"), [6, 8], True),
        opb(torch.empty(2, 3, 6, 8, device="meta"), [6, 8], [2, 3, 17, 23], False)]])
    case(f"meta_bad_{mode}", lambda: op(x.to("meta"), [0, 8], False))
    case(f"meta_empty_{mode}", lambda: op(x[:, :0].to("meta"), [6, 8], False))
    case(f"meta_b_shape_{mode}", lambda: opb(torch.empty(2, 3, 6, 9, device="meta"), [6, 8],
                                             [2, 3, 17, 23], False))
    case(f"meta_b_zero_{mode}", lambda: opb(torch.empty(2, 3, 6, 8, device="meta"), [6, 0],
                                            [2, 3, 17, 23], False))
    case(f"vec_rank_{mode}", lambda: op(x[0], None, False, [0.5, 0.5]))
    case(f"empty_chan_{mode}", lambda: op(x[:, :0], [6, 8], False))
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
def double_backward(fn, v):
    # the first gradient's own gradient, through the output weights (it is linear in them)
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    w.requires_grad_()
    g, = torch.autograd.grad((y * w).sum(), [t], create_graph=True)
    return [g.grad_fn.name(), bits(torch.autograd.grad((g * g.detach().cos()).sum(), [w])[0])]
for mode in ["bilinear", "bicubic"]:
    for size, align in [((6, 8), False), ((30, 9), True), ((17, 40), False)]:
        case(f"g_{mode}_{size}", lambda: grads(lambda t: F.interpolate(
            t, size=size, mode=mode, align_corners=align, antialias=True), x))
    case(f"gg_{mode}", lambda: double_backward(lambda t: F.interpolate(
        t, size=(6, 30), mode=mode, antialias=True), x[:1, :2]))
print(json.dumps(out))
"""

UINT8 = CASES_PRELUDE + r"""
F = torch.nn.functional
A = torch.ops.aten
SIZES = [(5, 7), (8, 30), (3, 11), (17, 9), (40, 50), (1, 1), (1, 7), (17, 4), (2, 2)]
for C in (1, 2, 3, 4, 5):
    x = torch.randint(0, 256, (2, C, 17, 23), dtype=torch.uint8)
    x[0, 0, :2] = 255
    for layout in ("cf", "cl", "t"):
        xx = {"cf": x, "cl": x.to(memory_format=torch.channels_last),
              "t": x.transpose(2, 3)}[layout]
        for mode in ("bilinear", "bicubic"):
            for aa in (False, True):
                op = getattr(A, f"_upsample_{mode}2d_aa" if aa else f"upsample_{mode}2d")
                for size in SIZES:
                    for align in (False, True):
                        case(f"{C}_{layout}_{mode}_{aa}_{size}_{align}",
                             lambda: op(xx, list(size), align))
                case(f"{C}_{layout}_{mode}_{aa}_sc", lambda: op(xx, [7, 9], False, 0.4, 0.45))
                case(f"{C}_{layout}_{mode}_{aa}_sf", lambda: F.interpolate(
                    xx, scale_factor=(1.7, 0.6), mode=mode, antialias=aa))
x = torch.randint(0, 256, (1, 3, 9, 11), dtype=torch.uint8)
o8 = torch.empty(0, dtype=torch.uint8)
case("u8_out", lambda: [A.upsample_bicubic2d(x, [4, 5], False, out=o8), o8])
case("u8_empty", lambda: A._upsample_bilinear2d_aa(x[:0], [4, 5], False))
case("u8_empty_1x1", lambda: A.upsample_bilinear2d(x[:0], [1, 1], False))
case("u8_same", lambda: A.upsample_bicubic2d(x, [9, 11], True))
case("u8_meta", lambda: A._upsample_bicubic2d_aa(x.to("meta"), [4, 5], False).shape)
print(json.dumps(out))
"""


def test_antialiased_floats_agree_bit_for_bit():
    _, upstream, differ = cases_differing(FLOATS)
    assert not differ, {k: (str(a)[:200], str(b)[:200]) for k, (a, b) in differ.items()}
    assert upstream["g_bilinear_(6, 8)"][0] == "UpsampleBilinear2DAaBackward0"
    assert upstream["g_bicubic_(6, 8)"][0] == "UpsampleBicubic2DAaBackward0"
    assert upstream["gg_bicubic"][0] == "UpsampleBicubic2DAaBackwardBackward0"
    assert upstream["dtype_bilinear_float16"][0] == "raises"


def test_uint8_agrees_exactly():
    _, upstream, differ = cases_differing(UINT8)
    assert not differ, {k: (str(a)[:200], str(b)[:200]) for k, (a, b) in differ.items()}
    # upstream's own assertion (a planar RGB image shrunk to 1x1) is among the cases
    assert upstream["3_cf_bilinear_False_(1, 1)_False"][0] == "raises"
    assert upstream["3_cl_bilinear_False_(1, 1)_False"][0] != "raises"
