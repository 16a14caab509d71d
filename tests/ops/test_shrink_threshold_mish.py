"""threshold, hardshrink, softshrink, mish (functional, in place, out=) and their backward
kernels (issue 9, item 2), ours and upstream each in its own process: values bit for bit on
contiguous rows (upstream's vector path; mish through SLEEF) and strided ones (its scalar
path), NaN and signed zeros, the 16-bit floats, integer thresholds, errors, node names and
gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + BITS_PRELUDE + r"""
F = torch.nn.functional
x = torch.randn(1000) * 3
x[:7] = torch.tensor([0.0, -0.0, float("nan"), float("inf"), -float("inf"), 0.5, -0.5])
x2 = x.reshape(40, 25)
g = torch.randn(1000)
for dt in ["float32", "float64", "bfloat16", "float16"]:
    xd, gd = x.to(getattr(torch, dt)), g.to(getattr(torch, dt))
    xs = x2.to(xd.dtype).t()
    case("threshold_" + dt, lambda: bits(F.threshold(xd, 0.3, -2.5)))
    case("threshold_s_" + dt, lambda: bits(F.threshold(xs, 0.3, -2.5)))
    case("hardshrink_" + dt, lambda: bits(F.hardshrink(xd, 0.7)))
    case("hardshrink_s_" + dt, lambda: bits(F.hardshrink(xs, 0.7)))
    case("softshrink_" + dt, lambda: bits(F.softshrink(xd, 0.7)))
    case("softshrink_s_" + dt, lambda: bits(F.softshrink(xs, 0.3)))
    case("mish_" + dt, lambda: bits(F.mish(xd), False))
    case("mish_s_" + dt, lambda: bits(F.mish(xs), False))
    case("hs_bwd_" + dt, lambda: bits(torch.ops.aten.hardshrink_backward(gd, xd, 0.5)))
    case("ss_bwd_" + dt, lambda: bits(torch.ops.aten.softshrink_backward(gd, xd, 0.5)))
    case("mish_bwd_" + dt, lambda: bits(torch.ops.aten.mish_backward(gd, xd), False))
    case("mish_bwd_s_" + dt, lambda: bits(torch.ops.aten.mish_backward(
        g.reshape(40, 25).to(xd.dtype).t(), xs), False))
ints = torch.arange(-5, 6)
case("threshold_int", lambda: bits(F.threshold(ints, 1.7, 9)))
case("threshold_uint8", lambda: bits(F.threshold(ints.abs().to(torch.uint8), 2, 100)))
case("threshold_bool", lambda: F.threshold(ints > 0, 0, 1))
case("threshold_overflow", lambda: F.threshold(ints.to(torch.int8), 0, 300))
case("threshold_inplace", lambda: bits(F.threshold(x.clone(), 0.1, 5.0, inplace=True)))
case("threshold_out_int", lambda: torch._C._nn.threshold(x, 0.1, 2, out=torch.empty(0, dtype=torch.long)) if hasattr(torch._C._nn, "threshold") else torch.threshold(x, 0.1, 2, out=torch.empty(0, dtype=torch.long)))
case("hardshrink_int", lambda: F.hardshrink(ints))
case("softshrink_neg", lambda: F.softshrink(x, -1.0))
case("softshrink_big_half", lambda: F.softshrink(x.half(), 70000.0))
case("softshrink_neg_double", lambda: F.softshrink(x.double(), -0.25))
case("mish_inplace", lambda: bits(F.mish(x.clone(), inplace=True)))
case("mish_int", lambda: F.mish(ints))
case("meta", lambda: [F.mish(x.to("meta")).shape, F.softshrink(x.to("meta")).shape])
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
xf = x[7:]
case("g_threshold", lambda: grads(lambda t: F.threshold(t, 0.2, 3.0), xf))
case("g_threshold_", lambda: grads(lambda t: torch.threshold_(t * 1, 0.2, 3.0), xf))
case("g_hardshrink", lambda: grads(lambda t: F.hardshrink(t, 0.4), xf))
case("g_softshrink", lambda: grads(lambda t: F.softshrink(t, 0.4), xf))
case("g_mish", lambda: grads(F.mish, xf))
case("gg_hardshrink", lambda: second_order(lambda t: F.hardshrink(t, 0.3), x[7:40]))
case("gg_softshrink", lambda: second_order(lambda t: F.softshrink(t, 0.3), x[7:40]))
print(json.dumps(out))
"""


def test_shrink_threshold_mish_agree_bit_for_bit():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, sorted(differ)
    assert upstream["g_softshrink"][0] == "SoftshrinkBackward0"
    assert upstream["threshold_bool"][0] == "raises"
