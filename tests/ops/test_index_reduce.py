"""index_reduce (and index_reduce.out, index_reduce_), ours and upstream each in its own
process: prod, mean, amax and amin with and without include_self, bit for bit in every dtype
upstream computes (1-d and 2-d+ paths, repeated indices, NaN in self and source, int32 index,
negative dim, non-contiguous self), meta, out= and in-place, errors in upstream's words and
order, and the gradients of self and source (IndexReduceBackward0).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
nan = float("nan")
_bits = bits
def bits(r, **kw):  # complex values as (real, imag) pairs
    return _bits(torch.view_as_real(r) if r.is_complex() else r, **kw)
x = torch.randn(5, 4) * 3
src = torch.randn(6, 4) * 3
x[1, 2] = nan
src[3, 1] = nan
src[2, 0] = 0.0
idx = torch.tensor([0, 2, 2, 4, 0, 2])
reds = ["prod", "mean", "amax", "amin"]
for dt in ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8",
           "bool", "complex64"]:
    def conv(v):
        if dt.startswith("float") or dt == "bfloat16":
            return v.to(getattr(torch, dt))
        if dt == "bool":
            return v.nan_to_num(0.0) > 0
        if dt.startswith("complex"):
            return v.nan_to_num(1.0).to(getattr(torch, dt))
        return v.nan_to_num(2.0).round().clamp(0 if dt == "uint8" else -9, 9).to(
            getattr(torch, dt))
    xd, sd = conv(x), conv(src)
    for red in reds:
        for inc in (True, False):
            case(f"{dt}_{red}_{inc}", lambda: bits(xd.index_reduce(0, idx, sd, red,
                                                                   include_self=inc)))
            case(f"{dt}_{red}_{inc}_1d", lambda: bits(xd[:, 1].index_reduce(
                0, idx, sd[:, 1], red, include_self=inc)))
            case(f"{dt}_{red}_{inc}_dim1", lambda: bits(xd.t().index_reduce(
                -1, idx.int(), sd.t(), red, include_self=inc), strides=True))
for red in reds:
    case(f"bad_index_dtype_{red}", lambda: x.index_reduce(0, idx.float(), src, red))
case("bad_reduce", lambda: x.index_reduce(0, idx, src, "sum"))
case("bad_source_dtype", lambda: x.index_reduce(0, idx, src.double(), "prod"))
case("bad_index_dim", lambda: x.index_reduce(0, idx[None], src, "prod"))
case("bad_count", lambda: x.index_reduce(0, idx[:3], src, "prod"))
case("bad_index", lambda: x.index_reduce(0, torch.tensor([0, 1, 2, 3, 4, 5]), src, "mean"))
case("bad_index_1d", lambda: x[:, 0].index_reduce(0, torch.tensor([0, 9, 1, 1, 1, 1]),
                                                  src[:, 0], "mean"))
case("bad_dim", lambda: x.index_reduce(2, idx, src, "prod"))
case("bad_source_dim", lambda: x.index_reduce(1, idx, src[:, 0], "prod"))
case("meta", lambda: list(x.to("meta").index_reduce(0, idx.to("meta"), src.to("meta"),
                                                    "mean").stride()))
o = torch.zeros(2)
case("out", lambda: [bits(torch.index_reduce(x, 0, idx, src, "amax", out=o)), bits(o)])
case("out_dtype", lambda: torch.index_reduce(x, 0, idx, src, "amax",
                                             out=torch.empty(0, dtype=torch.double)))
case("inplace", lambda: bits(x.clone().index_reduce_(0, idx, src, "mean", include_self=False)))
gx = x.nan_to_num(1.5).double()
gs = src.nan_to_num(0.5).double()
gs[4, 2] = 0.0   # two zeros scattered to the same row (prod)
gs[0, 2] = 0.0
gx[4, 3] = 0.0
def grads(red, inc, g_self=True, g_src=True):
    a, b = gx.clone().requires_grad_(g_self), gs.clone().requires_grad_(g_src)
    r = a.index_reduce(0, idx, b, red, include_self=inc)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    ins = [t for t in (a, b) if t.requires_grad]
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), ins)]
for red in reds:
    for inc in (True, False):
        case(f"g_{red}_{inc}", lambda: grads(red, inc))
        case(f"g_{red}_{inc}_self", lambda: grads(red, inc, g_src=False))
print(json.dumps(out))
"""


def test_index_reduce_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_prod_True"][0] == "IndexReduceBackward0"
    assert upstream["bad_reduce"][0] == "raises"
