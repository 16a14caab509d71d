"""renorm (and renorm.out, renorm_), ours and upstream each in its own process: bit for bit in
float32/float64/float16/bfloat16 and complex for p in 1, 2, inf (and 3, see below), each dim,
maxnorm above, below and between the slices' norms, 0 maxnorm, zero slices, empty input,
non-contiguous input, meta, out= (its dtype check) and in-place, errors in upstream's words,
and the gradient (RenormBackward0), in-place included.

Allowance: the norm is linalg_vector_norm's, which in this core does not reproduce upstream's
summation order for a general p, nor for a norm over several dims that are not the innermost
(renorm along the last dim, or of a transposed input): those cases (approx_, p = 3 and dim -1)
are held to 8 ulps of their dtype; the others, and every gradient, are bit for bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing, scaled_error  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
def cbits(r, **kw):  # complex values as (real, imag) pairs
    return bits(torch.view_as_real(r) if r.is_complex() else r, **kw)
x = torch.randn(4, 5, 3) * 2
x[1] = 0
x[:, 2] = 0.01
for dt in ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"]:
    xd = x.to(getattr(torch, dt))
    if dt.startswith("complex"):
        xd = xd + 1j * x.flip(0).to(xd.dtype)
    for p in (1, 2, float("inf"), 3):
        for dim in (0, 1, -1):
            for maxnorm in (0.0, 0.5, 3.0, 1e9):
                name = f"{dt}_{p}_{dim}_{maxnorm}"
                if p == 3 or dim == -1:
                    case("approx_" + name, lambda: enc(torch.renorm(xd, p, dim, maxnorm)))
                else:
                    case(name, lambda: cbits(torch.renorm(xd, p, dim, maxnorm), strides=True))
    case(f"approx_{dt}_t", lambda: enc(torch.renorm(xd.transpose(0, 2), 2, 1, 1.0)))
    case(f"{dt}_empty", lambda: cbits(torch.renorm(xd[:0], 2, 1, 1.0)))
    case(f"{dt}_inplace", lambda: cbits(xd.clone().renorm_(1, 0, 2.0)))
    case(f"{dt}_method", lambda: cbits(xd.renorm(2, 1, 2.0)))
case("long", lambda: torch.renorm(x.long(), 2, 0, 1.0))
case("one_dim", lambda: torch.renorm(x[0, 0], 2, 0, 1.0))
case("p_zero", lambda: torch.renorm(x, 0, 0, 1.0))
case("p_neg", lambda: torch.renorm(x, -1, 0, 1.0))
case("p_complex", lambda: torch.renorm(x, 1j, 0, 1.0))
case("maxnorm_neg", lambda: torch.renorm(x, 2, 0, -1.0))
case("maxnorm_complex", lambda: torch.renorm(x, 2, 0, 1j))
case("bad_dim", lambda: torch.renorm(x, 2, 3, 1.0))
def meta():
    r = torch.renorm(x.to("meta").transpose(0, 1), 2, 0, 1.0)
    return [list(r.shape), list(r.stride()), str(r.dtype)]
case("meta", meta)
case("meta_one_dim", lambda: torch.renorm(x[0, 0].to("meta"), 2, 0, 1.0))
o = torch.zeros(2)
case("out", lambda: [bits(torch.renorm(x, 2, 1, 1.0, out=o)), bits(o)])
case("out_dtype", lambda: torch.renorm(x, 2, 1, 1.0, out=torch.empty(0, dtype=torch.double)))
def grads(fn, v=x):
    t = v.double().clone().requires_grad_()
    r = fn(t)
    w = torch.linspace(-1, 2, r.numel(), dtype=torch.float64).reshape(r.shape)
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad((r * w).sum(), [t])]
for p in (1, 2, float("inf")):
    for dim in (0, 1):
        case(f"g_{p}_{dim}", lambda: grads(lambda t: torch.renorm(t, p, dim, 1.5)))
case("g_inplace", lambda: grads(lambda t: t.clone().renorm_(2, 0, 1.5)))
case("g_complex", lambda: grads(lambda t: torch.renorm(t, 2, 1, 1.5), x + 1j * x.flip(0)))
def g32():
    t = x.clone().requires_grad_()
    r = torch.renorm(t, 2, 0, 1.5)
    return [bits(g) for g in torch.autograd.grad((r * x.cos()).sum(), [t])]
case("g_float32", g32)
print(json.dumps(out))
"""

ULPS8 = {"torch.float16": 8 * 2.0**-10, "torch.bfloat16": 8 * 2.0**-7,
         "torch.float32": 8 * 2.0**-23, "torch.float64": 8 * 2.0**-52,
         "torch.complex64": 8 * 2.0**-23, "torch.complex128": 8 * 2.0**-52}


def test_renorm_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    exact = {k: v for k, v in differ.items() if not k.startswith("approx_")}
    assert not exact, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in exact.items()}
    for k in (k for k in upstream if k.startswith("approx_")):
        got, ref = ours[k], upstream[k]
        assert got[:4] == ref[:4], k  # dtype, shape, strides, conjugate bit
        assert scaled_error(got[4], ref[4]) <= ULPS8[ref[0]], (k, got[4][:4], ref[4][:4])
    assert upstream["g_2_0"][0] == "RenormBackward0"
    assert upstream["p_zero"][0] == "raises"
