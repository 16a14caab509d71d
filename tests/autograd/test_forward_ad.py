"""Forward-mode AD (torch.autograd.forward_ad) against upstream, each side in its own process
(issue 8 item 4).

Acceptance: inside dual_level, make_dual / unpack_dual through each family with a forward
formula (pointwise unary and binary with alpha and scalars, matrix products and linear, shape
and view ops, cat/stack/split, reductions, copies) give upstream's primal and tangent bits;
a small MLP's jvp agrees bit for bit; views and in-place ops on duals propagate tangents as
upstream's (a view's tangent is the view of its base's, an in-place write into a view of a
plain tensor gives the base a tangent); a level's tangents are gone after it exits; the
errors (nested level, exiting another level, a tangent of another size, a dual primal, a
dual tangent, an op without a forward formula, non-floating dtypes) raise upstream's types
and messages. torch.autograd.functional.jvp/hvp agree as well.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import json, torch, torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
out = {}
def hexof(t):
    if t is None:
        return None
    return t.detach().contiguous().numpy().tobytes().hex()
g = torch.Generator().manual_seed(7)
def rnd(*s, dtype=torch.float32):
    return torch.randn(*s, generator=g, dtype=torch.float64).to(dtype)
def case(name, fn, *shapes):
    xs = [rnd(*s) for s in shapes]
    ts = [rnd(*s) for s in shapes]
    try:
        with fwAD.dual_level():
            duals = [fwAD.make_dual(x, t) for x, t in zip(xs, ts)]
            r = fn(*duals)
            rs = r if isinstance(r, (list, tuple)) else [r]
            out[name] = [[hexof(fwAD.unpack_dual(y).primal), hexof(fwAD.unpack_dual(y).tangent)]
                         for y in rs]
    except Exception as e:
        out[name] = {"raises": [type(e).__name__, str(e)]}
'''

FAMILIES = r'''
w = rnd(4, 3); b = rnd(4); m = rnd(3, 5)
case("add alpha", lambda x, y: torch.add(x, y, alpha=2.5), (3, 4), (3, 4))
case("add broadcast", lambda x, y: x + y, (3, 4), (4,))
case("add one dual", lambda x: x + m[:, :4], (3, 4))
case("add scalar", lambda x: x + 1.5, (3, 4))
case("sub alpha", lambda x, y: torch.sub(x, y, alpha=3), (3, 4), (3, 4))
case("rsub", lambda x, y: torch.rsub(x, y, alpha=2), (3, 4), (3, 4))
case("rsub scalar", lambda x: 2 - x, (3, 4))
case("mul", lambda x, y: x * y, (3, 4), (3, 4))
case("mul scalar", lambda x: x * 3.25, (3, 4))
case("div", lambda x, y: x / y, (3, 4), (3, 4))
case("div scalar", lambda x: x / 7, (3, 4))
for op in ("neg", "exp", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "rsqrt", "sqrt",
           "log"):
    case(op, lambda x, op=op: getattr(torch, op)(x.abs() + 0.1 if op in ("log", "sqrt", "rsqrt")
                                               else x), (3, 4))
case("pow scalar", lambda x: x.pow(3), (3, 4))
case("clamp", lambda x: x.clamp(-0.5, 0.5), (3, 4))
case("where", lambda x, y: torch.where(x > 0, x, y), (3, 4), (3, 4))
case("masked_fill", lambda x: x.masked_fill(x > 0.3, 2.0), (3, 4))
case("mm", lambda x, y: x @ y, (3, 4), (4, 2))
case("mm one dual", lambda x: x @ m, (2, 3))
case("bmm", lambda x, y: torch.bmm(x, y), (2, 3, 4), (2, 4, 5))
case("linear", lambda x: F.linear(x, w, b), (5, 3))
case("linear dual weight", lambda x, ww, bb: F.linear(x, ww, bb), (5, 3), (4, 3), (4,))
case("addmm", lambda x, y, z: torch.addmm(x, y, z, beta=0.5, alpha=2), (3, 2), (3, 4), (4, 2))
case("matmul 3d", lambda x, y: x @ y, (2, 3, 4), (4, 5))
case("view", lambda x: x.view(12), (3, 4))
case("reshape", lambda x: x.t().reshape(-1), (3, 4))
case("permute", lambda x: x.permute(2, 0, 1), (2, 3, 4))
case("transpose", lambda x: x.transpose(0, 1).contiguous(), (3, 4))
case("expand", lambda x: x.expand(2, 3, 4), (3, 4))
case("squeeze unsqueeze", lambda x: x.unsqueeze(1).squeeze(1).squeeze(), (3, 1, 4))
case("slice select", lambda x: x[1:, ::2][0], (3, 4))
case("cat", lambda x, y: torch.cat([x, y, x], 1), (3, 4), (3, 2))
case("cat one dual", lambda x: torch.cat([x, m[:, :2]], 1), (3, 4))
case("stack", lambda x, y: torch.stack([x, y]), (3, 4), (3, 4))
case("split", lambda x: x.split(2, 1), (3, 5))
case("unbind", lambda x: x.unbind(0), (3, 4))
case("clone", lambda x: x.clone(), (3, 4))
case("to float64", lambda x: x.to(torch.float64), (3, 4))
case("sum", lambda x: x.sum(), (3, 4))
case("sum dim", lambda x: x.sum(1, keepdim=True), (3, 4))
case("mean dim", lambda x: x.mean((0, 1)), (3, 4))
case("log_softmax", lambda x: F.log_softmax(x, 1), (3, 4))
case("cross_entropy", lambda x: F.cross_entropy(x, torch.tensor([1, 0, 3])), (3, 4))
case("mlp", lambda x: F.linear(torch.tanh(F.linear(x, w, b)), rnd(2, 4)).sum(1), (6, 3))
'''

VIEWS = r'''
def views():
    r = {}
    with fwAD.dual_level():
        x = rnd(3, 4); t = rnd(3, 4)
        d = fwAD.make_dual(x, t)
        r["tangent is given"] = fwAD.unpack_dual(d).tangent is t
        r["dual is view"] = d._base is x
        r["primal is view"] = fwAD.unpack_dual(d).primal._base is x
        v = d[1]
        v.mul_(2)
        r["inplace view base tangent"] = hexof(fwAD.unpack_dual(d).tangent)
        q = rnd(2, 4); qv = q[0]
        qv.copy_(fwAD.make_dual(rnd(4), rnd(4)))
        r["copy into view of plain"] = hexof(fwAD.unpack_dual(q).tangent)
        p = rnd(2, 4); pv = p[1]
        p.copy_(fwAD.make_dual(rnd(2, 4), rnd(2, 4)))
        r["view reads base tangent"] = hexof(fwAD.unpack_dual(pv).tangent)
        y = fwAD.make_dual(rnd(3), rnd(3))
        y.add_(fwAD.make_dual(rnd(3), rnd(3)), alpha=2)
        y.exp_()
        r["inplace chain"] = hexof(fwAD.unpack_dual(y).tangent)
        z = rnd(3).clone()
        z.mul_(fwAD.make_dual(rnd(3), rnd(3)))
        r["inplace plain self"] = hexof(fwAD.unpack_dual(z).tangent)
        kept = d
    r["after exit"] = fwAD.unpack_dual(kept).tangent is None
    r["fwd grad enabled"] = torch._C._is_fwd_grad_enabled()
    return r
out["views"] = views()
'''

ERRORS = r'''
x = rnd(3); t = rnd(3)
def err(name, fn):
    try:
        fn()
        out[name] = "no error"
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
def in_level(fn):
    def run():
        with fwAD.dual_level():
            return fn()
    return run
err("nested", in_level(lambda: fwAD.enter_dual_level()))
err("nested C", in_level(lambda: torch._C._enter_dual_level()))
err("exit other", in_level(lambda: torch._C._exit_dual_level(level=3)))
err("size", in_level(lambda: fwAD.make_dual(x, rnd(4))))
err("dual primal", in_level(lambda: fwAD.make_dual(fwAD.make_dual(x, t), t)))
err("dual tangent", in_level(lambda: fwAD.make_dual(x, fwAD.make_dual(x, t))))
err("int primal", in_level(lambda: fwAD.make_dual(torch.arange(3), t)))
err("int tangent", in_level(lambda: fwAD.make_dual(x, torch.arange(3))))
err("bad level", in_level(lambda: torch._make_dual(x, t, level=2)))
err("no formula", in_level(lambda: torch.special.zeta(fwAD.make_dual(x, t), x)))
err("no level", lambda: fwAD.make_dual(x, t))
err("make_dual without level", lambda: torch._make_dual(x, t, level=0))
err("exit without level", lambda: torch._C._exit_dual_level(level=0))
out["unpack outside"] = list(fwAD.unpack_dual(x))[1] is None
'''

FUNCTIONAL = r'''
def f(a, b):
    return (torch.tanh(a) * b).sum(0)
a = rnd(3, 2, dtype=torch.float64); b2 = rnd(3, 2, dtype=torch.float64)
va = rnd(3, 2, dtype=torch.float64); vb = rnd(3, 2, dtype=torch.float64)
o, j = torch.autograd.functional.jvp(f, (a, b2), (va, vb))
out["functional jvp"] = [hexof(o), hexof(j)]
def s(a):
    return (a.sin() * a).sum()
o, h = torch.autograd.functional.hvp(s, a, va)
out["functional hvp"] = [hexof(o), hexof(h)]
with fwAD.dual_level():
    da, db = fwAD.make_dual(a, va), fwAD.make_dual(b2, vb)
    out["fwAD jvp"] = hexof(fwAD.unpack_dual(f(da, db)).tangent)
'''


# gelu's and silu's tangents come from their backward kernels, an ulp from upstream's, and
# softmax's forward itself is an ulp away: graded
# within upstream's own float32 error (its float32 tangent against its float64 one).
CLOSE = r'''
def tangent(fn, dtype):
    g.manual_seed(11)
    x, t = rnd(4, 5, dtype=dtype), rnd(4, 5, dtype=dtype)
    with fwAD.dual_level():
        return fwAD.unpack_dual(fn(fwAD.make_dual(x, t))).tangent.double().flatten().tolist()
for name, fn in {"gelu": F.gelu, "gelu tanh": lambda x: F.gelu(x, approximate="tanh"),
                 "silu": F.silu, "softmax": lambda x: F.softmax(x, 0)}.items():
    out[name] = [tangent(fn, torch.float32), tangent(fn, torch.float64)]
'''


def _same(body):
    ours, upstream = _both.both(PRELUDE, body)
    return ours, upstream


def test_families_bit_for_bit():
    ours, upstream = _same(FAMILIES)
    assert ours.keys() == upstream.keys()
    assert [k for k in upstream if ours[k] != upstream[k]] == []


def test_views_and_in_place():
    ours, upstream = _same(VIEWS)
    o, u = ours["views"], upstream["views"]
    assert {k: o[k] for k in u if o[k] != u[k]} == {}


def test_errors():
    ours, upstream = _same(ERRORS)
    assert {k: ours[k] for k in upstream if ours[k] != upstream[k]} == {}


def test_close_within_upstream_error():
    ours, upstream = _same(CLOSE)
    for name, (up32, up64) in upstream.items():
        allowance = max(abs(a - b) for a, b in zip(up32, up64))
        ours32 = ours[name][0]
        err = max(abs(a - b) for a, b in zip(ours32, up64))
        assert err <= 2 * allowance + 1e-12, (name, err, allowance)


def test_functional_jvp_hvp():
    ours, upstream = _same(FUNCTIONAL)
    # hvp runs through double backward (not forward AD): one float64 ulp from upstream's.
    hvp_o, hvp_u = ours.pop("functional hvp"), upstream.pop("functional hvp")
    assert ours == upstream
    import numpy as np
    a = np.frombuffer(bytes.fromhex(hvp_o[1]), np.float64)
    b = np.frombuffer(bytes.fromhex(hvp_u[1]), np.float64)
    assert hvp_o[0] == hvp_u[0] and np.allclose(a, b, rtol=1e-14, atol=0)
