"""to(), contiguous(), clone() and empty_like() with memory_format=channels_last(_3d), against
upstream in a separate process (issue 8, backward agreement: the OpInfo entry `to`, sample 1).

Acceptance: for 4-d and 5-d inputs (contiguous, already channels-last, a transposed view, and
sizes of 1 where layouts are ambiguous) each conversion gives upstream's strides, values,
is_contiguous(memory_format=...) answers and aliasing (whether the result is self), and the
gradient through to(memory_format=...) gives upstream's values and strides; a wrong rank raises
upstream's exception type.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
g = torch.Generator().manual_seed(5)
CL, CL3 = torch.channels_last, torch.channels_last_3d
def desc(t, src):
    return [list(t.stride()), t.detach().flatten().tolist(), t is src,
            t.is_contiguous(), t.is_contiguous(memory_format=CL),
            t.is_contiguous(memory_format=CL3)]
def attempt(name, fn):
    try:
        out[name] = fn()
    except Exception as e:
        out[name] = type(e).__name__
'''

BODY = r'''
inputs = {
    "4d": torch.randn(2, 3, 4, 5, generator=g),
    "4d cl": torch.randn(2, 3, 4, 5, generator=g).to(memory_format=CL),
    "4d view": torch.randn(2, 4, 3, 5, generator=g).transpose(1, 2),
    "4d ones": torch.randn(1, 3, 1, 1, generator=g),
    "4d c1": torch.randn(2, 1, 3, 3, generator=g),
    "5d": torch.randn(2, 3, 2, 3, 4, generator=g),
}
for name, x in inputs.items():
    fmt = CL if x.dim() == 4 else CL3
    out[name + " to"] = desc(x.to(memory_format=fmt), x)
    out[name + " to back"] = desc(x.to(memory_format=fmt).to(memory_format=torch.contiguous_format), x)
    out[name + " to dtype"] = desc(x.to(torch.float64, memory_format=fmt), x)
    out[name + " contiguous"] = desc(x.contiguous(memory_format=fmt), x)
    out[name + " clone"] = desc(x.clone(memory_format=fmt), x)
    out[name + " empty_like"] = list(torch.empty_like(x, memory_format=fmt).stride())
    out[name + " float"] = desc(x.double().float(memory_format=fmt), x)
    a = x.detach().clone().requires_grad_(True)
    y = a.to(memory_format=fmt)
    cot = torch.randn(y.shape, generator=g)
    (ga,) = torch.autograd.grad(y, a, cot)
    out[name + " grad"] = [list(ga.stride()), ga.flatten().tolist()]
attempt("rank 3", lambda: torch.randn(2, 3, 4).to(memory_format=CL).stride())
attempt("rank 4 cl3d", lambda: torch.randn(2, 3, 4, 5).contiguous(memory_format=CL3).stride())
attempt("clone rank", lambda: torch.randn(2, 3).clone(memory_format=CL).stride())
'''


def test_channels_last_conversions_match_upstream():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert upstream["4d to"][0] == [60, 1, 15, 3]
    assert {k for k in upstream if ours.get(k) != upstream[k]} == set()
