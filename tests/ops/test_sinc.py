"""sinc and special.sinc (issue 9), ours and upstream each in its own process, bit for bit: every
float dtype (the 16-bit ones through float), integers and bools in the default float dtype,
in-place and out=, 0 and the special values, meta, errors, and the gradient (SincBackward0,
upstream's formula step for step); complex refused by name (not written yet).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
vals = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 1e-8, -3e-5, 1e30, float("inf"), -float("inf"),
        float("nan"), 123.456, -7.25]
x = torch.cat([torch.tensor(vals), torch.randn(200) * 4])
for dt in ("float32", "float64", "bfloat16", "float16"):
    xd = x.to(getattr(torch, dt))
    case(f"sinc_{dt}", lambda: bits(torch.sinc(xd), nan_payload=False))
    case(f"sinc_t_{dt}", lambda: bits(torch.sinc(xd.reshape(2, -1).t()), nan_payload=False))
    case(f"sinc_inplace_{dt}", lambda: bits(xd.clone().sinc_(), nan_payload=False))
    case(f"special_{dt}", lambda: bits(torch.special.sinc(xd), nan_payload=False))
for dt in ("int64", "int8", "uint8", "bool"):
    xi = torch.arange(-3, 5).to(getattr(torch, dt))
    case(f"sinc_{dt}", lambda: bits(torch.sinc(xi)))
case("sinc_int_inplace", lambda: torch.arange(3).sinc_())
case("sinc_out", lambda: bits(torch.sinc(x, out=torch.empty(0, dtype=torch.float64)),
                              nan_payload=False))
case("special_out", lambda: bits(torch.special.sinc(x, out=torch.empty(0)), nan_payload=False))
case("sinc_out_int", lambda: torch.sinc(x, out=torch.empty(0, dtype=torch.int64)))
case("sinc_complex", lambda: bits(torch.view_as_real(torch.sinc(x[:4].cfloat()))))
case("sinc_meta", lambda: torch.sinc(torch.ones(3, 2, device="meta")).shape)
def grad(v):
    t = v.double().clone().requires_grad_()
    y = torch.sinc(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64)
    return [y.grad_fn.name(), bits(torch.autograd.grad((y * w).sum(), [t])[0], nan_payload=False)]
case("g_sinc", lambda: grad(x))
case("g_sinc_f32", lambda: grad(x[:20]).__len__())
print(json.dumps(out))
"""


def test_sinc_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    # complex: upstream computes it, ours refuses by name (not written yet)
    assert ours["sinc_complex"][:2] == ["raises", "NotImplementedError"]
    differ.pop("sinc_complex")
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_sinc"][0] == "SincBackward0"
