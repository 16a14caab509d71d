"""Autograd switches and hooks against upstream, each side in its own process: detach_, anomaly
mode (the switch and its NaN check in backward), and post-accumulate-grad hooks."""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def err(fn):
    try:
        r = fn()
        return ["ok", r]
    except Exception as e:
        return [type(e).__name__, str(e)]
'''

BODY = r'''
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 2
out["detach_ non-leaf"] = err(lambda: [y.detach_() is y, y.requires_grad, y.grad_fn is None,
                                       y.is_leaf])
v = (x * 1)[1:]
out["detach_ view"] = err(lambda: v.detach_())
out["detach_ leaf"] = err(lambda: [x.clone().detach_().requires_grad])
out["detach_ plain"] = err(lambda: [torch.ones(2).detach_().tolist()])
out["anomaly default"] = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
with torch.autograd.detect_anomaly(check_nan=False):
    out["anomaly inside, no nan check"] = [torch.is_anomaly_enabled(),
                                           torch.is_anomaly_check_nan_enabled()]
out["anomaly after"] = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
def nan_backward(check):
    a = torch.tensor([-1.0, 4.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=check):
        (a.sqrt() * 0 + a.sqrt()).sum().backward()
    return [str(t) for t in a.grad.tolist()]
import warnings
warnings.simplefilter("ignore")
out["nan check"] = err(lambda: nan_backward(True))
out["no nan check"] = err(lambda: nan_backward(False))
out["nan without anomaly"] = err(lambda: [str(t) for t in (lambda a: (a.sqrt().sum().backward(), a.grad)[1])(torch.tensor([-1.0], requires_grad=True)).tolist()])
seen = []
w = torch.tensor([1.0, 2.0], requires_grad=True)
h1 = w.register_post_accumulate_grad_hook(lambda p: seen.append(["first", p.grad.tolist()]))
h2 = w.register_post_accumulate_grad_hook(lambda p: seen.append(["second", p.grad.tolist()]))
(w * 3).sum().backward()
(w * w).sum().backward()
h1.remove()
(w * 1).sum().backward()
out["post hooks"] = seen
out["post hook on non-leaf"] = err(lambda: (w * 2).register_post_accumulate_grad_hook(print))
out["post hook without grad"] = err(lambda: torch.ones(1).register_post_accumulate_grad_hook(print))
u = torch.ones(2, requires_grad=True)
u.register_post_accumulate_grad_hook(lambda p: 1)
out["post hook returns"] = err(lambda: (u * 2).sum().backward())
u2 = torch.ones(2, requires_grad=True)
u2.register_post_accumulate_grad_hook(lambda p: torch.ones(2))
out["post hook returns a tensor"] = err(lambda: (u2 * 2).sum().backward())
g = torch.ones(2, requires_grad=True)
calls = []
g.register_post_accumulate_grad_hook(lambda p: calls.append(1))
torch.autograd.grad((g * 2).sum(), g)
out["post hook skipped by autograd.grad"] = calls
'''


def test_detach_anomaly_and_post_accumulate_hooks_are_upstreams():
    ours, up = _both.both(PRELUDE, BODY)
    assert ours.keys() == up.keys()
    bad = [f"{k}: ours {ours[k]} upstream {up[k]}" for k in up if ours[k] != up[k]]
    assert not bad, "\n".join(bad)
