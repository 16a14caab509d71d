"""Tensor.to's spellings (issue 9, item 5), ours and upstream each in its own process: what
each returns (self itself, or a copy of which dtype) or which exception it raises."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import OURS, UPSTREAM, run_json  # noqa: E402

CODE = r"""
import json, torch
x = torch.arange(6.).reshape(2, 3)
spellings = {
    "None": lambda: x.to(None),
    "None, None": lambda: x.to(None, None),
    "None, float64": lambda: x.to(None, torch.float64),
    "device=None": lambda: x.to(device=None),
    "dtype=None": lambda: x.to(dtype=None),
    "cpu": lambda: x.to("cpu"),
    "torch.device": lambda: x.to(torch.device("cpu")),
    "int64": lambda: x.to(torch.int64),
    "cpu, int32": lambda: x.to("cpu", torch.int32),
    "other": lambda: x.to(torch.zeros(1, dtype=torch.float16)),
    "copy=True": lambda: x.to(torch.float32, copy=True),
    "None, True": lambda: x.to(None, True),
    "cpu, True": lambda: x.to("cpu", True),
    "float64, True": lambda: x.to(torch.float64, True),
    "bad": lambda: x.to("cpu", "float"),
}
out = {}
for name, f in spellings.items():
    try:
        r = f()
        out[name] = ["self" if r is x else "copy", str(r.dtype), r.tolist()]
    except Exception as e:
        out[name] = ["raises", type(e).__name__]
print(json.dumps(out))
"""


def test_to_spellings_agree_with_upstream():
    ours, upstream = run_json(OURS, CODE), run_json(UPSTREAM, CODE)
    assert ours == upstream
    assert upstream["None"][0] == "self"  # the spelling transformers' rotary embeddings use
