"""Autograd through complex tensors (issue 9, item 3), ours and upstream each in its own process.

Every case builds seeded complex and real leaves (complex64/float32, and complex128/float64 from
the same values), runs a forward, calls backward with a seeded gradient of the output's dtype
(complex for a complex output), and prints the output, its grad_fn's name and every leaf's
gradient. Upstream's convention is the one to meet: a holomorphic f's gradient is
grad * conj(f'(z)), a real input's is the real part of what reaches it. The output's grad_fn
name must be upstream's; values follow docs/AGREEMENT_RULES.md as tests/api/test_complex.py's
computed cases do: the error of our complex64 result against upstream's complex128 may not exceed
upstream's own complex64 error on the same case or the float32 floor of 4 ulp.

What has no complex derivative yet refuses by name (NotImplementedError naming the op), never a
real-valued formula run on complex values.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import FLOAT32_FLOOR, OURS, UPSTREAM, run_json, scaled_error  # noqa: E402

CASES = r"""
import json, torch
out = {}
def enc(r):
    if isinstance(r, torch.Tensor):
        v = r.resolve_conj().resolve_neg().detach().contiguous()
        pairs = torch.view_as_real(v).tolist() if v.is_complex() else v.tolist()
        return [str(r.dtype), list(r.shape), pairs]
    return r
torch.manual_seed(11)
def crand(*s): return torch.randn(*s, dtype=torch.complex128)
def rrand(*s): return torch.randn(*s, dtype=torch.float64)
W = dict(a=crand(6, 5) * 2, b=crand(6, 5) + 0.5, c=crand(5), m1=crand(4, 6), m2=crand(6, 3),
         bm1=crand(2, 4, 6), bm2=crand(2, 6, 3), t=rrand(6, 5) * 2,
         r=torch.rand(6, 5, dtype=torch.float64) + 0.2, t2=rrand(6, 5, 2), s=rrand(8, 6))
cases = {
    "add": lambda p: p["a"] + p["b"],
    "add alpha": lambda p: torch.add(p["a"], p["b"], alpha=2 - 1j),
    "add real": lambda p: p["a"] + p["t"],
    "add scalar": lambda p: p["a"] + (1 - 2j),
    "real plus 1j": lambda p: p["t"] + 1j,
    "sub": lambda p: p["a"] - p["b"],
    "sub alpha": lambda p: torch.sub(p["a"], p["b"], alpha=0.5j),
    "rsub scalar": lambda p: (2 - 1j) - p["a"],
    "mul": lambda p: p["a"] * p["b"],
    "mul scalar": lambda p: p["a"] * (2 - 3j),
    "mul real tensor": lambda p: p["a"] * p["t"],
    "real times 1j": lambda p: p["t"] * 1j,
    "div": lambda p: p["a"] / p["b"],
    "div real": lambda p: p["t"] / p["b"],
    "div scalar": lambda p: p["a"] / (2 - 3j),
    "neg": lambda p: -p["a"],
    "reciprocal": lambda p: p["b"].reciprocal(),
    "pow 2": lambda p: p["a"] ** 2,
    "pow 1.7": lambda p: p["b"] ** 1.7,
    "pow complex": lambda p: p["b"] ** (0.5 + 0.25j),
    "pow tensor": lambda p: p["b"] ** p["a"],
    "scalar pow": lambda p: (1.5 + 0.5j) ** p["a"],
    "exp": lambda p: p["a"].exp(),
    "log": lambda p: p["b"].log(),
    "log2": lambda p: p["b"].log2(),
    "log10": lambda p: p["b"].log10(),
    "sqrt": lambda p: p["b"].sqrt(),
    "rsqrt": lambda p: p["b"].rsqrt(),
    "sin": lambda p: p["a"].sin(),
    "cos": lambda p: p["a"].cos(),
    "tan": lambda p: p["b"].tan(),
    "sinh": lambda p: p["a"].sinh(),
    "cosh": lambda p: p["a"].cosh(),
    "tanh": lambda p: p["b"].tanh(),
    "sigmoid": lambda p: p["b"].sigmoid(),
    "abs": lambda p: p["a"].abs(),
    "abs squared": lambda p: p["a"].abs() ** 2,
    "angle": lambda p: p["a"].angle(),
    "sgn": lambda p: p["a"].sgn(),
    "polar": lambda p: torch.polar(p["r"], p["t"]),
    "complex": lambda p: torch.complex(p["t"], p["r"]),
    "view_as_real": lambda p: torch.view_as_real(p["a"]),
    "view_as_complex": lambda p: torch.view_as_complex(p["t2"]),
    "real": lambda p: p["a"].real,
    "imag": lambda p: p["a"].imag,
    "conj": lambda p: p["a"].conj(),
    "conj mul": lambda p: p["a"].conj() * p["b"],
    "conj imag": lambda p: p["a"].conj().imag,
    "conj_physical": lambda p: p["a"].conj_physical(),
    "conj_physical_": lambda p: (p["a"] * 1).conj_physical_(),
    "conj_physical_ real": lambda p: (p["t"] * 1).conj_physical_(),
    "resolve_conj": lambda p: (p["a"] * 1).conj().resolve_conj(),
    "to complex": lambda p: p["t"].to(torch.complex128 if p["t"].dtype == torch.float64
                                      else torch.complex64),
    "to real": lambda p: p["a"].real.to(torch.float32).to(p["t"].dtype),
    "clone": lambda p: p["a"].clone(),
    "sum": lambda p: p["a"].sum(),
    "sum dim": lambda p: p["bm1"].sum(1),
    "mean": lambda p: p["a"].mean(),
    "mean dim": lambda p: p["bm1"].mean(-1, keepdim=True),
    "mm": lambda p: p["m1"] @ p["m2"],
    "mm transposed": lambda p: p["m2"].t() @ p["m1"].t(),
    "mv": lambda p: p["m1"] @ p["m2"][:, 0],
    "bmm": lambda p: p["bm1"] @ p["bm2"],
    "matmul broadcast": lambda p: p["bm1"] @ p["m2"],
    "addmm": lambda p: torch.addmm(p["m1"][:, :3], p["m1"], p["m2"], beta=0.5 - 1j, alpha=2j),
    "linear": lambda p: torch.nn.functional.linear(p["m1"], p["m2"].t(), p["c"][:3]),
    "dot": lambda p: torch.dot(p["c"], p["a"][0]),
    "cat": lambda p: torch.cat([p["a"], p["b"]], 0),
    "stack": lambda p: torch.stack([p["a"], p["b"]], 1),
    "index": lambda p: p["a"][torch.tensor([0, 2, 2])],
    "index_put": lambda p: p["a"].index_put((torch.tensor([1, 3]),), p["b"][:2]),
    "select slice": lambda p: p["a"][1, 1:4],
    "transpose reshape": lambda p: p["a"].t().reshape(-1),
    "expand": lambda p: p["c"].expand(3, 5) * p["a"][:3],
    "unsqueeze squeeze": lambda p: p["a"].unsqueeze(0).squeeze(0).permute(1, 0),
    "where": lambda p: torch.where(p["t"] > 0, p["a"], p["b"]),
    "masked_fill": lambda p: p["a"].masked_fill(p["t"] > 0, 1j),
    "pad": lambda p: torch.nn.functional.pad(p["a"], (1, 2)),
    "flip": lambda p: p["a"].flip(0),
    "fft": lambda p: torch.fft.fft(p["a"]),
    "fft of real": lambda p: torch.fft.fft(p["t"], dim=0),
    "ifft norm": lambda p: torch.fft.ifft(p["a"], n=7, norm="ortho"),
    "rfft": lambda p: torch.fft.rfft(p["s"]),
    "rfft2": lambda p: torch.fft.rfft2(p["s"]),
    "irfft": lambda p: torch.fft.irfft(p["a"]),
    "irfft n": lambda p: torch.fft.irfft(p["a"], n=9, norm="forward"),
    "hfft": lambda p: torch.fft.hfft(p["a"]),
    "ihfft": lambda p: torch.fft.ihfft(p["s"]),
    "fft2": lambda p: torch.fft.fft2(p["a"]),
    "fftn real": lambda p: torch.fft.fftn(p["t"]).real,
    "fnet mix": lambda p: torch.fft.fft(torch.fft.fft(p["t"], dim=-1), dim=-2).real,
    "exp2": lambda p: p["a"].exp2(),
    "expm1": lambda p: p["a"].expm1(),
    "log1p": lambda p: p["b"].log1p(),
    "asin": lambda p: (p["b"] * 0.4).asin(),
    "acos": lambda p: (p["b"] * 0.4).acos(),
    "atan": lambda p: (p["b"] * 0.4).atan(),
    "addcmul": lambda p: torch.addcmul(p["a"], p["b"], p["t"], value=0.5 - 2j),
    "addcdiv": lambda p: torch.addcdiv(p["a"], p["a"], p["b"], value=2j),
    "lerp scalar": lambda p: torch.lerp(p["a"], p["b"], 0.3 + 0.2j),
    "lerp tensor": lambda p: torch.lerp(p["a"], p["b"], p["b"] * 0.1),
    "cumsum": lambda p: p["a"].cumsum(1),
    "var": lambda p: p["a"].var(0),
    "std": lambda p: p["bm1"].std(),
    "vector_norm": lambda p: torch.linalg.vector_norm(p["a"], dim=1),
    "vector_norm 3": lambda p: torch.linalg.vector_norm(p["a"], ord=3),
    "vector_norm 1": lambda p: torch.linalg.vector_norm(p["a"], ord=1),
    "scatter_add": lambda p: p["a"].scatter_add(0, torch.tensor([[1, 0, 2, 5, 5]]), p["b"][:1]),
    "index_add": lambda p: p["a"].index_add(0, torch.tensor([3, 3]), p["b"][:2], alpha=1 - 1j),
    "gather": lambda p: p["a"].gather(1, torch.tensor([[0, 0], [4, 1]] * 3)),
    "inplace mul_": lambda p: p["a"].clone().mul_(p["b"]),
    "inplace on view": lambda p: (lambda z: (z[1].mul_(2j), z)[1])(p["a"].clone()),
}
def run(dt, cdt):
    for name, fn in cases.items():
        key = name + " |" + str(dt).split(".")[1]
        torch.manual_seed(5)
        try:
            # fresh leaves each case (.clone(): W's complex128 tensors would be their own .to())
            p = {k: v.to(cdt if v.is_complex() else dt).clone().requires_grad_()
                 for k, v in W.items()}
            y = fn(p)
            g = torch.randn(y.shape, dtype=torch.complex128 if y.is_complex() else torch.float64)
            node = y.grad_fn.name() if y.grad_fn is not None else None
            y.backward(g.to(y.dtype))
            grads = {k: enc(v.grad) for k, v in p.items() if v.grad is not None}
            out[key] = ["ok", enc(y), node, grads]
        except Exception as e:
            out[key] = ["raises", type(e).__name__, str(e)[:300]]
run(torch.float32, torch.complex64)
run(torch.float64, torch.complex128)
print(json.dumps(out))
"""

def test_gradients_agree_with_upstream():
    ours, upstream = run_json(OURS, CASES), run_json(UPSTREAM, CASES)
    assert ours.keys() == upstream.keys()
    failures = {}
    for key in upstream:
        if not key.endswith("|float32"):
            continue
        name = key[: -len("|float32")]
        up32, up64, got = upstream[key], upstream[name + "|float64"], ours[key]
        assert up32[0] == "ok", (name, up32)
        if got[0] != "ok":
            failures[name] = got
            continue
        if got[2] != up32[2]:
            failures[name] = ("grad_fn", got[2], up32[2])
            continue
        if sorted(got[3]) != sorted(up32[3]):
            failures[name] = ("leaves with a gradient", sorted(got[3]), sorted(up32[3]))
            continue
        parts = [("output", got[1], up32[1], up64[1])]
        parts += [(k, got[3][k], up32[3][k], up64[3][k]) for k in sorted(up32[3])]
        for part, mine, theirs32, theirs64 in parts:
            if mine[:2] != theirs32[:2]:
                failures[name + " " + part] = ("dtype or shape", mine[:2], theirs32[:2])
                continue
            own = scaled_error(theirs32[2], theirs64[2])
            err = scaled_error(mine[2], theirs64[2])
            if err > max(own, FLOAT32_FLOOR):
                failures[name + " " + part] = (err, own)
    assert not failures, failures
    # not vacuous: complex gradients reached complex leaves, real ones real leaves
    assert upstream["mul real tensor |float32"][3]["a"][0] == "torch.complex64"
    assert upstream["mul real tensor |float32"][3]["t"][0] == "torch.float32"
    assert len(upstream) == 2 * len([k for k in upstream if k.endswith("|float32")])


REFUSALS = r"""
import json, torch
from torch.autograd import forward_ad as fwAD
x = torch.randn(4, 3, dtype=torch.complex64, requires_grad=True)
out = {}
def dual():
    with fwAD.dual_level():
        fwAD.make_dual(x.detach(), x.detach())
for name, fn in {
    "prod": lambda: x.prod(),
    "_foreach_mul": lambda: torch._foreach_mul([x], 2.0),
    "forward AD": dual,
}.items():
    try:
        fn()
        out[name] = "ran"
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
print(json.dumps(out))
"""


def test_what_has_no_complex_derivative_is_refused_by_name():
    ours = run_json(OURS, REFUSALS)
    for name, got in ours.items():
        assert got[0] == "NotImplementedError", (name, got)
    assert "aten::prod" in ours["prod"][1] and "complex" in ours["prod"][1]
    assert "_foreach" in ours["_foreach_mul"][1]
    assert "forward-mode AD of complex" in ours["forward AD"][1]
