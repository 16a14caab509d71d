"""select_scatter, diagonal_scatter and as_strided_scatter, ours and upstream each in its own
process, bit for bit: values and strides (the clone keeps self's layout) over dtypes and
strided selves, src of another dtype, errors (type and message), meta shapes, gradients and
their grad_fn names (as_strided_scatter's self gradient is upstream's own rule: grad's values
at the scattered positions only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
import functools
bits = functools.partial(bits, strides=True)
def cbits(t):
    return bits(torch.view_as_real(t)) if t.is_complex() else bits(t)
def strided(t):
    nbytes = t.untyped_storage().nbytes() if t.device.type != "meta" else None
    return [list(t.shape), list(t.stride()), t.storage_offset(), nbytes, cbits(t)]
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64,
           torch.int64, torch.uint8, torch.bool):
    n = str(dt)
    x = (torch.randn(4, 5, 3) * 5).to(dt)
    xt = x.transpose(0, 2)
    for dim, idx in ((0, 1), (1, -1), (2, 2), (-1, 0)):
        case(f"sel_{n}_{dim}_{idx}", lambda: strided(torch.select_scatter(
            x, torch.ones(x.select(dim, idx).shape).to(dt), dim, idx)))
        case(f"sel_t_{n}_{dim}_{idx}", lambda: strided(torch.select_scatter(
            xt, torch.zeros(xt.select(dim, idx).shape).to(dt), dim, idx)))
    for off, d1, d2 in ((0, 0, 1), (1, 0, 1), (-2, 1, 2), (2, 2, 0), (0, -1, -2)):
        case(f"diag_{n}_{off}_{d1}_{d2}", lambda: strided(torch.diagonal_scatter(
            x, torch.ones(x.diagonal(off, d1, d2).shape).to(dt), off, d1, d2)))
        case(f"diag_t_{n}_{off}_{d1}_{d2}", lambda: strided(torch.diagonal_scatter(
            xt, torch.ones(xt.diagonal(off, d1, d2).shape).to(dt), off, d1, d2)))
    for size, stride, off in (((2, 3), (5, 1), None), ((3,), (7,), 2), ((2, 2), (1, 15), 4),
                              ((), (), 59), ((0, 3), (1, 1), 1)):
        case(f"asst_{n}_{size}_{off}", lambda: strided(torch.as_strided_scatter(
            x, torch.full(size, 3).to(dt), size, stride, off)))
        case(f"asst_t_{n}_{size}_{off}", lambda: strided(torch.as_strided_scatter(
            xt, torch.full(size, 3).to(dt), size, stride, off)))
# selves whose layout the copy keeps: an offset, a step, an expanded (cloned plainly) one
base = torch.randn(6, 8)
for name, v in (("off", base[1:, 2:]), ("step", base[:, ::3]), ("exp", base[:1].expand(3, 8)),
                ("empty", base[:0, 1:])):
    case(f"sel_{name}", lambda: strided(torch.select_scatter(v, torch.ones(v.shape[1]), 0, 0)))
    case(f"diag_{name}", lambda: strided(torch.diagonal_scatter(
        v, torch.ones(v.diagonal().shape))))
    case(f"asst_{name}", lambda: strided(torch.as_strided_scatter(v, torch.ones(2), (2,), (1,))))
    case(f"asst_off_{name}", lambda: strided(torch.as_strided_scatter(v, torch.ones(2), (2,),
                                                                      (2,), 1)))
    case(f"sel_meta_{name}", lambda: [list(t.stride()) + [t.storage_offset(), t.device.type]
                                      for t in [torch.select_scatter(v.to("meta"),
                                                torch.ones(7, device="meta"), 0, 0)]])
case("sel_meta_mixed", lambda: strided(torch.select_scatter(
    base[1:, ::2], torch.ones(3, 2, device="meta"), -2, -1)))
x = torch.randn(4, 5)
case("sel_src_dtype", lambda: strided(torch.select_scatter(x, torch.arange(5), 0, 2)))
case("diag_src_dtype", lambda: strided(torch.diagonal_scatter(x, torch.ones(4).double(), 0)))
case("sel_size", lambda: torch.select_scatter(x, torch.ones(4), 0, 2))
case("sel_index", lambda: torch.select_scatter(x, torch.ones(5), 0, 4))
case("sel_dim", lambda: torch.select_scatter(x, torch.ones(5), 2, 0))
case("sel_0d", lambda: torch.select_scatter(torch.tensor(1.0), torch.tensor(2.0), 0, 0))
case("diag_size", lambda: torch.diagonal_scatter(x, torch.ones(5)))
case("diag_dims", lambda: torch.diagonal_scatter(x, torch.ones(4), 0, 1, 1))
case("diag_1d", lambda: torch.diagonal_scatter(torch.ones(3), torch.ones(1)))
case("asst_size", lambda: torch.as_strided_scatter(x, torch.ones(3), (2,), (1,)))
case("asst_oob", lambda: torch.as_strided_scatter(x, torch.ones(3), (3,), (10,), 0))
case("asst_neg", lambda: torch.as_strided_scatter(x, torch.ones(3), (3,), (-1,), 4))
case("asst_grad_t", lambda: torch.as_strided_scatter(
    x.t().requires_grad_(), torch.ones(2), (2,), (1,), 0))
mx = torch.randn(4, 5, device="meta")
case("sel_meta", lambda: torch.select_scatter(mx, torch.ones(5, device="meta"), 0, 1).shape)
case("diag_meta", lambda: torch.diagonal_scatter(mx, torch.ones(4, device="meta")).stride())
case("asst_meta", lambda: torch.as_strided_scatter(mx, torch.ones(2, device="meta"), (2,),
                                                  (3,)).shape)
def grads(fn, a, b):
    ts = [a.clone().requires_grad_(), b.clone().requires_grad_()]
    r = fn(*ts)
    w = (torch.arange(r.numel()) - 3).to(r.dtype).reshape(r.shape)  # exact products
    gs = torch.autograd.grad((r * w).sum().real, ts)
    return [r.grad_fn.name()] + [cbits(g) for g in gs]
for dt in (torch.float64, torch.complex128):
    a = torch.randn(4, 5, dtype=dt)
    case(f"g_sel_{dt}", lambda: grads(lambda p, q: torch.select_scatter(p, q, 1, 3), a,
                                      torch.randn(4, dtype=dt)))
    case(f"g_diag_{dt}", lambda: grads(lambda p, q: torch.diagonal_scatter(p, q, 1), a,
                                       torch.randn(4, dtype=dt)))
    case(f"g_asst_{dt}", lambda: grads(lambda p, q: torch.as_strided_scatter(p, q, (2, 2), (6, 1),
                                                                              3), a,
                                       torch.randn(2, 2, dtype=dt)))
print(json.dumps(out))
"""


def test_view_scatter_agree():
    ours, upstream, differ = cases_differing(SCRIPT)
    # upstream's refusal is its internal assert, whose text names its source file and line:
    # the exception type is compared
    assert ours["asst_grad_t"][:2] == upstream["asst_grad_t"][:2] == ["raises", "RuntimeError"]
    differ.pop("asst_grad_t")
    assert not differ, {k: (str(a)[:300], str(b)[:300]) for k, (a, b) in differ.items()}
    assert upstream["g_asst_torch.float64"][0] == "AsStridedScatterBackward0"
