"""special_erfcx and special_log_ndtr (and their .out), ours and upstream each in its own process,
bit for bit in float32 and float64: every interval of erfcx's Chebyshev table (x from 0 to 50),
the continued fraction beyond 50 and its one-term form beyond 5e7, negative x down to and past
-26.7 (through -6.1), log_ndtr on both sides of -1, zeros, infinities and NaN; float16/bfloat16
refused as upstream refuses them, integer and bool inputs, meta, out= casts, and the gradients
(node names).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
sp = torch.special
y = torch.rand(3000, dtype=torch.float64) * 100  # y100 in every interval of the table
x = torch.cat([400 / y - 4, torch.rand(500, dtype=torch.float64) * 60,
               torch.rand(300, dtype=torch.float64) * 1e9 + 40,
               -torch.rand(600, dtype=torch.float64) * 30, torch.randn(400, dtype=torch.float64),
               torch.tensor([0.0, -0.0, 50.0, 50.000001, 5e7, 5.0000001e7, 1e300, -26.7, -26.69,
                             -6.1, -6.09, -1.0, -1.0000001, -0.9999999, 26.0, -40.0, 1e-300,
                             float("inf"), -float("inf"), float("nan")], dtype=torch.float64)])
fns = {"erfcx": sp.erfcx, "log_ndtr": sp.log_ndtr}
for dt in ["float32", "float64"]:
    xd = x.to(getattr(torch, dt))
    for name, f in fns.items():
        case(f"{name}_{dt}", lambda: bits(f(xd)))
        case(f"{name}_{dt}_strided", lambda: bits(f(xd[::3])))
        case(f"{name}_{dt}_2d_t", lambda: bits(f(xd[:4800].reshape(60, 80).t())))
for dt in ["float16", "bfloat16", "int64", "int8", "bool", "complex64"]:
    xi = torch.arange(-5, 20).to(getattr(torch, dt))
    for name, f in fns.items():
        case(f"{name}_{dt}", lambda: bits(f(xi)))
for name, f in fns.items():
    case(f"{name}_empty", lambda: bits(f(torch.ones(0, 3))))
    case(f"{name}_0d", lambda: bits(f(torch.tensor(-3.5))))
    case(f"{name}_meta", lambda: f(torch.ones(2, 3, device="meta")).shape)
    case(f"{name}_meta_int", lambda: str(f(torch.ones(2, dtype=torch.long, device="meta")).dtype))
outs = {"erfcx": aten.special_erfcx.out, "log_ndtr": aten.special_log_ndtr.out}
for name, f in outs.items():
    for dt in ["float32", "float64", "float16"]:
        o = torch.zeros(7, dtype=getattr(torch, dt))
        case(f"{name}_out_{dt}", lambda: [bits(f(x[:7].float(), out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.long)
    case(f"{name}_out_long", lambda: f(x[:7], out=o))
    o = torch.zeros(3, dtype=torch.float64)
    case(f"{name}_out_resize", lambda: [bits(f(x[:7], out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.float64)
    case(f"{name}_out_int_in", lambda: [bits(f(torch.arange(7), out=o)), bits(o)])
def grads(fn, v, dt):
    t = v.to(dt).clone().requires_grad_()
    yv = fn(t)
    w = torch.linspace(-1, 2, yv.numel(), dtype=dt).reshape(yv.shape)
    return [yv.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((yv * w).sum(), [t])]
gx = torch.cat([x[:300], x[3800:3900], torch.tensor([0.0, -1.5, -0.5, 60.0, -10.0])])
for dt in [torch.float32, torch.float64]:
    for name, f in fns.items():
        case(f"g_{name}_{str(dt)[6:]}", lambda: grads(f, gx, dt))
for name, f in fns.items():
    case(f"gg_{name}", lambda: second_order(f, gx[:100]))
print(json.dumps(out))
"""


def test_erfcx_log_ndtr_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_erfcx_float64"][0] == "SpecialErfcxBackward0"
    assert upstream["g_log_ndtr_float32"][0] == "SpecialLogNdtrBackward0"
    assert upstream["erfcx_float16"][0] == "raises"
