"""torch.cat's row-by-row path (csrc/kernels/cpu/cat.cpp) bit for bit against upstream at 1 and 2
threads.

Two inputs (a KV cache and its new position), three, nine and twelve (past the eight pieces
kept on the stack, so the heap list is taken too), along the first, a middle and the last dim;
inputs with no elements along the cat dim and the legacy 1-D empty tensor that cat skips;
dtypes of 1, 2, 4, 8 and 16 bytes; rows above upstream's grain, so that at 2 threads they are
split between threads. A non-contiguous input takes the general path, for comparison. Inputs
are random bytes; each side hashes each result's bytes, shape and strides in its own process.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_bit_hashes

BODY = """
    DTYPES = [torch.bool, torch.int8, torch.float16, torch.float32, torch.int64,
              torch.complex128]
    out = {}
    for dt in DTYPES:
        cache, new = draw((1, 12, 16, 64), dt), draw((1, 12, 1, 64), dt)
        out[f"{dt}/kv"] = h(torch.cat([cache, new], dim=2))
        out[f"{dt}/three"] = h(torch.cat([draw((1, 1, 768), dt)] * 2 + [new.reshape(1, 1, -1)],
                                         dim=-1))
        parts = [draw((3, k, 5), dt) for k in (1, 4, 0, 2, 7, 1, 3, 2, 5)]
        out[f"{dt}/nine"] = h(torch.cat(parts, dim=1))
        parts = [draw((2, 3, k), dt) for k in range(12)]
        out[f"{dt}/twelve_last"] = h(torch.cat(parts, dim=-1))
        out[f"{dt}/first"] = h(torch.cat([draw((k, 7), dt) for k in (3, 0, 5)], dim=0))
        out[f"{dt}/skipped"] = h(torch.cat([draw((0,), dt), cache, draw((0,), dt), new], dim=2))
        big = [draw((4096, 9), dt), draw((4096, 23), dt)]  # 4096 rows: split between threads
        out[f"{dt}/big"] = h(torch.cat(big, dim=1))
        out[f"{dt}/strided"] = h(torch.cat([big[0], big[1][:, :9].t().contiguous().t()], dim=1))
    print(json.dumps(out))
    """


@pytest.mark.parametrize("threads", [1, 2])
def test_cat_bit_for_bit(threads):
    assert_same_bit_hashes(BODY, threads, seed=5)
