"""bmm and baddbmm bit for bit against upstream at 1 and 2 threads (issue 8: attention's
batched products in a training step).

Upstream hands float and double batches whose matrices are contiguous or transposed to MKL's
batched GEMM in one call (cblas_?gemm_batch); ours did one cblas_?gemm per matrix, which at two
threads split each small product between the threads and changed its bits (and took 0.64 ms
against upstream's 0.37 on 16 x 128 x 64 x 128). Each side draws the same seeded operands in its
own process; the cases cover both layouts, baddbmm's alpha and beta, odd sizes, a single-row
product, and products below upstream's 400-element in-order threshold.
"""

from __future__ import annotations

from tests.door import _both

PRELUDE = r'''
import hashlib, json, torch
out = {}
def h(t):
    return hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:16]
'''

BODY = r'''
g = torch.Generator().manual_seed(0)
shapes = [(16, 128, 64, 128), (16, 128, 128, 64), (3, 7, 9, 11), (5, 33, 17, 65),
          (2, 1, 40, 40), (4, 5, 6, 7), (1, 30, 20, 10)]
for threads in (1, 2):
    torch.set_num_threads(threads)
    for (b, m, k, n) in shapes:
        for dt in (torch.float32, torch.float64):
            a = torch.randn(b, m, k, generator=g, dtype=dt)
            w = torch.randn(b, k, n, generator=g, dtype=dt)
            c = torch.randn(b, m, n, generator=g, dtype=dt)
            name = f"t{threads} {b}x{m}x{k}x{n} {dt}"
            out[name + " bmm"] = h(torch.bmm(a, w))
            at = a.transpose(1, 2).contiguous().transpose(1, 2)
            wt = w.transpose(1, 2).contiguous().transpose(1, 2)
            out[name + " bmm transposed"] = h(torch.bmm(at, wt))
            out[name + " baddbmm"] = h(torch.baddbmm(c, a, w, beta=0.5, alpha=2.0))
            out[name + " matmul 4d"] = h(torch.matmul(a.view(1, b, m, k), w.view(1, b, k, n)))
'''


def test_bmm_and_baddbmm_carry_upstreams_bits_at_one_and_two_threads():
    ours, up = _both.both(PRELUDE, BODY)
    assert ours.keys() == up.keys() and up
    assert [k for k in up if ours[k] != up[k]] == []
