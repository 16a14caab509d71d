"""cdist and pdist (with _cdist_forward (+ out=), _cdist_backward, _euclidean_dist,
_pdist_forward, _pdist_backward), ours and upstream each in its own process, bit for bit:
every norm kind (p = 0, 1, 2, inf, below and above 2, between 0 and 1), column counts on both
sides of the vector widths (the scalar sum's vectorised blocks and fused tail, pdist's lanes
and their fold), batches that broadcast, the p = 2 matrix-product path (more than 25 rows, or
compute_mode), ties and zero distances, NaN; values, gradients of both inputs and node names,
errors (dtypes, shapes, p, modes, 16-bit floats), empty inputs, meta and out=.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
aten = torch.ops.aten
PS = [0.0, 1.0, 2.0, 0.5, 1.5, 3.0, float("inf")]
def grads(fn, *xs):
    ts = [x.clone().requires_grad_() for x in xs]
    y = fn(*ts)
    w = ((torch.arange(y.numel()) % 7 - 3) / 4).to(y.dtype).reshape(y.shape)  # exact weights
    return [y.grad_fn.name()] + [bits(r) for r in torch.autograd.grad((y * w).sum(), ts)]
for dt in [torch.float32, torch.float64]:
    n = str(dt)[6:]
    for m in [1, 3, 4, 5, 7, 8, 9, 12, 16, 17, 33]:
        a, b = torch.randn(6, m, dtype=dt), torch.randn(5, m, dtype=dt)
        a[0, 0] = b[1, 0]  # a zero difference
        for p in PS:
            case(f"cd_{n}_{m}_{p}", lambda: bits(torch.cdist(a, b, p=p)))
            case(f"pd_{n}_{m}_{p}", lambda: bits(torch.pdist(a, p=p)))
            case(f"g_cd_{n}_{m}_{p}", lambda: grads(lambda u, v: torch.cdist(u, v, p=p), a, b))
            case(f"g_pd_{n}_{m}_{p}", lambda: grads(lambda u: torch.pdist(u, p=p), a))
    a, b = torch.randn(2, 1, 4, 6, dtype=dt), torch.randn(3, 5, 6, dtype=dt)
    for p in PS:
        case(f"cd_batch_{n}_{p}", lambda: bits(torch.cdist(a, b, p=p)))
        case(f"g_cd_batch_{n}_{p}", lambda: grads(lambda u, v: torch.cdist(u, v, p=p), a, b))
    big, small = torch.randn(30, 7, dtype=dt), torch.randn(4, 7, dtype=dt)
    for mode in [None, "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist",
                 "use_mm_for_euclid_dist_if_necessary"]:
        case(f"mm_{n}_{mode}", lambda: bits(torch.cdist(big, small, compute_mode=mode)))
        case(f"g_mm_{n}_{mode}", lambda: grads(
            lambda u, v: torch.cdist(u, v, compute_mode=mode), big, small))
        case(f"mm_small_{n}_{mode}", lambda: bits(torch.cdist(small, small, compute_mode=mode)))
    bb = torch.randn(2, 30, 5, dtype=dt)
    case(f"mm_batch_{n}", lambda: bits(torch.cdist(bb, bb[:, :3])))
    case(f"g_mm_batch_{n}", lambda: grads(lambda u, v: torch.cdist(u, v), bb, bb[:1, :4]))
    nan = torch.randn(4, 9, dtype=dt)
    nan[1, 2] = float("nan")
    for p in PS:
        case(f"nan_cd_{n}_{p}", lambda: bits(torch.cdist(nan, nan[:2], p=p)))
        case(f"nan_pd_{n}_{p}", lambda: bits(torch.pdist(nan, p=p)))
    t = torch.randn(7, 4, dtype=dt)
    case(f"strided_cd_{n}", lambda: bits(torch.cdist(t.t(), t.t()[:2] * 2, p=1.0)))
    case(f"strided_pd_{n}", lambda: bits(torch.pdist(t.t(), p=3.0)))
    case(f"g_strided_pd_{n}", lambda: grads(lambda u: torch.pdist(u.t()), t))
    case(f"ties_{n}", lambda: grads(lambda u, v: torch.cdist(u, v, p=float("inf")),
                                    torch.tensor([[1.0, -1.0, 0.5]], dtype=dt),
                                    torch.tensor([[0.0, 0.0, 0.0], [2.0, 0.0, 1.5]], dtype=dt)))
x, y = torch.randn(3, 4), torch.randn(2, 4)
for dt in ["float16", "bfloat16"]:
    h = getattr(torch, dt)
    case(f"half_cd_{dt}", lambda: torch.cdist(x.to(h), y.to(h), p=1.0))
    case(f"half_pd_{dt}", lambda: torch.pdist(x.to(h)))
    case(f"half_mm_{dt}", lambda: bits(torch.cdist(x.to(h), y.to(h),
                                                  compute_mode="use_mm_for_euclid_dist")))
    case(f"half_pd_1row_{dt}", lambda: bits(torch.pdist(x[:1].to(h))))
    case(f"half_pd_0col_{dt}", lambda: bits(torch.pdist(x[:, :0].to(h))))
errs = {
    "int_x1": lambda: torch.cdist(x.long(), y), "int_x2": lambda: torch.cdist(x, y.long(), p=1.),
    "mixed": lambda: torch.cdist(x, y.double(), p=1.), "mixed_mm": lambda: torch.cdist(
        torch.randn(30, 4), y.double()), "neg_p": lambda: torch.cdist(x, y, p=-1.),
    "cols": lambda: torch.cdist(x, torch.randn(2, 5)), "dim1": lambda: torch.cdist(x[0], y),
    "dim2": lambda: torch.cdist(x, y[0]), "batch": lambda: torch.cdist(
        torch.randn(2, 3, 4), torch.randn(3, 2, 4)), "mode": lambda: aten._cdist_forward(
        x, y, 2.0, 3), "mode_neg": lambda: aten._cdist_forward(x, y, 1.0, -1),
    "pd_3d": lambda: torch.pdist(x[None]), "pd_int": lambda: torch.pdist(x.long()),
    "pd_neg": lambda: torch.pdist(x, -2.0), "pd_fwd_strided": lambda: aten._pdist_forward(
        x.t(), 2.0), "pd_bwd_strided": lambda: aten._pdist_backward(
        torch.ones(6), x.t().contiguous().t(), 2.0, torch.ones(6)),
    "cd_bwd_strided": lambda: bits(aten._cdist_backward(
        torch.randn(3, 2).t(), x.t().contiguous().t()[:2], x, 1.5, torch.rand(3, 2).t() + 1)),
    "cd_bwd_1d": lambda: aten._cdist_backward(torch.ones(3), x[0], y, 2.0, torch.ones(3)),
    "double_bw": lambda: torch.autograd.grad(torch.autograd.grad(
        torch.cdist(x.requires_grad_(), y, p=1.5).sum(), x, create_graph=True)[0].sum(), x),
    "double_bw_pd": lambda: torch.autograd.grad(torch.autograd.grad(
        torch.pdist(x.requires_grad_()).sum(), x, create_graph=True)[0].sum(), x),
}
for k, f in errs.items():
    case(f"err_{k}", f)
for p in [1.0, 2.0]:
    case(f"empty_r_{p}", lambda: bits(torch.cdist(torch.randn(0, 4), y, p=p)))
    case(f"empty_c_{p}", lambda: bits(torch.cdist(torch.randn(3, 0), torch.randn(2, 0), p=p)))
    case(f"g_empty_{p}", lambda: grads(lambda u, v: torch.cdist(u, v, p=p),
                                       torch.randn(0, 4), y))
    case(f"g_empty_c_{p}", lambda: grads(lambda u, v: torch.cdist(u, v, p=p),
                                         torch.randn(3, 0), torch.randn(30, 0)))
    case(f"pd_empty_{p}", lambda: bits(torch.pdist(torch.randn(1, 4), p=p)))
    case(f"pd_0col_{p}", lambda: bits(torch.pdist(torch.randn(4, 0), p=p)))
m1, m2 = torch.randn(2, 3, 4, device="meta"), torch.randn(5, 4, device="meta")
case("meta_cd", lambda: list(aten._cdist_forward(m1, m2, 2.0, None).shape))
case("meta_cd_mm", lambda: list(torch.cdist(torch.randn(30, 4, device="meta"), m2).shape))
case("meta_cd_bwd", lambda: list(aten._cdist_backward(
    torch.randn(2, 3, 5, device="meta"), m1, m2, 1.0, torch.randn(2, 3, 5, device="meta")).shape))
case("meta_pd", lambda: list(torch.pdist(m2).shape))
case("meta_pd_bwd", lambda: list(aten._pdist_backward(
    torch.randn(10, device="meta"), m2, 2.0, torch.randn(10, device="meta")).shape))
case("meta_err_int", lambda: aten._cdist_forward(m1.long(), m2, 2.0, None))
case("meta_err_mode", lambda: aten._cdist_forward(m1, m2, 2.0, 5))
for dt in [torch.float32, torch.float64, torch.int64]:
    o = torch.zeros(3, dtype=dt)
    case(f"out_{dt}", lambda: [bits(aten._cdist_forward.out(x, y, 1.0, None, out=o)), bits(o)])
print(json.dumps(out))
"""


def test_distance_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_cd_float32_5_1.5"][0] == "CdistBackward0"
    assert upstream["g_mm_float32_use_mm_for_euclid_dist"][0] == "ViewBackward0"
    assert upstream["g_pd_float64_9_2.0"][0] == "PdistBackward0"
    assert upstream["err_double_bw"][0] == "raises"
