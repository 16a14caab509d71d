"""In-place overloads whose derivative `make agree`'s backward coverage found wrong or missing,
against upstream, each side in its own process.

Acceptance: for each expression (an in-place op on a non-leaf, or an aten overload called
directly), the gradient of every input (float32) is within upstream's own float32 error of
upstream's float64 answer (derived: the largest |float32 - float64| of upstream's result, never
below 4 float32 ulps of the largest element), ours raises where and as upstream does, and the
in-place op's node is named as upstream's. The cases:
- pow_.Scalar and pow_.Tensor (and square_, which is pow_.Scalar): upstream's autograd gives an
  in-place op the formula of the functional op of the same signature (pow.Tensor_Scalar,
  pow.Tensor_Tensor), not of the same overload name (pow.Scalar's self is a Scalar). Ours took
  pow.Scalar's for pow_.Scalar (no gradient for self) and recorded nothing for pow_.Tensor (the
  identity gradient, silently).
- eq_ ... ge_ (Scalar and Tensor), random_, normal_, uniform_, bernoulli_.Tensor: zero
  gradients (derivatives.yaml's own entries); ours refused them by name.
- _index_put_impl_ and _reshape_alias: index_put's and reshape's formulas; ours refused them.
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
    g = torch.Generator().manual_seed(11)
    x = torch.randn(4, 5, generator=g, dtype=torch.float64)
    y = torch.randn(4, 5, generator=g, dtype=torch.float64)
    y[1, 1] = x[1, 1]
    return x.to(dtype).requires_grad_(True), y.to(dtype).requires_grad_(True)
def run(name, fn):
    res = {}
    for dtype in (torch.float32, torch.float64):
        x, y = inputs(dtype)
        try:
            torch.manual_seed(3)
            r = fn(x, y)
            g = torch.Generator().manual_seed(7)
            ct = torch.randn(r.shape, generator=g, dtype=torch.float64).to(dtype)
            grads = torch.autograd.grad(r, (x, y), ct, allow_unused=True)
            res[str(dtype)] = {"node": type(r.grad_fn).__name__,
                               "first": [None if t is None else t.double().flatten().tolist()
                                         for t in grads]}
        except Exception as e:
            res[str(dtype)] = {"raises": type(e).__name__}
    out[name] = res
'''

CASES = r'''
run("pow_.Scalar", lambda x, y: (x * y + 3).pow_(3))
run("pow_.Scalar_frac", lambda x, y: (x.abs() + 0.5).pow_(0.5))
run("pow_.Tensor", lambda x, y: (x.abs() + 0.5).pow_(y))
run("square_", lambda x, y: (x * y).square_())
run("eq_.Scalar", lambda x, y: (x * y).eq_(0.25))
run("eq_.Tensor", lambda x, y: (x * 1).eq_(y))
run("ne_.Tensor", lambda x, y: (x * 1).ne_(y))
run("lt_.Scalar", lambda x, y: (x * y).lt_(0))
run("le_.Tensor", lambda x, y: (x * 1).le_(y))
run("gt_.Tensor", lambda x, y: (x * 1).gt_(y))
run("ge_.Scalar", lambda x, y: (x + y).ge_(0))
run("random_", lambda x, y: (x * y).random_(5))
run("normal_", lambda x, y: (x * y).normal_())
run("uniform_", lambda x, y: (x * y).uniform_())
run("bernoulli_.Tensor", lambda x, y: (x * 1).bernoulli_(y.sigmoid()))
run("_index_put_impl_", lambda x, y: torch.ops.aten._index_put_impl_(
    x * 1, [torch.tensor([0, 2])], y[0] * 2))
run("_index_put_impl_acc", lambda x, y: torch.ops.aten._index_put_impl_(
    x * 1, [torch.tensor([0, 0])], y[:2], True))
run("_reshape_alias", lambda x, y: torch.ops.aten._reshape_alias(x * y, [5, 4], [4, 1]))
'''


@pytest.fixture(scope="module")
def results():
    return _both.both(PRELUDE, CASES)


def test_every_case_differentiates_upstream(results):
    """The cases exercise a gradient: upstream computes one for each (none raises)."""
    _, upstream = results
    assert {n: u["torch.float32"] for n, u in upstream.items()
            if "raises" in u["torch.float32"]} == {}


def test_gradients_are_within_upstreams_own_error(results):
    ours, upstream = results
    problems = []
    for name, up in upstream.items():
        u32, u64, o32 = up["torch.float32"], up["torch.float64"], ours[name]["torch.float32"]
        if "raises" in o32:
            problems.append(f"{name}: ours raises {o32['raises']}")
            continue
        for k, (a, b, c) in enumerate(zip(u32["first"], u64["first"], o32["first"])):
            if (a is None) != (c is None):
                problems.append(f"{name} grad {k}: upstream {a is not None}, ours {c is not None}")
                continue
            if a is None:
                continue
            err = float(np.abs(np.asarray(c) - np.asarray(b)).max())
            if len(a) != len(c) or not err <= bound(a, b):
                problems.append(f"{name} grad {k}: error {err:.3g} > {bound(a, b):.3g}")
    assert problems == []


def test_nodes_are_named_as_upstreams(results):
    ours, upstream = results
    assert node_name_mismatches(ours, upstream) == {}
