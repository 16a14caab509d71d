"""aminmax (and aminmax.out), ours and upstream each in its own process: min and max bit for
bit over every element and along each dim (keepdim or not) in every dtype upstream computes,
NaN propagation, 0-d and empty inputs (upstream's two refusals), non-contiguous input, meta,
out= (resizing and its dtype check), and the gradient through either output or both
(AminmaxBackward0, ties sharing the gradient). Which NaN comes out is not claimed: upstream's
vectorised reductions write an all-ones NaN in some paths (the whole tensor's, bfloat16 along a
dim) where ours returns the input's NaN; NaN positions and every other bit agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
nan = float("nan")
nb = lambda r: bits(r, nan_payload=False)  # which NaN: see the module docstring
x = torch.randint(-3, 4, (4, 6, 5)).float()
x[1, 2, 1] = nan
x[2, :, 3] = nan
for dt in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool"]:
    if dt.startswith("float") or dt == "bfloat16":
        xd = x.to(getattr(torch, dt))
    elif dt == "bool":
        xd = x.nan_to_num(0.0) > 0
    else:
        xd = (x.nan_to_num(2.0) + 3).to(getattr(torch, dt))
    case(f"all_{dt}", lambda: [nb(r) for r in torch.aminmax(xd)])
    case(f"all_keep_{dt}", lambda: [nb(r) for r in torch.aminmax(xd, keepdim=True)])
    case(f"row_{dt}", lambda: [nb(r) for r in torch.aminmax(xd[0])])
    for dim in (0, 1, 2, -1):
        for keep in (False, True):
            case(f"{dt}_{dim}_{keep}", lambda: [nb(r) for r in torch.aminmax(xd, dim=dim,
                                                                                keepdim=keep)])
    case(f"{dt}_t", lambda: [nb(r) for r in torch.aminmax(xd.transpose(0, 2), dim=1)])
    case(f"{dt}_0d", lambda: [nb(r) for r in torch.aminmax(xd[0, 0, 0], dim=0)])
    case(f"{dt}_0d_keep", lambda: [nb(r) for r in torch.aminmax(xd[0, 0, 0], dim=-1,
                                                                  keepdim=True)])
    case(f"{dt}_0d_all", lambda: [nb(r) for r in torch.aminmax(xd[0, 0, 0], keepdim=True)])
case("complex", lambda: torch.aminmax(torch.ones(3, dtype=torch.complex64)))
case("empty", lambda: torch.aminmax(torch.ones(0, 3)))
case("empty_dim", lambda: torch.aminmax(torch.ones(0, 3), dim=0))
case("empty_other_dim", lambda: [nb(r) for r in torch.aminmax(torch.ones(0, 3), dim=1)])
case("bad_dim", lambda: torch.aminmax(x, dim=3))
case("bad_dim_0d", lambda: torch.aminmax(torch.tensor(1.0), dim=1))
case("meta", lambda: [list(r.shape) for r in torch.aminmax(x.to("meta"), dim=1)])
case("meta_all", lambda: [list(r.shape) for r in torch.aminmax(x.to("meta"), keepdim=True)])
lo, hi = torch.zeros(1), torch.zeros(1)
case("out", lambda: [nb(r) for r in torch.aminmax(x, dim=1, out=(lo, hi))] + [nb(lo), nb(hi)])
case("out_dtype", lambda: torch.aminmax(x, out=(torch.empty(0, dtype=torch.double),
                                                torch.empty(0))))
case("out_dtype_empty", lambda: torch.aminmax(torch.ones(0), out=(torch.empty(0),
                                                                  torch.empty(0, dtype=torch.int))))
gx = x.nan_to_num(1.0).double()
def grads(which, **kw):
    t = gx.clone().requires_grad_()
    lo, hi = torch.aminmax(t, **kw)
    w = torch.linspace(-1, 2, lo.numel(), dtype=torch.float64).reshape(lo.shape)
    loss = {"min": (lo * w).sum(), "max": (hi * w).sum(), "both": (lo * w + hi * w.cos()).sum()}
    return [lo.grad_fn.name()] + [bits(g) for g in torch.autograd.grad(loss[which], [t])]
for which in ("min", "max", "both"):
    case(f"g_{which}", lambda: grads(which))
    case(f"g_{which}_keep", lambda: grads(which, keepdim=True))
    case(f"g_{which}_dim", lambda: grads(which, dim=1))
    case(f"g_{which}_dim_keep", lambda: grads(which, dim=-1, keepdim=True))
print(json.dumps(out))
"""


def test_aminmax_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_both"][0] == "AminmaxBackward0"
    assert upstream["empty"][0] == "raises"
