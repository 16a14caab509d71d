"""mvlgamma (mvlgamma_, mvlgamma.out) and its alias special_multigammaln (.out), ours and
upstream each in its own process, bit for bit: p = 1..5 in float32/float64 (and bfloat16,
float16), values across the poles' neighbourhood and beyond, integer inputs (computed in the
default float dtype), the refusals (bool, p < 1, out= casts in upstream's words), meta (its
Python rule: no checks, a contiguous result), and the
gradient (MvlgammaBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
x = torch.cat([torch.rand(200) * 10 + 2.1, torch.rand(100) * 3, torch.randn(50) * 20,
               torch.tensor([2.0, 2.5, 0.5, 1.0, 1e-8, 100.0, 1e30, float("inf"),
                             -float("inf"), float("nan")])])
for dt in ["float32", "float64", "float16", "bfloat16"]:
    xd = x.to(getattr(torch, dt))
    for p in [1, 2, 3, 5]:
        case(f"mvlgamma_{dt}_{p}", lambda: bits(torch.mvlgamma(xd, p)))
        case(f"multigammaln_{dt}_{p}", lambda: bits(torch.special.multigammaln(xd, p)))
        case(f"mvlgamma__{dt}_{p}", lambda: bits(xd.clone().mvlgamma_(p)))
    case(f"mvlgamma_{dt}_2d_t", lambda: bits(torch.mvlgamma(xd[:300].reshape(20, 15).t(), 3)))
for dt in ["int64", "int8", "uint8"]:
    xi = torch.arange(0, 20).to(getattr(torch, dt))
    case(f"mvlgamma_{dt}", lambda: bits(torch.mvlgamma(xi, 2)))
    case(f"mvlgamma__{dt}", lambda: xi.clone().mvlgamma_(2))
case("mvlgamma_bool", lambda: torch.mvlgamma(torch.tensor([True]), 1))
case("mvlgamma_p0", lambda: torch.mvlgamma(x, 0))
case("mvlgamma__p0", lambda: x.clone().mvlgamma_(-1))
case("mvlgamma_complex", lambda: torch.mvlgamma(torch.ones(2, dtype=torch.complex64), 2))
case("mvlgamma_empty", lambda: bits(torch.mvlgamma(torch.ones(0, 3), 2)))
case("mvlgamma_0d", lambda: bits(torch.mvlgamma(torch.tensor(3.5), 4)))
case("mvlgamma_meta", lambda: str(torch.mvlgamma(torch.ones(2, 3, device="meta"), 2)))
mt = torch.ones(2, 3, device="meta")
for dt in ["float32", "float64", "int64", "bool", "complex64"]:
    case(f"mvlgamma_meta_{dt}", lambda: str(torch.mvlgamma(mt.to(getattr(torch, dt)), 1)))
case("mvlgamma_meta_p0", lambda: str(torch.mvlgamma(mt, 0)))
case("mvlgamma_meta_pm2", lambda: str(torch.mvlgamma(mt, -2)))
case("multigammaln_meta_pm2", lambda: str(torch.special.multigammaln(mt, -2)))
case("multigammaln_meta_p0", lambda: str(torch.special.multigammaln(mt, 0)))
case("mvlgamma_meta_t", lambda: torch.mvlgamma(mt.t(), 2).stride())
case("mvlgamma__meta", lambda: mt.t().mvlgamma_(0).stride())
case("mvlgamma_out_meta", lambda: str(torch.mvlgamma(mt, 2, out=torch.empty(0, device="meta"))))
case("mvlgamma_out_meta_long",
     lambda: torch.mvlgamma(mt, 2, out=torch.empty(0, device="meta", dtype=torch.long)))
for name, f in [("mvlgamma", aten.mvlgamma.out), ("multigammaln", aten.special_multigammaln.out)]:
    for dt in ["float32", "float64", "float16"]:
        o = torch.zeros(7, dtype=getattr(torch, dt))
        case(f"{name}_out_{dt}", lambda: [bits(f(x[:7] + 3, 3, out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.long)
    case(f"{name}_out_long", lambda: f(x[:7], 2, out=o))
    o = torch.zeros(7, dtype=torch.long)
    case(f"{name}_out_long_int", lambda: f(torch.arange(7), 2, out=o))
    o = torch.zeros(3)
    case(f"{name}_out_resize", lambda: [bits(f(x[:7], 2, out=o)), bits(o)])
    o = torch.zeros(7, dtype=torch.float64)
    case(f"{name}_out_int_in", lambda: [bits(f(torch.arange(7) + 2, 2, out=o)), bits(o)])
def grads(fn, v, dt):
    t = v.to(dt).clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=dt).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
for dt in [torch.float32, torch.float64]:
    for p in [1, 3]:
        n = f"{str(dt)[6:]}_{p}"
        case(f"g_mvlgamma_{n}", lambda: grads(lambda t: torch.mvlgamma(t, p), x[:200], dt))
        case(f"g_mvlgamma__{n}", lambda: grads(lambda t: t.clone().mvlgamma_(p), x[:200], dt))
        case(f"g_multigammaln_{n}",
             lambda: grads(lambda t: torch.special.multigammaln(t, p), x[:200], dt))
print(json.dumps(out))
"""


def test_mvlgamma_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_mvlgamma_float64_3"][0] == "MvlgammaBackward0"
    assert upstream["mvlgamma_bool"][0] == "raises"
