"""torch.inference_mode against upstream, each side in its own process: which tensors are
inference tensors (made under it, views of them; not views of normal tensors), the modes'
nesting and what the guard object does, no recording under it, and upstream's refusals of an
inference tensor outside it (in-place update, _version, requires_grad=True, being saved for
backward), with the bytes an in-place update leaves behind."""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def err(fn):
    try:
        return ["ok", fn()]
    except Exception as e:
        return [type(e).__name__, str(e)]
'''

BODY = r'''
out["outside"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
normal = torch.arange(4.0)
with torch.inference_mode():
    out["inside"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
    x = torch.ones(2)
    base = torch.ones(4)
    v = base[:2]
    vn = normal[:2]
    normal.add_(1)
    out["normal version after in-place inside"] = normal._version
    with torch.inference_mode(False):
        out["nested off"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
        out["made in nested off"] = torch.ones(1).is_inference()
    w = torch.ones(2, requires_grad=True)
    out["no recording"] = [w.requires_grad, (w * 2).requires_grad, (w * 2).grad_fn is None]
    out["requires_grad_ inside"] = x.clone().requires_grad_().requires_grad
    @torch.inference_mode()
    def decorated():
        return torch.is_inference_mode_enabled()
    out["decorator"] = decorated()
with torch.no_grad():
    with torch.inference_mode(False):
        out["off under no_grad"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
out["after"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
out["is_inference"] = [x.is_inference(), v.is_inference(), base.is_inference(),
                       vn.is_inference(), normal.is_inference(), (x + 1).is_inference(),
                       x.clone().is_inference(), x.detach().is_inference(),
                       x.view(2, 1).is_inference(), torch.is_inference(x)]
out["in-place outside"] = err(lambda: x.add_(1))
out["bytes after refused in-place"] = hexof(x)
out["_version"] = err(lambda: x._version)
out["requires_grad_"] = err(lambda: x.requires_grad_())
out["requires_grad False"] = err(lambda: x.requires_grad_(False).requires_grad)
leaf = torch.ones(2, requires_grad=True)
out["saved for backward"] = err(lambda: leaf.mul(x))
out["not saved"] = err(lambda: hexof(leaf.add(x)))
out["copy_ into"] = err(lambda: x.copy_(normal[:2]))
out["copy_ from"] = err(lambda: hexof(torch.zeros(2).copy_(x)))
out["view of normal made inside"] = err(lambda: hexof(vn.add_(1)))
out["out="] = err(lambda: torch.add(normal[:2], 1, out=x))
# The guard object: made on, released by __exit__ (once) or when it dies.
g = torch._C._InferenceMode(True)
out["guard made"] = torch.is_inference_mode_enabled()
g.__exit__(None, None, None)
g.__exit__(None, None, None)
out["guard exited"] = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
g = torch._C._InferenceMode(True)
del g
out["guard died"] = torch.is_inference_mode_enabled()
'''


def test_inference_mode_agrees_with_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    for key in upstream:
        assert ours.get(key) == upstream[key], key
    assert ours == upstream
