"""segment_reduce (+ out=) and _segment_reduce_backward, ours and upstream each in its own
process, bit for bit: the five reductions with lengths (int64 and int32) and offsets, with and
without initial, empty segments, ties and zeros and NaN (max/min's shared gradient, prod's
exclusive products), float32/float64/float16/bfloat16 (the 16-bit ones rounding each step),
batched lengths along axis 1 and a negative axis; values, gradients and node names; upstream's
errors (reduce names, dtypes, axis, unsafe sums, indices), meta and out=.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
REDS = ["sum", "mean", "max", "min", "prod"]
def fwd_bwd(data, red, **kw):
    x = data.clone().requires_grad_()
    y = torch.segment_reduce(x, red, **kw)
    w = ((torch.arange(y.numel()) % 5 - 2) / 4).to(y.dtype).reshape(y.shape)
    gx, = torch.autograd.grad((y * w).sum(), [x])
    return [y.grad_fn.name(), bits(y), bits(gx)]
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
    n = str(dt)[6:]
    data = torch.randn(7, 3, dtype=dt) * 3
    data[1, 0] = data[0, 0]  # a tie
    data[4, 1] = 0.0
    data[5, 1] = 0.0  # two zeros in one segment
    data[5, 2] = float("nan")
    L = torch.tensor([2, 0, 4, 1])
    O = torch.tensor([0, 2, 2, 6, 7])
    for red in REDS:
        for init in [None, 2.5, -1]:
            case(f"L_{n}_{red}_{init}", lambda: fwd_bwd(data, red, lengths=L, initial=init))
            case(f"L32_{n}_{red}_{init}", lambda: fwd_bwd(data, red, lengths=L.int(),
                                                           initial=init))
            case(f"O_{n}_{red}_{init}", lambda: fwd_bwd(data, red, offsets=O, initial=init))
        d3 = torch.randn(2, 5, 3, dtype=dt)
        d3[1, 3, 0] = d3[1, 4, 0]
        L2 = torch.tensor([[1, 4], [3, 2]])
        case(f"ax1_{n}_{red}", lambda: fwd_bwd(d3, red, lengths=L2, axis=1))
        case(f"axneg_{n}_{red}", lambda: fwd_bwd(d3, red, lengths=L2, axis=-2))
        case(f"ax1_off_{n}_{red}", lambda: fwd_bwd(
            d3, red, offsets=torch.tensor([[0, 1, 5], [0, 3, 5]]), axis=1))
        case(f"unsafe_{n}_{red}", lambda: fwd_bwd(data, red, lengths=L, unsafe=True))
        case(f"strided_{n}_{red}", lambda: fwd_bwd(data.t().contiguous().t(), red,
                                                   lengths=L.flip(0)))
x = torch.randn(5, 2)
errs = {
    "reduce": lambda: torch.segment_reduce(x, "foo", lengths=torch.tensor([5])),
    "amax": lambda: bits(torch.segment_reduce(x, "amax", lengths=torch.tensor([2, 3]))),
    "len_float": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([2.0, 3.0])),
    "off_float": lambda: torch.segment_reduce(x, "sum", offsets=torch.tensor([0.0, 5.0])),
    "data_int": lambda: torch.segment_reduce(x.long(), "sum", lengths=torch.tensor([5])),
    "sum_wrong": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([2, 2])),
    "negative": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([6, -1])),
    "empty_len": lambda: torch.segment_reduce(x, "sum",
                                              lengths=torch.tensor([], dtype=torch.long)),
    "axis": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 1]), axis=1),
    "axis_range": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([5]), axis=3),
    "none": lambda: torch.segment_reduce(x, "sum"),
    "indices": lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([5]),
                                            indices=torch.tensor([5])),
    "len_dims": lambda: torch.segment_reduce(x[:, 0], "sum", lengths=torch.tensor([[5]])),
    "bwd_double": lambda: torch.autograd.grad(torch.autograd.grad(torch.segment_reduce(
        x.clone().requires_grad_(), "sum", lengths=torch.tensor([5])).sum() * 1.0,
        [x], create_graph=True, allow_unused=True), [x], allow_unused=True),
}
for k, f in errs.items():
    case(f"err_{k}", f)
m = torch.randn(6, 3, device="meta")
ml, mo = torch.tensor([2, 4], device="meta"), torch.tensor([0, 2, 6], device="meta")
case("meta_L", lambda: list(torch.segment_reduce(m, "sum", lengths=ml).shape))
case("meta_O", lambda: list(torch.segment_reduce(m, "max", offsets=mo).shape))
case("meta_axis", lambda: list(torch.segment_reduce(m, "max", offsets=mo, axis=-1).shape))
case("meta_axis_far", lambda: list(torch.segment_reduce(m, "max", offsets=mo, axis=5).shape))
case("meta_bwd", lambda: list(aten._segment_reduce_backward(
    torch.randn(2, 3, device="meta"), torch.randn(2, 3, device="meta"), m, "sum",
    lengths=torch.tensor([2, 4], device="meta")).shape))
y = torch.segment_reduce(x, "mean", lengths=torch.tensor([2, 3]))
for dt in [torch.float32, torch.float64, torch.int64]:
    o = torch.zeros(3, dtype=dt)
    case(f"out_{dt}", lambda: [bits(aten.segment_reduce.out(
        x, "mean", lengths=torch.tensor([2, 3]), out=o)), bits(o)])
case("bwd_kernel", lambda: bits(aten._segment_reduce_backward(
    torch.ones(2, 2), y, x, "mean", offsets=torch.tensor([0, 2, 5]))))
print(json.dumps(out))
"""


def test_segment_reduce_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["L_float32_prod_None"][0] == "SegmentReduceBackward0"
    assert upstream["err_sum_wrong"][0] == "raises"
