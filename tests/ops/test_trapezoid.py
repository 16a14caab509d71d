"""trapezoid, trapz and cumulative_trapezoid with sample points or a spacing (issue 9, item 2),
ours and upstream each in its own process: upstream's compositions step for step, so values,
errors and messages, the final node and float64 gradients compare exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
g = torch.Generator().manual_seed(11)
y = torch.randn(3, 5, generator=g)
x = torch.sort(torch.randn(5, generator=g)).values
case("tz", lambda: torch.trapezoid(y))
case("tz_dx", lambda: torch.trapezoid(y, dx=0.5, dim=0))
case("tz_x", lambda: torch.trapezoid(y, x))
case("tz_x2d", lambda: torch.trapezoid(y, x.expand(3, 5) * 2))
case("tz_x_short", lambda: torch.trapezoid(y.unsqueeze(0), x.expand(3, 5)))
case("tz_int", lambda: torch.trapezoid(torch.arange(6).reshape(2, 3)))
case("tz_int_dx", lambda: torch.trapezoid(torch.arange(6).reshape(2, 3), dx=2))
case("tz_empty", lambda: torch.trapezoid(torch.ones(3, 0)))
case("tz_empty_x", lambda: torch.trapezoid(torch.ones(3, 0), torch.ones(0)))
case("tz_bool", lambda: torch.trapezoid(torch.ones(3, dtype=torch.bool)))
case("tz_complex_dx", lambda: torch.trapezoid(y, dx=1j))
case("tz_x_len", lambda: torch.trapezoid(y, x[:3]))
case("trapz", lambda: torch.trapz(y, x))
case("trapz_dx", lambda: torch.trapz(y, dx=3.0))
case("ct", lambda: torch.cumulative_trapezoid(y))
case("ct_x", lambda: torch.cumulative_trapezoid(y, x))
case("ct_dx", lambda: torch.cumulative_trapezoid(y, dx=0.25, dim=0))
case("ct_bool", lambda: torch.cumulative_trapezoid(y, dx=True))
case("ct_int", lambda: torch.cumulative_trapezoid(torch.arange(6)))
def grads(fn, *xs):
    ts = [v.double().clone().requires_grad_() for v in xs]
    out = fn(*ts)
    w = torch.linspace(-1, 2, out.numel(), dtype=torch.float64).reshape(out.shape)
    return [out.grad_fn.name()] + list(torch.autograd.grad((out * w).sum(), ts))
case("g_tz_x", lambda: grads(torch.trapezoid, y, x))
case("g_tz_dx", lambda: grads(lambda v: torch.trapezoid(v, dx=0.5), y))
case("g_ct_x", lambda: grads(torch.cumulative_trapezoid, y, x))
print(json.dumps(out))
"""


def test_trapezoid_family_agrees_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["tz_bool"][:2] == ["raises", "RuntimeError"]
