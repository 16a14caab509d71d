"""quantile and nanquantile (q a float or a tensor, with their out= forms), ours and upstream
each in its own process: values bit for bit in float32 and float64 for every interpolation, q
0-d, 1-D, 0 and 1, along each dim (keepdim or not) and over every element, rows with NaN
(quantile: NaN; nanquantile: over the rest, an all-NaN row), 0-d input, meta, out= (resizing
and its checks), errors in upstream's words and order, and the gradients with the node chain's
head (SqueezeBackward4).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
nan = float("nan")
x = torch.randn(4, 6, 5)
x[1, 2, :] = nan
x[2, 0, 1] = nan
x[3, :, 4] = nan
fns = {"quantile": torch.quantile, "nanquantile": torch.nanquantile}
modes = ["linear", "lower", "higher", "midpoint", "nearest"]
for dt in ["float32", "float64"]:
    xd = x.to(getattr(torch, dt))
    qs = {"s": 0.3, "t0": torch.tensor(0.7, dtype=xd.dtype),
          "t1": torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0], dtype=xd.dtype)}
    for name, f in fns.items():
        for qn, q in qs.items():
            for m in modes:
                case(f"{name}_{dt}_{qn}_{m}", lambda: bits(f(xd, q, interpolation=m)))
                for dim in (0, 1, -1):
                    for keep in (False, True):
                        case(f"{name}_{dt}_{qn}_{m}_{dim}_{keep}",
                             lambda: bits(f(xd, q, dim, keep, interpolation=m)))
            case(f"{name}_{dt}_{qn}_keep_all", lambda: bits(f(xd, q, keepdim=True)))
            case(f"{name}_{dt}_{qn}_0d", lambda: bits(f(xd[0, 0, 0], q, 0)))
            case(f"{name}_{dt}_{qn}_0d_all", lambda: bits(f(xd[0, 0, 0], q)))
            case(f"{name}_{dt}_{qn}_t", lambda: bits(f(xd.transpose(0, 2), q, 1)))
        case(f"{name}_{dt}_all_nan", lambda: bits(f(torch.full((2, 3), nan, dtype=xd.dtype),
                                                    0.5, 1)))
for name, f in fns.items():
    case(f"{name}_q_high", lambda: f(x, 1.5))
    case(f"{name}_q_low", lambda: f(x, -0.5))
    case(f"{name}_qt_range", lambda: f(x, torch.tensor([0.5, 1.5])))
    case(f"{name}_qt_nan", lambda: f(x, torch.tensor(nan)))
    case(f"{name}_q_2d", lambda: f(x, torch.tensor([[0.5]])))
    case(f"{name}_long", lambda: f(x.long(), 0.5))
    case(f"{name}_q_dtype", lambda: f(x, torch.tensor(0.5, dtype=torch.double)))
    case(f"{name}_empty", lambda: f(x[:0], 0.5))
    case(f"{name}_empty_q_high", lambda: f(x[:0], 1.5))
    case(f"{name}_interp", lambda: f(x, 0.5, interpolation="foo"))
    case(f"{name}_interp_bad_dim", lambda: f(x, 0.5, dim=7, interpolation="foo"))
    case(f"{name}_bad_dim", lambda: f(x, 0.5, dim=3))
    case(f"{name}_meta", lambda: list(f(x.to("meta"), 0.5, dim=1).shape))
    case(f"{name}_meta_t1", lambda: list(f(x.to("meta"), torch.tensor([0.1, 0.2],
                                                                       device="meta")).shape))
    o = torch.zeros(2)
    case(f"{name}_out", lambda: [bits(f(x, 0.4, 1, out=o)), bits(o)])
    case(f"{name}_out_t", lambda: [bits(f(x, torch.tensor([0.2, 0.8]), 2, True, out=o)),
                                   bits(o)])
    case(f"{name}_out_dtype", lambda: f(x, 0.5, out=torch.empty(0, dtype=torch.double)))
    case(f"{name}_out_dtype_bad_q", lambda: f(x, 1.5, out=torch.empty(0, dtype=torch.double)))
gx = torch.randn(4, 6, 5, dtype=torch.float64)
gx[1, 2, 3] = nan
def grads(fn):
    t = gx.clone().requires_grad_()
    r = fn(t)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
for name, f in fns.items():
    for m in modes:
        case(f"g_{name}_{m}", lambda: grads(lambda t: f(t, 0.3, 1, interpolation=m)))
    case(f"g_{name}_t1", lambda: grads(lambda t: f(t, torch.tensor([0.2, 0.6],
                                                                   dtype=torch.float64), -1)))
    case(f"g_{name}_all", lambda: grads(lambda t: f(t, 0.6)))
print(json.dumps(out))
"""


def test_quantile_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_quantile_linear"][0] == "SqueezeBackward4"
    assert upstream["quantile_interp"][0] == "raises"
