"""torch.special's Bessel and Airy functions: bessel_j0/j1/y0/y1, modified_bessel_i0/i1/k0/k1,
scaled_modified_bessel_k0/k1, spherical_bessel_j0, airy_ai (and their .out), ours and upstream
each in its own process, bit for bit in float32 and float64: values across every branch of the
approximations (the small-argument series, the rational forms up to 5, 2 or 8, the asymptotic
forms beyond, Airy's three regions and its cut-off at 103.892), zeros, signed zeros, negative
arguments (NaN / -inf where the function is undefined), infinities, NaN, contiguous and strided
layouts; integer and bool inputs (computed in float32), float16/bfloat16/complex refusals,
meta, out= casts and resizes, and autograd (results never require grad, as upstream's
non_differentiable inputs).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
sp = torch.special
names = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai"]
x = torch.cat([torch.randn(400) * 3, torch.rand(400) * 40 - 20, torch.rand(200) * 2,
               torch.rand(100) * 300 - 150, torch.rand(50) * 1e-4,
               torch.tensor([0.0, -0.0, 1e-6, 1e-5, 5.0, -5.0, 2.0, 8.0, -8.0, 0.5, -0.5, 2.09,
                             -2.09, 8.3203353, 103.892, 104.0, -2.1, 1e-30, 700.0, -700.0,
                             1e4, -1e4, float("inf"), -float("inf"), float("nan")])])
for dt in ["float32", "float64"]:
    xd = x.to(getattr(torch, dt))
    for n in names:
        f = getattr(sp, n)
        case(f"{n}_{dt}", lambda: bits(f(xd)))
        case(f"{n}_{dt}_strided", lambda: bits(f(xd[::3])))
        case(f"{n}_{dt}_2d_t", lambda: bits(f(xd[:1000].reshape(40, 25).t())))
for n in names:
    f = getattr(sp, n)
    fo = getattr(aten, "special_" + n).out
    for dt in ["int64", "int8", "uint8", "bool"]:
        case(f"{n}_{dt}", lambda: bits(f(torch.arange(-5, 20).to(getattr(torch, dt)))))
    for dt in ["float16", "bfloat16", "complex64"]:
        case(f"{n}_refuse_{dt}", lambda: f(torch.ones(3, dtype=getattr(torch, dt))))
    case(f"{n}_empty", lambda: bits(f(torch.ones(0, 3))))
    case(f"{n}_0d", lambda: bits(f(torch.tensor(3.5))))
    case(f"{n}_meta", lambda: f(torch.ones(2, 3, device="meta")).shape)
    case(f"{n}_meta_half", lambda: str(f(torch.ones(2, dtype=torch.half, device="meta")).dtype))
    case(f"{n}_meta_int", lambda: str(f(torch.ones(2, dtype=torch.long, device="meta")).dtype))
    for dt in ["float32", "float64"]:
        o = torch.zeros(7, dtype=getattr(torch, dt))
        case(f"{n}_out_{dt}", lambda: [bits(fo(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.float16)
    case(f"{n}_out_half", lambda: [bits(fo(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.long)
    case(f"{n}_out_long", lambda: fo(x[:7], out=o))
    o = torch.zeros(3)
    case(f"{n}_out_resize", lambda: [bits(fo(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.float64)
    case(f"{n}_out_int_in", lambda: [bits(fo(torch.arange(7), out=o)), bits(o)])
    t = x[:5].clone().requires_grad_()
    case(f"{n}_grad", lambda: [f(t).requires_grad, f(t).grad_fn is None])
    o = torch.zeros(5)
    case(f"{n}_out_grad", lambda: [bits(fo(t, out=o)), o.requires_grad])
    case(f"{n}_complex_grad", lambda: f(torch.ones(2, dtype=torch.complex64).requires_grad_()))
print(json.dumps(out))
"""


def test_special_bessel_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["airy_ai_refuse_float16"][0] == "raises"
    assert upstream["bessel_j0_grad"] == [False, True]
