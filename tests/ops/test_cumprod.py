"""cumprod and its gradient (issue 9, item 2), ours and upstream each in its own process.

The forward is upstream's sequential scan in the CPU accumulation type (float32 in double), so it
compares exactly in every dtype; the gradient is upstream's cumprod_backward step for step (the
reversed cumulative sum without zeros, the first-zero path with zeros, the O(n^2) recorded path
under create_graph), compared exactly in float64.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import CASES_PRELUDE, cases_differing  # noqa: E402

EXACT = CASES_PRELUDE + r"""
g = torch.Generator().manual_seed(3)
x = torch.rand(4, 37, generator=g) + 0.5
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32,
           torch.uint8, torch.complex64]:
    case(f"cumprod_{dt}", lambda: torch.cumprod((x * 1.7).to(dt), 1))
case("cumprod_f32_acc", lambda: torch.cumprod(torch.full((40,), 1.0 + 2**-20), 0))
case("cumprod_bool", lambda: torch.cumprod(torch.tensor([True, True, False, True]), 0))
case("cumprod_int_overflow", lambda: torch.cumprod(torch.full((70,), 3), 0))
case("cumprod_dim0_strided", lambda: torch.cumprod(x.T[::2], 0))
case("cumprod_dtype", lambda: torch.cumprod(x, 1, dtype=torch.float64))
case("cumprod_0d", lambda: torch.cumprod(torch.tensor(3.0), 0))
case("cumprod_empty", lambda: torch.cumprod(torch.ones(0, 3), 1))
case("cumprod_bad_dim", lambda: torch.cumprod(x, 2))
case("cumprod_out", lambda: torch.cumprod(x, 0, out=torch.empty(0)))
case("cumprod_out_dtype", lambda: torch.cumprod(x, 0, dtype=torch.float64, out=torch.empty(0)))
case("cumprod_inplace", lambda: x.clone().cumprod_(1))
case("cumprod_inplace_dtype", lambda: x.clone().cumprod_(1, dtype=torch.float64))
case("cumprod_meta",
     lambda: str(torch.cumprod(torch.ones(2, 3, device="meta", dtype=torch.int8), 1).dtype))

def grads(values, dim=-1, create_graph=False):
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y = torch.cumprod(t, dim)
    w = torch.arange(1.0, y.numel() + 1, dtype=torch.float64).reshape(y.shape)
    (gx,) = torch.autograd.grad((y * w).sum(), t, create_graph=create_graph)
    if not create_graph:
        return [y.grad_fn.name(), gx]
    (ggx,) = torch.autograd.grad((gx * w.flip(-1)).sum(), t)
    return [gx, ggx]
case("g_no_zero", lambda: grads([1.5, -2.0, 0.5, 3.0]))
case("g_one_zero", lambda: grads([1.5, 0.0, 0.5, 3.0]))
case("g_two_zeros", lambda: grads([1.5, 0.0, 0.5, 0.0, 2.0]))
case("g_zero_first", lambda: grads([0.0, 2.0, 0.5]))
case("g_zero_last", lambda: grads([2.0, 0.5, 0.0]))
case("g_batched_zeros", lambda: grads([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 3.0]], 0))
case("g_batched_rows", lambda: grads([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 3.0]], 1))
case("g_size_one", lambda: grads([[2.0], [0.0]], 1))
case("gg_no_zero", lambda: grads([1.5, -2.0, 0.5, 3.0], create_graph=True))
case("gg_zeros", lambda: grads([[1.5, 0.0, 2.0, 0.5], [0.0, 0.0, 3.0, 1.0]], 1, create_graph=True))
def complex_grad():
    t = torch.tensor([1.5 + 1j, 0.5 - 2j, 0.0 + 0j, 2j], dtype=torch.complex128, requires_grad=True)
    (gx,) = torch.autograd.grad(torch.cumprod(t, 0).abs().sum(), t)
    return gx
case("g_complex", complex_grad)
print(json.dumps(out))
"""


def test_cumprod_and_its_gradient_agree_exactly():
    _, upstream, differ = cases_differing(EXACT)
    assert not differ, differ
    assert upstream["g_one_zero"][0] == "CumprodBackward0"
    assert upstream["cumprod_bad_dim"][:2] == ["raises", "IndexError"]
