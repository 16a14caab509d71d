"""linalg.ldl_factor_ex, linalg.ldl_factor and linalg.ldl_solve (+ out=), ours and upstream each
in its own process, bit for bit: the same LAPACK routines (?sytrf / ?hetrf, ?sytrs / ?hetrs)
on the same column-major inputs give the same LD, pivots, info and solutions; errors in
upstream's words, meta shapes and strides.
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
    if not t.is_floating_point() and not t.is_complex():
        return [str(t.dtype), list(t.shape), list(t.stride()), t.tolist()]
    return _bits(torch.view_as_real(t.resolve_conj()) if t.is_complex() else t)
def all_bits(r):
    return [bits(x) for x in r]
L = torch.linalg
torch.manual_seed(0)
for dt in ("float32", "float64", "complex64", "complex128"):
    d = getattr(torch, dt)
    a = torch.randn(3, 6, 6, dtype=d)
    sym = a + a.mT
    her = a + a.mH
    b = torch.randn(3, 6, 2, dtype=d)
    for h in (False, True):
        m = her if h else sym
        case(f"ex_{h}_{dt}", lambda: all_bits(L.ldl_factor_ex(m, hermitian=h)))
        case(f"ex_mat_{h}_{dt}", lambda: all_bits(L.ldl_factor_ex(m[0], hermitian=h)))
        case(f"ex_T_{h}_{dt}", lambda: all_bits(L.ldl_factor_ex(m.mT, hermitian=h)))
        case(f"fac_{h}_{dt}", lambda: all_bits(L.ldl_factor(m, hermitian=h)))
        case(f"ex_out_{h}_{dt}", lambda: all_bits(L.ldl_factor_ex(
            m, hermitian=h, out=(torch.empty(0, dtype=d), torch.empty(0, dtype=torch.int32),
                                 torch.empty(0, dtype=torch.int32)))))
        case(f"fac_out_{h}_{dt}", lambda: all_bits(L.ldl_factor(
            m, hermitian=h, out=(torch.empty(0, dtype=d), torch.empty(0, dtype=torch.int32)))))
        LD, piv = L.ldl_factor(m, hermitian=h)
        case(f"solve_{h}_{dt}", lambda: bits(L.ldl_solve(LD, piv, b, hermitian=h)))
        case(f"solve_vecs_{h}_{dt}", lambda: bits(L.ldl_solve(LD[1], piv[1], b[1, :, :1],
                                                             hermitian=h)))
        # (an LD batch of 1 only as an expanded view: upstream's kernel walks a batch of 1
        # by its own stride, reading past the one matrix, so its values there are undefined)
        case(f"solve_bcast_{h}_{dt}", lambda: bits(L.ldl_solve(
            LD[:1].expand(3, 6, 6), piv[:1].expand(3, 6), b, hermitian=h)))
        case(f"solve_bcast_b_{h}_{dt}", lambda: bits(L.ldl_solve(LD, piv, b[0], hermitian=h)))
        case(f"solve_long_{h}_{dt}", lambda: bits(L.ldl_solve(LD, piv.long(), b, hermitian=h)))
        case(f"solve_out_{h}_{dt}", lambda: bits(L.ldl_solve(LD, piv, b, hermitian=h,
                                                            out=torch.empty(0, dtype=d))))
    sing = sym.clone()
    sing[1] = 0
    case(f"ex_sing_{dt}", lambda: all_bits(L.ldl_factor_ex(sing)))
    case(f"ex_sing_check_{dt}", lambda: L.ldl_factor_ex(sing, check_errors=True))
    case(f"fac_sing_{dt}", lambda: L.ldl_factor(sing))
    case(f"fac_sing_mat_{dt}", lambda: L.ldl_factor(sing[1]))
    case(f"ex_empty_{dt}", lambda: all_bits(L.ldl_factor_ex(sym[:0])))
    case(f"ex_zero_{dt}", lambda: all_bits(L.ldl_factor_ex(sym[:, :0, :0])))
    case(f"solve_empty_{dt}", lambda: bits(L.ldl_solve(sym[:, :0, :0], torch.zeros(3, 0,
                                                        dtype=torch.int32), b[:, :0])))
case("ex_rect", lambda: L.ldl_factor_ex(torch.randn(3, 4)))
case("ex_vec", lambda: L.ldl_factor_ex(torch.randn(3)))
case("ex_int", lambda: L.ldl_factor_ex(torch.ones(3, 3, dtype=torch.int64)))
case("ex_half", lambda: L.ldl_factor_ex(torch.ones(3, 3, dtype=torch.float16)))
case("fac_rect", lambda: L.ldl_factor(torch.randn(3, 4)))
case("ex_out_dtype", lambda: L.ldl_factor_ex(torch.eye(3), out=(
    torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int32),
    torch.empty(0, dtype=torch.int32))))
case("ex_out_piv_dtype", lambda: L.ldl_factor_ex(torch.eye(3), out=(
    torch.empty(0), torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int32))))
LD, piv = L.ldl_factor(torch.eye(3) * 2)
case("solve_b_dtype", lambda: L.ldl_solve(LD, piv, torch.randn(3, 1, dtype=torch.float64)))
case("solve_b_vec", lambda: L.ldl_solve(LD, piv, torch.randn(3)))
case("solve_b_0d", lambda: L.ldl_solve(LD, piv, torch.tensor(1.)))
case("solve_b_rows", lambda: L.ldl_solve(LD, piv, torch.randn(4, 1)))
case("solve_piv_shape", lambda: L.ldl_solve(LD, piv[:2], torch.randn(3, 1)))
case("solve_piv_float", lambda: L.ldl_solve(LD, piv.float(), torch.randn(3, 1)))
case("solve_LD_rect", lambda: L.ldl_solve(torch.randn(3, 4), piv, torch.randn(3, 1)))
case("solve_LD_int", lambda: L.ldl_solve(torch.ones(3, 3, dtype=torch.int64), piv,
                                         torch.ones(3, 1, dtype=torch.int64)))
case("solve_out_dtype", lambda: L.ldl_solve(LD, piv, torch.randn(3, 1),
                                            out=torch.empty(0, dtype=torch.float64)))
case("solve_bcast_bad", lambda: L.ldl_solve(LD.expand(2, 3, 3), piv.expand(2, 3),
                                            torch.randn(3, 3, 1)))
M = torch.randn(2, 5, 5, device="meta")
case("meta_ex", lambda: [[list(x.shape), list(x.stride()), str(x.dtype)]
                         for x in L.ldl_factor_ex(M)])
case("meta_solve", lambda: [list(x.shape) + list(x.stride()) for x in
                            [L.ldl_solve(M, torch.empty(2, 5, dtype=torch.int32, device="meta"),
                                         torch.randn(5, 3, device="meta"))]])
print(json.dumps(out))
"""


def test_linalg_ldl_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["ex_sing_check_float32"][0] == "raises"
    assert upstream["ex_False_float64"][0][0] == "torch.float64"
