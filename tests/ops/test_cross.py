"""linalg.cross and cross (+ out=), ours and upstream each in its own process, bit for bit: every
dtype upstream's CPU kernel takes (float32 fused as upstream's AVX2/AVX-512 build fuses it, the
16-bit floats rounding each product, integers wrapping), broadcasting, strided inputs, the default
dim of cross, out= (dtype check, resize, a strided out), meta shapes, upstream's errors in their
types and words, and the gradients with their node names (LinalgCrossBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
def cb(t):
    return bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t, strides=True)
a, b = torch.randn(64, 3) * 10, torch.randn(64, 3) * 10
for dt in ("float32", "float64", "float16", "bfloat16", "complex64", "complex128", "uint8",
           "int8", "int16", "int32", "int64", "bool", "complex32"):
    d = getattr(torch, dt)
    if d.is_complex:
        x = torch.complex(a, b.flip(0)).to(d)
        y = torch.complex(b, a.flip(0)).to(d)
    elif d.is_floating_point:
        x, y = a.to(d), b.to(d)
    else:
        x = torch.randint(-100, 100, (64, 3)).to(d)
        y = torch.randint(-100, 100, (64, 3)).to(d)
    case(f"lc_{dt}", lambda: cb(torch.linalg.cross(x, y)))
    case(f"c_{dt}", lambda: cb(torch.cross(x.t(), y.t(), dim=0)))
m, n = torch.randn(2, 3, 5), torch.randn(4, 1, 3, 1)
case("bcast", lambda: cb(torch.linalg.cross(m[None], n.expand(4, 2, 3, 5)[:, :1], dim=2)))
case("bcast2", lambda: cb(torch.linalg.cross(torch.randn(3, 1), torch.randn(3, 4), dim=0)))
case("strided", lambda: cb(torch.linalg.cross(m.permute(2, 0, 1), m.flip(2).permute(2, 0, 1))))
case("default_dim", lambda: cb(torch.cross(torch.randn(4, 3, 3), torch.randn(4, 3, 3))))
case("default_none", lambda: torch.cross(torch.randn(4, 5), torch.randn(4, 5)))
case("empty", lambda: cb(torch.linalg.cross(torch.randn(0, 3), torch.randn(0, 3))))
case("out", lambda: cb(torch.linalg.cross(a, b, out=torch.empty(0))))
case("out_resize", lambda: cb(torch.linalg.cross(a, b, out=torch.empty(5))))
so = torch.zeros(3, 64).t()
case("out_strided", lambda: [cb(torch.linalg.cross(a, b, out=so)), cb(so)])
case("cross_out", lambda: cb(torch.cross(a, b, dim=1, out=torch.empty(0))))
case("cross_out_nodim", lambda: cb(torch.cross(a, b, out=torch.empty(0))))
case("out_dtype", lambda: torch.linalg.cross(a, b, out=torch.empty(0, dtype=torch.float64)))
case("out_half", lambda: torch.linalg.cross(a.half(), b, out=torch.empty(0)))
case("mixed", lambda: torch.linalg.cross(a, b.double()))
case("mixed_bool", lambda: torch.linalg.cross(a > 0, b))
case("ndim", lambda: torch.linalg.cross(torch.randn(2, 3), torch.randn(4, 2, 3)))
case("len", lambda: torch.linalg.cross(torch.randn(2, 4), torch.randn(2, 4)))
case("len_dim", lambda: torch.linalg.cross(torch.randn(3, 4), torch.randn(3, 4), dim=-1))
case("dim_range", lambda: torch.linalg.cross(torch.randn(3, 4), torch.randn(3, 4), dim=5))
case("zero_dim", lambda: torch.linalg.cross(torch.randn(()), torch.randn(())))
case("bad_bcast", lambda: torch.linalg.cross(torch.randn(2, 3), torch.randn(4, 3)))
case("cross_len", lambda: torch.cross(torch.ones(2, 3), torch.ones(2, 4)))
mt = torch.randn(2, 3, 5, device="meta")
case("meta", lambda: [torch.linalg.cross(mt, mt, dim=1).shape,
                      torch.linalg.cross(mt.transpose(1, 2), mt.transpose(1, 2)).stride()])
case("meta_bool", lambda: str(torch.linalg.cross(mt.bool(), mt.bool(), dim=1).dtype))
case("meta_len", lambda: torch.linalg.cross(mt, mt))
def grads(fn, *vs):
    ts = [v.double().clone().requires_grad_() for v in vs]
    r = fn(*ts)
    if r.is_complex():
        w = torch.complex(torch.linspace(-1, 2, r.numel()), torch.linspace(2, 0, r.numel()))
        loss = (r * w.to(r.dtype).reshape(r.shape)).real.sum()
    else:
        loss = (r * torch.linspace(-1, 2, r.numel(), dtype=r.dtype).reshape(r.shape)).sum()
    return [r.grad_fn.name()] + [cb(g) for g in torch.autograd.grad(loss, ts)]
case("g_lc", lambda: grads(lambda p, q: torch.linalg.cross(p, q), a, b))
case("g_bcast", lambda: grads(lambda p, q: torch.linalg.cross(p, q, dim=1), m[:1], n[0]))
case("g_cross", lambda: grads(lambda p, q: torch.cross(p, q, dim=0), a.t(), b.t()))
ca, cc = torch.complex(a, b), torch.complex(b, -a)
case("g_complex", lambda: [r for r in grads(lambda p, q: torch.linalg.cross(p, q), ca, cc)])
print(json.dumps(out))
"""


def test_cross_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, differ
    assert ours["lc_float32"][0] == "torch.float32"
    assert ours["g_lc"][0] == "LinalgCrossBackward0"
