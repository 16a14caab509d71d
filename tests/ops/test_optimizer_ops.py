"""The ops the optimizers run, against upstream in separate processes: addcmul, addcdiv and lerp
(bit for bit: upstream's compiler contracts them into fused multiply-adds, and so do we), the
_foreach_* family (upstream's CPU slow path: the per-tensor op per element), the grouping helper
torch._C._group_tensors_by_device_and_dtype, and each one's refusals in upstream's words.
"""

from __future__ import annotations

import numpy as np

from tests.door import _both

PRELUDE = r'''
import json, torch
out = {}
def hexof(x):
    if isinstance(x, (list, tuple)):
        return [hexof(t) for t in x]
    y = x.contiguous()
    y = y.view(torch.int16) if y.dtype == torch.bfloat16 else y
    return [str(x.dtype), list(x.shape), y.numpy().tobytes().hex()]
def run(name, fn):
    try:
        out[name] = hexof(fn())
    except Exception as e:
        out[name] = ["raises", type(e).__name__, str(e)]
torch.manual_seed(0)
a, b, c = torch.randn(300), torch.randn(300), torch.rand(300) + 0.1
ad, bd, cd = a.double(), b.double(), c.double()
h = torch.randn(300).to(torch.bfloat16)
'''

TERNARY = r'''
for v in (1, 0.37, -1e-3):
    run(f"addcmul {v}", lambda: torch.addcmul(a, b, c, value=v))
    run(f"addcmul f64 {v}", lambda: torch.addcmul(ad, bd, cd, value=v))
    run(f"addcdiv {v}", lambda: torch.addcdiv(a, b, c, value=v))
    run(f"addcdiv f64 {v}", lambda: torch.addcdiv(ad, bd, cd, value=v))
run("addcmul_ bf16", lambda: h.clone().addcmul_(h, h, value=0.5))
run("addcmul int", lambda: torch.addcmul(torch.arange(6), torch.arange(6), torch.arange(6), value=3))
run("addcmul broadcast", lambda: torch.addcmul(a[:4].view(4, 1), b[:3], c[:12].view(4, 3)))
run("addcmul out", lambda: torch.addcmul(a, b, c, out=torch.empty(300)))
for w in (0.1, 0.49, 0.5, 0.9, -0.7, 1.5):
    run(f"lerp {w}", lambda: torch.lerp(a, b, w))
    run(f"lerp_ f64 {w}", lambda: ad.clone().lerp_(bd, w))
run("lerp tensor", lambda: torch.lerp(a, b, c - 0.5))
run("lerp bf16", lambda: torch.lerp(h, h * 2, 0.3))
run("addcdiv int", lambda: torch.addcdiv(torch.arange(3), torch.arange(3), torch.arange(1, 4)))
run("lerp dtypes", lambda: torch.lerp(a, bd, 0.5))
run("lerp weight dtype", lambda: torch.lerp(a, b, cd))
run("addcmul_ cast", lambda: torch.arange(3).addcmul_(a[:3], b[:3]))
'''


def test_addcmul_addcdiv_lerp_are_upstreams():
    ours, up = _both.both(PRELUDE, TERNARY)
    assert ours.keys() == up.keys()
    bad = [f"{k}: {ours[k]} != {up[k]}"[:300] for k in up if ours[k] != up[k]]
    assert not bad, "\n".join(bad)


FOREACH = r'''
xs = [a[:5].clone(), b[:7].clone(), c[:3].clone()]
ys = [b[:5].clone(), c[:7].clone(), a[:3].clone()]
zs = [c[:5].clone(), a[:7].clone(), b[:3].clone()]
def fresh():
    return [t.clone() for t in xs]
F = torch
run("add.Scalar", lambda: F._foreach_add(xs, 2.5))
run("add.List", lambda: F._foreach_add(xs, ys, alpha=-0.3))
run("add.ScalarList", lambda: F._foreach_add(xs, [1, 2.5, True]))
run("add.Tensor", lambda: F._foreach_add(xs, torch.tensor(0.25), alpha=2))
run("sub_.Scalar", lambda: (lambda t: (F._foreach_sub_(t, 1.5), t)[1])(fresh()))
run("mul_.Tensor", lambda: (lambda t: (F._foreach_mul_(t, torch.tensor(0.7)), t)[1])(fresh()))
run("div.List", lambda: F._foreach_div(xs, zs))
run("div_.ScalarList", lambda: (lambda t: (F._foreach_div_(t, [2., 3., 4.]), t)[1])(fresh()))
run("addcmul_.Scalar", lambda: (lambda t: (F._foreach_addcmul_(t, ys, zs, 0.1), t)[1])(fresh()))
run("addcdiv.ScalarList", lambda: F._foreach_addcdiv(xs, ys, [z.abs() + 1 for z in zs],
                                                     [0.1, -0.2, 0.3]))
run("addcdiv.Tensor", lambda: F._foreach_addcdiv(xs, ys, [z.abs() + 1 for z in zs],
                                                 torch.tensor([0.1, -0.2, 0.3])))
run("lerp_.Scalar", lambda: (lambda t: (F._foreach_lerp_(t, ys, 0.9), t)[1])(fresh()))
run("lerp.List", lambda: F._foreach_lerp(xs, ys, [z.sigmoid() for z in zs]))
run("sqrt", lambda: F._foreach_sqrt([t.abs() for t in xs]))
run("exp_", lambda: (lambda t: (F._foreach_exp_(t), t)[1])(fresh()))
run("neg", lambda: F._foreach_neg(xs))
# Norms: each the per-tensor linalg_vector_norm (its own order is not upstream's yet: within an
# ulp, test_foreach_norms_are_within_an_ulp), so compared as floats below.
for ord_ in (2, float("inf"), 1):
    got = F._foreach_norm(xs, ord_)
    per = [torch.linalg.vector_norm(t, ord_) for t in xs]
    out[f"norm {ord_} is per tensor"] = all(bool(g == p) for g, p in zip(got, per))
    out[f"norm values {ord_}"] = [g.item() for g in got]
out["norm f64 dtype"] = str(F._foreach_norm(xs, 2, dtype=torch.float64)[0].dtype)
run("maximum.Scalar", lambda: F._foreach_maximum(xs, 0.1))
run("maximum.List", lambda: F._foreach_maximum(xs, ys))
run("minimum_.List", lambda: (lambda t: (F._foreach_minimum_(t, ys), t)[1])(fresh()))
run("clamp_min.ScalarList", lambda: F._foreach_clamp_min(xs, [0.0, 0.1, -0.1]))
run("pow.Scalar", lambda: F._foreach_pow([t.abs() for t in xs], 3))
run("pow.List", lambda: F._foreach_pow([t.abs() for t in xs], [t.abs() for t in ys]))
run("pow.ScalarAndTensor", lambda: F._foreach_pow(2.0, xs))
run("pow_.Scalar", lambda: (lambda t: (F._foreach_pow_(t, 2), t)[1])(fresh()))
run("zero_", lambda: (lambda t: (F._foreach_zero_(t), t)[1])(fresh()))
run("copy_", lambda: (lambda t: (F._foreach_copy_(t, ys), t)[1])(fresh()))
run("max", lambda: F._foreach_max(xs))
run("add.Scalar int", lambda: F._foreach_add([torch.arange(3)], 2))
run("add_.Scalar int float", lambda: F._foreach_add_([torch.arange(3)], 2.5))
run("empty", lambda: F._foreach_add([], 1))
run("lengths", lambda: F._foreach_add(xs, ys[:2]))
run("scalar list length", lambda: F._foreach_add(xs, [1.0, 2.0]))
run("addcmul scalar list length", lambda: F._foreach_addcmul(xs, ys, zs, [1.0]))
run("packed scalars dim", lambda: F._foreach_addcmul(xs, ys, zs, torch.tensor(1.0)))
run("packed scalars length", lambda: F._foreach_addcmul(xs, ys, zs, torch.ones(2)))
run("shape mismatch", lambda: F._foreach_add(xs, [ys[1], ys[0], ys[2]]))
g = torch._C._group_tensors_by_device_and_dtype(
    [[xs[0], xs[1].double(), xs[2]], [ys[0], None, ys[2]], []], True)
out["group"] = [[str(k[0]), str(k[1]), [[None if t is None else hexof(t) for t in l] for l in v[0]],
                 v[1]] for k, v in sorted(g.items(), key=lambda kv: str(kv[0][1]))]
for bad in ([[xs[0].double()], [ys[0]]], [[xs[0]], [ys[0].double()]], [[None]], [[]], []):
    try:
        torch._C._group_tensors_by_device_and_dtype(bad, False)
        out[f"group {len(bad)}"] = "ok"
    except Exception as e:
        out[f"group {str(bad)[:40]}"] = [type(e).__name__]
'''


def test_foreach_ops_are_upstreams():
    ours, up = _both.both(PRELUDE, FOREACH)
    assert ours.keys() == up.keys()
    bad = [f"{k}: {str(ours[k])[:200]} != {str(up[k])[:200]}" for k in up
           if ours[k] != up[k] and not k.startswith("norm values")]
    assert not bad, "\n".join(bad)
    for k in up:
        if k.startswith("norm values"):
            for g, w in zip(ours[k], up[k]):
                assert abs(g - w) <= 2 * np.spacing(np.float32(w)), (k, g, w)
