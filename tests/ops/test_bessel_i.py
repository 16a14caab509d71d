"""i0 (i0_, i0.out, special_i0), special_i0e, special_i1, special_i1e (and .out), ours and
upstream each in its own process, bit for bit in every float dtype: values across both ranges
of the Chebyshev series (|x| <= 8 and beyond), zeros, infinities, NaN, large arguments
(overflow), contiguous rows (vector blocks, then the tail) and strided ones (scalar path), for
a bfloat16 NaN which path stored it; integer and bool inputs, errors, meta, out= casts and
the gradients (node names, float16's refusal in i1/i1e's backward).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
sp = torch.special
x = torch.cat([torch.randn(500) * 4, torch.rand(500) * 200 - 100,
               torch.tensor([0.0, -0.0, 8.0, -8.0, 7.9999, 8.0001, float("inf"), -float("inf"),
                             float("nan"), 89.0, -89.0, 710.0, -710.0, 1e-30, -1e-30])])
fns = {"i0": torch.i0, "i0e": sp.i0e, "i1": sp.i1, "i1e": sp.i1e, "sp_i0": sp.i0}
for dt in ["float32", "float64", "float16", "bfloat16"]:
    xd = x.to(getattr(torch, dt))
    for name, f in fns.items():
        case(f"{name}_{dt}", lambda: bits(f(xd)))
        case(f"{name}_{dt}_strided", lambda: bits(f(xd[::3])))
        case(f"{name}_{dt}_2d_t", lambda: bits(f(xd[:1000].reshape(40, 25).t())))
    nan = torch.full((40,), float("nan"), dtype=xd.dtype)
    for name, f in fns.items():
        case(f"{name}_nan_{dt}", lambda: bits(f(nan)))
    case(f"i0__{dt}", lambda: bits(xd.clone().i0_()))
for dt in ["int64", "int8", "uint8", "bool"]:
    xi = torch.arange(-5, 20).to(getattr(torch, dt))
    for name, f in fns.items():
        case(f"{name}_{dt}", lambda: bits(f(xi)))
    case(f"i0__{dt}", lambda: xi.clone().i0_())
for name, f in fns.items():
    case(f"{name}_complex", lambda: f(torch.ones(2, dtype=torch.complex64)))
    case(f"{name}_empty", lambda: bits(f(torch.ones(0, 3))))
    case(f"{name}_0d", lambda: bits(f(torch.tensor(3.5))))
    case(f"{name}_meta", lambda: f(torch.ones(2, 3, device="meta")).shape)
    case(f"{name}_meta_int", lambda: str(f(torch.ones(2, dtype=torch.long, device="meta")).dtype))
outs = {"i0": aten.i0.out, "i0e": aten.special_i0e.out, "i1": aten.special_i1.out,
        "i1e": aten.special_i1e.out, "sp_i0": aten.special_i0.out}
for name, f in outs.items():
    for dt in ["float32", "float64", "float16"]:
        o = torch.zeros(7, dtype=getattr(torch, dt))
        case(f"{name}_out_{dt}", lambda: [bits(f(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.long)
    case(f"{name}_out_long", lambda: f(x[:7], out=o))
    o = torch.zeros(3)
    case(f"{name}_out_resize", lambda: [bits(f(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.float64)
    case(f"{name}_out_int_in", lambda: [bits(f(torch.arange(7), out=o)), bits(o)])
case("i0__int_self", lambda: torch.arange(3).i0_())
def grads(fn, v, dt):
    t = v.to(dt).clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=dt).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
gx = torch.cat([x[:200], torch.tensor([0.0, -0.0, 1e-8, -1e-8, 1e-17, 20.0, -20.0])])
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
    for name, f in fns.items():
        case(f"g_{name}_{str(dt)[6:]}", lambda: grads(f, gx, dt))
    case(f"g_i0__{str(dt)[6:]}", lambda: grads(lambda t: t.clone().i0_(), gx, dt))
print(json.dumps(out))
"""


def test_bessel_i_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_i1_float64"][0] == "SpecialI1Backward0"
    assert upstream["g_i1_float16"][0] == "raises"
    assert upstream["i0_nan_bfloat16"] != upstream["i1_nan_bfloat16"]
