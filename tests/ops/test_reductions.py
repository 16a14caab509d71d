"""Agreement of the reductions, matmul and nn kernels with upstream torch 2.13.0.

Each case is evaluated under our torch and under upstream's, each in its own process (helpers.both).
Integer, bool and index results must be equal; a floating result must lie within upstream's own
float32 error (|upstream float32 - upstream float64|, per element or its 90th percentile, whichever
is larger, plus one float32 ulp of the value) of upstream's float32 result or of its float64 result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/helpers.py
from helpers import OURS, UPSTREAM, run_json

# Inputs: seeded numpy arrays; "_t" names are transposed (non-contiguous) views.
SETUP = """
import json, math
import numpy as np
import torch
rng = np.random.default_rng(0)
A = {
    "x": rng.standard_normal((2, 3, 4)), "m1": rng.standard_normal((3, 4)),
    "m2": rng.standard_normal((4, 5)), "m2_t": rng.standard_normal((5, 4)).T,
    "b1": rng.standard_normal((2, 1, 3, 4)), "b2": rng.standard_normal((5, 4, 2)),
    "v": rng.standard_normal(4), "q": rng.standard_normal((1, 4, 3, 8)),
    "k": rng.standard_normal((1, 2, 5, 8)), "vv": rng.standard_normal((1, 2, 5, 6)),
    "big": rng.standard_normal((7, 300)) * 100, "w": rng.standard_normal(4),
    "w5": rng.standard_normal(5),
    # MiniLM's layer_norm rows: 384 wide, a mean far from 0 next to the spread. Values exact in
    # float32, so the float64 run sees the same inputs: otherwise rounding the inputs alone
    # (b near -y) puts even an exactly rounded answer outside the per-element allowance.
    "ln": rng.standard_normal((8, 384)) * 2 + 5, "lw": rng.standard_normal(384),
    "lb": rng.standard_normal(384),
}
for n in ("ln", "lw", "lb"):
    A[n] = A[n].astype(np.float32).astype(np.float64)
# MiniLM's attention: (batch, seq, heads, dim) viewed as (batch, heads, seq, dim); padding masks
# (keys past each sentence's length), bool and additive; one query row masked throughout.
# Exact in float32, as ln above.
for n in ("aq", "ak", "av"):
    A[n] = rng.standard_normal((2, 15, 3, 8)).astype(np.float32).astype(np.float64)
_keep = (np.arange(15)[None, :] < np.array([15, 9])[:, None])[:, None, None, :]
_keep = np.broadcast_to(_keep, (2, 1, 15, 15)).copy()
_keep[1, 0, 4, :] = False
A["amf"] = np.where(_keep, 0.0, -np.inf) + np.float32(rng.standard_normal((2, 1, 15, 15))) * _keep
I = {"i": rng.integers(-5, 5, (3, 4)), "bo": rng.integers(0, 2, (3, 4)).astype(bool),
     "idx": np.array([[0, 2], [1, 1]]), "am": _keep}
def env(dt):
    def floats(a):  # the cast happens in numpy: a transposed array stays a transposed view
        return (np.ascontiguousarray(a.T).astype(dt).T if a.ndim == 2 else a.astype(dt))
    e = {n: torch.from_numpy(floats(a)) for n, a in A.items()}
    e.update({n: torch.from_numpy(a) for n, a in I.items()})
    e["m2d"] = torch.from_numpy(A["m2"].astype(np.float64))
    e["torch"] = torch
    e["F"] = torch.nn.functional
    return e
def ser(r):
    if isinstance(r, tuple):
        return [ser(t) for t in r]
    return {"dtype": str(r.dtype), "shape": list(r.shape),
            "values": [None if math.isnan(v) else v for v in
                       np.asarray(r.tolist(), dtype=float).reshape(-1).tolist()]}
def evaluate(cases, dt):
    out = {}
    for c in cases:
        try:
            out[c] = ser(eval(c, env(dt)))
        except Exception as e:
            out[c] = {"error": type(e).__name__, "message": str(e).splitlines()[0]}
    return out
"""

CASES = [
    "torch.sum(x)", "torch.sum(x, (0, -1), keepdim=True)", "torch.sum(m2_t, 0)",
    "torch.sum(i, 1)", "torch.sum(bo)", "torch.sum(big, 1)", "x.mean(1)", "torch.mean(m2_t, -1)",
    "torch.prod(x, 2)", "torch.amax(x, (0, 2))", "torch.amin(m2_t, 1, keepdim=True)",
    "torch.max(x, 1)", "torch.min(m2_t, 0)", "torch.max(i)", "torch.argmax(x)",
    "torch.argmin(x, 2, keepdim=True)", "torch.argmax(i, 0)", "torch.var(x, 1)",
    "torch.std(x, (0, 1), correction=0)", "torch.var(m2_t, 0, unbiased=False)",
    "torch.all(bo, 0)", "torch.any(bo)", "torch.any(i, 1)", "torch.cumsum(x, 1)",
    "torch.cumsum(i, 0)", "torch.cumsum(m2_t, 0)", "torch.linalg.vector_norm(x, 3, dim=1)",
    "torch.linalg.vector_norm(big)", "torch.linalg.vector_norm(m2_t, float('inf'), dim=0)",
    "torch.mm(m1, m2)", "torch.mm(m1, m2_t)", "torch.matmul(b1, b2)",
    "torch.matmul(v, m2)", "torch.matmul(m1, v)", "torch.matmul(m1, m2_t)",
    "torch.matmul(b1, v)", "torch.dot(v, w)", "torch.mv(m1, v)",
    "torch.addmm(w5, m1, m2, beta=0.5, alpha=2)", "torch.outer(v, w)",
    "torch.matmul(b2, m2)",
    "F.linear(x, m2_t, w5)", "F.linear(x, m1)", "torch.softmax(x, 1)",
    "torch.log_softmax(big, 1)", "torch.softmax(m2_t, 0)",
    "F.layer_norm(x, (4,))", "F.layer_norm(x, (4,), w, v)", "F.layer_norm(x, (3, 4))",
    "F.layer_norm(big, (300,))", "F.layer_norm(ln, (384,), lw, lb, 1e-12)",
    "F.layer_norm(ln, (384,))", "torch.native_layer_norm(ln, (384,), lw, lb, 1e-5)",
    "torch.native_layer_norm(ln.T, (8,), None, lw[:8], 1e-5)",
    "F.embedding(idx, m1)", "F.scaled_dot_product_attention(q, k, vv, enable_gqa=True)",
    "F.scaled_dot_product_attention(q, q, q, is_causal=True)",
    "F.dropout(x, 0.5, training=False)",
    # errors
    "torch.sum(x, 5)", "torch.sum(x, (0, 0))", "torch.mean(i)", "torch.max(torch.empty(0))",
    "torch.max(torch.empty(0, 3), 0)", "torch.argmax(bo)", "torch.mm(m1, m1)",
    "torch.mm(m1, m2d)", "F.embedding(torch.tensor([5]), m1)", "torch.var(i)",
]

# Attention at MiniLM's layout, judged on the whole tensor (ARCHITECTURE.md, idea 5: within twice
# upstream's own float32 error, its maximum), as tests/test_minilm.py judges the model. The
# element-by-element rule above fails these for every kernel we have had, the previous one
# (plain loops, the math path's order) included: over 720 outputs some element where upstream
# happens to be exact always lies beyond its 90th percentile of error plus an ulp.
ATTENTION = [
    "F.scaled_dot_product_attention(aq.transpose(1, 2), ak.transpose(1, 2), av.transpose(1, 2), "
    "attn_mask=am, scale=0.3)",
    "F.scaled_dot_product_attention(aq.transpose(1, 2), ak.transpose(1, 2), av.transpose(1, 2), "
    "attn_mask=amf)",
    "F.scaled_dot_product_attention(aq.transpose(1, 2), ak.transpose(1, 2), av.transpose(1, 2), "
    "is_causal=True)",
    "F.scaled_dot_product_attention(aq[:1].transpose(1, 2), ak[:1, :, :1].transpose(1, 2), "
    "av[:1, :, :1].transpose(1, 2), enable_gqa=True)",
]


def _results(cases=CASES):
    cases = json.dumps(cases)
    ours = run_json(OURS, SETUP + f"print(json.dumps(evaluate({cases}, np.float32)))")
    up = run_json(UPSTREAM, SETUP + f"print(json.dumps([evaluate({cases}, np.float32), "
                                    f"evaluate({cases}, np.float64)]))")
    return ours, up[0], up[1]


@pytest.fixture(scope="module")
def results():
    return _results()


def _close(ours, up, up64):
    assert ours["dtype"] == up["dtype"] and ours["shape"] == up["shape"], (ours, up)
    a = np.array([np.nan if v is None else v for v in ours["values"]], dtype=float)
    u = np.array([np.nan if v is None else v for v in up["values"]], dtype=float)
    if not up["dtype"].startswith("torch.float"):
        np.testing.assert_array_equal(a, u)
        return
    u64 = np.array([np.nan if v is None else v for v in up64["values"]], dtype=float)
    err = np.abs(u - u64)
    finite = err[np.isfinite(err)]
    p90 = np.percentile(finite, 90) if finite.size else 0.0
    allow = np.maximum(err, p90) + np.spacing(np.abs(u).astype(np.float32)).astype(float)
    same_nan = np.isnan(a) == np.isnan(u)
    assert same_nan.all(), (a, u)
    # Within upstream's own float32 error of upstream's float32 result, or of its float64 result
    # (a kernel more accurate than upstream's, e.g. moments taken in double, passes the second).
    ok = np.isnan(u) | (np.abs(a - u) <= allow) | (np.abs(a - u64) <= allow)
    assert ok.all(), f"max excess {np.max(np.abs(a - u) - allow)}: ours {a[~ok]} upstream {u[~ok]}"


@pytest.mark.parametrize("case", CASES)
def test_agrees_with_upstream(results, case):
    ours, up, up64 = (r[case] for r in results)
    if "error" in up:
        assert ours == up
        return
    assert "error" not in ours, ours
    if isinstance(up, list):
        for o, u, u6 in zip(ours, up, up64):
            _close(o, u, u6)
    else:
        _close(ours, up, up64)


@pytest.fixture(scope="module")
def attention_results():
    return _results(ATTENTION)


@pytest.mark.parametrize("case", ATTENTION)
def test_attention_within_twice_upstreams_own_error(attention_results, case):
    ours, up, up64 = (r[case] for r in attention_results)
    assert "error" not in up and "error" not in ours, (ours, up)
    assert ours["dtype"] == up["dtype"] and ours["shape"] == up["shape"], (ours, up)
    a, u, u64 = (np.array([np.nan if v is None else v for v in r["values"]], dtype=float)
                 for r in (ours, up, up64))
    assert (np.isnan(a) == np.isnan(u)).all(), (a, u)
    fin = ~np.isnan(u)
    err, own = np.max(np.abs(a - u64)[fin]), np.max(np.abs(u - u64)[fin])
    assert 0 < own and err <= 2 * own, f"max |ours - upstream_f64| = {err:.3g}, own {own:.3g}"


# float32 and float64 sum and mean in upstream's order (reduce_cascade.cpp): its cascade over
# inner and outer dims, four interleaved rows, the vector lanes of the build in use, the dims laid
# out and merged as its TensorIterator lays them. Every layout that picks a different branch:
# contiguous rows and columns (above and below the vector width and four times it), strided and
# transposed inputs, middle dims, several dims, all dims, keepdim, 0-dim and empty inputs, and
# lengths that reach the second cascade level (> 256 steps). Sizes stay below 32,768 elements,
# past which upstream's threads split a reduction.
CASCADE_SUMS = """
import json, torch
torch.manual_seed(0)
out = {}
def put(k, t):
    out[k] = t.contiguous().numpy().tobytes().hex()
for dt in (torch.float32, torch.float64):
    for shape in [(7,), (8,), (33,), (300,), (5000,), (3, 5), (32, 16), (16, 32), (37, 70),
                  (300, 9), (9, 300), (4, 129), (2, 3, 70), (6, 40, 37), (1, 1, 1), (0, 5)]:
        x = (torch.randn(*shape, dtype=dt) * 3 + 1) if 0 not in shape else torch.randn(*shape, dtype=dt)
        k = f"{dt} {shape}"
        put(k + " all", x.sum())
        put(k + " mean", x.mean())
        for d in range(x.dim()):
            put(k + f" dim{d}", x.sum(d))
            put(k + f" mean{d}", x.mean(d))
            put(k + f" keep{d}", x.sum(d, keepdim=True))
        if x.dim() >= 2:
            put(k + " t0", x.transpose(0, 1).sum(0))
            put(k + " t1", x.transpose(0, 1).sum(-1))
            put(k + " step", x[..., ::2].sum(0))
            put(k + " dims01", x.sum((0, 1)))
        if x.dim() == 3:
            put(k + " dims02", x.sum((0, 2)))
            put(k + " perm", x.permute(2, 0, 1).sum(1))
    put(f"{dt} 0-dim", torch.tensor(2.5, dtype=dt).sum())
    put(f"{dt} neg zero", torch.tensor([-0.0, -0.0], dtype=dt).sum())
print(json.dumps(out))
"""


def test_float_sums_have_upstreams_bits():
    ours, up = run_json(OURS, CASCADE_SUMS), run_json(UPSTREAM, CASCADE_SUMS)
    assert ours.keys() == up.keys()
    bad = [k for k in up if ours[k] != up[k]]
    assert not bad, f"{len(bad)} of {len(up)} differ: {bad[:20]}"


# softmax / log_softmax over the last dim of contiguous float32 (vec::softmax_row_f32): upstream's
# vectorised steps, SLEEF's expf/logf u10 and its reduce_all sum order, so its bits. Row lengths
# around the vector widths (8, 16) for the tails and the short-row sum, and NaN, inf and all -inf
# rows. Bit equality assumes SLEEF and the same vector width as upstream's kernel on this CPU.
SOFTMAX_BITS = """
import json, numpy as np, torch
import torch.nn.functional as F
rng = np.random.default_rng(3)
out = {}
for n in (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 384, 1000):
    x = torch.from_numpy((rng.standard_normal((40, n)) * 4).astype(np.float32))
    x[0, 0] = float("nan"); x[1, :] = -float("inf"); x[2, n // 2] = float("inf")
    x[3, -1] = 80.0
    for name, y in [("softmax", torch.softmax(x, -1)), ("log_softmax", F.log_softmax(x, -1)),
                    ("softmax_3d", F.softmax(x.reshape(4, 10, n), dim=2))]:
        out[f"{name} n={n}"] = y.numpy().tobytes().hex()
print(json.dumps(out))
"""


def test_softmax_lastdim_float32_has_upstreams_bits():
    ours, up = run_json(OURS, SOFTMAX_BITS), run_json(UPSTREAM, SOFTMAX_BITS)
    assert ours.keys() == up.keys()
    bad = [k for k in up if ours[k] != up[k]]
    assert not bad, bad
