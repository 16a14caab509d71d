"""Permuted and strided copies (Note [Permuted copies], csrc/kernels/cpu/copy_plan.cpp) bit for
bit against upstream at 1 and 2 threads.

contiguous(), clone() and copy_ of transposed, permuted, sliced and broadcast tensors: 2-d
transposes, the (B, H, L, D) <-> (B, L, H, D) swaps of attention and other permutations of
four dims, inputs sliced with steps, size-0 and size-1 dims, copy_ into a permuted destination,
clone keeping a permuted layout, channels_last, and a few dtype-converting copies (which take
the element-wise path and must keep its conversions). Every dtype a copy moves as words of 1,
2, 4, 8 and 16 bytes; inputs are random bytes, so floats carry NaNs with payloads that a copy
must keep. The large cases exceed upstream's grain of 32,768 elements, so at 2 threads they are
split. Each side hashes each result's bytes, shape and strides in its own process.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_bit_hashes

BODY = """
    DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
              torch.complex128]
    SMALL = {
        "t_37x53": ((37, 53), lambda x: x.t().contiguous()),
        "t_8x8": ((8, 8), lambda x: x.t().contiguous()),
        "t_7x200": ((7, 200), lambda x: x.t().contiguous()),
        "t_1x64": ((1, 64), lambda x: x.t().contiguous()),
        "t_0x5": ((0, 5), lambda x: x.t().contiguous()),
        "t_step": ((40, 90), lambda x: x[3:, 1::3].t().contiguous()),
        "bhld_tr12": ((2, 3, 17, 5), lambda x: x.transpose(1, 2).contiguous()),
        "bhld_p0213": ((2, 12, 33, 16), lambda x: x.permute(0, 2, 1, 3).contiguous()),
        "bhld_reshape": ((2, 12, 33, 16), lambda x: x.permute(0, 2, 1, 3).reshape(2, 33, 192)),
        "p3120": ((4, 9, 10, 11), lambda x: x.permute(3, 1, 2, 0).contiguous()),
        "p2031": ((4, 9, 10, 11), lambda x: x.permute(2, 0, 3, 1).contiguous()),
        "size1": ((1, 12, 1, 64), lambda x: x.transpose(1, 2).contiguous()),
        "size1_t": ((1, 12, 64, 1), lambda x: x.transpose(0, 3).contiguous()),
        "size0": ((2, 0, 3, 4), lambda x: x.transpose(1, 3).contiguous()),
        "sliced_4d": ((3, 8, 20, 24), lambda x: x[:, 1:7, ::2, 3:].transpose(1, 2).contiguous()),
        "bcast": ((1, 30), lambda x: x.expand(40, 30).t().contiguous()),
        "clone_keep": ((6, 10, 12), lambda x: x.permute(2, 0, 1).clone()),
        "clone_cf": ((6, 10, 12), lambda x: x.permute(2, 0, 1).clone(
            memory_format=torch.contiguous_format)),
        "channels_last": ((2, 5, 9, 7), lambda x: x.contiguous(
            memory_format=torch.channels_last)),
        "copy_into_t": ((33, 45), lambda x: torch.empty(45, 33, dtype=x.dtype).t().copy_(x)),
        "copy_into_p": ((3, 9, 8, 10), lambda x: torch.empty(3, 8, 9, 10, dtype=x.dtype)
                        .transpose(1, 2).copy_(x)),
        "copy_from_bcast": ((10,), lambda x: torch.empty(20, 10, dtype=x.dtype).t()
                            .copy_(x[:, None])),
    }
    LARGE = {  # above the grain: split between threads at 2
        "L_t_300x500": ((300, 500), lambda x: x.t().contiguous()),
        "L_bhld": ((2, 12, 130, 64), lambda x: x.transpose(1, 2).contiguous()),
        "L_blhd": ((2, 130, 12, 64), lambda x: x.permute(0, 2, 1, 3).contiguous()),
        "L_sliced": ((400, 300), lambda x: x[5:, 2::2].t().contiguous()),
        "L_clone": ((400, 300), lambda x: x.clone()),
        "L_rows": ((400, 300), lambda x: x[:, 3:250].contiguous()),
    }
    out = {}
    for dt in DTYPES:
        cases = dict(SMALL)
        if dt in (torch.bool, torch.float16, torch.float32, torch.int64, torch.complex128):
            cases.update(LARGE)
        for name, (shape, f) in cases.items():
            out[f"{dt}/{name}"] = h(f(draw(shape, dt)))
    # Dtype-converting copies keep their conversions, NaN payloads included (Note [Converting
    # copies in memory order]).
    x = draw((37, 53), torch.float32)
    for dt in (torch.float16, torch.bfloat16, torch.int32, torch.bool, torch.complex64):
        out[f"convert/{dt}"] = h(x.t().to(dt))
    x = draw((1, 12, 20, 64), torch.bfloat16)
    out["convert/bf16_f32"] = h(x.transpose(1, 2).to(torch.float32))
    out["convert/bf16_f32_cf"] = h(x.transpose(1, 2).contiguous().to(torch.float32))
    print(json.dumps(out))
    """


@pytest.mark.parametrize("threads", [1, 2])
def test_permuted_copies_bit_for_bit(threads):
    assert_same_bit_hashes(BODY, threads, seed=7)
