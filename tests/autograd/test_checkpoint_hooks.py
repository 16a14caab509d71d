"""Reentrant activation checkpointing, module full backward hooks and autocast's state against
upstream, each side in its own process (bits as hex). torch.utils.checkpoint(use_reentrant=True)
runs through our autograd.Function and a backward inside backward (the non-reentrant form,
saved-tensor hooks and preserve_rng_state are in test_saved_hooks.py). Enabling autocast
refuses by name: only its state is ours."""

from __future__ import annotations

import subprocess
import sys

from tests.door import _both
from tests.helpers import OURS

PRELUDE = r'''
import json, torch, torch.nn as nn, torch.utils.checkpoint as cp
out = {}
def hexof(t):
    return None if t is None else t.detach().contiguous().numpy().tobytes().hex()
def err(fn):
    try:
        return ["ok", fn()]
    except Exception as e:
        return [type(e).__name__, str(e)]
def net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
'''

BODY = r'''
m = net()
x = torch.randn(5, 4, generator=torch.Generator().manual_seed(1), requires_grad=True)
y = cp.checkpoint(m, x, use_reentrant=True, preserve_rng_state=False)
y.pow(2).sum().backward()
out["checkpoint"] = [hexof(y), hexof(x.grad), [hexof(p.grad) for p in m.parameters()],
                     type(y.grad_fn).__name__]
m2 = net()
x2 = x.detach().clone().requires_grad_()
m2(x2).pow(2).sum().backward()
out["plain"] = [hexof(x2.grad), [hexof(p.grad) for p in m2.parameters()]]
y = cp.checkpoint(m, x, use_reentrant=True, preserve_rng_state=False)
out["checkpoint with grad()"] = err(lambda: torch.autograd.grad(y.sum(), x))

m = net()
seen = []
m[0].register_full_backward_hook(
    lambda mod, gi, go: seen.append(["0", [hexof(g) for g in gi], [hexof(g) for g in go]]))
m[2].register_full_backward_hook(
    lambda mod, gi, go: seen.append(["2", [hexof(g) for g in gi], [hexof(g) for g in go]]))
m[2].register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
x = torch.randn(5, 4, generator=torch.Generator().manual_seed(2), requires_grad=True)
m(x).sum().backward()
out["module hooks"] = [seen, hexof(x.grad), [hexof(p.grad) for p in m.parameters()]]

with torch.autocast("cpu", enabled=False):
    out["autocast off"] = [torch.is_autocast_enabled("cpu"), str(torch.get_autocast_dtype("cpu"))]
out["autocast state"] = [torch.is_autocast_enabled(), torch.is_autocast_enabled("cuda"),
                         str(torch.get_autocast_dtype("cuda")), str(torch.get_autocast_dtype("xpu")),
                         torch._C._is_autocast_available("cpu"),
                         torch._C._is_autocast_available("meta"),
                         torch._C._autocast_supported_devices(),
                         torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()]
out["autocast bad device"] = err(lambda: torch.get_autocast_dtype("foo"))
'''


def test_checkpoint_module_hooks_and_autocast_state_agree_with_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    for key in upstream:
        assert ours.get(key) == upstream[key], key
    assert ours == upstream


def test_unimplemented_parts_refuse_by_name():
    code = r'''
import torch, torch.nn as nn, torch.utils.checkpoint as cp
m = nn.Linear(2, 2)
x = torch.randn(3, 2, requires_grad=True)
for name, fn in [("autocast", lambda: torch.autocast("cpu").__enter__()),
                 ("set_autocast_enabled", lambda: torch.set_autocast_enabled("cpu", True))]:
    try:
        fn()
        print(name, "ran")
    except NotImplementedError as e:
        print(name, "refused:", e)
'''
    r = subprocess.run([str(OURS), "-c", code], capture_output=True, text=True, timeout=300)
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert lines["autocast"].startswith("refused: torchnative: autocast"), r.stdout + r.stderr
    assert lines["set_autocast_enabled"].startswith("refused: torchnative: autocast"), r.stdout
