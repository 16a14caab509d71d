"""median and nanmedian: the whole tensor's (median, nanmedian) and along a dim (.dim and the
out= form .dim_values), ours and upstream each in its own process: values bit for bit and the
indices exactly in every real dtype, ties (the element of rank (n - 1) / 2 in (value, index)
order), NaN rows (median: the first NaN and its index; nanmedian: the median of the rest, an
all-NaN row), keepdim, negative dims, 0-d and empty inputs, non-contiguous input, meta, out=
(resizing and its dtype checks), errors in upstream's words, and the gradients (node names).
An empty tensor's median is NaN converted to its dtype as upstream's x86 build converts it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
nan = float("nan")
x = torch.randint(-4, 5, (5, 7, 6)).float()   # many ties
x[1, 2, :] = nan
x[2, :3, 1] = nan
x[3, 4, 2] = nan
fns = {"median": torch.median, "nanmedian": torch.nanmedian}
for dt in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8"]:
    xd = (x if dt.startswith("float") or dt == "bfloat16" else x.nan_to_num(3.0)).to(
        getattr(torch, dt))
    if dt == "uint8":
        xd = (x.nan_to_num(3.0) + 4).to(torch.uint8)
    for name, f in fns.items():
        case(f"{name}_{dt}", lambda: bits(f(xd)))
        case(f"{name}_{dt}_row", lambda: bits(f(xd[0, 0])))
        for dim in (0, 1, 2, -1):
            for keep in (False, True):
                case(f"{name}_{dt}_{dim}_{keep}", lambda: [bits(r) for r in f(xd, dim, keep)])
        case(f"{name}_{dt}_t", lambda: [bits(r) for r in f(xd.transpose(0, 2), 1)])
        case(f"{name}_{dt}_0d", lambda: [bits(r) for r in f(xd[0, 0, 0], 0)])
        case(f"{name}_{dt}_0d_keep", lambda: [bits(r) for r in f(xd[0, 0, 0], -1, True)])
        case(f"{name}_{dt}_empty", lambda: bits(f(xd[:0])))
        case(f"{name}_{dt}_empty_dim", lambda: [bits(r) for r in f(xd[:, :0], 0)])
for name, f in fns.items():
    case(f"{name}_all_nan", lambda: bits(f(torch.full((9,), nan))))
    case(f"{name}_even", lambda: bits(f(torch.tensor([4.0, 1.0, 3.0, 2.0]))))
    case(f"{name}_bool", lambda: f(torch.ones(3, dtype=torch.bool)))
    case(f"{name}_bool_dim", lambda: f(torch.ones(3, dtype=torch.bool), 0))
    case(f"{name}_complex", lambda: f(torch.ones(3, dtype=torch.complex64)))
    case(f"{name}_empty_bool", lambda: f(torch.ones(0, dtype=torch.bool)))
    case(f"{name}_empty_complex", lambda: str(f(torch.ones(0, dtype=torch.complex64))))
    case(f"{name}_complex_dim", lambda: f(torch.ones(3, dtype=torch.complex64), 0))
    case(f"{name}_empty_reduced", lambda: f(torch.ones(2, 0), 1))
    case(f"{name}_bad_dim", lambda: f(x, 3))
    case(f"{name}_bad_dim_0d", lambda: f(torch.tensor(1.0), 1))
    case(f"{name}_meta", lambda: [list(r.shape) for r in f(x.to("meta"), 1)])
    case(f"{name}_meta_keep", lambda: [str(r.dtype) for r in f(x.to("meta"), 1, True)])
    case(f"{name}_meta_empty_dim", lambda: [list(r.shape) for r in f(torch.ones(2, 0,
                                                                              device="meta"), 1)])
    case(f"{name}_meta_all", lambda: list(f(x.to("meta")).shape))
    vo, io = torch.zeros(3), torch.zeros(3, dtype=torch.long)
    case(f"{name}_out", lambda: [bits(r) for r in f(x, 1, out=(vo, io))] + [bits(vo), bits(io)])
    case(f"{name}_out_idx_dtype", lambda: f(x, 1, out=(torch.empty(0), torch.empty(0))))
    case(f"{name}_out_val_dtype", lambda: f(x, 1, out=(torch.empty(0, dtype=torch.float64),
                                                       torch.empty(0, dtype=torch.long))))
    def grads(fn, v=x, name=name):
        t = v.double().nan_to_num(7.0).clone().requires_grad_()
        r = fn(t)
        r = r[0] if isinstance(r, tuple) else r
        w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
        return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
    case(f"g_{name}", lambda: grads(fns[name]))
    case(f"g_{name}_dim", lambda: grads(lambda t: fns[name](t, 1)))
    case(f"g_{name}_dim_keep", lambda: grads(lambda t: fns[name](t, -1, True)))
    case(f"g_{name}_0d", lambda: grads(lambda t: fns[name](t, 0), torch.tensor(2.0)))
print(json.dumps(out))
"""


def test_median_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_nanmedian_dim"][0] == "NanmedianBackward1"
    assert upstream["median_bool"][0] == "raises"
