"""The general eigendecomposition and least squares: linalg.eig/eigvals (and _linalg_eigvals),
linalg.lstsq with each driver, their out= forms, meta forms, errors and gradients, ours and
upstream each in its own process.

Both call the same oneMKL release's ?geev and ?gels/?gelsy/?gelsd/?gelss the same way as
upstream's CPU kernels (the same workspace sizes, the same column-major copies, gelsy's one
pivot array for the whole batch), so the forward cases compare bit for bit: values, strides,
the eigenvectors' phase (?geev's own normalisation), ranks, singular values and residuals,
with two stated exceptions.
- gelsy's first matrix: upstream hands gelsy an uninitialised pivot array, so whether its
  columns are pivoted depends on upstream's heap (its own results move by a few ulp between
  processes); ours fixes them (no pivoting: what upstream mostly does, and does for every later
  matrix, whose pivot array is the previous permutation; those agree bit for bit). Those
  solutions are held to 16 ulp of their largest element.
- Complex residuals: upstream squares the buffer's rows in place, z * conj(z), through a
  vectorised or an FMA-contracted scalar loop depending on the row count; ours rounds one way.
  They are held to 4 ulp.
The gradients are compositions of many products and solves whose summation order may differ by
an ulp: they are held to docs/AGREEMENT_RULES.md's rule, within upstream's own float32 error
against its float64 result (or the float32 floor).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import (BITS_PRELUDE, CASES_PRELUDE, SAME_VALUES_IN_DTYPE,  # noqa: E402
                     cases_beyond_upstreams_error, cases_differing)

EIG = CASES_PRELUDE + BITS_PRELUDE + r"""
eig, E = torch.linalg.eig, torch.empty
def cb(x):
    # a tensor's bits (complex as its real view) and its own strides
    v = torch.view_as_real(x.resolve_conj()) if x.is_complex() else x
    return bits(v) + [list(x.stride())]
def eb(r):
    return [cb(x) for x in (r if isinstance(r, tuple) else (r,))]
A = torch.randn(2,4,4)
for dt in [torch.float32, torch.float64, torch.complex64, torch.complex128]:
    X = torch.randn(3,5,5, dtype=dt)
    case(f"eig_{dt}", lambda: eb(eig(X)))
    case(f"eigvals_{dt}", lambda: eb(torch.linalg.eigvals(X)))
    case(f"_eigvals_{dt}", lambda: eb(torch.ops.aten._linalg_eigvals(X)))
sym = A + A.mT
case("eig_real_spectrum", lambda: eb(eig(sym)))
case("eig_mixed_batch", lambda: eb(eig(torch.stack([sym[0], A[1]]))))
case("eig_rot", lambda: eb(eig(torch.tensor([[0., -1.], [1., 0.]]))))
case("eig_1x1", lambda: eb(eig(torch.tensor([[3.]]))))
case("eig_noncontig", lambda: eb(eig(torch.randn(6,6)[::2, 1::2])))
case("eig_transposed", lambda: eb(eig(A.mT)))
case("eig_empty", lambda: eb(eig(torch.ones(2,0,0))))
case("eig_empty_batch", lambda: eb(eig(torch.ones(0,3,3))))
case("eigvals_empty", lambda: eb(torch.linalg.eigvals(torch.ones(0,0))))
case("eig_nan", lambda: eig(torch.full((2,2), float('nan'))))
case("eig_inf_1d", lambda: eig(torch.tensor([float('inf')])))
case("eig_1d", lambda: eig(torch.ones(3)))
case("eig_rect", lambda: eig(torch.ones(2,3)))
case("eigvals_rect", lambda: torch.linalg.eigvals(torch.ones(2,3)))
case("eig_long", lambda: eig(torch.ones(2,2, dtype=torch.long)))
case("eigvals_bool", lambda: torch.linalg.eigvals(torch.ones(2,2, dtype=torch.bool)))
case("eig_half", lambda: eig(torch.ones(2,2, dtype=torch.half)))
case("eig_bf16", lambda: eig(torch.ones(2,2, dtype=torch.bfloat16)))
case("eigvals_half", lambda: torch.linalg.eigvals(torch.ones(2,2, dtype=torch.half)))
def eig_out(vdt, wdt, shape=(0,)):
    L = E(shape, dtype=vdt); V = E(shape, dtype=wdt)
    r = eig(A, out=(L, V))
    return eb((r[0], r[1], L, V))
case("eig_out", lambda: eig_out(torch.cfloat, torch.cfloat))
case("eig_out_cd", lambda: eig_out(torch.cdouble, torch.cdouble))
case("eig_out_resize", lambda: eig_out(torch.cfloat, torch.cfloat, (3,)))
case("eig_out_float", lambda: eig_out(torch.float, torch.cfloat))
case("eig_out_vfloat", lambda: eig_out(torch.cfloat, torch.float))
def eigvals_out(dt):
    L = E(0, dtype=dt)
    r = torch.linalg.eigvals(A, out=L)
    return eb((r, L))
case("eigvals_out", lambda: eigvals_out(torch.cfloat))
case("eigvals_out_float", lambda: eigvals_out(torch.float))
def meta_of(r):
    return [(p.shape, str(p.dtype), p.stride()) for p in r]
case("meta", lambda: meta_of(eig(E(2,3,3,device='meta'))))
case("meta_vals", lambda: meta_of([torch.linalg.eigvals(E(2,3,3, dtype=torch.cdouble,
                                                              device='meta'))]))
case("meta_vals_", lambda: meta_of([torch.ops.aten._linalg_eigvals(E(3,3,device='meta'))]))
case("meta_rect", lambda: eig(E(2,3,device='meta')))
x = torch.randn(3,3, requires_grad=True)
case("grad_fns", lambda: [type(eig(x)[0].grad_fn).__name__,
                          type(torch.linalg.eigvals(x).grad_fn).__name__])
case("grad_phase", lambda: torch.autograd.grad(eig(x)[1].real.sum(), x))
print(json.dumps(out))
"""

LSTSQ = CASES_PRELUDE + BITS_PRELUDE + r"""
ls, R = torch.linalg.lstsq, torch.randn
def cb(x):
    v = torch.view_as_real(x.resolve_conj()) if x.is_complex() else x
    return bits(v) + [list(x.stride())]
def lb(r):
    return [cb(x) for x in r]
for dt in [torch.float32, torch.float64, torch.complex64, torch.complex128]:
    for drv in [None, 'gels', 'gelsy', 'gelsd', 'gelss']:
        for (m, n) in [(6, 4), (4, 6), (5, 5)]:
            Am = R(3, m, n, dtype=dt); Bm = R(3, m, 2, dtype=dt)
            case(f"ls_{dt}_{drv}_{m}x{n}", lambda: lb(ls(Am, Bm, driver=drv)))
        Av = R(6, 4, dtype=dt); bv = R(6, dtype=dt)
        case(f"ls_vec_{dt}_{drv}", lambda: lb(ls(Av, bv, driver=drv)))
for drv in ['gels', 'gelsy', 'gelsd', 'gelss']:
    Ab = R(2, 1, 6, 3); Bb = R(1, 4, 6, 2)
    case(f"ls_bcast_B_{drv}", lambda: lb(ls(Ab, Bb, driver=drv)))
    Ab2 = R(1, 6, 3); Bb2 = R(3, 6, 2)
    case(f"ls_bcast_A_{drv}", lambda: lb(ls(Ab2, Bb2, driver=drv)))
    case(f"ls_bvec_{drv}", lambda: lb(ls(R(2, 6, 3), R(2, 6), driver=drv)))
    case(f"ls_rankdef_{drv}", lambda: lb(ls(torch.ones(2, 6, 3), R(2, 6, 2), driver=drv)))
    # (gelsy's rank with pivoting or without differs near the threshold: a clear rank 2)
    case(f"ls_rcond_{drv}", lambda: lb(ls(R(6, 3), R(6, 2), rcond=0.5, driver=drv))
         if drv != 'gelsy' else lb(ls(R(6, 2) @ R(2, 3), R(6, 2), rcond=1e-3, driver=drv)))
    for shp in [(0, 3), (3, 0), (0, 0)]:
        case(f"ls_empty_{shp}_{drv}",
             lambda: lb(ls(R(2, *shp), R(2, shp[0], 2), driver=drv)))
    case(f"ls_empty_batch_{drv}", lambda: lb(ls(R(0, 5, 3), R(0, 5, 2), driver=drv)))
case("ls_upper", lambda: lb(ls(R(5, 3), R(5, 2), driver='GELSD')))
case("ls_noncontig", lambda: lb(ls(R(3, 6)[:, ::2].mT.contiguous().mT, R(2, 6).mT,
                                   driver='gelss')))
case("ls_noncontig2", lambda: lb(ls(R(8, 6)[::2, ::2], R(4, 6)[:, ::3])))
case("ls_zeros_gels", lambda: lb(ls(torch.zeros(2, 5, 3), R(2, 5, 2), driver='gels')))
case("ls_driver_bad", lambda: ls(R(4, 3), R(4, 2), driver='foo'))
case("ls_rows", lambda: ls(R(4, 3), R(5, 2)))
case("ls_rows_vec", lambda: ls(R(4, 3), R(5)))
case("ls_dtype", lambda: ls(R(4, 3), R(4, 2).double()))
case("ls_long", lambda: ls(torch.ones(4, 3).long(), torch.ones(4, 2).long()))
case("ls_long_rcond", lambda: ls(torch.ones(4, 3).long(), torch.ones(4, 2).long(), rcond=0.1))
case("ls_half_rcond", lambda: ls(torch.ones(4, 3).half(), torch.ones(4, 2).half(), rcond=0.1))
case("ls_1d", lambda: ls(R(4), R(4, 2)))
case("ls_0d_b", lambda: ls(R(4, 3), torch.tensor(1.)))
case("ls_dims", lambda: ls(R(2, 2, 4, 3), R(4)))
case("ls_batch_mismatch", lambda: ls(R(2, 4, 3), R(3, 4, 2)))
def ls_out(shape=(0,), sdt=torch.float, rdt=torch.float, kdt=torch.long, vdt=torch.float,
           drv='gelsd'):
    o = tuple(torch.empty(shape, dtype=d) for d in (sdt, rdt, kdt, vdt))
    r = ls(R(2, 5, 3), R(2, 5, 2), driver=drv, out=o)
    return lb(tuple(r) + o)
case("ls_out", lambda: ls_out())
case("ls_out_gels", lambda: ls_out(drv='gels'))
case("ls_out_resize", lambda: ls_out(shape=(7,)))
case("ls_out_double", lambda: ls_out(sdt=torch.double, rdt=torch.double, vdt=torch.double))
case("ls_out_bad_solution", lambda: ls_out(sdt=torch.long))
case("ls_out_bad_residuals", lambda: ls_out(rdt=torch.long))
case("ls_out_bad_rank", lambda: ls_out(kdt=torch.bool))
case("ls_out_bad_sv", lambda: ls_out(vdt=torch.long))
y = R(5, 3, requires_grad=True); z = R(5, 2, requires_grad=True)
case("grad_fn", lambda: [type(r.grad_fn).__name__ if r.grad_fn else None
                         for r in ls(y, z)])
case("meta", lambda: ls(torch.empty(5, 3, device='meta'), torch.empty(5, 2, device='meta')))
print(json.dumps(out))
"""

# Each gradient case in float32 and, under upstream, float64 (helpers.SAME_VALUES_IN_DTYPE).
GRADS = CASES_PRELUDE + SAME_VALUES_IN_DTYPE + r"""
eig, ls, gr = torch.linalg.eig, torch.linalg.lstsq, torch.autograd.grad
def gcase(name, fn):
    case(name, lambda: [g.to(torch.complex128 if g.is_complex() else torch.float64) for g in fn()])
x = torch.randn(2, 4, 4, requires_grad=True)
CDTYPE = torch.complex64 if DTYPE == torch.float32 else torch.complex128
xc = torch.randn(3, 3).to(CDTYPE).requires_grad_()
gcase("g_eig_vals", lambda: gr(eig(x)[0].abs().sum(), x))
gcase("g_eig_vecs", lambda: gr(eig(x)[1].abs().sum(), x))
gcase("g_eig_both", lambda: gr(eig(x)[1].abs().pow(2).sum() + eig(x)[0].real.sum(), x))
gcase("g_eigvals", lambda: gr(torch.linalg.eigvals(x).abs().pow(2).sum(), x))
gcase("g_eig_complex", lambda: gr(eig(xc)[1].abs().sum() + eig(xc)[0].imag.sum(), xc))
A = torch.randn(2, 6, 3, requires_grad=True); B = torch.randn(2, 6, 2, requires_grad=True)
W = torch.randn(3, 6, requires_grad=True); Bw = torch.randn(3, 2, requires_grad=True)
bv = torch.randn(6, requires_grad=True); A1 = torch.randn(6, 3, requires_grad=True)
for drv in ['gels', 'gelsy', 'gelsd', 'gelss']:
    gcase(f"g_ls_{drv}", lambda: gr(ls(A, B, driver=drv)[0].pow(2).sum(), (A, B)))
    # (gelsy gives no residuals: its solution instead)
    gcase(f"g_ls_res_{drv}", lambda: gr(ls(A, B, driver=drv)[1 if drv != 'gelsy' else 0].sum(),
                                        (A, B)))
    gcase(f"g_ls_both_{drv}",
          lambda: gr(sum(r.pow(2).sum() for r in ls(A, B, driver=drv)[:2]), (A, B)))
# (not the default driver, gelsy: upstream's first gelsy matrix depends on its uninitialised pivot
# array, and its own float32 error on this case moved between processes, 1.217e-6 or 1.126e-6)
gcase("g_ls_wide", lambda: gr(ls(W, Bw, driver='gelsd')[0].pow(2).sum(), (W, Bw)))
gcase("g_ls_vec", lambda: gr(sum(r.pow(2).sum() for r in ls(A1, bv, driver='gels')[:2]),
                             (A1, bv)))
gcase("g_ls_A_only", lambda: gr(ls(A, B.detach())[0].sum(), A))
print(json.dumps(out))
"""


def test_eig_agrees_bit_for_bit():
    ours, upstream, differ = cases_differing(EIG)
    assert not differ, differ
    # not vacuous: vectors came out complex (as real pairs), the bad inputs raised
    assert upstream["eig_torch.float32"][1][1] == [3, 5, 5, 2]
    assert upstream["eig_nan"][:2] == ["raises", "RuntimeError"]
    assert upstream["grad_fns"] == ["LinalgEigBackward0", "LinalgEigBackward0"]


def _values(enc):
    """The floats of a bits() encoding (float32 or float64 patterns)."""
    code = {"torch.float32": ("i", "f"), "torch.float64": ("q", "d")}[enc[0]]
    return [struct.unpack(code[1], struct.pack(code[0], v))[0] for v in enc[2]]


def _ulps_apart(ours, upstream):
    """max |ours - upstream| over max |upstream|, in ulps of the dtype."""
    a, b = _values(ours), _values(upstream)
    scale = max((abs(v) for v in b), default=0.0) or 1.0
    eps = 2.0**-23 if ours[0] == "torch.float32" else 2.0**-52
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0) / scale / eps


def _within_allowance(name, ours, upstream):
    """Outputs that may differ (see the module's docstring), within 16 ulp (gelsy's first
    matrix: pivoted or not) or 4 ulp (complex residuals: one FMA rounding per square)."""
    if ours[0] == "raises" or len(ours) != len(upstream):
        return False
    for i, (x, y) in enumerate(zip(ours, upstream)):
        if x == y:
            continue
        gelsy = "gelsy" in name or "None" in name or name == "ls_noncontig2"
        allowed = {0: 16.0 if gelsy else None, 1: 4.0 if "complex" in name else None}.get(i)
        # shapes, strides and dtype exactly; values within the allowance
        if allowed is None or x[:2] != y[:2] or x[3:] != y[3:] or _ulps_apart(x, y) > allowed:
            return False
    return True


def test_lstsq_agrees_bit_for_bit():
    ours, upstream, differ = cases_differing(LSTSQ)
    beyond = {k: v for k, v in differ.items() if not _within_allowance(k, *v)}
    assert not beyond, beyond
    # not vacuous: the bit-for-bit cases are most of them
    assert len(differ) < len(upstream) // 4, sorted(differ)
    assert upstream["ls_out_bad_rank"][0] == "raises"
    assert upstream["grad_fn"][:2] == ["LinalgLstsqBackward0", "LinalgLstsqBackward0"]


def test_gradients_within_upstreams_own_error():
    failures = cases_beyond_upstreams_error(GRADS)
    # The eigenvector gradients go through complex matmul and linalg.solve of V^H, whose float32
    # products ours and upstream's order differently (measured: 0.5 and 2.5 ulp apart), and an
    # eigenvector's sensitivity (1 / the eigenvalue gaps) amplifies that: held to AGREEMENT_RULES'
    # model rule, twice upstream's own float32 error.
    beyond = {k: v for k, v in failures.items()
              if not (k.startswith("g_eig") and v[0] <= 2 * v[1])}
    assert not beyond, failures
