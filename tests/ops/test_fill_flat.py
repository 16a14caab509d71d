"""fill_ and masked_fill_ on contiguous memory (csrc/kernels/cpu/fill_flat.cpp) bit for bit
against upstream at 1 and 2 threads.

Every dtype (words of 1, 2, 4, 8 and 16 bytes, complex32 among them): fill_, zero_, torch.full,
masked_fill_ and masked_fill with a random mask of the same shape (the flat path), a broadcast
mask and a non-contiguous self (the strided path, for comparison), a mask all set and none set.
Inputs are random bytes, so floats carry NaNs with payloads that the elements left alone must
keep. The large cases exceed upstream's grain of 32,768 elements, so at 2 threads they are split
between threads; one size leaves a tail past any vector width. Each side hashes each result's
bytes, shape and strides in its own process.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_bit_hashes

BODY = """
    DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex32,
              torch.complex64, torch.complex128]
    VALUES = {torch.bool: True, torch.complex32: 1.5 - 2j, torch.complex64: 1.5 - 2j,
              torch.complex128: -0.25 + 3j}

    def mask(shape):
        return draw(shape, torch.uint8) < 128

    out = {}
    for dt in DTYPES:
        v = VALUES.get(dt, 3 if not dt.is_floating_point else -2.5)
        for shape in ((7,), (37, 53), (300, 501)):  # the last above the grain
            x = draw(shape, dt)
            m = mask(shape)
            out[f"{dt}/{shape}/fill_"] = h(x.clone().fill_(v))
            out[f"{dt}/{shape}/zero_"] = h(x.clone().zero_())
            out[f"{dt}/{shape}/full"] = h(torch.full(shape, v, dtype=dt))
            out[f"{dt}/{shape}/masked_fill_"] = h(x.clone().masked_fill_(m, v))
            out[f"{dt}/{shape}/masked_fill"] = h(x.masked_fill(m, v))
            out[f"{dt}/{shape}/masked_fill_t"] = h(x.masked_fill(m, torch.tensor(v, dtype=dt)))
            out[f"{dt}/{shape}/all"] = h(x.clone().masked_fill_(torch.ones_like(m), v))
            out[f"{dt}/{shape}/none"] = h(x.clone().masked_fill_(torch.zeros_like(m), v))
            out[f"{dt}/{shape}/bcast"] = h(x.masked_fill(m.reshape(-1)[: shape[-1]], v))
            if len(shape) == 2:
                out[f"{dt}/{shape}/strided"] = h(x.t().clone().t().masked_fill_(m, v))
                out[f"{dt}/{shape}/fill_t"] = h(x.t().clone().t().fill_(v))
    print(json.dumps(out))
    """


@pytest.mark.parametrize("threads", [1, 2])
def test_fills_bit_for_bit(threads):
    assert_same_bit_hashes(BODY, threads, seed=11)
