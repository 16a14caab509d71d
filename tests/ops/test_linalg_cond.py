"""linalg.cond (every p: None, +-2, +-1, +-inf, 'fro', 'nuc'; out=), ours and upstream each in
its own process, bit for bit: upstream's composition of svdvals, inv_ex and matrix_norm, which
we already match, in its order: values, singular and empty inputs, errors in upstream's words,
meta shapes, gradients and node names.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, bits_values, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
_bits = functools.partial(bits, strides=True)
def bits(t):
    return _bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t)
L = torch.linalg
torch.manual_seed(0)
PS = (None, 2, -2, 1, -1, 1.0, float("inf"), float("-inf"), "fro", "nuc")
for dt in ("float32", "float64", "complex64", "complex128"):
    d = getattr(torch, dt)
    a = torch.randn(3, 5, 5, dtype=d)
    sing = a.clone()
    sing[1, :, 2] = sing[1, :, 1]
    sing[2] = 0
    for p in PS:
        case(f"cond_{p}_{dt}", lambda: bits(L.cond(a, p)))
        case(f"sing_{p}_{dt}", lambda: bits(L.cond(sing, p)))
        case(f"mT_{p}_{dt}", lambda: bits(L.cond(a.mT[0], p)))
        case(f"empty_{p}_{dt}", lambda: bits(L.cond(a[:, :0, :0], p)))
        case(f"out_{p}_{dt}", lambda: bits(L.cond(a, p, out=torch.empty(0, dtype=torch.float64))))
    case(f"rect_2_{dt}", lambda: bits(L.cond(torch.randn(2, 3, 6, dtype=d))))
    case(f"rect_m2_{dt}", lambda: bits(L.cond(torch.randn(6, 3, dtype=d), -2)))
case("rect_1", lambda: L.cond(torch.randn(3, 4), 1))
case("rect_inf", lambda: L.cond(torch.randn(3, 4), float("inf")))
case("rect_fro", lambda: L.cond(torch.randn(3, 4), "fro"))
case("rect_m1", lambda: L.cond(torch.randn(3, 4), -1.0))
case("bad_p", lambda: L.cond(torch.randn(3, 3), 3))
case("bad_p_float", lambda: L.cond(torch.randn(3, 3), 0.5))
case("bad_str", lambda: L.cond(torch.randn(3, 3), "foo"))
case("bad_str_rect", lambda: L.cond(torch.randn(3, 4), "foo"))
case("vec", lambda: L.cond(torch.randn(3)))
case("int", lambda: L.cond(torch.ones(3, 3, dtype=torch.int64)))
case("int_1", lambda: L.cond(torch.ones(3, 3, dtype=torch.int64), 1))
case("half", lambda: L.cond(torch.ones(3, 3, dtype=torch.float16)))
case("out_int", lambda: L.cond(torch.randn(3, 3), out=torch.empty(0, dtype=torch.int64)))
case("out_complex", lambda: bits(L.cond(torch.randn(3, 3), out=torch.empty(0,
                                                               dtype=torch.complex64)).real))
case("out_meta", lambda: L.cond(torch.randn(3, 3), out=torch.empty(0, device="meta")))
for p in PS:
    case(f"meta_{p}", lambda: [str(L.cond(torch.randn(2, 4, 4, device="meta"), p).shape),
                               str(L.cond(torch.randn(2, 4, 4, device="meta"), p).dtype)])
def grads(fn, *vs):
    ts = [v.detach().clone().requires_grad_() for v in vs]
    r = fn(*ts)
    w = torch.linspace(-1, 2, r.numel(), dtype=r.real.dtype).reshape(r.shape)
    loss = (r.real * w).sum() if r.is_complex() else (r * w).sum()
    return [r.grad_fn.name()] + [bits(g) for g in torch.autograd.grad(loss, ts)]
for dt in ("float64", "complex128"):
    d = getattr(torch, dt)
    m = torch.randn(2, 4, 4, dtype=d)
    for p in PS:
        case(f"g_{p}_{dt}", lambda: grads(lambda x: L.cond(x, p), m))
print(json.dumps(out))
"""


# Not bit for bit, with why:
# - the 'fro' cases (and the complex ones): our linalg_vector_norm over dims (-2, -1) rounds
#   differently from upstream's already (a 3x5x5 float64 matrix's norm over (-2, -1) is 1 ulp
#   off upstream's, while the same over a flattened last dim agrees), and our complex matmul,
#   inverse and svd round differently (test_linalg_products). Held to 32 units in the last place
#   of the largest finite magnitude, non-finite values bit for bit;
# - the complex gradients through linalg_inv_ex, which both sides refuse (masked_fill_ changed
#   the inverse in place): upstream's message names the tensor type "CPUComplexDoubleType",
#   ours "torch.Tensor" (the engine's wording, not cond's). Compared without that name.
def test_linalg_cond_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    beyond = {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()
              if not (("complex" in k or "fro" in k) and _near(a, b, 32, _single(k)))}
    assert not beyond, beyond
    assert upstream["g_None_float64"][0] == "SqueezeBackward1"
    assert upstream["bad_p"][0] == "raises"


def _single(key: str) -> bool:
    """A float32 or complex64 computation (its out= may be float64)."""
    return key.endswith(("float32", "complex64"))


def _near(a, b, ulps, single=False) -> bool:
    if a and a[0] == "raises":
        return a[:2] == b[:2] and _untyped(a[2]) == _untyped(b[2])
    if a and isinstance(a[0], str) and re.search(r"Backward\d$", a[0]):
        return a[0] == b[0] and all(_near(x, y, ulps, single) for x, y in zip(a[1:], b[1:]))
    if a[:-1] != b[:-1] or len(a[-1]) != len(b[-1]):
        return False
    va, vb = bits_values(a), bits_values(b)
    eps = 2.0 ** (-23 if single or a[0] == "torch.float32" else -52)
    scale = max([abs(v) for v in vb if math.isfinite(v)] + [1e-300])
    return all(x == y or (math.isfinite(x) and math.isfinite(y)
                          and abs(x - y) <= ulps * eps * scale)
               for x, y, in zip(va, vb))


def _untyped(msg: str) -> str:
    return re.sub(r"\[\S+ \[", "[T [", msg)
