"""mode along a dim (mode and its out= form mode.values), ours and upstream each in its own
process: values bit for bit and the indices exactly in every dtype upstream computes, ties of
frequency (the smallest such value) and the index reported for the mode (the last of its run in
upstream's unstable sort order, long rows included), NaN (never equal to itself), keepdim,
negative dims, 0-d and empty inputs, non-contiguous input, meta, out= (resizing and its dtype
checks), errors in upstream's words, and the gradient (ModeBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
nan = float("nan")
x = torch.randint(-3, 4, (4, 6, 5)).float()
x[1, 2, 1] = nan
x[1, 3, 1] = nan
x[2, :, 3] = nan
long_rows = torch.randint(0, 9, (3, 200)).float()
long_rows[1, ::7] = nan
for dt in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool"]:
    def conv(v):
        if dt.startswith("float") or dt == "bfloat16":
            return v.to(getattr(torch, dt))
        if dt == "bool":
            return v.nan_to_num(0.0) > 0
        return (v.nan_to_num(2.0) + 3).to(getattr(torch, dt))
    xd, ld = conv(x), conv(long_rows)
    for dim in (0, 1, 2, -1):
        for keep in (False, True):
            case(f"{dt}_{dim}_{keep}", lambda: [bits(r) for r in torch.mode(xd, dim, keep)])
    case(f"{dt}_default", lambda: [bits(r) for r in torch.mode(xd)])
    case(f"{dt}_long", lambda: [bits(r) for r in torch.mode(ld)])
    case(f"{dt}_long_t", lambda: [bits(r) for r in torch.mode(ld.t().contiguous(), 0)])
    case(f"{dt}_t", lambda: [bits(r) for r in torch.mode(xd.transpose(0, 2), 1)])
    case(f"{dt}_0d", lambda: [bits(r) for r in torch.mode(xd[0, 0, 0], 0)])
    case(f"{dt}_0d_keep", lambda: [bits(r) for r in torch.mode(xd[0, 0, 0], -1, True)])
    case(f"{dt}_empty", lambda: [bits(r) for r in torch.mode(xd[:, :0], 0)])
case("complex", lambda: torch.mode(torch.ones(2, 3, dtype=torch.complex64), 0))
case("complex_0d", lambda: torch.mode(torch.tensor(1 + 2j), 0))
case("complex_empty", lambda: torch.mode(torch.ones(0, 3, dtype=torch.complex64), 1))
case("empty_reduced", lambda: torch.mode(torch.ones(2, 0), 1))
case("bad_dim", lambda: torch.mode(x, 3))
case("bad_dim_0d", lambda: torch.mode(torch.tensor(1.0), 2))
case("meta", lambda: [list(r.shape) for r in torch.mode(x.to("meta"), 1)])
case("meta_keep", lambda: [(list(r.shape), str(r.dtype)) for r in torch.mode(x.to("meta"), 1,
                                                                               True)])
vo, io = torch.zeros(3), torch.zeros(3, dtype=torch.long)
case("out", lambda: [bits(r) for r in torch.mode(x, 1, out=(vo, io))] + [bits(vo), bits(io)])
case("out_val_dtype", lambda: torch.mode(x, 1, out=(torch.empty(0, dtype=torch.float64),
                                                    torch.empty(0, dtype=torch.long))))
case("out_idx_dtype", lambda: torch.mode(x, 1, out=(torch.empty(0), torch.empty(0))))
def grads(fn, v):
    t = v.double().clone().requires_grad_()
    r = fn(t)[0]
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
gx = x.nan_to_num(1.0)
case("g_mode", lambda: grads(lambda t: torch.mode(t, 1), gx))
case("g_mode_keep", lambda: grads(lambda t: torch.mode(t, -1, True), gx))
case("g_mode_0d", lambda: grads(lambda t: torch.mode(t, 0), torch.tensor(2.0)))
print(json.dumps(out))
"""


def test_mode_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_mode"][0] == "ModeBackward0"
    assert upstream["complex"][0] == "raises"
