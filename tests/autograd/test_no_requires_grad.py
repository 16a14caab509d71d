"""Upstream's refusals of arguments an op is not differentiable by, and batch_norm's empty input.

Acceptance (issue 8): native_batch_norm refuses running_mean / running_var that require grad,
nll_loss (nll_loss_forward, nll_loss2d_forward) refuses a weight that requires grad, with
upstream's type and message, under grad mode only; batch_norm of an empty input of one dim
returns upstream's clone (gradient included) and refuses an empty weight as upstream does.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn.functional as F
out = {}
def case(name, fn):
    try:
        r = fn()
        out[name] = {"returns": [list(t.shape) for t in r] if isinstance(r, tuple)
                     else list(r.shape)}
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

BODY = r'''
x = torch.randn(4, 3, requires_grad=True)
rm, rv = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
case("bn running_mean", lambda: torch.native_batch_norm(x, None, None, rm, rv.detach(), True,
                                                         0.1, 1e-5))
case("bn running_var", lambda: torch.native_batch_norm(x, None, None, rm.detach(), rv, True,
                                                        0.1, 1e-5))
case("F.batch_norm running", lambda: F.batch_norm(x, rm, rv, training=False))
def no_grad_mode():
    with torch.no_grad():
        return torch.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
case("bn no_grad", no_grad_mode)
t = torch.tensor([0, 1, 2, 1])
w = torch.rand(3, requires_grad=True)
case("nll weight", lambda: F.nll_loss(x, t, weight=w))
case("nll2d weight", lambda: F.nll_loss(x.view(1, 4, 3, 1).transpose(1, 2).contiguous(),
                                        t.view(1, 4, 1).clamp(max=2), weight=w))
case("nll weight no grad", lambda: F.nll_loss(x, t, weight=w.detach()))
e = torch.randn(0, requires_grad=True)
def empty():
    y = F.batch_norm(e, torch.zeros(0), torch.ones(0), training=False)
    (g,) = torch.autograd.grad(y, [e], torch.randn(0))
    return (y, g)
case("bn empty", empty)
case("bn empty grad_fn", lambda: (torch.zeros(0) if type(F.batch_norm(
    e, torch.zeros(0), torch.ones(0), training=True).grad_fn).__name__ == "CloneBackward0"
    else torch.zeros(1),))
case("bn empty weight", lambda: F.batch_norm(e, torch.zeros(0), torch.ones(0),
                                             torch.ones(0), training=False))
'''


def test_refusals_and_empty_batch_norm_match_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert ours == upstream
    assert upstream["bn running_mean"]["raises"][0] == "RuntimeError"
    assert "nll_loss_forward" in upstream["nll weight"]["raises"][1]
    assert "returns" in upstream["bn empty"]
