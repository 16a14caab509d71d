"""torch.ops spellings take ScalarType, Layout and MemoryFormat as ints and return ScalarType as
an int, as upstream's JIT matcher does (Note [Enums are ints in torch.ops] in
csrc/python/binder.cpp); torch.X spellings keep refusing an int for a dtype. Dtype promotion
refuses what upstream's refuses, with its exception type and words (a TypeError of torch.X by its
type only: its list of signatures is in our own format).

Acceptance: each snippet ends in ours as in upstream (the result's repr, or the exception type
and message), both computed in separate processes. Ints outside an enum's range are ours alone:
upstream's build reads past its table there (a crash for ScalarType 99), so ours is checked to
raise a RuntimeError naming the argument.
"""

from __future__ import annotations

import pytest

from tests.door import _both
from tests.helpers import OURS, run_json

PRELUDE = r'''
import json, torch
out = {}
def case(name, fn):
    try:
        r = fn()
        if isinstance(r, torch.Tensor):
            r = [str(r.dtype), list(r.shape), list(r.stride()), str(r.layout)]
        out[name] = ["returns", repr(r), type(r).__name__]
    except Exception as e:
        # torch.X's TypeError lists the signatures in our own format (not yet upstream's words).
        msg = "" if isinstance(e, TypeError) else str(e).split("\nCast error details")[0]
        out[name] = ["raises", type(e).__name__, msg]
'''

SNIPPETS = {
    "promote_ints": "torch.ops.aten.promote_types.default(6, 4)",
    "promote_packet": "torch.ops.aten.promote_types(torch.float32, torch.int64)",
    "promote_mixed": "torch.ops.aten.promote_types.default(torch.float16, 15)",
    "promote_bool_int": "torch.ops.aten.promote_types.default(True, 4)",
    "promote_float_arg": "torch.ops.aten.promote_types.default(6.0, 4)",
    "promote_torch_x_int": "torch.promote_types(6, 4)",
    "promote_torch_x": "torch.promote_types(torch.int32, torch.float16)",
    "to_dtype_int": "torch.ops.aten.to.dtype(torch.ones(2), 5)",
    "sum_dtype_int": "torch.ops.aten.sum.default(torch.ones(2), dtype=7)",
    "sum_dtype_bool": "torch.ops.aten.sum.default(torch.ones(2), dtype=True)",
    "sum_dtype_float": "torch.ops.aten.sum.default(torch.ones(2), dtype=6.0)",
    "sum_torch_x_int": "torch.sum(torch.ones(2), dtype=6)",
    "empty_dtype_int": "torch.ops.aten.empty.memory_format([2], dtype=7)",
    "empty_layout_int": "torch.ops.aten.empty.memory_format([2], layout=0)",
    "empty_contiguous_int": "torch.ops.aten.empty.memory_format([2, 3], memory_format=0)",
    "clone_preserve_int": "torch.ops.aten.clone.default(torch.ones(2, 3).t(), memory_format=1)",
    "clone_format_float": "torch.ops.aten.clone.default(torch.ones(2), memory_format=1.5)",
    "float8_float32": "torch.promote_types(torch.float8_e4m3fn, torch.float32)",
    "float8_same": "torch.promote_types(torch.float8_e4m3fn, torch.float8_e4m3fn)",
    "e8m0_half": "torch.promote_types(torch.float8_e8m0fnu, torch.float16)",
    "uint16_int64": "torch.promote_types(torch.uint16, torch.int64)",
    "uint16_uint8": "torch.promote_types(torch.uint16, torch.uint8)",
    "uint3_int8": "torch.promote_types(torch.uint3, torch.int8)",
    "qint8_float": "torch.promote_types(torch.qint8, torch.float32)",
    "bits8_float": "torch.promote_types(torch.bits8, torch.float32)",
    "float8_ints": "torch.ops.aten.promote_types.default(23, 5)",
}


@pytest.fixture(scope="module")
def runs():
    body = "\n".join(f"case({k!r}, lambda: {v})" for k, v in SNIPPETS.items())
    return _both.both(PRELUDE, body)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_as_upstream(runs, name):
    ours, up = runs
    assert ours[name] == up[name], SNIPPETS[name]


@pytest.mark.parametrize("call,arg", [
    ("torch.ops.aten.promote_types.default(99, 4)", "type1"),
    ("torch.ops.aten.promote_types.default(4, -1)", "type2"),
    ("torch.ops.aten.empty.memory_format([2], memory_format=9)", "memory_format"),
    ("torch.ops.aten.empty.memory_format([2], layout=8)", "layout"),
])
def test_an_int_past_the_enum_refuses(call, arg):
    r = run_json(OURS, PRELUDE + f"case('x', lambda: {call})\nprint(json.dumps(out))\n")
    kind, etype, msg = r["x"]
    assert (kind, etype) == ("raises", "RuntimeError")
    assert f"argument '{arg}' is " in msg and "which names no" in msg
