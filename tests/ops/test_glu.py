"""glu and glu_backward (functional and out=; issue 9, item 2), ours and upstream each in its own
process: float32/float64 values bit for bit (upstream's sigmoid then product, and its backward's
steps), the 16-bit floats within one unit in the last place of the dtype (computed in float,
rounded once; which elements take SLEEF's exp can differ), errors, node names and gradients.
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
x = torch.randn(4, 38, 21) * 3
x[0, 0, :4] = torch.tensor([0.0, -0.0, float("inf"), -float("inf")])
for dt in ["float32", "float64", "bfloat16", "float16"]:
    xd = x.to(getattr(torch, dt))
    for dim in (-1, 1, 0):
        case(f"glu_{dt}_{dim}", lambda: bits(F.glu(xd, dim)))
    g = torch.randn(4, 19, 21).to(xd.dtype)
    case(f"glu_bwd_{dt}", lambda: bits(torch.ops.aten.glu_backward(g, xd, 1)))
    case(f"glu_t_{dt}", lambda: bits(F.glu(xd.transpose(0, 2), 0)))
case("glu_odd", lambda: F.glu(x, 2))
case("glu_scalar", lambda: F.glu(torch.tensor(1.0)))
case("glu_int", lambda: F.glu(torch.arange(8)))
case("glu_bad_dim", lambda: F.glu(x, 3))
o = torch.empty(0)
case("glu_out", lambda: [bits(torch._C._nn.glu(x, 1, out=o)), bits(o)])
case("glu_out_dtype", lambda: torch._C._nn.glu(x, 1, out=torch.empty(0, dtype=torch.float64)))
case("glu_meta", lambda: F.glu(x.to("meta"), 1).shape)
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
case("g_glu", lambda: grads(lambda t: F.glu(t, 1), x))
print(json.dumps(out))
"""


def test_glu_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    beyond = {}
    for name, (a, b) in differ.items():
        reduced = "bfloat16" in name or "float16" in name
        if not (reduced and a[:3] == b[:3]):
            beyond[name] = (str(a)[:200], str(b)[:200])
            continue
        # the 16-bit floats: neighbours at most (one unit in the last place, same sign)
        if any(abs(p - q) > 1 for p, q in zip(a[3], b[3])):
            beyond[name] = "more than one ulp apart"
    assert not beyond, beyond
    assert upstream["g_glu"][0] == "GluBackward0"
