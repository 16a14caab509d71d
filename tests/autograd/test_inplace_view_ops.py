"""The in-place view ops (squeeze_, unsqueeze_, transpose_, t_, as_strided_, swapdims_) under
autograd, against upstream in its own process.

They change self's sizes and strides, not its elements: on a tensor that is itself a view, the
result must keep viewing the same base and take the op's own node (SqueezeBackward4...), not
route its gradient through the base as a write would (CopySlices). Each case prints the grad_fn
name, the result's shape and strides, whether it still shares the base's storage, and the
gradient of the leaf, which must be upstream's exactly (the ops only move elements).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CASES = r"""
import json, torch
out = {}
cases = {
    "squeeze_ dim of a view": lambda x: x.clone().unsqueeze(0).squeeze_(0),
    "squeeze_ of a view": lambda x: (x * 1).unsqueeze(1).squeeze_(),
    "squeeze_ dims": lambda x: x.clone().unsqueeze(0).unsqueeze(2).squeeze_((0, 2)),
    "unsqueeze_": lambda x: x.clone().unsqueeze_(0),
    "unsqueeze_ of a view": lambda x: x.clone()[1:].unsqueeze_(-1),
    "t_": lambda x: x.clone().t_(),
    "t_ of a view": lambda x: x.clone()[:, 1:].t_(),
    "transpose_ of a view": lambda x: x.clone()[1:].transpose_(0, 1),
    "swapdims_": lambda x: x.clone().swapdims_(0, 1),
    "as_strided_": lambda x: x.clone().as_strided_((3,), (2,)),
    "write after squeeze_": lambda x: (lambda v: (v.mul_(2), v)[1])(
        x.clone().unsqueeze(0).squeeze_(0)),
}
for name, f in cases.items():
    x = torch.arange(12.0).reshape(4, 3).requires_grad_()
    try:
        y = f(x)
        base = y._base
        y.backward(torch.arange(y.numel(), dtype=torch.float).reshape(y.shape) + 1)
        out[name] = [y.grad_fn.name(), list(y.shape), list(y.stride()), base is not None,
                     x.grad.tolist()]
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
print(json.dumps(out))
"""


def test_inplace_view_ops_agree_with_upstream():
    ours, upstream = run_json(OURS, CASES), run_json(UPSTREAM, CASES)
    assert all(v[0] != "raises" for v in upstream.values()), upstream
    assert ours == upstream
