"""Gather, scatter and index_add forward and backward against upstream, each side in its own
process (issue 8, "ops training needs").

Acceptance: gather, scatter (.src, .value, reduce='add'/'multiply'), scatter_add,
scatter_reduce.two (every reduce, include_self or not; prod, amax and amin differentiated
through ties and zeros), index_add (alpha 1 and 2),
take_along_dim (with and without dim) and embedding's backward (padding_idx,
scale_grad_by_freq) give upstream's bits, forward and gradients, in float32, float64,
bfloat16 and float16 (and int64 forwards): each destination combines its values in upstream's
order. The same spellings in place, and on the meta device (shapes only), agree too. Bad
indices, shapes and dtypes raise upstream's exception type and message; scatter's reduce=
overloads record upstream's NotImplemented node and raise its RuntimeError at backward.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn.functional as F
out = {}
def hexof(t):
    t = t.detach()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return [str(t.dtype), list(t.shape), t.contiguous().numpy().tobytes().hex()]
def data(dtype):
    g = torch.Generator().manual_seed(11)
    x = torch.randn(5, 6, generator=g, dtype=torch.float64).to(dtype)
    src = torch.randn(5, 6, generator=g, dtype=torch.float64).to(dtype)
    i1 = torch.randint(0, 6, (5, 4), generator=g)   # along dim 1, duplicates likely
    i0 = torch.randint(0, 5, (3, 6), generator=g)   # along dim 0
    go = torch.randn(5, 6, generator=g, dtype=torch.float64).to(dtype)
    return x, src, i1, i0, go
def case(name, fn, dtype):
    try:
        x, src, i1, i0, go = data(dtype)
        grads = dtype.is_floating_point
        x.requires_grad_(grads)
        src.requires_grad_(grads)
        y = fn(x, src, i1, i0)
        res = {"y": hexof(y)}
        if y.requires_grad:
            y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(2),
                                   dtype=torch.float64).to(dtype))
            res["fn"] = y.grad_fn.name() if y.grad_fn else None
            res["gx"] = hexof(x.grad) if x.grad is not None else None
            res["gs"] = hexof(src.grad) if src.grad is not None else None
        out[name] = res
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

BITS = r'''
CASES = {
    "gather 1": lambda x, s, i1, i0: torch.gather(x, 1, i1),
    "gather 0": lambda x, s, i1, i0: torch.gather(x, 0, i0),
    "gather -1 int32": lambda x, s, i1, i0: torch.gather(x, -1, i1.int()),
    "gather transposed": lambda x, s, i1, i0: torch.gather(x.t(), 0, i1.t()),
    "scatter src": lambda x, s, i1, i0: x.scatter(1, i1[:, :1], s[:, :1]),
    "scatter src 0": lambda x, s, i1, i0: x.scatter(0, i0[:1], s[:1]),
    "scatter value": lambda x, s, i1, i0: x.scatter(1, i1, 2.5),
    "scatter reduce add": lambda x, s, i1, i0: x.detach().scatter(1, i1, s.detach(), reduce="add"),
    "scatter reduce multiply": lambda x, s, i1, i0: x.detach().scatter(1, i1, s.detach(),
                                                                      reduce="multiply"),
    "scatter value multiply": lambda x, s, i1, i0: x.detach().scatter(1, i1, 3.0,
                                                                     reduce="multiply"),
    "scatter_add 1": lambda x, s, i1, i0: x.scatter_add(1, i1, s[:, :4]),
    "scatter_add 0": lambda x, s, i1, i0: torch.scatter_add(x, 0, i0, s[:3]),
    "scatter_add in place": lambda x, s, i1, i0: (x * 1).scatter_add_(1, i1, s[:, :4]),
    "scatter in place": lambda x, s, i1, i0: (x * 1).scatter_(1, i1[:, :1], s[:, :1]),
    "index_add 0": lambda x, s, i1, i0: x.index_add(0, torch.tensor([4, 0, 4]), s[:3]),
    "index_add 1 alpha": lambda x, s, i1, i0: x.index_add(1, torch.tensor([1, 1, 5]),
                                                          s[:, :3], alpha=2),
    "index_add 0 alpha 0.3": lambda x, s, i1, i0: x.index_add(0, torch.tensor([4, 0, 4]), s[:3],
                                                              alpha=0.3),
    "index_add 1 alpha 0.3": lambda x, s, i1, i0: x.index_add(1, torch.tensor([1, 1, 5]),
                                                              s[:, :3], alpha=0.3),
    "index_add 1-D alpha 0.3": lambda x, s, i1, i0: x[0].index_add(0, torch.tensor([2, 2]),
                                                                   s[1, :2], alpha=0.3),
    "index_add 1-D": lambda x, s, i1, i0: x[0].index_add(0, torch.tensor([2, 2, 0]), s[1, :3]),
    "index_add in place": lambda x, s, i1, i0: (x * 1).index_add_(0, torch.tensor([1, 1]),
                                                                 s[:2]),
    "take_along_dim": lambda x, s, i1, i0: torch.take_along_dim(x, i1, 1),
    "take_along_dim broadcast": lambda x, s, i1, i0: torch.take_along_dim(x, i1[:1], 1),
    "take_along_dim negative": lambda x, s, i1, i0: torch.take_along_dim(x, i1 - 6, 1),
    "take_along_dim flat": lambda x, s, i1, i0: torch.take_along_dim(x, i0),
}
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        CASES[f"scatter_reduce {red} {inc}"] = (
            lambda x, s, i1, i0, red=red, inc=inc: (x if red in ("sum", "mean") else x.detach())
            .scatter_reduce(1, i1, (s if red in ("sum", "mean") else s.detach())[:, :4], red,
                            include_self=inc))
# Every reduce differentiated, through values with ties (rounded, for amax/amin) and zeros (for
# prod: none, one or several per destination); the rounding keeps the gradient's path (r - r0
# is exactly 0).
def tied(t):
    return t - t.detach() + t.detach().round()
def zeroed(t):
    return t * (t.detach().abs() > 0.6)
for red in ("prod", "amax", "amin"):
    for inc in (True, False):
        CASES[f"scatter_reduce grad {red} {inc}"] = (
            lambda x, s, i1, i0, red=red, inc=inc: x.scatter_reduce(
                1, i1, s[:, :4], red, include_self=inc))
        CASES[f"scatter_reduce grad ties {red} {inc}"] = (
            lambda x, s, i1, i0, red=red, inc=inc: tied(x).scatter_reduce(
                1, i1, tied(s)[:, :4], red, include_self=inc))
        CASES[f"scatter_reduce grad zeros {red} {inc}"] = (
            lambda x, s, i1, i0, red=red, inc=inc: zeroed(x).scatter_reduce(
                1, i1, zeroed(s)[:, :4], red, include_self=inc))
CASES["scatter_reduce_ grad prod"] = lambda x, s, i1, i0: (x * 1).scatter_reduce_(
    1, i1, zeroed(s)[:, :4], "prod")
# scatter.reduce / .value_reduce: upstream's NotImplemented node raises at backward.
CASES["scatter reduce add grad raises"] = lambda x, s, i1, i0: x.scatter(1, i1, s, reduce="add")
CASES["scatter value multiply grad raises"] = lambda x, s, i1, i0: x.scatter(
    1, i1, 3.0, reduce="multiply")
for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64):
    for name, fn in CASES.items():
        case(f"{name} {dtype}", fn, dtype)
for dtype in (torch.float32, torch.float64, torch.bfloat16):
    for pad in (None, 2):
        for freq in (False, True):
            def emb(x, s, i1, i0, pad=pad, freq=freq):
                return F.embedding(i0, x, padding_idx=pad, scale_grad_by_freq=freq)
            case(f"embedding pad {pad} freq {freq} {dtype}", emb, dtype)
    # Rows of 40 and 70: a vector body and a scalar tail in upstream's add_.
    for width in (40, 70):
        def wide(x, s, i1, i0, width=width):
            w = x.detach().repeat(1, 12)[:, :width].requires_grad_()
            y = F.embedding(i0, w, scale_grad_by_freq=True)
            y.backward(torch.ones_like(y) / 3)
            return w.grad
        case(f"embedding width {width} {dtype}", wide, dtype)
'''

META = r'''
x = torch.empty(5, 6, device="meta")
i = torch.zeros(5, 4, dtype=torch.long, device="meta")
for name, fn in {
    "gather": lambda: torch.gather(x, 1, i),
    "scatter": lambda: x.scatter(1, i, x),
    "scatter_add": lambda: x.scatter_add(1, i, x),
    "scatter_reduce": lambda: x.scatter_reduce(1, i, x, "amax"),
    "index_add": lambda: x.index_add(0, torch.zeros(2, dtype=torch.long, device="meta"), x[:2]),
    "bad index dims": lambda: torch.gather(x, 1, i[0]),
}.items():
    try:
        y = fn()
        out[name] = [str(y.device), list(y.shape), str(y.dtype)]
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
'''

ERRORS = r'''
x = torch.randn(3, 4)
i = torch.tensor([[0], [1], [2]])
bad = {
    "gather int16 index": lambda: torch.gather(x, 1, i.short()),
    "gather dims": lambda: torch.gather(x, 1, torch.tensor([0, 1])),
    "gather size": lambda: torch.gather(x, 1, torch.tensor([[0], [1], [2], [1]])),
    "gather out of range": lambda: torch.gather(x, 1, torch.tensor([[0], [1], [4]])),
    "gather negative": lambda: torch.gather(x, 1, torch.tensor([[0], [-1], [2]])),
    "gather dim": lambda: torch.gather(x, 5, i),
    "scatter src dtype": lambda: x.scatter(1, i, x.double()),
    "scatter_add src dtype": lambda: x.scatter_add(1, i, x.double()),
    "scatter index dtype": lambda: x.scatter(1, i.short(), x),
    "scatter_add size": lambda: x.scatter_add(1, torch.tensor([[0], [1], [2], [0]]), x),
    "scatter value size": lambda: x.scatter(1, torch.tensor([[0], [1], [2], [0]]), 1.0),
    "scatter out of range": lambda: x.scatter(1, torch.tensor([[0], [1], [5]]), 1.0),
    "scatter_add dims": lambda: x.scatter_add(1, torch.tensor([0, 1]), x),
    "scatter bad reduce": lambda: x.scatter(1, i, 2.0, reduce="max"),
    "scatter_reduce bad reduce": lambda: x.scatter_reduce(1, i, x, reduce="max2"),
    "index_add count": lambda: x.index_add(1, torch.tensor([0, 1]), x),
    "index_add float index": lambda: x.index_add(1, torch.tensor([0, 1.]), x[:, :2]),
    "index_add out of range": lambda: x.index_add(1, torch.tensor([0, 7]), x[:, :2]),
    "index_add out of range 0": lambda: x.index_add(0, torch.tensor([0, -1]), x[:2]),
    "index_add 1-D out of range": lambda: x[0].index_add(0, torch.tensor([0, 7]), x[0, :2]),
    "index_add 2-D index": lambda: x.index_add(1, torch.tensor([[0, 1]]), x[:, :2]),
    "index_add dtype": lambda: x.index_add(1, torch.tensor([0, 1]), x[:, :2].double()),
    "index_add shape": lambda: x.index_add(1, torch.tensor([0, 1]), x[:2, :2]),
    "take_along_dim int32": lambda: torch.take_along_dim(x, i.int(), 1),
    "take_along_dim dims": lambda: torch.take_along_dim(x, torch.tensor([[[0, 1]]]), 1),
    "take_along_dim flat out of range": lambda: torch.take_along_dim(x, torch.tensor([0, 13])),
    "take_along_dim flat transposed": lambda: torch.take_along_dim(x.t(), i),
    "take_along_dim flat negative": lambda: torch.take_along_dim(x, torch.tensor([-1])),
    "take_along_dim below -size": lambda: torch.take_along_dim(x, i - 5, 1),
    "take_along_dim past size": lambda: torch.take_along_dim(x, i + 7, 1),
    "embedding index range": lambda: F.embedding(torch.tensor([0, 9]), x.requires_grad_()),
}
for name, fn in bad.items():
    try:
        out[name] = ["no error", str(fn().shape)]
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
'''


def test_gather_scatter_index_add_carry_upstreams_bits_forward_and_backward():
    ours, up = _both.both(PRELUDE, BITS)
    assert ours.keys() == up.keys()
    refused = [n for n, w in up.items() if "raises" in w]
    assert all("int64" in n or "grad raises" in n for n in refused), refused
    raised = [up[n]["raises"] for n in refused if "grad raises" in n]
    assert raised and all(r == ["RuntimeError", "derivative for aten::scatter is not implemented"]
                          for r in raised), raised
    bad = [f"{n}: {ours[n]} != {up[n]}" for n in up if ours[n] != up[n]]
    assert not bad, "\n".join(bad)


def test_meta_shapes_agree():
    ours, up = _both.both(PRELUDE, META)
    assert ours == up


def test_bad_indices_raise_upstreams_errors():
    ours, up = _both.both(PRELUDE, ERRORS)
    bad = [f"{n}: {ours[n]} != {up[n]}" for n in up if ours[n] != up[n]]
    assert not bad, "\n".join(bad)
