"""ormqr (+ out=), ours and upstream each in its own process, bit for bit: the same ?ormqr /
?unmqr on the same column-major copies gives the same products, left and right, with and
without transpose; out= strides as upstream leaves them, errors in upstream's words, meta.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
_bits = functools.partial(bits, strides=True)
def bits(t):
    return _bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t)
def raw(t):
    return [list(t.shape), list(t.stride())]
torch.manual_seed(0)
for dt in ("float32", "float64", "complex64", "complex128"):
    d = getattr(torch, dt)
    A = torch.randn(2, 5, 3, dtype=d)
    qr, tau = torch.geqrf(A)
    cl = torch.randn(2, 5, 4, dtype=d)
    cr = torch.randn(2, 4, 5, dtype=d)
    for tr in (False, True):
        case(f"left_{tr}_{dt}", lambda: bits(torch.ormqr(qr, tau, cl, True, tr)))
        case(f"right_{tr}_{dt}", lambda: bits(torch.ormqr(qr, tau, cr, False, tr)))
        case(f"mat_{tr}_{dt}", lambda: bits(torch.ormqr(qr[0], tau[0], cl[0], True, tr)))
        case(f"k2_{tr}_{dt}", lambda: bits(torch.ormqr(qr, tau[:, :2], cl, True, tr)))
        case(f"strided_{tr}_{dt}", lambda: bits(torch.ormqr(qr.mT.contiguous().mT, tau,
                                                             cl.mT.contiguous().mT, True, tr)))
        case(f"method_{tr}_{dt}", lambda: bits(qr.ormqr(tau, cr, left=False, transpose=tr)))
    case(f"out_empty_{dt}", lambda: bits(torch.ormqr(qr, tau, cl, out=torch.empty(0, dtype=d))))
    case(f"out_empty_raw_{dt}", lambda: raw(torch.ormqr(qr, tau, cl, out=torch.empty(0,
                                                                                      dtype=d))))
    case(f"out_rowmajor_{dt}", lambda: raw(torch.ormqr(qr, tau, cl,
                                                       out=torch.empty(2, 5, 4, dtype=d))))
    case(f"out_colmajor_{dt}", lambda: raw(torch.ormqr(
        qr, tau, cl, out=torch.empty(2, 4, 5, dtype=d).mT)))
    case(f"empty_batch_{dt}", lambda: bits(torch.ormqr(qr[:0], tau[:0], cl[:0])))
    case(f"empty_cols_{dt}", lambda: bits(torch.ormqr(qr, tau, cl[..., :0])))
A = torch.randn(5, 3)
qr, tau = torch.geqrf(A)
C = torch.randn(5, 4)
case("in_1d", lambda: torch.ormqr(torch.randn(3), tau, C))
case("other_1d", lambda: torch.ormqr(qr, tau, torch.randn(5)))
case("tau_long", lambda: torch.ormqr(qr, torch.randn(6), torch.randn(5, 6)))
case("other_rows", lambda: torch.ormqr(qr, tau, torch.randn(4, 4)))
case("right_cols", lambda: torch.ormqr(qr, tau, torch.randn(4, 4), left=False))
case("right_k2", lambda: torch.ormqr(qr, tau[:2], torch.randn(4, 5), left=False))
case("tau_gt_n", lambda: torch.ormqr(qr, torch.randn(4), torch.randn(5, 4)))
case("tau_ndim", lambda: torch.ormqr(qr, tau[None], C))
case("other_ndim", lambda: torch.ormqr(qr, tau, C[None]))
case("tau_batch", lambda: torch.ormqr(qr.expand(2, 5, 3), tau.expand(3, 3), C.expand(2, 5, 4)))
case("other_batch", lambda: torch.ormqr(qr.expand(2, 5, 3), tau.expand(2, 3),
                                        C.expand(3, 5, 4)))
case("tau_dtype", lambda: torch.ormqr(qr, tau.double(), C))
case("other_dtype", lambda: torch.ormqr(qr, tau, C.double()))
case("out_dtype", lambda: torch.ormqr(qr, tau, C, out=torch.empty(0, dtype=torch.float64)))
case("tau_0d", lambda: torch.ormqr(qr, torch.tensor(1.), C))
case("int", lambda: torch.ormqr(qr.long(), tau.long(), C.long()))
case("half", lambda: torch.ormqr(qr.half(), tau.half(), C.half()))
print(json.dumps(out))
"""


def test_ormqr_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["in_1d"][0] == "raises"
