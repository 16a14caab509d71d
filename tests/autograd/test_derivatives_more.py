"""The derivatives of pointwise_more.cpp, reductions.cpp and shape_more.cpp (and digamma's and
polygamma's of pointwise3.cpp) against upstream, each side in its own process, first and second
order (issue 8, item 7).

Acceptance: for each expression, the gradient of every input (float32) and the gradient of
the sum of those gradients (create_graph=True: the formulas' door ops record, so double
backward runs) are within upstream's own float32 error of upstream's float64 answer (derived:
the largest |float32 - float64| of upstream's result, never below 4 float32 ulps of the largest
element); each node is named as upstream's. The harness grades every OpInfo sample of these
ops backward too (`make agree`, docs/AGREEMENT.md's backward columns).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.autograd._grad_checks import bound, node_name_mismatches
from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def inputs(dtype):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4, 5, generator=g, dtype=torch.float64)
    y = torch.randn(4, 5, generator=g, dtype=torch.float64)
    x[0, 0] = 0.0
    y[1, 1] = x[1, 1]
    return x.to(dtype).requires_grad_(True), y.to(dtype).requires_grad_(True)
def run(name, fn, second=True):
    res = {}
    for dtype in (torch.float32, torch.float64):
        x, y = inputs(dtype)
        try:
            r = fn(x, y)
            g = torch.Generator().manual_seed(7)
            ct = torch.randn(r.shape, generator=g, dtype=torch.float64).to(dtype)
            gx, gy = torch.autograd.grad(r, (x, y), ct, create_graph=second, allow_unused=True)
            grads = [t for t in (gx, gy) if t is not None]
            rec = {"node": type(r.grad_fn).__name__,
                   "first": [t.detach().double().flatten().tolist() for t in grads]}
            if second and any(t.requires_grad for t in grads):
                s = sum(t.sum() for t in grads if t.requires_grad)
                hx, hy = torch.autograd.grad(s, (x, y), allow_unused=True)
                rec["second"] = [t.double().flatten().tolist() for t in (hx, hy) if t is not None]
            res[str(dtype)] = rec
        except Exception as e:
            res[str(dtype)] = {"raises": type(e).__name__}
    out[name] = res
'''

CASES = r'''
run("abs", lambda x, y: x.abs() * y)
run("sin", lambda x, y: torch.sin(x) * y)
run("cos", lambda x, y: torch.cos(x))
run("tan", lambda x, y: torch.tan(x * 0.5))
run("erf", lambda x, y: torch.erf(x))
run("expm1", lambda x, y: torch.expm1(x))
run("log1p", lambda x, y: torch.log1p(x.abs()))
run("log2", lambda x, y: torch.log2(x.abs() + 0.5))
run("reciprocal", lambda x, y: torch.reciprocal(x + 3))
run("digamma", lambda x, y: torch.digamma(x.abs() + 0.5) * y)
run("polygamma", lambda x, y: torch.polygamma(2, x.abs() + 0.5) * y)
run("polygamma_", lambda x, y: (x.abs() + 0.5).polygamma_(1) * y)
run("clamp", lambda x, y: torch.clamp(x, -0.5, 0.7) * y)
run("clamp_tensor", lambda x, y: torch.clamp(x, min=y - 1, max=y + 0.5))
run("clamp_min", lambda x, y: torch.clamp_min(x, y))
run("where", lambda x, y: torch.where(x > 0, x * x, y))
run("maximum", lambda x, y: torch.maximum(x, y))
run("minimum", lambda x, y: torch.minimum(x, y))
run("pow_tt", lambda x, y: torch.pow(x.abs() + 0.5, y))
run("pow_scalar_base", lambda x, y: torch.pow(2.0, x))
run("fmod", lambda x, y: torch.fmod(x * 3, y.abs() + 0.5))
run("remainder", lambda x, y: torch.remainder(x * 3, y.abs() + 0.5))
run("rsub", lambda x, y: torch.rsub(x, y, alpha=2))
run("prod", lambda x, y: (x + 2).prod())
run("prod_zero", lambda x, y: x.prod(1))
run("amax", lambda x, y: torch.amax(x * y, 1))
run("max_dim", lambda x, y: (x * y).max(0)[0])
run("max_all", lambda x, y: (x * y).max())
run("var", lambda x, y: torch.var(x * y, 1))
run("std", lambda x, y: torch.std(x + y))
run("vector_norm", lambda x, y: torch.linalg.vector_norm(x * y, 3, dim=1))
run("vector_norm_inf", lambda x, y: torch.linalg.vector_norm(x, float("inf")) * y.sum())
run("cumsum", lambda x, y: torch.cumsum(x * y, 1))
run("repeat", lambda x, y: (x * y).repeat(2, 1, 3))
run("flip_roll", lambda x, y: torch.roll(torch.flip(x * y, (0,)), (1, -2), (0, 1)))
run("tril_triu", lambda x, y: torch.tril(x * y, 1) + torch.triu(x, -1))
run("diagonal", lambda x, y: torch.diagonal(x * y, 1))
run("unfold", lambda x, y: (x * y).unfold(1, 3, 1))
run("index_select", lambda x, y: torch.index_select(x * y, 1, torch.tensor([4, 0, 4])))
run("index", lambda x, y: (x * y)[torch.tensor([0, 2, 0]), torch.tensor([1, 1, 3])])
run("masked_select", lambda x, y: torch.masked_select(x * y, x > 0))
run("stack_unbind", lambda x, y: torch.stack(torch.unbind(x * y, 1), 0))
run("split_sizes", lambda x, y: torch.cat(torch.split(x * y, [2, 3], 1)[::-1], 1))
run("baddbmm", lambda x, y: torch.baddbmm(y.view(1, 4, 5)[:, :, :4], x.view(1, 4, 5),
                                          y.view(1, 5, 4), beta=0.5, alpha=2))
'''

@pytest.fixture(scope="module")
def results():
    ours, upstream = _both.both(PRELUDE, CASES)
    return ours, upstream


@pytest.mark.parametrize("order", ["first", "second"])
def test_gradients_are_within_upstreams_own_error(results, order):
    ours, upstream = results
    problems = []
    for name, up in upstream.items():
        u32, u64, o32 = up["torch.float32"], up["torch.float64"], ours[name]["torch.float32"]
        if "raises" in u32 or "raises" in o32:
            if u32.get("raises") != o32.get("raises"):
                problems.append(f"{name}: upstream {u32.get('raises')}, ours {o32.get('raises')}")
            continue
        if order == "second" and (order not in u32) != (order not in o32):
            problems.append(f"{name}: second order upstream {order in u32}, ours {order in o32}")
            continue
        for k, (a, b, c) in enumerate(zip(u32.get(order, []), u64.get(order, []),
                                          o32.get(order, []))):
            err = float(np.abs(np.asarray(c) - np.asarray(b)).max()) if b else 0.0
            if len(a) != len(c) or not err <= bound(a, b):
                problems.append(f"{name} {order} grad {k}: error {err:.3g} > {bound(a, b):.3g}")
    assert problems == []


def test_nodes_are_named_as_upstreams(results):
    ours, upstream = results
    assert node_name_mismatches(ours, upstream) == {}
