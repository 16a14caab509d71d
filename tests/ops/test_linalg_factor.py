"""The Cholesky and QR families of torch.linalg (issue 9, item 2): cholesky(_ex), the deprecated
cholesky, cholesky_solve, cholesky_inverse, qr in its three modes, geqrf, householder_product and
orgqr, their gradients and their meta forms, ours and upstream each in its own process.

Both sides call the same oneMKL release's ?potrf, ?potrs, ?potri, ?geqrf and ?orgqr the same way
(the same workspace queries, the same column-major layouts), so every case compares bit for bit
with dtype, shape, strides and the conjugate bit; errors by exception type and message.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

CASES = CASES_PRELUDE + r"""
M = torch.randn(2,3,3); P = M @ M.mT + 3*torch.eye(3)
Mc = torch.randn(3,3,dtype=torch.cdouble); Pc = Mc @ Mc.mH + 3*torch.eye(3)
bad = -torch.eye(3)
case("chol", lambda: torch.linalg.cholesky(P))
case("chol_up", lambda: torch.linalg.cholesky(P, upper=True))
case("chol_c", lambda: torch.linalg.cholesky(Pc))
case("chol_ex_bad", lambda: torch.linalg.cholesky_ex(torch.stack([bad, P[0], bad])))
case("chol_bad", lambda: torch.linalg.cholesky(torch.stack([P[0], bad])))
case("chol_int", lambda: torch.linalg.cholesky(torch.ones(2,2,dtype=torch.long)))
case("chol_half", lambda: torch.linalg.cholesky(torch.eye(2).half()))
case("chol_rect", lambda: torch.linalg.cholesky(torch.ones(2,3)))
case("chol_empty", lambda: torch.linalg.cholesky_ex(torch.ones(0,2,2)))
case("cholesky_old", lambda: torch.cholesky(P, upper=True))
L = torch.linalg.cholesky(P)
case("chol_solve", lambda: torch.cholesky_solve(torch.randn(3,2), L))
case("chol_solve_b", lambda: torch.cholesky_solve(torch.randn(4,1,3,2), L))
case("chol_solve_up", lambda: torch.cholesky_solve(torch.randn(3,2), L.mT, upper=True))
case("chol_solve_c", lambda: torch.cholesky_solve(torch.randn(3,2,dtype=torch.cdouble), torch.linalg.cholesky(Pc)))
case("chol_solve_mismatch", lambda: torch.cholesky_solve(torch.randn(3,2,dtype=torch.double), L))
case("chol_solve_int", lambda: torch.cholesky_solve(torch.ones(3,2,dtype=torch.long), torch.ones(3,3,dtype=torch.long)))
case("chol_inv", lambda: torch.cholesky_inverse(L))
case("chol_inv_up", lambda: torch.cholesky_inverse(L.mT, upper=True))
case("chol_inv_c", lambda: torch.cholesky_inverse(torch.linalg.cholesky(Pc)))
case("chol_inv_sing", lambda: torch.cholesky_inverse(torch.zeros(3,3)))
A = torch.randn(2,5,3); W = torch.randn(3,5)
for mode in ["reduced", "complete", "r"]:
    case("qr_"+mode, lambda: torch.linalg.qr(A, mode=mode))
    case("qr_wide_"+mode, lambda: torch.linalg.qr(W, mode=mode))
case("qr_c", lambda: torch.linalg.qr(torch.randn(4,3,dtype=torch.cfloat)))
case("qr_bad", lambda: torch.linalg.qr(A, mode="x"))
case("qr_int", lambda: torch.linalg.qr(torch.ones(2,2,dtype=torch.long)))
case("qr_empty", lambda: torch.linalg.qr(torch.ones(0,3)))
case("geqrf", lambda: torch.geqrf(A))
case("hh", lambda: torch.linalg.householder_product(*torch.geqrf(A)))
case("orgqr", lambda: torch.orgqr(*torch.geqrf(torch.randn(4,3, dtype=torch.double))))
case("hh_bad", lambda: torch.linalg.householder_product(W, torch.ones(3)))
x = P[0].clone().requires_grad_()
case("grad_chol", lambda: torch.autograd.grad(torch.linalg.cholesky(x).pow(2).sum(), x))
case("grad_chol_up", lambda: torch.autograd.grad(torch.linalg.cholesky(x, upper=True).pow(2).sum(), x))
l = L[0].clone().requires_grad_(); b = torch.randn(3,2, requires_grad=True)
case("grad_chol_solve", lambda: torch.autograd.grad(torch.cholesky_solve(b, l).pow(2).sum(), (b, l)))
case("grad_chol_inv", lambda: torch.autograd.grad(torch.cholesky_inverse(l).pow(2).sum(), (l,)))
case("grad_fn", lambda: [type(torch.linalg.cholesky(x).grad_fn).__name__, type(torch.cholesky_solve(b,l).grad_fn).__name__, type(torch.cholesky_inverse(l).grad_fn).__name__])
case("meta_chol", lambda: [r.shape for r in torch.linalg.cholesky_ex(torch.empty(2,3,3,device='meta'))])
case("meta_qr", lambda: [(r.shape, r.stride()) for r in torch.linalg.qr(torch.empty(2,5,3,device='meta'), mode='complete')])
case("meta_inv", lambda: [(r.shape, r.stride()) for r in torch.linalg.inv_ex(torch.empty(2,3,3,device='meta'))])
case("meta_det", lambda: [(r.shape) for r in torch.linalg.slogdet(torch.empty(2,3,3,device='meta'))])
case("meta_solve_chk", lambda: torch.linalg.solve(torch.empty(2,3,3,device='meta'), torch.empty(3,device='meta')).shape)
print(json.dumps(out))
"""


def test_cholesky_and_qr_agree_bit_for_bit():
    _, upstream, differ = cases_differing(CASES)
    assert not differ, differ
    # not vacuous: factors came out, and a non-positive-definite batch element raised
    assert upstream["qr_complete"][0][0] == "torch.float32"
    assert upstream["chol_bad"][:2] == ["raises", "_LinAlgError"]
