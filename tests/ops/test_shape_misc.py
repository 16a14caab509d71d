"""rot90, narrow_copy (+ out=), new_empty_strided and empty.out, ours and upstream each in its
own process, bit for bit: values, sizes and strides over dtypes and strided inputs, errors
(type and message), meta shapes, gradients and their node names; the factories by their
geometry (their values are unset).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
def cbits(t):
    return bits(torch.view_as_real(t)) if t.is_complex() else bits(t)
def geo(t):
    return [str(t.dtype), t.device.type, list(t.shape), list(t.stride()), t.storage_offset()]
for dt in (torch.float32, torch.float16, torch.complex64, torch.int64, torch.bool):
    x = (torch.randn(3, 4, 5) * 4).to(dt)
    for src_name, src in (("c", x), ("t", x.transpose(0, 2)), ("s", x[:, ::2])):
        for k in (-5, -1, 0, 1, 2, 3, 6):
            for dims in ([0, 1], [2, 0], [-1, 1]):
                case(f"rot_{dt}_{src_name}_{k}_{dims}", lambda: [
                    list(torch.rot90(src, k, dims).stride()), cbits(torch.rot90(src, k, dims))])
        for dim, start, length in ((0, 0, 2), (1, -2, 2), (-1, 1, 0), (2, 5, 0), (1, -4, 4)):
            case(f"nc_{dt}_{src_name}_{dim}_{start}_{length}", lambda: cbits(
                torch.narrow_copy(src, dim, start, length)))
x = torch.randn(3, 4)
for args in ((1, 2, [0, 0]), (1, [0]), (1, [0, 2]), (1, [0, 3]), (1, [-3, 0]), (1, [0, -2])):
    case(f"rot_err_{args}", lambda: torch.rot90(x, args[0], args[-1]))
case("rot_1d", lambda: torch.rot90(torch.randn(3)))
for dim, start, length in ((2, 0, 1), (-3, 0, 1), (0, 4, 1), (0, -4, 1), (0, 1, 3), (0, 3, -1),
                           (1, -1, -1)):
    case(f"nc_err_{dim}_{start}_{length}", lambda: torch.narrow_copy(x, dim, start, length))
case("nc_0d", lambda: torch.narrow_copy(torch.tensor(1.0), 0, 0, 1))
case("nc_out", lambda: cbits(torch.narrow_copy(x, 1, 1, 2, out=torch.empty(0))))
case("nc_out_resize", lambda: cbits(torch.narrow_copy(x, 1, 1, 2, out=torch.empty(7, 7))))
case("nc_out_dtype", lambda: torch.narrow_copy(x, 1, 1, 2, out=torch.empty(0).double()))
m = torch.randn(3, 4, 5, device="meta")
case("rot_meta", lambda: geo(torch.rot90(m, 1, [1, 2])))
case("nc_meta", lambda: geo(torch.narrow_copy(m, 1, 1, 2)))
for dim, start, length in ((0, 4, -1), (0, 9, 1), (1, 1, 9), (-4, 0, 1)):
    case(f"nc_meta_err_{dim}_{start}_{length}", lambda: geo(torch.narrow_copy(m, dim, start,
                                                                              length)))
h = torch.randn(2, 3, dtype=torch.float64)
case("nes", lambda: geo(h.new_empty_strided((2, 3), (1, 2))))
case("nes_dtype", lambda: geo(h.new_empty_strided((4,), (2,), dtype=torch.int8)))
case("nes_meta", lambda: geo(h.new_empty_strided((2, 2), (2, 1), device="meta")))
case("nes_bad", lambda: h.new_empty_strided((2, 3), (1,)))
case("nes_neg", lambda: h.new_empty_strided((-1, 3), (3, 1)))
case("eo", lambda: geo(torch.empty((2, 3), out=torch.empty(0))))
case("eo_same", lambda: geo(torch.empty((3, 2), out=torch.empty(2, 3).t())))
case("eo_other", lambda: geo(torch.empty((2, 3), out=torch.empty(2, 3).t())))
case("eo_mf", lambda: torch.empty((2, 3), out=torch.empty(0),
                                 memory_format=torch.contiguous_format))
case("eo_neg", lambda: torch.empty((2, -3), out=torch.empty(0)))
case("eo_meta", lambda: geo(torch.empty((2, 3), out=torch.empty(0, device="meta"))))
def grads(fn, a):
    t = a.clone().requires_grad_()
    r = fn(t)
    w = (torch.arange(r.numel()) - 3).to(r.dtype).reshape(r.shape)
    g, = torch.autograd.grad((r * w).sum().real, [t])
    return [r.grad_fn.name(), cbits(g)]
for dt in (torch.float64, torch.complex128):
    a = torch.randn(3, 4, 5, dtype=dt)
    for k in (1, 2, 3, 4):
        case(f"g_rot_{dt}_{k}", lambda: grads(lambda p: torch.rot90(p, k, [2, 0]), a))
    case(f"g_nc_{dt}", lambda: grads(lambda p: torch.narrow_copy(p, 1, -3, 2), a))
print(json.dumps(out))
"""


def test_shape_misc_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_rot_torch.float64_1"][0] == "Rot90Backward0"
    assert upstream["g_nc_torch.float64"][0] == "NarrowCopyBackward0"


CHANNEL_SHUFFLE = CASES_PRELUDE + BITS_PRELUDE + r"""
def cbits(t):
    return bits(torch.view_as_real(t)) if t.is_complex() else bits(t)
def full(t):
    return [list(t.shape), list(t.stride()), cbits(t)]
for dt in (torch.float32, torch.bfloat16, torch.complex64, torch.int32, torch.bool):
    x = (torch.randn(2, 12, 3, 4) * 3).to(dt)
    for name, v in (("c", x), ("cl", x.to(memory_format=torch.channels_last)),
                    ("t", x.transpose(2, 3)), ("3d", x[:, :, 0]), ("5d", x.unsqueeze(-1)),
                    ("step", x[:, ::2])):
        for g in (1, 2, 3, 6):
            case(f"cs_{dt}_{name}_{g}", lambda: full(torch.channel_shuffle(v, g)))
x = torch.randn(2, 6, 3)
case("cs_2d", lambda: torch.channel_shuffle(torch.randn(2, 6), 2))
case("cs_groups_0", lambda: torch.channel_shuffle(x, 0))
case("cs_groups_neg", lambda: torch.channel_shuffle(x, -3))
case("cs_indivisible", lambda: torch.channel_shuffle(x, 4))
case("cs_empty", lambda: [full(r) + [r._base is None] for r in
                          [torch.channel_shuffle(torch.randn(0, 6, 2).transpose(0, 2), 1)]])
case("cs_meta", lambda: list(torch.channel_shuffle(torch.randn(2, 6, 3, 4, device="meta")
                                                   .to(memory_format=torch.channels_last), 3)
                             .stride()))
for dt in (torch.float64, torch.complex128):
    a = torch.randn(2, 6, 5, dtype=dt).requires_grad_()
    r = torch.channel_shuffle(a, 3)
    w = (torch.arange(r.numel()) - 3).to(dt).reshape(r.shape)
    case(f"cs_grad_{dt}", lambda: [r.grad_fn.name(), cbits(torch.autograd.grad(
        (r * w).sum().real, [a])[0])])
print(json.dumps(out))
"""


def test_channel_shuffle_agree():
    ours, upstream, differ = cases_differing(CHANNEL_SHUFFLE)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["cs_grad_torch.float64"][0] == "ChannelShuffleBackward0"


BLOCK_DIAG = CASES_PRELUDE + BITS_PRELUDE + r"""
def cbits(t):
    return bits(torch.view_as_real(t)) if t.is_complex() else bits(t)
def full(t):
    return [list(t.shape), list(t.stride()), cbits(t)]
a, s, v = torch.randn(2, 3), torch.tensor(5.0), torch.arange(4)
d, e, t = torch.randn(0), torch.randn(2, 0), torch.randn(3, 4).t()
sets = {"mixed": (a, s, v), "empties": (a, d, e, v.double()), "one": (a,), "t": (t, a[:, ::2]),
        "ints": (v, v.to(torch.int8)), "bool": (v > 1, s > 0), "complex": (a.to(torch.complex64),
                                                                           v),
        "half": (a.half(), s.bfloat16()), "scalars": (s, s.long())}
for name, ts in sets.items():
    case(f"bd_{name}", lambda: full(torch.block_diag(*ts)))
case("bd_none", lambda: full(torch.block_diag()))
case("bd_3d", lambda: torch.block_diag(a, torch.randn(2, 2, 2)))
case("bd_devices", lambda: torch.block_diag(a, torch.randn(2, device="meta")))
case("bd_meta", lambda: list(torch.block_diag(torch.randn(2, device="meta"),
                                              torch.randn(3, 2, device="meta")).shape))
for dt in (torch.float64, torch.complex128):
    xs = [x.clone().to(dt).requires_grad_() for x in (a, s, v, d, e, t)]
    r = torch.block_diag(*xs)
    w = (torch.arange(r.numel()) - 3).to(dt).reshape(r.shape)
    case(f"bd_grad_{dt}", lambda: [r.grad_fn.name()] + [full(g) for g in torch.autograd.grad(
        (r * w).sum().real, xs)])
print(json.dumps(out))
"""


def test_block_diag_agree():
    ours, upstream, differ = cases_differing(BLOCK_DIAG)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["bd_grad_torch.float64"][0] == "BlockDiagBackward0"


CHUNK_CAT = CASES_PRELUDE + BITS_PRELUDE + r"""
def full(t):
    return [list(t.shape), list(t.stride()), bits(t)]
cc = torch._chunk_cat
a, b, c = torch.randn(2, 15), torch.randn(2, 4), torch.randn(2, 7)
lists = {"ab": [a, b], "bc": [b, c], "one": [c], "t": [b.t(), c.t()],
         "3d": [b, torch.randn(2, 4, 1)],
         "ints": [b.long(), c.long()], "bool": [b > 0, c > 0], "half": [b.half(), c.half()]}
for name, ts in lists.items():
    for dim in (0, 1, -1):
        for k in (1, 2, 3, 4, 8):
            case(f"cc_{name}_{dim}_{k}", lambda: full(cc(ts, dim, k)))
case("cc_empty_list", lambda: cc([], 0, 2))
case("cc_empty_tensor", lambda: cc([b, torch.randn(0, 3)], 1, 2))
case("cc_dtypes", lambda: cc([b, c.double()], 1, 2))
case("cc_chunks_0", lambda: cc([b, c], 1, 0))
case("cc_chunks_neg", lambda: cc([b, c], 1, -1))
case("cc_dim", lambda: cc([b, c], 2, 2))
case("cc_sizes", lambda: cc([b, torch.randn(3, 4)], 1, 2))
case("cc_devices", lambda: cc([b, torch.randn(2, 7, device="meta")], 1, 2))
case("cc_meta", lambda: list(cc([torch.randn(2, 4, device="meta"),
                                 torch.randn(2, 7, device="meta")], 1, 2).shape))
case("cc_out", lambda: full(cc([b, c], 1, 2, out=torch.empty(0))))
case("cc_out_cast", lambda: full(cc([b, c], 1, 2, out=torch.empty(0, dtype=torch.float64))))
case("cc_out_kept", lambda: full(cc([b, c], 1, 2, out=torch.empty(2, 2, 6))))
def backward():
    x = b.clone().requires_grad_()
    r = cc([x, c], 1, 2)
    name = r.grad_fn.name()
    r.sum().backward()
    return name
case("cc_grad", backward)
print(json.dumps(out))
"""


def test_chunk_cat_agree():
    ours, upstream, differ = cases_differing(CHUNK_CAT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
