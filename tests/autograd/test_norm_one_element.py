"""vector_norm over one element per result, and its users' gradients, bit for bit against upstream
(issue 8, backward agreement; each side in its own process).

Acceptance: linalg.vector_norm of one element (reduced dims of size 1, 0-dim inputs, float32 and
float64, ord 0.5, 1.5, 2, 3, 6, -1, inf, 0; extreme magnitudes at ord 2) gives upstream's bytes
(upstream returns |x|, not pow(pow(|x|, p), 1/p)); F.normalize over a size-1 dim (p 0.5, 2) and
the ord-6 norm of a 0-dim tensor give upstream's bytes forward and backward; ord 0's gradient is
None on both sides (upstream's norm_backward returns an undefined tensor). Two elements per
result take the pow chain on both sides, also bit for bit. x ** 0.5 is upstream's sqrt kernel
(the backward of ord 0.5 uses it), so it carries sqrt's bits.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn.functional as F
out = {}
def hexof(t):
    return None if t is None else t.detach().numpy().tobytes().hex()
g = torch.Generator().manual_seed(3)
'''

BODY = r'''
for dt in (torch.float32, torch.float64):
    x = torch.randn(1, 2, 4, 5, generator=g, dtype=dt)
    s = torch.randn((), generator=g, dtype=dt) * 8
    two = torch.randn(2, 30, generator=g, dtype=dt)
    for p in (0.5, 1.5, 2.0, 3.0, 6.0, -1.0, float("inf"), 0.0):
        out[f"{dt} {p} dim0"] = hexof(torch.linalg.vector_norm(x, p, dim=0))
        out[f"{dt} {p} keep"] = hexof(torch.linalg.vector_norm(x, p, dim=0, keepdim=True))
        out[f"{dt} {p} 0-dim"] = hexof(torch.linalg.vector_norm(s, p))
        out[f"{dt} {p} two"] = hexof(torch.linalg.vector_norm(two, p, dim=0))
    out[f"{dt} pow 0.5"] = hexof((torch.rand(3000, generator=g, dtype=dt) * 3).pow(0.5))
    big = torch.tensor([[1e-30, 1e30, -3e-25, 2e20]], dtype=dt) ** (8 if dt == torch.float64 else 1)
    out[f"{dt} extreme"] = hexof(torch.linalg.vector_norm(big, 2, dim=0))
    for p in (0.5, 2.0):
        a = x.clone().requires_grad_(True)
        y = F.normalize(a, p=p, dim=0)
        (ga,) = torch.autograd.grad(y, a, torch.randn(y.shape, generator=g, dtype=dt))
        out[f"{dt} normalize {p}"] = [hexof(y), hexof(ga)]
    a = s.clone().requires_grad_(True)
    y = torch.linalg.vector_norm(a, 6)
    out[f"{dt} ord 6 grad"] = [hexof(y), hexof(torch.autograd.grad(y, a, torch.ones(()))[0])]
    a = x.clone().requires_grad_(True)
    out[f"{dt} ord 0 grad"] = hexof(torch.autograd.grad(torch.linalg.vector_norm(a, 0), a,
                                                       allow_unused=True)[0])
'''


def test_one_element_norms_carry_upstreams_bits():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert upstream["torch.float32 ord 0 grad"] is None
    assert {k for k in upstream if ours.get(k) != upstream[k]} == set()
