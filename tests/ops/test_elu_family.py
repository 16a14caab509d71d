"""elu, selu, celu (functional, in place, out=) and elu_backward (issue 9, item 2), ours and
upstream each in its own process: values bit for bit on contiguous rows (upstream's vector
path: SLEEF's expm1 / exp) and strided ones (its scalar path: std::expm1 / exp), NaN and
signed zeros, the 16-bit floats, errors, node names and gradients.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + BITS_PRELUDE + r"""
F = torch.nn.functional
x = torch.randn(1000) * 3
x[:6] = torch.tensor([0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e-8])
x2 = x.reshape(40, 25)
for dt in ["float32", "float64", "bfloat16", "float16"]:
    xd = x.to(getattr(torch, dt))
    case("elu_" + dt, lambda: bits(F.elu(xd)))
    case("elu_args_" + dt, lambda: bits(torch.ops.aten.elu(xd, 0.7, 1.3, 0.6)))
    case("elu_strided_" + dt, lambda: bits(F.elu(x2.to(xd.dtype).t())))
    case("selu_" + dt, lambda: bits(torch.selu(xd)))
    case("celu_" + dt, lambda: bits(torch.celu(xd, 0.4)))
    g = torch.randn(1000).to(xd.dtype)
    for is_result in (False, True):
        case(f"elu_bwd_{is_result}_{dt}", lambda: bits(torch.ops.aten.elu_backward(
            g, 0.7, 1.3, 0.6, is_result, F.elu(xd, 0.7) if is_result else xd)))
        case(f"elu_bwd_strided_{is_result}_{dt}", lambda: bits(torch.ops.aten.elu_backward(
            g.reshape(40, 25).t(), 1.0, 1.0, 1.0, is_result, x2.to(xd.dtype).t())))
case("elu_int", lambda: F.elu(torch.arange(3)))
case("elu_inplace", lambda: [bits(F.elu(x.clone(), inplace=True))])
case("selu_inplace", lambda: bits(torch.selu_(x.clone())))
case("celu_inplace", lambda: bits(torch.celu_(x.clone(), 2.0)))
case("celu_zero", lambda: torch.celu(x, 0.0))
o = torch.empty(0)
case("elu_out", lambda: [bits(torch._C._nn.elu(x, out=o)), bits(o)])
case("elu_out_dtype", lambda: torch._C._nn.elu(x, out=torch.empty(0, dtype=torch.float64)))
case("elu_meta", lambda: F.elu(x.to("meta")).shape)
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    y = fn(t)
    w = torch.linspace(-1, 2, y.numel(), dtype=torch.float64).reshape(y.shape)
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), [t])]
case("g_elu", lambda: grads(lambda t: F.elu(t, 0.8), x[6:]))
case("g_elu_", lambda: grads(lambda t: F.elu(t * 1, 0.8, inplace=True), x[6:]))
case("g_selu", lambda: grads(torch.selu, x[6:]))
case("g_celu", lambda: grads(lambda t: torch.celu(t, 0.3), x[6:]))
case("g_celu_", lambda: grads(lambda t: torch.celu_(t * 1, 0.3), x[6:]))
case("gg_elu", lambda: second_order(lambda t: F.elu(t, 0.7), x[7:40]))
case("gg_elu_", lambda: second_order(lambda t: F.elu(t * 1, 0.7, inplace=True), x[7:40]))
case("gg_celu", lambda: second_order(lambda t: torch.celu(t, 0.4), x[7:40]))
print(json.dumps(out))
"""


def test_elu_family_agrees_bit_for_bit():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, sorted(differ)
    assert upstream["g_elu_"][0] == "EluBackward1"
    assert upstream["g_celu"][0] == "CeluBackward0"
