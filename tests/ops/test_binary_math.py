"""atan2, hypot, logaddexp and logaddexp2 (functional, out=, in place where upstream has it;
issue 9, item 2), ours and upstream each in its own process: values bit for bit on contiguous
rows (upstream's vector path, SLEEF) and strided ones (its scalar path, std::), the 16-bit
floats, special values, integer promotion and refusals, node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, nan_payload=False)  # which NaN comes out is not claimed
a = torch.randn(1000) * 4
b = torch.randn(1000) * 4
special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-30, -1e30])
a[:7], b[:7] = special, special.flip(0)
a[7:14], b[7:14] = special, special
a2, b2 = a.reshape(40, 25).t(), b.reshape(40, 25).t()
for dt in ["float32", "float64", "bfloat16", "float16"]:
    x, y = a.to(getattr(torch, dt)), b.to(getattr(torch, dt))
    xs, ys = a2.to(x.dtype), b2.to(x.dtype)
    for name, f in [("atan2", torch.atan2), ("hypot", torch.hypot), ("lae", torch.logaddexp),
                    ("lae2", torch.logaddexp2)]:
        case(f"{name}_{dt}", lambda: bits(f(x, y)))
        case(f"{name}_s_{dt}", lambda: bits(f(xs, ys)))
        case(f"{name}_bcast_{dt}", lambda: bits(f(x.reshape(40, 25), y[:25])))
ints = torch.arange(-4, 5)
case("atan2_int", lambda: bits(torch.atan2(ints, ints.flip(0))))
case("atan2_mixed", lambda: bits(torch.atan2(ints, a[:9].double())))
case("hypot_int", lambda: torch.hypot(ints, ints))
case("lae_int", lambda: torch.logaddexp(ints, ints))
case("lae2_bool", lambda: torch.logaddexp2(ints > 0, ints > 1))
case("atan2_", lambda: bits(a.clone().atan2_(b)))
case("hypot_", lambda: bits(a.clone().hypot_(b)))
case("atan2_int_inplace", lambda: ints.clone().atan2_(ints))
o = torch.empty(0, dtype=torch.float64)
case("atan2_out", lambda: [bits(torch.atan2(a, b, out=o)), bits(o)])
case("lae_out_int", lambda: torch.logaddexp(a, b, out=torch.empty(0, dtype=torch.long)))
case("meta", lambda: [torch.atan2(a.to("meta"), b.to("meta")).shape,
                      torch.logaddexp2(a.to("meta"), 2 * b.to("meta")).shape])
def grads(fn):
    x = a[14:40].double().clone().requires_grad_()
    y = b[14:40].double().clone().requires_grad_()
    r = fn(x, y)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [x, y])]
case("g_atan2", lambda: grads(torch.atan2))
case("g_hypot", lambda: grads(torch.hypot))
case("g_lae", lambda: grads(torch.logaddexp))
case("g_lae2", lambda: grads(torch.logaddexp2))
print(json.dumps(out))
"""


def test_binary_math_agrees_bit_for_bit():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, sorted(differ)
    assert upstream["g_atan2"][0] == "Atan2Backward0"
    assert upstream["hypot_int"][0] == "raises"
