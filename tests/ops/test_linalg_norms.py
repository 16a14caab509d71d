"""Matrix norms, pseudoinverse and rank (issue 9, item 2): linalg.matrix_norm and linalg.norm for
every order, torch.norm's matrix forms, linalg.pinv in its spellings (hermitian, atol/rtol,
rcond, pinverse), linalg.matrix_rank, the deprecated torch.lu and vector_norm's out=, with
gradients, ours and upstream each in its own process.

They are upstream's compositions over the factorisations (svdvals, eigh), which agree bit for bit,
so the forward cases compare exactly (values, strides, errors); the gradients within upstream's
own float32 error against its float64 result, or the float32 floor.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import (CASES_PRELUDE, SAME_VALUES_IN_DTYPE,  # noqa: E402
                     cases_beyond_upstreams_error, cases_differing)

EXACT = CASES_PRELUDE + r"""
A = torch.randn(2,4,3); Ac = torch.randn(3,3,dtype=torch.cfloat)
for o in ['fro','nuc',2,-2,1,-1,float('inf'),-float('inf')]:
    case(f"mn_{o}", lambda: torch.linalg.matrix_norm(A, ord=o))
    case(f"mn_{o}_keep", lambda: torch.linalg.matrix_norm(A, ord=o, dim=(0,2), keepdim=True))
    case(f"norm_{o}", lambda: torch.linalg.norm(A[0], ord=o))
case("mn_c", lambda: torch.linalg.matrix_norm(Ac, ord='nuc'))
case("mn_bad", lambda: torch.linalg.matrix_norm(A, ord=3))
case("mn_dim", lambda: torch.linalg.matrix_norm(A, dim=(1,1)))
case("mn_dtype", lambda: torch.linalg.matrix_norm(A, dtype=torch.double))
case("mn_dtype_bad", lambda: torch.linalg.matrix_norm(A, dtype=torch.half))
case("norm_vec", lambda: torch.linalg.norm(A))
case("norm_vec_dim", lambda: torch.linalg.norm(A, dim=1))
case("norm_bad", lambda: torch.linalg.norm(A, ord=2))
case("torch_norm_nuc", lambda: torch.norm(A[0], p='nuc'))
case("torch_norm_fro", lambda: torch.norm(A, p='fro', dim=(1,2)))
case("pinv", lambda: torch.linalg.pinv(A))
case("pinv_h", lambda: torch.linalg.pinv(A[0].T @ A[0], hermitian=True))
case("pinv_atol", lambda: torch.linalg.pinv(A, atol=0.5))
case("pinv_rtol", lambda: torch.linalg.pinv(A, rtol=torch.tensor(0.3)))
case("pinv_rcond", lambda: torch.linalg.pinv(A, 0.2))
case("pinverse", lambda: torch.pinverse(A))
case("pinv_empty", lambda: torch.linalg.pinv(torch.ones(0,3)))
case("pinv_c", lambda: torch.linalg.pinv(Ac))
case("rank", lambda: torch.linalg.matrix_rank(A))
case("rank_h", lambda: torch.linalg.matrix_rank(A[0].T @ A[0], hermitian=True))
case("rank_tol", lambda: torch.linalg.matrix_rank(A, 1.0))
case("rank_atol", lambda: torch.linalg.matrix_rank(A, atol=1.0, rtol=0.1))
case("rank_empty", lambda: torch.linalg.matrix_rank(torch.ones(2,0,3)))
case("lu_old", lambda: torch.lu(A))
case("lu_old_info", lambda: torch.lu(A, get_infos=True))
case("vnorm_out", lambda: torch.linalg.vector_norm(A, out=torch.empty(())))
case("vnorm_out_bad", lambda: torch.linalg.vector_norm(A, out=torch.empty((), dtype=torch.double)))
print(json.dumps(out))
"""

GRADS = CASES_PRELUDE + SAME_VALUES_IN_DTYPE + r"""
A = torch.randn(2,4,3)
def gcase(name, fn):
    case(name, lambda: [g.to(torch.float64) for g in fn()])
x = A[0].clone().requires_grad_()
gcase("g_pinv", lambda: torch.autograd.grad(torch.linalg.pinv(x).pow(2).sum(), x))
gcase("g_pinv_t", lambda: torch.autograd.grad(torch.linalg.pinv(x.T).pow(2).sum(), x))
gcase("g_nuc", lambda: torch.autograd.grad(torch.linalg.matrix_norm(x, 'nuc'), x))
gcase("g_2", lambda: torch.autograd.grad(torch.linalg.matrix_norm(x, 2), x))
gcase("g_inf", lambda: torch.autograd.grad(torch.linalg.matrix_norm(x, float('inf')), x))
print(json.dumps(out))
"""


def test_norms_pinv_rank_agree_bit_for_bit():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["mn_nuc"][0] == "torch.float32"
    assert upstream["mn_bad"][:2] == ["raises", "RuntimeError"]


def test_gradients_within_upstreams_own_error():
    failures = cases_beyond_upstreams_error(GRADS)
    assert not failures, failures
