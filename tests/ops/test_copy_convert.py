"""Dtype-converting copies (Note [Converting copies in memory order], csrc/kernels/cpu/
copy_convert.cpp) bit for bit against upstream at 1 and 2 threads.

Every pair of 13 dtypes through .to(dtype) on contiguous inputs whose lengths leave every tail
(1, 7, 9, 17, 47 and one above the grain, odd so that the 2-thread runs end in tails too), on a
transposed input (whose result keeps its strides: the memory-order path) and on a stepped
slice (the strided path). Inputs are random bytes, so floats carry NaNs with payloads, signed
zeros, subnormals and infinities: what a conversion makes of a NaN is where upstream's vector
and scalar paths part (float16 -> float32's tail, float32 -> bfloat16's 0xFFFF). Each side
hashes each result's bytes, shape and strides in its own process.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_bit_hashes

BODY = """
    DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex32,
              torch.complex64, torch.complex128]
    out = {}
    for src in DTYPES:
        inputs = {f"n{n}": draw((n,), src) for n in (1, 7, 9, 17, 47)}
        if src in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64):
            inputs["large"] = draw((70001,), src)
        inputs["t"] = draw((33, 20), src).t()
        inputs["step"] = draw((90,), src)[1::3]
        for dst in DTYPES:
            if dst == src:
                continue
            for name, x in inputs.items():
                out[f"{src}->{dst}/{name}"] = h(x.to(dst))
    print(json.dumps(out))
    """


@pytest.mark.parametrize("threads", [1, 2])
def test_converting_copies_bit_for_bit(threads):
    assert_same_bit_hashes(BODY, threads, seed=5, shown=40)
