"""special_ndtri (.out), ours and upstream each in its own process, bit for bit in float32 and
float64: the centre (|y - 1/2| <= 1/2 - exp(-2)), both tails (z below and above 8: y down to
1e-300), 0, 1, outside [0, 1], NaN, contiguous and strided; integer and bool inputs (the
default float dtype), the 16-bit floats and complex refused, meta, out= and the gradient
(SpecialNdtriBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
nd = torch.special.ndtri
y = torch.cat([torch.rand(500, dtype=torch.float64), torch.rand(200, dtype=torch.float64) * 0.14,
               1 - torch.rand(200, dtype=torch.float64) * 0.14,
               10 ** (-torch.rand(200, dtype=torch.float64) * 300),
               torch.tensor([0.0, 1.0, -0.0, 0.5, 0.135335283236612, 0.8646647167633873,
                             1e-14, 1.2664165549e-14, 1e-38, 1e-45, -0.1, 1.1,
                             float("inf"), -float("inf"), float("nan")], dtype=torch.float64)])
for dt in ["float32", "float64"]:
    yd = y.to(getattr(torch, dt))
    case(f"ndtri_{dt}", lambda: bits(nd(yd)))
    case(f"ndtri_{dt}_strided", lambda: bits(nd(yd[::3])))
    case(f"ndtri_{dt}_2d_t", lambda: bits(nd(yd[:1000].reshape(40, 25).t())))
    for odt in ["float32", "float64", "float16"]:
        o = torch.zeros(9, dtype=getattr(torch, odt))
        case(f"ndtri_out_{dt}_{odt}", lambda: [bits(aten.special_ndtri.out(yd[:9], out=o)),
                                               bits(o)])
for dt in ["int64", "int8", "uint8", "bool"]:
    case(f"ndtri_{dt}", lambda: bits(nd(torch.arange(-2, 3).to(getattr(torch, dt)))))
for dt in ["float16", "bfloat16", "complex64"]:
    case(f"ndtri_{dt}", lambda: nd(torch.ones(2, dtype=getattr(torch, dt))))
case("ndtri_out_long", lambda: aten.special_ndtri.out(y[:3], out=torch.zeros(3, dtype=torch.long)))
case("ndtri_out_resize", lambda: bits(aten.special_ndtri.out(y[:7], out=torch.zeros(2))))
case("ndtri_meta", lambda: str(nd(torch.ones(2, 3, device="meta"))))
case("ndtri_empty", lambda: bits(nd(torch.ones(0, 3))))
def grads(v, dt):
    t = v.to(dt).clone().requires_grad_()
    r = nd(t)
    w = torch.linspace(-1, 2, r.numel(), dtype=dt)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
for dt in [torch.float32, torch.float64]:
    case(f"g_ndtri_{str(dt)[6:]}", lambda: grads(y[:300], dt))
print(json.dumps(out))
"""


def test_ndtri_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_ndtri_float64"][0] == "SpecialNdtriBackward0"
    assert upstream["ndtri_float16"][0] == "raises"
