"""linalg.qr's and qr's gradient (LinalgQrBackward0), ours and upstream each in its own process:
upstream's linalg_qr_backward for tall, square and wide inputs, modes reduced and complete (and
the refusals of mode='r' and of a complete tall factorisation), with the gradient of Q, of R or
of both, real and complex, batched; the deprecated torch.qr through it; double backward.
Bit for bit, but for what our matmul already rounds differently from upstream's, said below.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, bits_near, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + r"""
def gbits(t):
    v = torch.view_as_real(t) if t.is_complex() else t
    w = torch.int32 if v.dtype == torch.float32 else torch.int64
    return [str(t.dtype), list(t.shape), v.detach().flatten().view(w).tolist()]
def grad_of(shape, mode, dt, which, fn=None):
    A = torch.randn(*shape, dtype=dt).requires_grad_()
    Q, R = (fn or torch.linalg.qr)(A, mode)
    loss = 0
    if 0 in which:
        w = torch.linspace(-1, 2, Q.numel(), dtype=torch.float64).reshape(Q.shape)
        loss = loss + (Q * w).sum().real
    if 1 in which:
        w = torch.linspace(2, -1, R.numel(), dtype=torch.float64).reshape(R.shape)
        loss = loss + (R * w).sum().real
    g, = torch.autograd.grad(loss, [A])
    return [Q.grad_fn.name(), gbits(g)]
for shape in [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 5), (0, 3), (3, 0)]:
    for mode in ["reduced", "complete", "r"]:
        for which in [(0, 1), (0,), (1,)]:
            for dt in ["float64", "complex128", "float32"]:
                case(f"{shape}_{mode}_{which}_{dt}",
                     lambda: grad_of(shape, mode, getattr(torch, dt), which))
case("qr_some", lambda: grad_of((4, 3), True, torch.float64, (0, 1), torch.qr))
case("qr_all", lambda: grad_of((3, 5), False, torch.float64, (0, 1), torch.qr))
case("qr_all_tall", lambda: grad_of((5, 3), False, torch.float64, (0, 1), torch.qr))
def double(shape):
    A = torch.randn(*shape, dtype=torch.float64).requires_grad_()
    Q, R = torch.linalg.qr(A)
    g, = torch.autograd.grad((Q.sum() + (R * R).sum()), [A], create_graph=True)
    gg, = torch.autograd.grad((g * g).sum(), [A])
    return gbits(gg)
case("double_tall", lambda: double((4, 3)))
case("double_wide", lambda: double((3, 4)))
print(json.dumps(out))
"""




def test_qr_backward_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    # Not bit for bit, with why: the batched complex cases, whose matmuls are our complex
    # matmul (it rounds differently from upstream's zgemm already, test_linalg_products.py),
    # held to 4 ulps of the largest magnitude; and the wide cases with only Q's gradient, where
    # a column that is a matmul of Q with a zero column comes out +0.0 here and -0.0 from
    # upstream's gemm: equal values, held to 0 ulps (signed zeros only).
    # Under upstream's AVX2 build (MKL_ENABLE_INSTRUCTIONS=AVX2) our linalg.solve_triangular
    # with left=False (the last step here) already differs from upstream's by an ulp or two
    # (measured apart on 3 x 3 systems): every case then held to 4 ulps.
    avx2 = os.environ.get("MKL_ENABLE_INSTRUCTIONS") == "AVX2"
    beyond = {}
    for k, (a, b) in differ.items():
        if avx2 and a[0] == b[0] and a[0] != "raises":
            pairs = [(a[1], b[1])] if a[0] == "LinalgQrBackward0" else [(a, b)]
            if all(bits_near(x, y, 4) for x, y in pairs):
                continue
        if a[0] == b[0] == "LinalgQrBackward0":
            if k.startswith("(2, ") and "complex" in k and bits_near(a[1], b[1], 4):
                continue
            if "_(0,)_" in k and bits_near(a[1], b[1], 0):
                continue
        beyond[k] = (str(a)[:200], str(b)[:200])
    assert not beyond, beyond
    assert ours["(4, 3)_reduced_(0, 1)_float64"][0] == "LinalgQrBackward0"
    assert upstream["(4, 3)_r_(0, 1)_float64"][:2] == ["raises", "RuntimeError"]
